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

    static func parse(_ reader: FieldReader) throws(NMEAError) -> RMC {
        var f = reader
        var s = RMC()
        s.time = try f.time()
        s.isValid = try f.validity()
        s.latitude = try f.coordinate(latitude: true)
        s.longitude = try f.coordinate(latitude: false)
        s.speedKnots = try f.decimal()
        s.courseTrue = try f.decimal()
        if let date = try f.shortDate() {
            s.day = UInt8(date.day)
            s.month = UInt8(date.month)
            s.twoDigitYear = UInt8(date.year)
        }
        s.magneticVariation = try f.signedByLetter(negativeLetter: 0x57, positiveLetter: 0x45)
        s.mode = try f.modeIndicator()
        s.navigationalStatus = try f.navigationalStatus()
        return s
    }
}
