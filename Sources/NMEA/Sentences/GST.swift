/// GST: GNSS pseudorange error statistics (1-sigma).
///
/// `$GPGST,hhmmss.ss,r.r,a.a,b.b,o.o,la.l,lo.o,al.l*hh`
public struct GST: Sendable, Hashable {
    public var time: TimeOfDay?
    /// RMS of the pseudorange residuals, metres.
    public var rangeRMS: FixedDecimal?
    public var semiMajorSigma: FixedDecimal?
    public var semiMinorSigma: FixedDecimal?
    /// Orientation of the semi-major axis, degrees true.
    public var orientation: FixedDecimal?
    public var latitudeSigma: FixedDecimal?
    public var longitudeSigma: FixedDecimal?
    public var altitudeSigma: FixedDecimal?

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> GST {
        var s = GST()
        // Required: the time (field 1); the rest is optional, an unreadable value absent.
        s.time = try f.time()
        s.rangeRMS = try f.optionalDecimal()
        s.semiMajorSigma = try f.optionalDecimal()
        s.semiMinorSigma = try f.optionalDecimal()
        s.orientation = try f.optionalDecimal()
        s.latitudeSigma = try f.optionalDecimal()
        s.longitudeSigma = try f.optionalDecimal()
        s.altitudeSigma = try f.optionalDecimal()
        return s
    }
}
