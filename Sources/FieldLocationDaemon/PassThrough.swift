import NMEA

/// The receiver's byte stream cut into what gpsd's `nmea` and `raw:1` watch modes pass through:
/// NMEA sentences verbatim (each with CR LF) and binary frames (UBX, RTCM3) whole, for hex dumps.
/// Framing keeps its state across chunks, so a sentence split between two reads is passed once, whole.
final class PassThrough {
    /// One item of the stream, in order.
    enum Item: Equatable {
        /// An NMEA sentence from `$`/`!` through its checksum, then CR LF.
        case sentence([UInt8])
        /// A binary frame, every byte from its sync bytes through its checksum.
        case binary([UInt8])
    }

    private let framer = NMEAFramer()

    /// Frames one chunk; `wanted` false only advances the framer (nothing is copied).
    func items(_ chunk: [UInt8], wanted: Bool) -> [Item] {
        var sink = Sink(collect: wanted)
        chunk.withUnsafeBufferPointer { framer.feed($0.span, into: &sink) }
        return sink.items
    }

    struct Sink: NMEAFramerSink {
        let collect: Bool
        var items: [Item] = []

        init(collect: Bool) { self.collect = collect }

        mutating func framer(sentence: Span<UInt8>) {
            guard collect else { return }
            var line = [UInt8]()
            line.reserveCapacity(sentence.count + 2)
            for index in sentence.indices { line.append(sentence[index]) }
            line.append(0x0D)
            line.append(0x0A)
            items.append(.sentence(line))
        }

        mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {
            guard collect else { return }
            var body = [UInt8]()
            body.reserveCapacity(payload.count)
            for index in payload.indices { body.append(payload[index]) }
            items.append(.binary(UBXFraming.encode(class: ubxClass, id: id, payload: body)))
        }

        mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>) {
            guard collect else { return }
            var frame: [UInt8] = [0xD3, UInt8(payload.count >> 8 & 0x03), UInt8(payload.count & 0xFF)]
            for index in payload.indices { frame.append(payload[index]) }
            frame += CRC24Q.bytes(CRC24Q.compute(frame))
            items.append(.binary(frame))
        }
    }

    /// RTCM3's CRC-24Q over `bytes` (``CRC24Q``).
    static func crc24q(_ bytes: [UInt8]) -> UInt32 { CRC24Q.compute(bytes) }

    /// gpsd's hex dump of a binary packet for `raw:1` watchers: lowercase hex digits, then CR LF.
    static func hexLine(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2 + 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        out.append(0x0D)
        out.append(0x0A)
        return out
    }
}
