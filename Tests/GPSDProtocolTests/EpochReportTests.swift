import GPSDProtocol
import NMEA
import Testing

@Suite("One epoch's reports into a reused buffer")
struct EpochReportTests {
    /// A fix with a sky of several constellations, a satellite numbered 0 (skipped) and one untracked.
    static func skyFix() -> Fix {
        var fix = transcriptFix()
        fix.satellites.append(SatelliteInfo(constellation: .gps, prn: 0, elevation: 10, used: true))
        fix.satellites.append(SatelliteInfo(constellation: .gps, prn: 7, elevation: 45, azimuth: 120, snr: 38, used: true))
        fix.satellites.append(SatelliteInfo(constellation: .glonass, prn: 70, elevation: 91, azimuth: 360, snr: nil, used: false))
        fix.satellites.append(SatelliteInfo(constellation: .galileo, prn: 12, elevation: 3, azimuth: 301, snr: 22, used: false))
        fix.satellites.append(SatelliteInfo(constellation: nil, prn: 200, elevation: -5, azimuth: 0, snr: 41, used: true))
        return fix
    }

    @Test("TPV and SKY lines are the bytes of tpv() and sky() with CR LF, whatever the buffer held before")
    func sameBytes() {
        let fix = Self.skyFix()
        let expected = Array((GPSDReport.tpv(fix, device: "/dev/ttyS0", extras: transcriptExtras) + "\r\n"
                              + GPSDReport.sky(fix, device: "/dev/ttyS0") + "\r\n").utf8)
        var buffer = Array(repeating: UInt8(ascii: "x"), count: 3000)
        GPSDReport.epochReports(fix, device: "/dev/ttyS0", extras: transcriptExtras, sky: true, into: &buffer)
        #expect(buffer == expected)
        // Again into the same buffer: the same bytes, its capacity kept.
        let capacity = buffer.capacity
        GPSDReport.epochReports(fix, device: "/dev/ttyS0", extras: transcriptExtras, sky: true, into: &buffer)
        #expect(buffer == expected)
        #expect(buffer.capacity == capacity)
        GPSDReport.epochReports(fix, device: nil, extras: GPSDTPVExtras(), sky: false, into: &buffer)
        #expect(buffer == Array((GPSDReport.tpv(fix) + "\r\n").utf8))
    }

    @Test("numbers written as bytes are printf's: rounding, padding, signs, huge values",
          arguments: [0.0, -0.0, 0.0004, -0.0004, 0.0005, 1.0005, 2.5, -2.5, 44.068840000, -121.314191667, 1e-9, 123456789.123456789,
                      8.9e9, 9.1e9, 1.5e18, -3e19, 359.95, 0.125])
    func numbers(value: Double) {
        var fix = Fix()
        fix.mode = .threeD
        fix.latitude = value
        fix.longitude = value
        fix.altitudeHAE = value
        fix.speed = value
        fix.magneticVariation = value
        var buffer: [UInt8] = []
        GPSDReport.epochReports(fix, device: nil, extras: GPSDTPVExtras(), sky: false, into: &buffer)
        let line = String(decoding: buffer, as: UTF8.self)
        for (digits, key) in [(9, "lat"), (9, "lon"), (4, "altHAE"), (3, "speed"), (1, "magvar")] {
            let printed = GPSDNumber.fixed(value, digits) ?? "none"
            #expect(line.contains("\"\(key)\":\(printed),") || line.contains("\"\(key)\":\(printed)}"), "\(key) \(value): \(line)")
        }
    }
}
