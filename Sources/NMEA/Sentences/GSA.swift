/// GSA: GNSS DOP and active satellites.
///
/// `$GNGSA,A,3,pp,pp,...(12),p.p,h.h,v.v,s*hh` (field 18, the system ID, since NMEA 4.10).
public struct GSA: Sendable {
    /// Field 1: `M` manual, `A` automatic 2D/3D switching.
    public var selectionMode: UInt8?
    public var fixType: GSAFixType?
    /// Satellite numbers used in the solution (up to 16 kept; see ``satelliteCount``).
    public var satellites: InlineArray<16, UInt16>
    /// How many satellite numbers are in ``satellites``.
    public var satelliteCount: Int
    public var pdop: FixedDecimal?
    public var hdop: FixedDecimal?
    public var vdop: FixedDecimal?
    /// NMEA 4.10 system ID (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC).
    public var systemID: Int?

    @inline(__always)
    init() {
        // A literal: stored directly (`InlineArray(repeating:)` is a call and a copy).
        satellites = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        satelliteCount = 0
    }

    /// The constellation named by ``systemID``.
    public var constellation: Constellation? { systemID.flatMap(Constellation.init(systemID:)) }

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> GSA {
        var s = GSA()
        // Count the fields to tell whether a system ID follows the three DOPs: the NMEA 4.10 layout
        // (12 satellites, 3 DOPs, the ID) has 18 fields; a longer list (Navior CH-4701: 24
        // satellites) ends with a one-character ID or with the DOPs. SiRF TriG puts a decimal number
        // in field 18: it is not an ID (absent, counted unreadable).
        let total = f.fieldCount
        let hasSystemID = total == 18 || (total > 18 && f.lastFieldLength == 1)
        let satelliteFields = max(0, total &- 5 &- (hasSystemID ? 1 : 0))

        // Every field is optional: an unreadable fix type (u-blox Antaris sends `E` when dead
        // reckoning; gpsd ignores it) or DOP is absent, an unreadable satellite number skipped.
        s.selectionMode = try f.tolerant { (f) throws(NMEAError) in try f.character() }
        s.fixType = try f.tolerant { (f) throws(NMEAError) in
            guard let fix = try f.integer() else { return nil }
            guard fix >= 1, fix <= 3, let type = GSAFixType(rawValue: UInt8(fix)) else { throw f.fail(.outOfRange) }
            return type
        }
        for _ in 0..<satelliteFields {
            // A zero (padding some receivers send) is no satellite.
            guard let prn = try f.optionalInteger(in: 0...999), prn > 0 else { continue }
            if s.satelliteCount < 16 {
                s.satellites[s.satelliteCount] = UInt16(prn)
                s.satelliteCount += 1
            }
        }
        s.pdop = try f.optionalDecimal()
        s.hdop = try f.optionalDecimal()
        s.vdop = try f.optionalDecimal()
        if hasSystemID, let range = f.raw() {
            if range.count == 1, let value = NMEAChecksum.hexValue(f.base[range.lowerBound]) {
                s.systemID = Int(value)
            } else {
                try f.noteUnreadable(field: f.index, .unexpectedValue(f.base[range.lowerBound]))
            }
        }
        return s
    }
}
