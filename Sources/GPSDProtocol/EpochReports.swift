// One epoch's TPV and SKY as bytes for a server that sends them to many watchers: written once,
// straight into a buffer it reuses (no string per number, per member or per satellite).
#if canImport(NMEA)
import NMEA
#endif

extension GPSDReport {
    /// One epoch's report lines as bytes: TPV, then (with `sky`) SKY, each followed by
    /// ``lineTerminator``; the same text as ``tpv(_:device:extras:)`` and ``sky(_:device:)``.
    /// `buffer` is replaced with them, keeping its capacity, so that a server that reuses it
    /// allocates nothing for its reports once it has grown.
    public static func epochReports(_ fix: Fix, device: String?, extras: GPSDTPVExtras, sky: Bool, into buffer: inout [UInt8]) {
        var tpv = GPSDObjectWriter(class: "TPV", taking: &buffer, appending: false)
        writeTPV(fix, device: device, extras: extras, into: &tpv)
        buffer = tpv.finish()
        buffer.append(0x0D)
        buffer.append(0x0A)
        guard sky else { return }
        // The SKY object goes on after the TPV line in the same bytes.
        var out = GPSDObjectWriter(class: "SKY", taking: &buffer, appending: true)
        writeSKY(fix, device: device, into: &out)
        buffer = out.finish()
        buffer.append(0x0D)
        buffer.append(0x0A)
    }

    static func writeSKY(_ fix: Fix, device: String?, into out: inout GPSDObjectWriter) {
        out.add("device", device)
        out.add("time", fix.time.flatMap(iso8601))
        out.add("vdop", fix.vdop, digits: 2)
        out.add("hdop", fix.hdop, digits: 2)
        out.add("pdop", fix.pdop, digits: 2)
        let satellites = fix.satellites
        var listed = 0
        var used = 0
        for index in 0..<satellites.count where satellites[index].prn != 0 {
            listed += 1
            if satellites[index].used { used += 1 }
        }
        out.add("nSat", listed)
        out.add("uSat", used)
        guard listed > 0 else { return }
        var next = 0
        out.addObjects("satellites", count: listed) { element, _ in
            while satellites[next].prn == 0 { next += 1 }
            writeSatellite(satellites[next], into: &element)
            next += 1
        }
    }

    static func writeSatellite(_ satellite: SatelliteInfo, into out: inout GPSDObjectWriter) {
        let identity = gpsdIdentity(satellite)
        out.add("PRN", identity.prn)
        out.add("el", satellite.elevation.flatMap { (-90...90).contains($0) ? Double($0) : nil }, digits: 1)
        out.add("az", satellite.azimuth.flatMap { $0 <= 359 ? Double($0) : nil }, digits: 1)
        out.add("ss", satellite.snr.map(Double.init), digits: 1)
        out.add("used", satellite.used)
        out.add("gnssid", identity.gnssid)
        out.add("svid", identity.svid)
        out.add("sigid", satellite.gnssID != nil ? satellite.signalID.map(Int.init) : nil)
    }
}
