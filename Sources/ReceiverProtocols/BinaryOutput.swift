import NMEA

/// Switching a receiver's binary navigation output on and off: UBX NAV-PVT and companions
/// through CFG-VALSET keys (u-blox M9/M10) or CFG-MSG (u-blox 6/7/M8), CASIC NAV-PV and companions
/// through CASIC CFG-MSG. Key ids from the u-blox F9/M10 interface descriptions (CFG-MSGOUT-*_UART1,
/// CFG-UART1OUTPROT-*), message ids from the u-blox 6/8 descriptions and the CASIC specification.

/// Which protocols a receiver is told to output (the board file's `output`).
public enum BinaryOutputMode: String, Sendable, Hashable, CaseIterable {
    /// NMEA only: the binary navigation messages off.
    case nmea
    /// Binary navigation only: the NMEA output protocol off (M9/M10) or every NMEA sentence off.
    case binary
    /// Both: the NMEA as configured plus the binary navigation messages.
    case both
}

/// The UBX navigation messages FieldLocation reads, per generation.
public enum UBXNavigationOutput {
    /// One message: class, id and its CFG-MSGOUT key for UART1 (`nil` for u-blox 6's NAV-SOL, which
    /// the generations with configuration keys no longer have).
    public struct Message: Sendable, Hashable {
        public var messageClass: UInt8
        public var id: UInt8
        public var key: UBXKey?
    }

    static let pvt = Message(messageClass: 0x01, id: 0x07, key: UBXKey(0x2091_0007))
    static let sat = Message(messageClass: 0x01, id: 0x35, key: UBXKey(0x2091_0016))
    static let sig = Message(messageClass: 0x01, id: 0x43, key: UBXKey(0x2091_0346))
    static let dop = Message(messageClass: 0x01, id: 0x04, key: UBXKey(0x2091_0039))
    static let status = Message(messageClass: 0x01, id: 0x03, key: UBXKey(0x2091_001B))
    static let timeGPS = Message(messageClass: 0x01, id: 0x20, key: UBXKey(0x2091_0048))
    static let timeLS = Message(messageClass: 0x01, id: 0x26, key: UBXKey(0x2091_0061))
    static let eoe = Message(messageClass: 0x01, id: 0x61, key: UBXKey(0x2091_0160))
    static let timePulse = Message(messageClass: 0x0D, id: 0x01, key: UBXKey(0x2091_017E))
    static let monRF = Message(messageClass: 0x0A, id: 0x38, key: UBXKey(0x2091_035A))
    static let sol = Message(messageClass: 0x01, id: 0x06, key: nil)
    static let posllh = Message(messageClass: 0x01, id: 0x02, key: UBXKey(0x2091_002A))
    static let velned = Message(messageClass: 0x01, id: 0x12, key: UBXKey(0x2091_0043))

    /// What a generation is told to send: u-blox 6 has no NAV-PVT (NAV-SOL, NAV-POSLLH, NAV-VELNED);
    /// u-blox 7 has NAV-PVT but neither NAV-SAT nor NAV-EOE; M8 adds them (and NAV-TIMELS); M9/M10 add
    /// NAV-SIG and MON-RF.
    public static func messages(for generation: UBloxGeneration) -> [Message] {
        switch generation {
        case .ublox6: return [sol, posllh, velned, dop, timeGPS, status, timePulse]
        case .ublox7: return [pvt, dop, timeGPS, status, timePulse]
        case .m8: return [pvt, sat, dop, timeGPS, timeLS, status, timePulse, eoe]
        case .m9, .m10: return [pvt, sat, sig, dop, timeGPS, timeLS, status, timePulse, monRF, eoe]
        }
    }
}

extension UBXKey {
    /// CFG-UART1OUTPROT-UBX, L.
    public static let uart1OutputUBX = UBXKey(0x1074_0001)
    /// CFG-UART1OUTPROT-NMEA, L.
    public static let uart1OutputNMEA = UBXKey(0x1074_0002)
}

extension UBXMessage {
    /// UBX-CFG-MSG (0x06 0x01), short form: `rate` (every Nth solution, 0 off) on the port it arrives on.
    public static func messageRate(class messageClass: UInt8, id: UInt8, rate: UInt8) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x01, payload: [messageClass, id, rate])
    }
}

/// A CASIC binary message: `0xBA 0xCE`, length, class, id, payload, 32-bit word-sum checksum.
public struct CASICMessage: Hashable, Sendable, CustomStringConvertible {
    public var messageClass: UInt8
    public var id: UInt8
    /// The payload; CASIC payloads are whole 32-bit words (a short one is padded with zeros).
    public var payload: [UInt8]

    public init(class messageClass: UInt8, id: UInt8, payload: [UInt8] = []) {
        self.messageClass = messageClass
        self.id = id
        self.payload = payload
    }

    /// The frame as sent.
    public var bytes: [UInt8] { CASICFrame.encode(class: messageClass, id: id, payload: payload) }

    /// `CASIC 06 01 (4 bytes)`.
    public var description: String { "CASIC \(hexByte(messageClass)) \(hexByte(id)) (\(payload.count) bytes)" }

    /// CASIC CFG-MSG (0x06 0x01): message class, id and rate (U2, every Nth solution, 0 off).
    public static func messageRate(class messageClass: UInt8, id: UInt8, rate: UInt16) -> CASICMessage {
        CASICMessage(class: 0x06, id: 0x01, payload: [messageClass, id, UInt8(rate & 0xFF), UInt8(rate >> 8)])
    }

    /// The CASIC navigation messages FieldLocation reads: NAV-DOP, NAV-PV, NAV-TIMEUTC, NAV-GPSINFO,
    /// NAV-BDSINFO, NAV-GLNINFO (class 0x01).
    public static let navigationIDs: [UInt8] = [0x01, 0x03, 0x10, 0x20, 0x21, 0x22]
}

extension ReceiverDriver {
    /// Default for families without a binary navigation protocol: NMEA is all they send.
    public func setBinaryOutput(_ mode: BinaryOutputMode) throws(ReceiverError) {
        if mode != .nmea { throw .unsupported(family: family, operation: "output binary navigation") }
    }
}

extension UBloxDriver {
    /// Switches the binary navigation messages on (`binary`, `both`) or off (`nmea`); with `binary`
    /// the NMEA output protocol (M9/M10) or every NMEA sentence (older) is switched off too.
    public func setBinaryOutput(_ mode: BinaryOutputMode) throws(ReceiverError) {
        let rate: UInt8 = mode == .nmea ? 0 : 1
        let messages = UBXNavigationOutput.messages(for: generation)
        if generation.usesConfigurationKeys {
            var values = messages.compactMap { message in message.key.map { ($0, UInt64(rate)) } }
            values.append((.uart1OutputUBX, 1))
            values.append((.uart1OutputNMEA, mode == .binary ? 0 : 1))
            try channel.send(UBXMessage.setValues(values, layers: layers))
        } else {
            for message in messages {
                try channel.send(UBXMessage.messageRate(class: message.messageClass, id: message.id, rate: rate))
            }
            if mode == .binary { try setOutputs([:]) }
        }
    }
}

extension CASICDriver {
    /// Switches CASIC NAV-PV, NAV-TIMEUTC, NAV-DOP and the satellite messages on or off with CASIC
    /// CFG-MSG; with `binary` every NMEA sentence is switched off (`$PCAS03` all zero). CASIC does not
    /// acknowledge these either: the effect shows in the output.
    public func setBinaryOutput(_ mode: BinaryOutputMode) throws(ReceiverError) {
        let rate: UInt16 = mode == .nmea ? 0 : 1
        for id in CASICMessage.navigationIDs {
            try channel.send(CASICMessage.messageRate(class: 0x01, id: id, rate: rate))
        }
        if mode == .binary { try setOutputs([:]) }
    }
}
