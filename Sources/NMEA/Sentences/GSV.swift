/// One satellite as reported by GSV.
public struct SatelliteView: Sendable, Hashable {
    /// Satellite number in the NMEA numbering of the talker.
    public var prn: UInt16
    /// Elevation, degrees (-90...90).
    public var elevation: Int16?
    /// Azimuth, degrees true (0...359).
    public var azimuth: UInt16?
    /// Carrier-to-noise density, dB-Hz; `nil` when not tracked.
    public var snr: UInt8?

    public init(prn: UInt16, elevation: Int16? = nil, azimuth: UInt16? = nil, snr: UInt8? = nil) {
        self.prn = prn
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
    }
}

/// GSV: GNSS satellites in view, one part of a multi-sentence series.
///
/// `$GPGSV,n,m,vv,pp,ee,aaa,ss,...,s*hh` (the trailing signal ID since NMEA 4.10; 4.11 allows a hex letter).
public struct GSV: Sendable {
    public var totalMessages: Int?
    public var messageNumber: Int?
    public var satellitesInView: Int?
    /// Up to four satellites in this part.
    public var satellites: InlineArray<4, SatelliteView>
    public var satelliteCount: Int
    /// NMEA 4.10 signal ID (1...15; the letter form `A`-`F` gives 10-15).
    public var signalID: UInt8?

    @inline(__always)
    init() {
        // A literal: stored directly (`InlineArray(repeating:)` is a call and a copy).
        let empty = SatelliteView(prn: 0)
        satellites = [empty, empty, empty, empty]
        satelliteCount = 0
    }

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> GSV {
        var s = GSV()
        let remaining = max(0, f.fieldCount &- 3)
        let hasSignalID = remaining & 3 == 1
        let groups = remaining &>> 2

        s.totalMessages = try f.integer(in: 0...99)
        s.messageNumber = try f.integer(in: 0...99)
        // Required: the message count and number (fields 1, 2). The rest is optional: an unreadable
        // value is absent (a satellite without a readable number is left out). See QUIRKS.md.
        s.satellitesInView = try f.optionalInteger(in: 0...999)
        for _ in 0..<groups {
            if let group = f.standardSatellite() {
                // Stored here with its elevation and azimuth known to be present.
                guard group.prn > 0, s.satelliteCount < 4 else { continue }
                s.satellites[s.satelliteCount] = SatelliteView(
                    prn: UInt16(truncatingIfNeeded: group.prn), elevation: Int16(truncatingIfNeeded: group.elevation),
                    azimuth: UInt16(truncatingIfNeeded: group.azimuth), snr: group.snr.map { UInt8(truncatingIfNeeded: $0) })
                s.satelliteCount &+= 1
                continue
            }
            let prn = try f.optionalInteger(in: 0...999)
            let elevation = try f.optionalInteger(in: -90...90)
            let azimuth = try f.optionalInteger(in: 0...360)
            let snr = try f.optionalInteger(in: 0...99)
            guard let prn, prn > 0, s.satelliteCount < 4 else { continue }
            // Each value is within its bounds (checked as it was read), so no conversion loses anything.
            s.satellites[s.satelliteCount] = SatelliteView(
                prn: UInt16(truncatingIfNeeded: prn), elevation: elevation.map { Int16(truncatingIfNeeded: $0) },
                azimuth: azimuth.map { UInt16(truncatingIfNeeded: $0) }, snr: snr.map { UInt8(truncatingIfNeeded: $0) })
            s.satelliteCount &+= 1
        }
        if hasSignalID, let range = f.raw() {
            if range.count == 1, let value = NMEAChecksum.hexValue(f.base[range.lowerBound]) {
                s.signalID = value
            } else {
                try f.noteUnreadable(field: f.index, .unexpectedValue(f.base[range.lowerBound]))
            }
        }
        return s
    }
}
