/// Decoders of the CASIC navigation messages the L76K family sends: NAV-PV, NAV-TIMEUTC, NAV-DOP and
/// NAV-GPSINFO / NAV-BDSINFO / NAV-GLNINFO. Layouts from the CASIC protocol specification section 2.7
/// as gpsd's `drivers/driver_casic.c` reads them, checked against the frames of the gpsd logs
/// `quectel-l76k-binary.log` and `quectel-l76k-dual.log`.

/// CASIC NAV-PV `posValid` / `velValid` (CASIC 2.7.3): only 2D, 3D and GNSS+DR are solutions.
public enum CASICFixValidity: UInt8, Sendable, Hashable {
    case none = 0, external = 1, estimate = 2, hold = 3, projected = 4, fast = 5
    case twoD = 6, threeD = 7, gnssDeadReckoning = 8
}

/// CASIC NAV-PV (0x01 0x03): position and velocity, 80 bytes. The accuracies are variances.
public struct CASICNavPV: Sendable, Hashable {
    /// Milliseconds since power-on: the epoch's key in every CASIC navigation message.
    public var runTime: UInt32
    public var positionValidity: CASICFixValidity?, velocityValidity: CASICFixValidity?
    public var numSV: UInt8
    public var pDOP: Float
    public var longitude: Double, latitude: Double
    /// Height above the ellipsoid and geoid separation, metres.
    public var height: Float, geoidSeparation: Float
    /// Horizontal and vertical position variance, m².
    public var hAccVariance: Float, vAccVariance: Float
    /// Velocity north, east, up, m/s; ground speed m/s; heading degrees.
    public var velN: Float, velE: Float, velU: Float, speed2D: Float, heading: Float
    /// Speed variance (m/s)², course variance deg² (1e6 means unknown).
    public var sAccVariance: Float, cAccVariance: Float

    /// Decodes a NAV-PV payload (80 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 80 else { return nil }
        typealias L = LittleEndian
        runTime = L.u32(payload, 0)
        positionValidity = CASICFixValidity(rawValue: L.u8(payload, 4))
        velocityValidity = CASICFixValidity(rawValue: L.u8(payload, 5))
        numSV = L.u8(payload, 7)
        pDOP = L.f32(payload, 12)
        longitude = L.f64(payload, 16); latitude = L.f64(payload, 24)
        height = L.f32(payload, 32); geoidSeparation = L.f32(payload, 36)
        hAccVariance = L.f32(payload, 40); vAccVariance = L.f32(payload, 44)
        velN = L.f32(payload, 48); velE = L.f32(payload, 52); velU = L.f32(payload, 56)
        speed2D = L.f32(payload, 64); heading = L.f32(payload, 68)
        sAccVariance = L.f32(payload, 72); cAccVariance = L.f32(payload, 76)
    }

    /// The 1-sigma value of a variance, as gpsd's `casic_sigma()`: zero or non-finite means "not computed".
    public static func sigma(_ variance: Float) -> Double? {
        guard variance.isFinite, variance > 0 else { return nil }
        return Double(variance).squareRoot()
    }
}

/// CASIC NAV-TIMEUTC (0x01 0x10): UTC date and time, 24 bytes.
public struct CASICNavTimeUTC: Sendable, Hashable {
    public var runTime: UInt32
    public var millisecond: UInt16, year: UInt16, month: UInt8, day: UInt8, hour: UInt8, minute: UInt8, second: UInt8
    /// Bit 0 time of week valid, bit 1 week valid, bit 2 leap seconds valid.
    public var valid: UInt8
    /// 0 none, 1 external, 2 from one satellite, 3 agreed by several.
    public var dateValid: UInt8

    /// Decodes a NAV-TIMEUTC payload (24 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 24 else { return nil }
        typealias L = LittleEndian
        runTime = L.u32(payload, 0)
        millisecond = L.u16(payload, 12); year = L.u16(payload, 14)
        month = L.u8(payload, 16); day = L.u8(payload, 17); hour = L.u8(payload, 18)
        minute = L.u8(payload, 19); second = L.u8(payload, 20)
        valid = L.u8(payload, 21); dateValid = L.u8(payload, 23)
    }

    /// Whether gpsd would take this time: complete UTC (all three valid bits) and a date.
    public var isUsable: Bool { valid & 0x07 == 0x07 && dateValid != 0 }
}

/// CASIC NAV-DOP (0x01 0x01): dilutions of precision as floats, 28 bytes.
public struct CASICNavDOP: Sendable, Hashable {
    public var runTime: UInt32
    public var pDOP: Float, hDOP: Float, vDOP: Float, tDOP: Float

    /// Decodes a NAV-DOP payload (28 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 28 else { return nil }
        typealias L = LittleEndian
        runTime = L.u32(payload, 0)
        pDOP = L.f32(payload, 4); hDOP = L.f32(payload, 8); vDOP = L.f32(payload, 12); tDOP = L.f32(payload, 24)
    }
}

/// CASIC NAV-GPSINFO (0x01 0x20), NAV-BDSINFO (0x01 0x21), NAV-GLNINFO (0x01 0x22): one constellation's
/// satellites, 8 + 12 × n bytes. The satellite ids are u-blox `gnssId:svId` numbering, as gpsd notes.
public enum CASICNavSatelliteInfo {
    /// The UBX `gnssId` of the constellation a message id carries (0x20 GPS, 0x21 BeiDou, 0x22 GLONASS).
    public static func gnssID(messageID: UInt8) -> UInt8? {
        switch messageID {
        case 0x20: return 0
        case 0x21: return 3
        case 0x22: return 6
        default: return nil
        }
    }

    /// Appends the satellites to `sky`; returns the epoch's run time, or `nil` when the payload is short,
    /// of an unknown constellation, or shorter than its count says.
    public static func decode(messageID: UInt8, payload: borrowing Span<UInt8>, appendingTo sky: inout SatelliteList) -> UInt32? {
        typealias L = LittleEndian
        guard let gnss = gnssID(messageID: messageID), payload.count >= 8 else { return nil }
        let count = Int(L.u8(payload, 4))
        guard payload.count >= 8 + 12 * count else { return nil }
        for index in 0..<count {
            let at = 8 + 12 * index
            let status = L.u16(payload, at + 2)
            sky.append(UBXGNSS.satellite(gnssID: gnss, svID: L.u8(payload, at + 1), cno: L.u8(payload, at + 4),
                                         elevation: L.i8(payload, at + 5), azimuth: L.i16(payload, at + 6),
                                         used: status & 0x0001 != 0))
        }
        return L.u32(payload, 0)
    }
}
