/// GBS: GNSS satellite fault detection (RAIM), with expected 1-sigma errors.
///
/// `$GPGBS,hhmmss.ss,la.l,lo.o,al.l,sss,p.p,b.b,s.s,i,s*hh`
public struct GBS: Sendable, Hashable {
    public var time: TimeOfDay?
    public var latitudeError: FixedDecimal?
    public var longitudeError: FixedDecimal?
    public var altitudeError: FixedDecimal?
    public var failedSatellite: Int?
    public var probabilityOfMissedDetection: FixedDecimal?
    public var biasEstimate: FixedDecimal?
    public var biasStandardDeviation: FixedDecimal?
    public var systemID: Int?
    public var signalID: Int?

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> GBS {
        var s = GBS()
        // Required: the time (field 1); the rest is optional, an unreadable value absent.
        s.time = try f.time()
        s.latitudeError = try f.optionalDecimal()
        s.longitudeError = try f.optionalDecimal()
        s.altitudeError = try f.optionalDecimal()
        s.failedSatellite = try f.tolerant { (f) throws(NMEAError) in try f.integer() }
        s.probabilityOfMissedDetection = try f.optionalDecimal()
        s.biasEstimate = try f.optionalDecimal()
        s.biasStandardDeviation = try f.optionalDecimal()
        if let range = f.raw() { s.systemID = (try? f.parseInteger(range)) ?? NMEAChecksum.hexValue(f.base[range.lowerBound]).map(Int.init) }
        if let range = f.raw() { s.signalID = (try? f.parseInteger(range)) ?? NMEAChecksum.hexValue(f.base[range.lowerBound]).map(Int.init) }
        return s
    }
}
