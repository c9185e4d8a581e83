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

    static func parse(_ reader: FieldReader) throws(NMEAError) -> GGA {
        var f = reader
        var s = GGA()
        s.time = try f.time()
        s.latitude = try f.coordinate(latitude: true)
        s.longitude = try f.coordinate(latitude: false)
        if let q = try f.integer() {
            guard let quality = GGAQuality(rawValue: UInt8(clamping: q)), q >= 0 else { throw f.fail(.outOfRange) }
            s.quality = quality
        }
        s.satellitesUsed = try f.integer(in: 0...999)
        s.hdop = try f.decimal()
        s.altitudeMSL = try f.decimal()
        f.skip()  // M
        s.geoidSeparation = try f.decimal()
        f.skip()  // M
        s.differentialAge = try f.decimal()
        // The station ID is sometimes followed by junk; read it leniently.
        if let range = f.raw() { s.differentialStation = try? f.parseInteger(range) }
        return s
    }
}
