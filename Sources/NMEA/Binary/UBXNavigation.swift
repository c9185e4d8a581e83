/// Decoders of the u-blox UBX navigation solution messages (NAV-PVT, HNR-PVT, and u-blox 6's
/// NAV-SOL, NAV-POSLLH, NAV-VELNED, plus NAV-DOP). Layouts from the u-blox interface descriptions
/// (u-blox 6 GPS.G6-SW-10018, u-blox 8 UBX-13003221, F9 HPG 1.32 UBX-22008968, M10 SPG 5.10
/// UBX-21035062) and checked against gpsd's `drivers/driver_ubx.c` and the frames of the gpsd logs.
///
/// Every decoder takes the payload of a frame whose checksum passed and returns `nil` when it is
/// shorter than the message's fixed part. Nothing is allocated.

/// The UBX fix type (NAV-PVT `fixType`, NAV-SOL/NAV-STATUS `gpsFix`, HNR-PVT `gpsFix`).
public enum UBXFixType: UInt8, Sendable, Hashable {
    case noFix = 0, deadReckoningOnly = 1, twoD = 2, threeD = 3, gnssDeadReckoning = 4, timeOnly = 5

    /// The fix mode this type gives, as gpsd maps it (dead reckoning only counts as 2D, time-only as 3D).
    public var mode: FixMode {
        switch self {
        case .noFix: return .noFix
        case .deadReckoningOnly, .twoD: return .twoD
        case .threeD, .gnssDeadReckoning, .timeOnly: return .threeD
        }
    }
}

/// The time-validity bits u-blox reports with a UTC time (NAV-PVT `valid` and `flags2`, HNR-PVT `valid`).
public struct TimeValidity: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The UTC date is valid.
    public static let validDate = TimeValidity(rawValue: 1 << 0)
    /// The UTC time of day is valid.
    public static let validTime = TimeValidity(rawValue: 1 << 1)
    /// The time of day is fully resolved (no second ambiguity).
    public static let fullyResolved = TimeValidity(rawValue: 1 << 2)
    /// The date was confirmed independently (NAV-PVT `flags2` confirmedDate; u-blox 8 protocol 19 and later).
    public static let confirmedDate = TimeValidity(rawValue: 1 << 3)
    /// The time was confirmed independently (NAV-PVT `flags2` confirmedTime).
    public static let confirmedTime = TimeValidity(rawValue: 1 << 4)
    /// The receiver knows the current leap-second count (UBX NAV-TIMEGPS/NAV-TIMEUTC, CASIC NAV-TIMEUTC).
    public static let leapSecondsKnown = TimeValidity(rawValue: 1 << 5)
}

/// UBX-NAV-PVT (0x01 0x07): the whole navigation solution of an epoch (u-blox 7 and later; 84 bytes
/// on protocol 14, 92 bytes from u-blox 8 on).
public struct UBXNavPVT: Sendable, Hashable {
    public var iTOW: UInt32
    public var year: UInt16, month: UInt8, day: UInt8, hour: UInt8, minute: UInt8, second: UInt8
    /// The fraction of the second, nanoseconds; may be negative (the time rounds up to `second`).
    public var nano: Int32
    public var validity: TimeValidity
    /// Time accuracy estimate, nanoseconds.
    public var tAcc: UInt32
    public var fixType: UBXRawFixType
    /// `flags` bit 0 gnssFixOK, bit 1 diffSoln, bits 6-7 carrSoln (1 float, 2 fixed).
    public var flags: UInt8
    public var numSV: UInt8
    /// Degrees × 1e-7.
    public var longitude: Int32, latitude: Int32
    /// Millimetres above the ellipsoid and above mean sea level.
    public var height: Int32, heightMSL: Int32
    /// Horizontal and vertical accuracy estimates, millimetres.
    public var hAcc: UInt32, vAcc: UInt32
    /// Velocity north, east, down, mm/s.
    public var velN: Int32, velE: Int32, velD: Int32
    /// Ground speed, mm/s.
    public var gSpeed: Int32
    /// Heading of motion, degrees × 1e-5.
    public var headMot: Int32
    /// Speed accuracy, mm/s; heading accuracy, degrees × 1e-5.
    public var sAcc: UInt32, headAcc: UInt32
    /// Position DOP × 0.01.
    public var pDOP: UInt16
    /// `flags3` bit 0: latitude, longitude and heights are invalid (protocol 27 and later).
    public var invalidLLH: Bool

    /// Decodes a NAV-PVT payload (84 or more bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 84 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0)
        year = L.u16(payload, 4); month = L.u8(payload, 6); day = L.u8(payload, 7)
        hour = L.u8(payload, 8); minute = L.u8(payload, 9); second = L.u8(payload, 10)
        let valid = L.u8(payload, 11), flags2 = L.u8(payload, 22)
        validity = TimeValidity(rawValue: valid & 0x07)
        if flags2 & 0x40 != 0 { validity.insert(.confirmedDate) }
        if flags2 & 0x80 != 0 { validity.insert(.confirmedTime) }
        tAcc = L.u32(payload, 12)
        nano = L.i32(payload, 16)
        fixType = UBXRawFixType(L.u8(payload, 20))
        flags = L.u8(payload, 21)
        numSV = L.u8(payload, 23)
        longitude = L.i32(payload, 24); latitude = L.i32(payload, 28)
        height = L.i32(payload, 32); heightMSL = L.i32(payload, 36)
        hAcc = L.u32(payload, 40); vAcc = L.u32(payload, 44)
        velN = L.i32(payload, 48); velE = L.i32(payload, 52); velD = L.i32(payload, 56)
        gSpeed = L.i32(payload, 60); headMot = L.i32(payload, 64)
        sAcc = L.u32(payload, 68); headAcc = L.u32(payload, 72)
        pDOP = L.u16(payload, 76)
        invalidLLH = L.u8(payload, 78) & 0x01 != 0
    }
}

/// A fix type byte as sent; ``type`` is `nil` for values the protocol does not define.
public struct UBXRawFixType: Sendable, Hashable {
    public var rawValue: UInt8
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public var type: UBXFixType? { UBXFixType(rawValue: rawValue) }
}

/// UBX-HNR-PVT (0x28 0x00): the high-rate fused solution of u-blox ADR/UDR units (NEO-M8L, M8U),
/// between the navigation epochs. 72 bytes.
public struct UBXHNRPVT: Sendable, Hashable {
    public var iTOW: UInt32
    public var year: UInt16, month: UInt8, day: UInt8, hour: UInt8, minute: UInt8, second: UInt8
    public var nano: Int32
    public var validity: TimeValidity
    public var fixType: UBXRawFixType
    public var flags: UInt8
    public var longitude: Int32, latitude: Int32, height: Int32, heightMSL: Int32
    public var gSpeed: Int32, headMot: Int32
    public var hAcc: UInt32, vAcc: UInt32, sAcc: UInt32, headAcc: UInt32

    /// Decodes an HNR-PVT payload (72 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 72 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0)
        year = L.u16(payload, 4); month = L.u8(payload, 6); day = L.u8(payload, 7)
        hour = L.u8(payload, 8); minute = L.u8(payload, 9); second = L.u8(payload, 10)
        validity = TimeValidity(rawValue: L.u8(payload, 11) & 0x07)
        nano = L.i32(payload, 12)
        fixType = UBXRawFixType(L.u8(payload, 16))
        flags = L.u8(payload, 17)
        longitude = L.i32(payload, 20); latitude = L.i32(payload, 24)
        height = L.i32(payload, 28); heightMSL = L.i32(payload, 32)
        gSpeed = L.i32(payload, 36); headMot = L.i32(payload, 44)
        hAcc = L.u32(payload, 52); vAcc = L.u32(payload, 56); sAcc = L.u32(payload, 60); headAcc = L.u32(payload, 64)
    }
}

/// UBX-NAV-SOL (0x01 0x06): u-blox 6's solution summary: fix type, GPS week, ECEF position and
/// velocity, 3D accuracy, PDOP, satellites. 52 bytes.
public struct UBXNavSOL: Sendable, Hashable {
    public var iTOW: UInt32
    /// Fraction of the millisecond, nanoseconds (−500 000 … 500 000).
    public var fTOW: Int32
    public var week: Int16
    public var fixType: UBXRawFixType
    /// Bit 0 gpsFixOK, bit 1 diffSoln, bit 2 week valid, bit 3 time of week valid.
    public var flags: UInt8
    /// ECEF position, cm; 3D position accuracy, cm.
    public var ecefX: Int32, ecefY: Int32, ecefZ: Int32, pAcc: UInt32
    /// ECEF velocity, cm/s; speed accuracy, cm/s.
    public var ecefVX: Int32, ecefVY: Int32, ecefVZ: Int32, sAcc: UInt32
    public var pDOP: UInt16
    public var numSV: UInt8

    /// Decodes a NAV-SOL payload (52 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 52 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0); fTOW = L.i32(payload, 4); week = L.i16(payload, 8)
        fixType = UBXRawFixType(L.u8(payload, 10)); flags = L.u8(payload, 11)
        ecefX = L.i32(payload, 12); ecefY = L.i32(payload, 16); ecefZ = L.i32(payload, 20); pAcc = L.u32(payload, 24)
        ecefVX = L.i32(payload, 28); ecefVY = L.i32(payload, 32); ecefVZ = L.i32(payload, 36); sAcc = L.u32(payload, 40)
        pDOP = L.u16(payload, 44); numSV = L.u8(payload, 47)
    }
}

/// UBX-NAV-POSLLH (0x01 0x02): geodetic position with accuracy. 28 bytes.
public struct UBXNavPOSLLH: Sendable, Hashable {
    public var iTOW: UInt32
    public var longitude: Int32, latitude: Int32, height: Int32, heightMSL: Int32
    public var hAcc: UInt32, vAcc: UInt32

    /// Decodes a NAV-POSLLH payload (28 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 28 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0)
        longitude = L.i32(payload, 4); latitude = L.i32(payload, 8)
        height = L.i32(payload, 12); heightMSL = L.i32(payload, 16)
        hAcc = L.u32(payload, 20); vAcc = L.u32(payload, 24)
    }
}

/// UBX-NAV-POSECEF (0x01 0x01): ECEF position, cm, and its 3D accuracy, cm (gpsd's `ecefpAcc`). 20 bytes.
public struct UBXNavPOSECEF: Sendable, Hashable {
    public var iTOW: UInt32
    public var ecefX: Int32, ecefY: Int32, ecefZ: Int32
    public var pAcc: UInt32

    /// Decodes a NAV-POSECEF payload (20 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 20 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0)
        ecefX = L.i32(payload, 4); ecefY = L.i32(payload, 8); ecefZ = L.i32(payload, 12); pAcc = L.u32(payload, 16)
    }
}

/// UBX-NAV-VELECEF (0x01 0x11): ECEF velocity, cm/s, and its accuracy, cm/s. 20 bytes.
public struct UBXNavVELECEF: Sendable, Hashable {
    /// GPS time of week of the navigation epoch, ms.
    public var iTOW: UInt32
    /// ECEF velocity, cm/s.
    public var ecefVX: Int32, ecefVY: Int32, ecefVZ: Int32
    /// Speed accuracy estimate, cm/s.
    public var sAcc: UInt32

    /// Decodes a NAV-VELECEF payload (20 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 20 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0)
        ecefVX = L.i32(payload, 4); ecefVY = L.i32(payload, 8); ecefVZ = L.i32(payload, 12); sAcc = L.u32(payload, 16)
    }
}

/// UBX-NAV-VELNED (0x01 0x12): velocity in the local frame, cm/s, heading 1e-5 degrees. 36 bytes.
public struct UBXNavVELNED: Sendable, Hashable {
    public var iTOW: UInt32
    public var velN: Int32, velE: Int32, velD: Int32
    public var speed: UInt32, gSpeed: UInt32
    public var heading: Int32
    public var sAcc: UInt32, cAcc: UInt32

    /// Decodes a NAV-VELNED payload (36 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 36 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0)
        velN = L.i32(payload, 4); velE = L.i32(payload, 8); velD = L.i32(payload, 12)
        speed = L.u32(payload, 16); gSpeed = L.u32(payload, 20); heading = L.i32(payload, 24)
        sAcc = L.u32(payload, 28); cAcc = L.u32(payload, 32)
    }
}

/// UBX-NAV-DOP (0x01 0x04): dilutions of precision × 0.01. 18 bytes.
public struct UBXNavDOP: Sendable, Hashable {
    public var iTOW: UInt32
    public var gDOP: UInt16, pDOP: UInt16, tDOP: UInt16, vDOP: UInt16, hDOP: UInt16, nDOP: UInt16, eDOP: UInt16

    /// Decodes a NAV-DOP payload (18 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 18 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0)
        gDOP = L.u16(payload, 4); pDOP = L.u16(payload, 6); tDOP = L.u16(payload, 8); vDOP = L.u16(payload, 10)
        hDOP = L.u16(payload, 12); nDOP = L.u16(payload, 14); eDOP = L.u16(payload, 16)
    }
}
