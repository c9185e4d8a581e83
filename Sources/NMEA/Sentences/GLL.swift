/// GLL: geographic position, latitude and longitude.
///
/// `$GPGLL,llll.ll,a,yyyyy.yy,a,hhmmss.ss,A,m*hh`
public struct GLL: Sendable, Hashable {
    public var latitude: Coordinate?
    public var longitude: Coordinate?
    public var time: TimeOfDay?
    /// `A` valid, `V` not valid.
    public var isValid: Bool?
    public var mode: ModeIndicator?

    static func parse(_ reader: FieldReader) throws(NMEAError) -> GLL {
        var f = reader
        var s = GLL()
        s.latitude = try f.coordinate(latitude: true)
        s.longitude = try f.coordinate(latitude: false)
        s.time = try f.time()
        s.isValid = try f.validity()
        s.mode = try f.modeIndicator()
        return s
    }
}
