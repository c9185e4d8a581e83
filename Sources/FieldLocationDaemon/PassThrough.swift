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
            var frame: [UInt8] = [0xB5, 0x62, ubxClass, id, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8 & 0xFF)]
            for index in payload.indices { frame.append(payload[index]) }
            var a: UInt8 = 0
            var b: UInt8 = 0
            for byte in frame[2...] {
                a &+= byte
                b &+= a
            }
            frame.append(a)
            frame.append(b)
            items.append(.binary(frame))
        }

        mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>) {
            guard collect else { return }
            var frame: [UInt8] = [0xD3, UInt8(payload.count >> 8 & 0x03), UInt8(payload.count & 0xFF)]
            for index in payload.indices { frame.append(payload[index]) }
            let crc = PassThrough.crc24q(frame)
            frame.append(UInt8(crc >> 16 & 0xFF))
            frame.append(UInt8(crc >> 8 & 0xFF))
            frame.append(UInt8(crc & 0xFF))
            items.append(.binary(frame))
        }
    }

    /// RTCM3's CRC-24Q over `bytes`.
    static func crc24q(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 16
            for _ in 0..<8 {
                crc <<= 1
                if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
            }
        }
        return crc & 0xFF_FFFF
    }

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
