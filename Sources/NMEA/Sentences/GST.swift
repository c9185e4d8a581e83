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

    static func parse(_ reader: FieldReader) throws(NMEAError) -> GST {
        var f = reader
        var s = GST()
        s.time = try f.time()
        s.rangeRMS = try f.decimal()
        s.semiMajorSigma = try f.decimal()
        s.semiMinorSigma = try f.decimal()
        s.orientation = try f.decimal()
        s.latitudeSigma = try f.decimal()
        s.longitudeSigma = try f.decimal()
        s.altitudeSigma = try f.decimal()
        return s
    }
}
