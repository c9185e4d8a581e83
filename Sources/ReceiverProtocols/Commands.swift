import NMEA

/// A proprietary NMEA-style command (`$PMTK…`, `$PCAS…`, `$PAIR…`, `$PGKC…`, `$PUBX…`), with
/// its checksum computed, never copied: public sources carry wrong ones.
public struct NMEACommand: Hashable, Sendable, CustomStringConvertible {
    /// The text between `$` and `*`, for example `PMTK220,1000`.
    public let body: String

    /// Creates a command from its body (the text between `$` and `*`).
    public init(_ body: String) { self.body = body }

    /// Creates a command from an address and fields: `NMEACommand("PMTK220", 1000)`.
    public init(_ address: String, _ fields: CustomStringConvertible...) {
        self.body = ([address] + fields.map { $0.description }).joined(separator: ",")
    }

    /// The XOR of every byte of the body.
    public var checksum: UInt8 { NMEAChecksum.compute(body.utf8) }

    /// `$PMTK220,1000*1F` without the line terminator.
    public var sentence: String { String(decoding: NMEAChecksum.sentence(body: body.utf8), as: UTF8.self) }

    /// The bytes to send: the sentence and CR LF.
    public var bytes: [UInt8] { Array((sentence + "\r\n").utf8) }

    public var description: String { sentence }
}

/// A u-blox UBX message: class, id and payload; ``bytes`` frames it with sync and checksum.
public struct UBXMessage: Hashable, Sendable, CustomStringConvertible {
    /// The message class (for example 0x06 CFG, 0x0A MON).
    public var messageClass: UInt8
    /// The message id within its class.
    public var id: UInt8
    /// The payload, little-endian fields as the interface description lays them out.
    public var payload: [UInt8]

    /// Creates a message.
    public init(class messageClass: UInt8, id: UInt8, payload: [UInt8] = []) {
        self.messageClass = messageClass
        self.id = id
        self.payload = payload
    }

    /// The 8-bit Fletcher checksum over class, id, length and payload (`CK_A += b; CK_B += CK_A`).
    public static func checksum(_ bytes: some Sequence<UInt8>) -> (a: UInt8, b: UInt8) { UBXFraming.checksum(bytes) }

    /// `B5 62 class id len-lo len-hi payload CK_A CK_B`. Payloads longer than 65535 bytes are cut
    /// to that length (no UBX message is that long).
    public var bytes: [UInt8] { UBXFraming.encode(class: messageClass, id: id, payload: payload) }

    /// `UBX 0a 04 (0 bytes)`.
    public var description: String {
        "UBX \(hexByte(messageClass)) \(hexByte(id)) (\(payload.count) bytes)"
    }

    /// UBX-MON-VER poll: asks for software, hardware and extension version strings.
    public static let pollVersion = UBXMessage(class: 0x0A, id: 0x04)
    /// UBX-ACK-ACK class and id.
    public static let ackClass: UInt8 = 0x05
}

/// The decoded UBX-MON-VER reply.
public struct UBXVersion: Hashable, Sendable {
    /// Software version, for example `ROM SPG 5.10 (7b202e)`.
    public var software: String
    /// Hardware version, for example `000A0000`.
    public var hardware: String
    /// Extension strings such as `PROTVER=34.10`, `MOD=MAX-M10S`, `FWVER=SPG 5.10`.
    public var extensions: [String]

    /// Decodes a MON-VER payload (30 + 10 + N × 30 bytes of NUL-padded ASCII). Returns `nil` when
    /// the payload is shorter than 40 bytes or its length is not 40 + N × 30.
    public init?(payload: [UInt8]) {
        guard payload.count >= 40, (payload.count - 40) % 30 == 0 else { return nil }
        func text(_ slice: ArraySlice<UInt8>) -> String {
            let visible = slice.prefix { $0 != 0 }.filter { $0 >= 0x20 && $0 < 0x7F }
            return String(decoding: visible, as: UTF8.self)
        }
        software = text(payload[0..<30])
        hardware = text(payload[30..<40])
        extensions = stride(from: 40, to: payload.count, by: 30).map { text(payload[$0..<$0 + 30]) }
    }

    /// The u-blox generation named by ``hardware`` (Meshtastic's probe table), or `nil` when the
    /// hardware string is not a u-blox one (the CASIC chip answers MON-VER with its own).
    public var generation: UBloxGeneration? { UBloxGeneration(hardwareVersion: hardware) }

    /// The protocol version from the `PROTVER=` extension (for example 34.10), if present.
    public var protocolVersion: String? {
        for ext in extensions {
            if ext.hasPrefix("PROTVER=") { return String(ext.dropFirst(8)) }
            if ext.hasPrefix("PROTVER ") { return String(ext.dropFirst(8)) }
        }
        return nil
    }

    /// The module name from the `MOD=` extension (for example `NEO-M9N`), if present.
    public var module: String? {
        extensions.first { $0.hasPrefix("MOD=") }.map { String($0.dropFirst(4)) }
    }
}

/// A u-blox receiver generation, as MON-VER's hardware version names it.
public enum UBloxGeneration: String, Sendable, Hashable, CaseIterable {
    /// u-blox 6 (NEO-6M).
    case ublox6 = "u-blox 6"
    /// u-blox 7.
    case ublox7 = "u-blox 7"
    /// u-blox M8 (NEO-M8N, SAM-M8Q).
    case m8 = "u-blox M8"
    /// u-blox M9 (NEO-M9N).
    case m9 = "u-blox M9"
    /// u-blox M10 (MAX-M10S, SAM-M10Q).
    case m10 = "u-blox M10"

    /// Maps `00040007`, `00070000`, `00080000`, `00190000`, `000A0000`.
    public init?(hardwareVersion: String) {
        switch hardwareVersion.uppercased() {
        case "00040007": self = .ublox6
        case "00070000": self = .ublox7
        case "00080000": self = .m8
        case "00190000": self = .m9
        case "000A0000": self = .m10
        default: return nil
        }
    }

    /// Whether the generation is configured with CFG-VALSET keys (M9 and later) rather than legacy CFG messages.
    public var usesConfigurationKeys: Bool { self == .m9 || self == .m10 }
}

func hexByte(_ value: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String(digits[Int(value >> 4)]) + String(digits[Int(value & 0x0F)])
}
