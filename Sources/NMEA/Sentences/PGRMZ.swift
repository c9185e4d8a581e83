/// PGRMZ (Garmin proprietary): altitude. `$PGRMZ,246,f,3*1B` — value, unit (`f` feet or `m` metres),
/// and position fix dimension (2 = user altitude, 3 = GNSS altitude).
public struct PGRMZ: Sendable, Hashable {
    /// Altitude in metres above mean sea level (converted from feet when the unit is `f`).
    public var altitudeMetres: Double?
    /// The altitude as written.
    public var altitude: FixedDecimal?
    /// The unit letter (`f` or `m`).
    public var unit: UInt8?
    /// Field 3: 2 for a user-entered altitude, 3 for a GNSS altitude.
    public var dimension: Int?

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> PGRMZ {
        var s = PGRMZ()
        // Required: the altitude (field 1). An unknown unit leaves the altitude in metres absent
        // (the value as written is kept); an unreadable dimension is absent. See QUIRKS.md.
        s.altitude = try f.decimal()
        s.unit = try f.tolerant { (f) throws(NMEAError) in try f.character() }
        s.dimension = try f.optionalInteger(in: 0...9)
        if let altitude = s.altitude {
            switch s.unit {
            case 0x66?, 0x46?: s.altitudeMetres = altitude.doubleValue * 0.3048  // f, F
            case 0x6D?, 0x4D?, nil: s.altitudeMetres = altitude.doubleValue      // m, M
            case let other?: try f.noteUnreadable(field: 2, .unexpectedValue(other))
            }
        }
        return s
    }
}
