/// GGA: global positioning system fix data.
///
/// `$GPGGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,q,nn,h.h,a.a,M,g.g,M,age,sta*hh`
public struct GGA: Sendable, Hashable {
    public var time: TimeOfDay?
    public var latitude: Coordinate?
    public var longitude: Coordinate?
    public var quality: GGAQuality?
    /// Satellites used in the solution.
    public var satellitesUsed: Int?
    public var hdop: FixedDecimal?
    /// Antenna altitude above mean sea level (the geoid), metres.
    public var altitudeMSL: FixedDecimal?
    /// Geoid separation: ellipsoid height minus MSL height, metres.
    public var geoidSeparation: FixedDecimal?
    /// Age of differential corrections, seconds.
    public var differentialAge: FixedDecimal?
    /// Differential reference station ID.
    public var differentialStation: Int?

    /// Required: time (field 1) and a quality (6) that is a number; an unreadable one refuses the
    /// sentence. A quality number outside 0...8 (Jackson Labs) is absent and the position kept, as
    /// gpsd keeps it. Every other field is optional: unreadable, it is absent. See QUIRKS.md.
    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> GGA {
        var s = GGA()
        s.time = try f.time()
        (s.latitude, s.longitude) = try f.optionalPosition()
        if let q = try f.integer() {
            if q >= 0, q <= 8, let quality = GGAQuality(rawValue: UInt8(q)) {
                s.quality = quality
            } else {
                try f.noteUnreadable(field: 6, .outOfRange)
            }
        }
        s.satellitesUsed = try f.optionalInteger(in: 0...999)
        s.hdop = try f.optionalDecimal()
        s.altitudeMSL = try f.optionalDecimal()
        f.skip()  // M
        s.geoidSeparation = try f.optionalDecimal()
        f.skip()  // M
        s.differentialAge = try f.optionalDecimal()
        // The station ID is sometimes followed by junk; read it leniently.
        if let range = f.raw() { s.differentialStation = try? f.parseInteger(range) }
        return s
    }
}
