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

    /// Required: time (field 5), which may be empty (Garmin 65 sends neither time nor status); an
    /// unreadable one refuses the sentence. Status (6) is `A` or `V`; another letter (Magellan
    /// eXplorist 110 swaps status and mode: `N,V` while it has no fix) is absent, counted, and no
    /// fix, as gpsd takes anything but `A` (Q-GLL-3). Position and mode are optional. See QUIRKS.md.
    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> GLL {
        var s = GLL()
        (s.latitude, s.longitude) = try f.optionalPosition()
        s.time = try f.time()
        s.isValid = try f.tolerant { (f) throws(NMEAError) in try f.validity() }
        s.mode = try f.optionalMode()
        return s
    }
}
