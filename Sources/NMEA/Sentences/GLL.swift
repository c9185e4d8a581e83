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

    /// Required: time (field 5) and status (6), either of which may be empty (Garmin 65 sends
    /// neither); an unreadable one refuses the sentence. Position and mode are optional. See QUIRKS.md.
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> GLL {
        var s = GLL()
        (s.latitude, s.longitude) = try f.optionalPosition()
        s.time = try f.time()
        s.isValid = try f.validity()
        s.mode = try f.optionalMode()
        return s
    }
}
