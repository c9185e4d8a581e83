/// RMC: recommended minimum specific GNSS data.
///
/// `$GPRMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,x.x,x.x,ddmmyy,x.x,a,m,s*hh`
public struct RMC: Sendable, Hashable {
    public var time: TimeOfDay?
    /// Field 2: `A` valid, `V` warning.
    public var isValid: Bool?
    public var latitude: Coordinate?
    public var longitude: Coordinate?
    /// Speed over ground, knots.
    public var speedKnots: FixedDecimal?
    /// Course over ground, degrees true.
    public var courseTrue: FixedDecimal?
    /// Field 9 as (day, month, two-digit year).
    public var day: UInt8?
    public var month: UInt8?
    public var twoDigitYear: UInt8?
    /// Magnetic variation, degrees; west is negative.
    public var magneticVariation: FixedDecimal?
    /// Field 12 (NMEA 2.3+).
    public var mode: ModeIndicator?
    /// Field 13 (NMEA 4.10+).
    public var navigationalStatus: NavigationalStatus?

    /// Required: time (field 1) and status (2); an unreadable one refuses the sentence. Every other
    /// field is optional: unreadable, it is absent (the position as a pair: a bad latitude drops
    /// the longitude too). See QUIRKS.md.
    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> RMC {
        var s = RMC()
        s.time = try f.time()
        s.isValid = try f.validity()
        (s.latitude, s.longitude) = try f.optionalPosition()
        s.speedKnots = try f.optionalDecimal()
        s.courseTrue = try f.optionalDecimal()
        if let date = try f.tolerant({ (f) throws(NMEAError) in try f.shortDate() }) {
            s.day = UInt8(date.day)
            s.month = UInt8(date.month)
            s.twoDigitYear = UInt8(date.year)
        }
        // SiRF III (NMEA 2.3 firmware) writes the mode letter where the variation's E/W belongs.
        s.magneticVariation = try f.optionalEastWest()
        s.mode = try f.optionalMode()
        s.navigationalStatus = try f.tolerant { (f) throws(NMEAError) in try f.navigationalStatus() }
        return s
    }
}
