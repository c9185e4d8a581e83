import NMEA
import Testing

/// Records every framer event as a comparable value.
struct RecordingSink: NMEAFramerSink {
    enum Event: Equatable, CustomStringConvertible {
        case sentence(String)
        case ubx(UInt8, UInt8, [UInt8])
        case rtcm3(UInt16, Int)
        case error(FramingError)

        var description: String {
            switch self {
            case .sentence(let s): return "S(\(s))"
            case .ubx(let c, let i, let p): return "UBX(\(c),\(i),\(p.count))"
            case .rtcm3(let t, let n): return "RTCM3(\(t),\(n))"
            case .error(let e): return "E(\(e))"
            }
        }
    }

    var events: [Event] = []

    mutating func framer(sentence: Span<UInt8>) {
        var bytes: [UInt8] = []
        for i in sentence.indices { bytes.append(sentence[i]) }
        events.append(.sentence(String(decoding: bytes, as: UTF8.self)))
    }

    mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {
        var bytes: [UInt8] = []
        for i in payload.indices { bytes.append(payload[i]) }
        events.append(.ubx(ubxClass, id, bytes))
    }

    mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>) {
        events.append(.rtcm3(rtcm3MessageType, payload.count))
    }

    mutating func framer(error: FramingError) { events.append(.error(error)) }

    /// Only the sentences, for comparisons that do not care about garbage accounting.
    var sentences: [String] {
        events.compactMap { if case .sentence(let s) = $0 { return s } else { return nil } }
    }
}

/// Frames `bytes` delivered in the given chunk sizes (cycled), then finishes.
func frame(_ bytes: [UInt8], chunks: [Int], skipComments: Bool = false, maximum: Int = NMEAFramer.defaultMaximumSentenceLength) -> [RecordingSink.Event] {
    let framer = NMEAFramer(maximumSentenceLength: maximum, skipsCommentLines: skipComments)
    var sink = RecordingSink()
    var index = 0
    var chunk = 0
    while index < bytes.count {
        let size = max(1, chunks[chunk % chunks.count])
        let end = min(bytes.count, index + size)
        let slice = Array(bytes[index..<end])
        framer.feed(slice.span, into: &sink)
        index = end
        chunk += 1
    }
    framer.finish(into: &sink)
    return sink.events
}

/// Appends NMEA's `*hh` checksum to a sentence written without one.
func withChecksum(_ sentence: String) -> String {
    let (high, low) = NMEAChecksum.hexDigits(NMEAChecksum.compute(sentence.utf8.dropFirst()))
    return sentence + "*" + String(decoding: [high, low], as: UTF8.self)
}

/// Parses a sentence given as text.
func parse(_ text: String, options: NMEAParserOptions = NMEAParserOptions()) throws(NMEAError) -> ParsedSentence {
    let bytes = Array(text.utf8)
    return try NMEAParser.parse(bytes.span, options: options)
}

/// A u-blox UBX frame with a correct checksum.
func ubxFrame(_ cls: UInt8, _ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
    UBXFraming.encode(class: cls, id: id, payload: payload)
}

/// An RTCM3 frame with a correct CRC-24Q.
func rtcm3Frame(type: UInt16, extra: [UInt8]) -> [UInt8] {
    let payload: [UInt8] = [UInt8(type >> 4), UInt8((type & 0xF) << 4)] + extra
    let frame: [UInt8] = [0xD3, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    return frame + CRC24Q.bytes(CRC24Q.compute(frame))
}

/// The shared corpus folder beside the package, if present.
func sharedFolder() -> String? {
    let file = #filePath
    var parts = file.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    // .../<package>/Tests/NMEATests/TestSupport.swift -> .../<package>/../shared
    parts.removeLast(3)
    let path = parts.joined(separator: "/") + "/../shared"
    return FileProbe.exists(path + "/corpus/gpsd") ? path : nil
}

/// A deterministic pseudo-random generator (SplitMix64) so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
