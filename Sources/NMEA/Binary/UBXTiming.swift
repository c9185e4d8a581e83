/// Decoders of the UBX time, status and monitoring messages: NAV-TIMEGPS, NAV-TIMEUTC, NAV-TIMELS,
/// NAV-STATUS, NAV-EOE, TIM-TP and MON-RF. Layouts from the u-blox interface descriptions (u-blox 8
/// UBX-13003221, F9 HPG 1.32 UBX-22008968) checked against gpsd's `drivers/driver_ubx.c`.

/// UBX-NAV-TIMEGPS (0x01 0x20): GPS time and the leap seconds. 16 bytes.
public struct UBXNavTimeGPS: Sendable, Hashable {
    public var iTOW: UInt32
    public var fTOW: Int32
    public var week: Int16
    /// GPS − UTC, seconds.
    public var leapSeconds: Int8
    /// Bit 0 time of week valid, bit 1 week valid, bit 2 leap seconds valid.
    public var valid: UInt8
    /// Time accuracy, nanoseconds.
    public var tAcc: UInt32

    /// Decodes a NAV-TIMEGPS payload (16 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 16 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0); fTOW = L.i32(payload, 4); week = L.i16(payload, 8)
        leapSeconds = L.i8(payload, 10); valid = L.u8(payload, 11); tAcc = L.u32(payload, 12)
    }

    /// Whether the week, the time of week and the leap seconds are all valid.
    public var isFullyValid: Bool { valid & 0x07 == 0x07 }
}

/// UBX-NAV-TIMEUTC (0x01 0x21): UTC date and time. 20 bytes.
public struct UBXNavTimeUTC: Sendable, Hashable {
    public var iTOW: UInt32
    public var tAcc: UInt32
    public var nano: Int32
    public var year: UInt16, month: UInt8, day: UInt8, hour: UInt8, minute: UInt8, second: UInt8
    /// Bit 0 time of week valid, bit 1 week valid, bit 2 UTC valid (leap seconds known).
    public var valid: UInt8

    /// Decodes a NAV-TIMEUTC payload (20 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 20 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0); tAcc = L.u32(payload, 4); nano = L.i32(payload, 8)
        year = L.u16(payload, 12); month = L.u8(payload, 14); day = L.u8(payload, 15)
        hour = L.u8(payload, 16); minute = L.u8(payload, 17); second = L.u8(payload, 18)
        valid = L.u8(payload, 19)
    }
}

/// UBX-NAV-TIMELS (0x01 0x26): the current leap seconds and the next leap-second event. 24 bytes.
public struct UBXNavTimeLS: Sendable, Hashable {
    public var iTOW: UInt32
    /// GPS − UTC now, seconds; valid when ``currentValid``.
    public var currentLeapSeconds: Int8
    /// The announced change (−1, 0, +1) and the seconds until it; valid when ``eventValid``.
    public var change: Int8
    public var secondsToEvent: Int32
    public var currentValid: Bool
    public var eventValid: Bool

    /// Decodes a NAV-TIMELS payload (24 bytes, version 0).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 24 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0)
        currentLeapSeconds = L.i8(payload, 9); change = L.i8(payload, 11); secondsToEvent = L.i32(payload, 12)
        let valid = L.u8(payload, 23)
        currentValid = valid & 0x01 != 0
        eventValid = valid & 0x02 != 0
    }
}

/// What a receiver says about spoofing (NAV-STATUS `flags2` spoofDetState, u-blox 8 protocol 18 and later).
public enum SpoofingState: UInt8, Sendable, Hashable {
    case unknown = 0, none = 1, indicated = 2, multipleIndications = 3
}

/// What a receiver says about jamming (MON-RF/MON-HW jammingState).
public enum JammingState: UInt8, Sendable, Hashable {
    case unknown = 0, ok = 1, warning = 2, critical = 3
}

/// UBX-NAV-STATUS (0x01 0x03): fix status, time to first fix, spoofing indicator. 16 bytes.
public struct UBXNavStatus: Sendable, Hashable {
    public var iTOW: UInt32
    public var fixType: UBXRawFixType
    /// Bit 0 gpsFixOK, bit 1 diffSoln, bit 2 week set, bit 3 time of week set.
    public var flags: UInt8
    /// Time to first fix and since start-up, milliseconds.
    public var ttff: UInt32, msss: UInt32
    public var spoofing: SpoofingState
    /// `flags2` bits 6-7 carrSoln: 0 none, 1 float, 2 fixed (u-blox 8 protocol 20 and later; 0 before).
    public var carrierSolution: UInt8

    /// Decodes a NAV-STATUS payload (16 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 16 else { return nil }
        typealias L = LittleEndian
        iTOW = L.u32(payload, 0); fixType = UBXRawFixType(L.u8(payload, 4)); flags = L.u8(payload, 5)
        spoofing = SpoofingState(rawValue: (L.u8(payload, 7) >> 3) & 0x03) ?? .unknown
        carrierSolution = L.u8(payload, 7) >> 6
        ttff = L.u32(payload, 8); msss = L.u32(payload, 12)
    }
}

/// UBX-TIM-TP (0x0D 0x01): the time of the next time pulse and its quantisation error. 16 bytes.
public struct UBXTimTP: Sendable, Hashable {
    /// Time of week of the pulse, ms, plus a fraction in 2^-32 ms.
    public var towMS: UInt32, towSubMS: UInt32
    /// Quantisation error of the pulse, picoseconds.
    public var qErr: Int32
    public var week: UInt16
    /// Bit 0: time base is UTC (else GNSS); bit 1: UTC available; bit 4 (protocol 20+): qErr invalid.
    public var flags: UInt8
    public var refInfo: UInt8

    /// Decodes a TIM-TP payload (16 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        guard payload.count >= 16 else { return nil }
        typealias L = LittleEndian
        towMS = L.u32(payload, 0); towSubMS = L.u32(payload, 4); qErr = L.i32(payload, 8)
        week = L.u16(payload, 12); flags = L.u8(payload, 14); refInfo = L.u8(payload, 15)
    }

    /// Whether the quantisation error is valid (`flags` bit 4 clear).
    public var qErrValid: Bool { flags & 0x10 == 0 }
}

/// UBX-MON-RF (0x0A 0x38): the RF blocks' jamming state, noise and AGC (u-blox 9 and later).
/// Blocks are 24 bytes; ZED-F9R HPS 1.30 sends 20-byte blocks without the jamming state, as gpsd notes.
public struct UBXMonRF: Sendable, Hashable {
    /// The worst jamming state over the blocks.
    public var jamming: JammingState
    /// The first block's noise per ms, AGC count (0-8191) and CW jamming indicator (0-255).
    public var noisePerMS: UInt16, agcCount: UInt16, jamIndicator: UInt8
    public var blocks: UInt8

    /// Decodes a MON-RF payload (version 0, 4 + n × 24 or 4 + n × 20 bytes).
    public init?(payload: borrowing Span<UInt8>) {
        typealias L = LittleEndian
        guard payload.count >= 4, L.u8(payload, 0) == 0 else { return nil }
        let count = Int(L.u8(payload, 1))
        guard count > 0 else { return nil }
        let size: Int
        if payload.count == 4 + count * 24 { size = 24 } else if payload.count == 4 + count * 20 { size = 20 } else { return nil }
        blocks = UInt8(count)
        jamming = .unknown
        if size == 24 {
            for index in 0..<count {
                let state = JammingState(rawValue: L.u8(payload, 4 + index * size + 1) & 0x03) ?? .unknown
                if state.rawValue > jamming.rawValue { jamming = state }
            }
            noisePerMS = L.u16(payload, 16); agcCount = L.u16(payload, 18); jamIndicator = L.u8(payload, 20)
        } else {
            noisePerMS = L.u16(payload, 16); agcCount = L.u16(payload, 18); jamIndicator = L.u8(payload, 7)
        }
    }
}
