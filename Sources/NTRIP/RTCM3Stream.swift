#if canImport(NMEA)
import NMEA
#endif

/// Splits a correction stream into whole RTCM 3 frames with NMEA's framer (which checks each
/// frame's CRC-24Q), and keeps count: frames, CRC failures, bytes outside any frame, the
/// message types seen and the reference station's ID.
public struct RTCM3Stream {
    private let framer = NMEAFramer(maximumSentenceLength: NMEAFramer.defaultMaximumSentenceLength)
    /// Frames with a correct CRC.
    public private(set) var frames = 0
    /// Candidate frames whose CRC was wrong (a corrupted or truncated frame; the bytes are scanned again).
    public private(set) var crcFailures = 0
    /// Frames cut off by the end of a connection.
    public private(set) var truncated = 0
    /// How many frames of each message type.
    public private(set) var messageTypes: [UInt16: Int] = [:]
    /// The reference station ID of the last frame that carries one.
    public private(set) var stationID: Int?

    /// A stream with nothing read yet.
    public init() {}

    /// Reads `bytes`, returning the whole frames they complete (preamble through CRC), in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
        var sink = Sink()
        framer.feed(bytes: bytes, into: &sink)
        frames += sink.frames.count
        crcFailures += sink.crcFailures
        for (type, station) in sink.types {
            messageTypes[type, default: 0] += 1
            if let station { stationID = station }
        }
        return sink.frames
    }

    /// The connection ended: a frame begun and not finished counts as truncated, and the framer
    /// starts clean for the next connection.
    public mutating func connectionEnded() {
        if framer.isInsideRTCM3Frame { truncated += 1 }
        framer.reset()
    }

    /// The message types seen, ascending.
    public var typesSeen: [UInt16] { messageTypes.keys.sorted() }

    /// The reference station ID of a message, for the types that carry one at bits 12-23 (1001-1012,
    /// 1005-1006, 1033, the MSM messages 1071-1137 and 1230).
    public static func stationID(type: UInt16, payload: some Collection<UInt8>) -> Int? {
        guard payload.count >= 3 else { return nil }
        let carries = (1001...1013).contains(type) || type == 1033 || (1071...1137).contains(type) || type == 1230
        guard carries else { return nil }
        let bytes = Array(payload.prefix(3))
        return Int(bytes[1] & 0x0F) << 8 | Int(bytes[2])
    }

    /// A whole frame for `payload` (whose first 12 bits are the message type): `D3`, the 10-bit
    /// length, the payload and its CRC-24Q.
    public static func frame(payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0xD3, UInt8(payload.count >> 8 & 0x03), UInt8(payload.count & 0xFF)]
        frame += payload
        frame += CRC24Q.bytes(CRC24Q.compute(frame))
        return frame
    }

    struct Sink: NMEAFramerSink {
        var frames: [[UInt8]] = []
        var types: [(UInt16, Int?)] = []
        var crcFailures = 0
        mutating func framer(sentence: Span<UInt8>) {}
        mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(payload.count)
            for i in payload.indices { bytes.append(payload[i]) }
            frames.append(RTCM3Stream.frame(payload: bytes))
            types.append((rtcm3MessageType, RTCM3Stream.stationID(type: rtcm3MessageType, payload: bytes)))
        }
        mutating func framer(error: FramingError) {
            if case .badRTCM3Checksum = error { crcFailures += 1 }
        }
    }
}
