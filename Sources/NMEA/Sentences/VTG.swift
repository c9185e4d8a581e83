/// VTG: course over ground and ground speed.
///
/// `$GPVTG,t.t,T,m.m,M,n.n,N,k.k,K,m*hh`; the pre-2.0 form without unit letters is accepted too.
public struct VTG: Sendable, Hashable {
    public var courseTrue: FixedDecimal?
    public var courseMagnetic: FixedDecimal?
    public var speedKnots: FixedDecimal?
    public var speedKilometresPerHour: FixedDecimal?
    public var mode: ModeIndicator?

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> VTG {
        var s = VTG()
        // Every field is optional: an unreadable one is absent. See QUIRKS.md.
        if f.fieldCount <= 4 {
            s.courseTrue = try f.optionalDecimal()
            s.courseMagnetic = try f.optionalDecimal()
            s.speedKnots = try f.optionalDecimal()
            s.speedKilometresPerHour = try f.optionalDecimal()
            return s
        }
        s.courseTrue = try f.optionalDecimal()
        f.skip()
        s.courseMagnetic = try f.optionalDecimal()
        f.skip()
        s.speedKnots = try f.optionalDecimal()
        f.skip()
        s.speedKilometresPerHour = try f.optionalDecimal()
        f.skip()
        s.mode = try f.optionalMode()
        return s
    }
}
