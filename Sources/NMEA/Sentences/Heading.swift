/// HDT: heading, true. `$HEHDT,h.h,T*hh`
public struct HDT: Sendable, Hashable {
    public var headingTrue: FixedDecimal?

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> HDT {
        return HDT(headingTrue: try f.decimal())
    }
}

/// HDG: heading, deviation and variation. `$HCHDG,h.h,d.d,a,v.v,a*hh`
public struct HDG: Sendable, Hashable {
    /// Magnetic sensor heading, degrees.
    public var sensorHeading: FixedDecimal?
    /// Magnetic deviation, degrees; west is negative.
    public var deviation: FixedDecimal?
    /// Magnetic variation, degrees; west is negative.
    public var variation: FixedDecimal?

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> HDG {
        var s = HDG()
        s.sensorHeading = try f.decimal()
        s.deviation = try f.optionalEastWest()
        s.variation = try f.optionalEastWest()
        return s
    }
}

/// THS: true heading and status. `$GPTHS,h.h,a*hh` with mode A autonomous, E estimated, M manual,
/// S simulator, V not valid.
public struct THS: Sendable, Hashable {
    public var headingTrue: FixedDecimal?
    public var mode: UInt8?

    /// Whether the mode letter marks the heading usable.
    public var isValid: Bool { mode != nil && mode != 0x56 }

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> THS {
        var s = THS()
        s.headingTrue = try f.decimal()
        s.mode = try f.tolerant { (f) throws(NMEAError) in try f.flag { [0x41, 0x45, 0x4D, 0x53, 0x56].contains($0) ? $0 : nil } }
        return s
    }
}
