/// Receives what ``NMEAFramer`` finds in a byte stream. Every `Span` is valid only during the call.
public protocol NMEAFramerSink {
    /// A complete NMEA sentence from `$` or `!` up to, not including, its line terminator.
    /// Its checksum has not been checked yet (``NMEAParser`` does that).
    mutating func framer(sentence: Span<UInt8>)
    /// A complete sentence, as ``framer(sentence:)`` gives it, with what the framer learned of its
    /// bytes while finding its end (their XOR and their commas), so that a parser need not read them
    /// again. The framer calls this for a sentence found whole in one chunk; the default passes the
    /// sentence to ``framer(sentence:)``.
    mutating func framer(sentence: Span<UInt8>, digest: SentenceDigest)
    /// A u-blox UBX frame whose checksum is correct.
    mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>)
    /// A u-blox UBX frame whose checksum is correct, with the whole frame as received (`frame`, from
    /// its sync bytes through its checksum). The framer calls this; the default passes class, id and
    /// payload to ``framer(ubxClass:id:payload:)``.
    mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>, frame: Span<UInt8>)
    /// An RTCM3 frame whose CRC-24Q is correct.
    mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>)
    /// An RTCM3 frame whose CRC-24Q is correct, with the whole frame as received (`frame`, from its
    /// preamble through its CRC). The framer calls this; the default passes the message type and the
    /// payload to ``framer(rtcm3MessageType:payload:)``.
    mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>, frame: Span<UInt8>)
    /// A CASIC binary frame (`0xBA 0xCE`) whose checksum is correct.
    mutating func framer(casicClass: UInt8, id: UInt8, payload: Span<UInt8>)
    /// A CASIC binary frame whose checksum is correct, with the whole frame as received (`frame`, from
    /// its sync bytes through its checksum). The framer calls this; the default passes class, id and
    /// payload to ``framer(casicClass:id:payload:)``.
    mutating func framer(casicClass: UInt8, id: UInt8, payload: Span<UInt8>, frame: Span<UInt8>)
    /// Bytes that were dropped, and why. Framing continues with the next byte.
    mutating func framer(error: FramingError)
}

extension NMEAFramerSink {
    /// Default: the digest is not used.
    public mutating func framer(sentence: Span<UInt8>, digest: SentenceDigest) { framer(sentence: sentence) }
    /// Default: UBX frames are ignored.
    public mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {}
    /// Default: the whole frame is not used.
    public mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>, frame: Span<UInt8>) {
        framer(ubxClass: ubxClass, id: id, payload: payload)
    }
    /// Default: RTCM3 frames are ignored.
    public mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>) {}
    /// Default: the whole frame is not used.
    public mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>, frame: Span<UInt8>) {
        framer(rtcm3MessageType: rtcm3MessageType, payload: payload)
    }
    /// Default: CASIC frames are ignored.
    public mutating func framer(casicClass: UInt8, id: UInt8, payload: Span<UInt8>) {}
    /// Default: the whole frame is not used.
    public mutating func framer(casicClass: UInt8, id: UInt8, payload: Span<UInt8>, frame: Span<UInt8>) {
        framer(casicClass: casicClass, id: id, payload: payload)
    }
    /// Default: errors are ignored (they are still counted by the framer).
    public mutating func framer(error: FramingError) {}
}

/// Bytes the framer dropped. `offset` is the stream offset (bytes fed since creation) of the first byte.
public enum FramingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A sentence longer than the maximum; it was dropped up to its line end.
    case sentenceTooLong(offset: Int64, maximum: Int)
    /// A sentence cut short by a new start delimiter or by a control or non-ASCII byte.
    case truncatedSentence(offset: Int64, length: Int)
    /// Bytes outside any sentence or frame.
    case garbage(offset: Int64, count: Int)
    /// A UBX frame whose Fletcher checksum is wrong.
    case badUBXChecksum(offset: Int64, messageClass: UInt8, id: UInt8)
    /// A UBX header declaring a payload larger than any real message; treated as a false sync.
    case ubxTooLong(offset: Int64, length: Int)
    /// An RTCM3 frame whose CRC-24Q is wrong.
    case badRTCM3Checksum(offset: Int64)
    /// A CASIC frame whose checksum is wrong.
    case badCASICChecksum(offset: Int64, messageClass: UInt8, id: UInt8)

    /// The counter this error belongs to.
    public var reason: RejectionReason {
        switch self {
        case .sentenceTooLong, .ubxTooLong: return .tooLong
        case .truncatedSentence, .garbage: return .garbage
        case .badUBXChecksum, .badRTCM3Checksum, .badCASICChecksum: return .badBinaryChecksum
        }
    }

    public var description: String {
        switch self {
        case .sentenceTooLong(let offset, let maximum):
            return "sentence at byte \(offset) is longer than \(maximum) bytes; dropped"
        case .truncatedSentence(let offset, let length):
            return "sentence at byte \(offset) cut short after \(length) bytes; dropped"
        case .garbage(let offset, let count): return "\(count) stray bytes at byte \(offset)"
        case .badUBXChecksum(let offset, let messageClass, let id):
            return "UBX frame 0x\(hex(messageClass)) 0x\(hex(id)) at byte \(offset) has a bad checksum"
        case .ubxTooLong(let offset, let length): return "UBX header at byte \(offset) declares \(length) payload bytes; treated as a false sync"
        case .badRTCM3Checksum(let offset): return "RTCM3 frame at byte \(offset) has a bad CRC"
        case .badCASICChecksum(let offset, let messageClass, let id):
            return "CASIC frame 0x\(hex(messageClass)) 0x\(hex(id)) at byte \(offset) has a bad checksum"
        }
    }
}

/// Counters kept by ``NMEAFramer``.
public struct FramerCounters: Sendable, Hashable {
    public var bytes: Int64 = 0
    public var sentences: Int = 0
    public var ubxFrames: Int = 0
    public var rtcm3Frames: Int = 0
    public var casicFrames: Int = 0
    public var garbageBytes: Int64 = 0
    public var sentencesTooLong: Int = 0
    public var truncatedSentences: Int = 0
    public var badBinaryChecksums: Int = 0

    public init() {}
}

/// A streaming framer for NMEA 0183 with u-blox UBX, CASIC and RTCM3 frames interleaved.
///
/// Feed it byte chunks split anywhere; it calls the sink for every complete sentence and binary frame.
/// A sentence starts at `$` or `!` and ends at CR LF, LF, CR, or CR CR LF. After garbage it
/// resynchronises at the next start byte. Memory is fixed at creation: nothing is allocated while framing.
public final class NMEAFramer {
    /// The default maximum sentence length, delimiter to checksum inclusive. NMEA allows 82 characters;
    /// real receivers send up to about 120 (u-blox high precision, Trimble, SkyTraq), so the bound is
    /// generous while still rejecting runaway lines.
    public static let defaultMaximumSentenceLength = 255
    /// The largest UBX payload held whole (MON-VER, NAV-SAT with many satellites and RXM-RAWX fit).
    public static let maximumUBXPayload = 8192

    /// The state, in memory the framer allocates once and owns: a feed reaches it through this
    /// pointer, with no exclusivity check (each access of a class's stored property is checked at run
    /// time, which costs more than framing a sentence fed on its own) and no copy in and out.
    private let core: UnsafeMutablePointer<FramerCore>

    /// Creates a framer.
    /// - Parameters:
    ///   - maximumSentenceLength: longer sentences are dropped with ``FramingError/sentenceTooLong(offset:maximum:)``.
    ///   - skipsCommentLines: skip `#` comment lines, as in recorded logs.
    public init(maximumSentenceLength: Int = NMEAFramer.defaultMaximumSentenceLength, skipsCommentLines: Bool = false) {
        let maximum = min(max(maximumSentenceLength, 16), 4096)
        let size = max(maximum, NMEAFramer.maximumUBXPayload + 8)
        core = UnsafeMutablePointer<FramerCore>.allocate(capacity: 1)
        core.initialize(to: FramerCore(
            maximumSentenceLength: maximum, skipsCommentLines: skipsCommentLines,
            buffer: UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8),
            replay: UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)))
    }

    deinit {
        core.pointee.buffer.deallocate()
        core.pointee.replay.deallocate()
        core.deinitialize(count: 1)
        core.deallocate()
    }

    /// The maximum sentence length in bytes, from the delimiter to the checksum inclusive.
    public var maximumSentenceLength: Int { core.pointee.maximumSentenceLength }

    /// Skip lines that start with `#` (comment lines of recorded logs) instead of counting them as garbage.
    public var skipsCommentLines: Bool {
        get { core.pointee.skipsCommentLines }
        set { core.pointee.skipsCommentLines = newValue }
    }

    /// What the framer has seen so far.
    public var counters: FramerCounters { core.pointee.counters }

    /// Whether an RTCM 3 frame has begun and not yet ended (its bytes are held).
    public var isInsideRTCM3Frame: Bool { core.pointee.state == .rtcm3 }

    /// Forgets any partial sentence or frame (for example after the port was reopened).
    public func reset() {
        core.pointee.state = .idle
        core.pointee.length = 0
        core.pointee.atLineStart = true
        core.pointee.garbageCount = 0
        core.pointee.garbageStart = -1
    }

    /// Frames `chunk`, calling `sink` for each sentence, frame and error found.
    public func feed<Sink: NMEAFramerSink>(_ chunk: Span<UInt8>, into sink: inout Sink) {
        let core = self.core
        chunk.withUnsafeBufferPointer { if !core.pointee.feedLine($0, into: &sink) { core.pointee.feed($0, into: &sink) } }
    }

    /// Frames `bytes` (any byte collection), calling `sink` as ``feed(_:into:)`` does.
    public func feed<Sink: NMEAFramerSink, Bytes: Sequence<UInt8>>(bytes: Bytes, into sink: inout Sink) {
        for byte in bytes {
            core.pointee.step(byte, into: &sink)
            core.pointee.counters.bytes &+= 1
        }
    }

    /// Signals the end of the stream: a pending sentence without a terminator is delivered, other
    /// partial frames are reported as dropped and their bytes framed again.
    public func finish<Sink: NMEAFramerSink>(into sink: inout Sink) {
        core.pointee.finish(into: &sink)
    }

}

/// The framer's state machine; a value type so the hot loop runs on a local copy.
struct FramerCore {
    let maximumSentenceLength: Int
    var skipsCommentLines: Bool
    var counters = FramerCounters()

    enum State {
        case idle
        case sentence
        case discardLine
        case comment
        case ubx
        case rtcm3
        case casic
    }

    let buffer: UnsafeMutableRawBufferPointer
    let replay: UnsafeMutableRawBufferPointer

    init(maximumSentenceLength: Int, skipsCommentLines: Bool,
         buffer: UnsafeMutableRawBufferPointer, replay: UnsafeMutableRawBufferPointer) {
        self.maximumSentenceLength = maximumSentenceLength
        self.skipsCommentLines = skipsCommentLines
        self.buffer = buffer
        self.replay = replay
    }
    var replaying = false
    var state: State = .idle
    var length = 0
    var frameStart: Int64 = 0
    var expected = 0
    var atLineStart = true
    var garbageStart: Int64 = -1
    var garbageCount = 0

    mutating func finish<Sink: NMEAFramerSink>(into sink: inout Sink) {
        switch state {
        case .sentence:
            emitSentence(into: &sink)
        case .ubx, .rtcm3, .casic:
            // An incomplete binary frame at the end: whatever it held goes back through the framer.
            counters.truncatedSentences += 1
            sink.framer(error: .truncatedSentence(offset: frameStart, length: length))
            abandonBinary(nil, into: &sink)
            if state == .sentence { emitSentence(into: &sink) }
        default:
            break
        }
        flushGarbage(into: &sink)
        state = .idle
        length = 0
    }

    @inline(__always)
    var offset: Int64 { counters.bytes }

    /// Frames one chunk. A sentence that lies whole in the chunk, from its delimiter to its line end,
    /// is found by a scan sixteen bytes at a time and handed to the sink as a view of the chunk (no
    /// copy); everything else (sentences split between chunks, too long or cut short, binary frames,
    /// garbage, comments) goes byte by byte through ``step(_:into:)``, with the same results.
    @inline(__always)
    mutating func feed<Sink: NMEAFramerSink>(_ input: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        guard let base = input.baseAddress else { return }
        let count = input.count
        // `counters.bytes` is the stream offset of the byte being framed (errors and frames name it).
        let start = counters.bytes
        var index = 0
        while index < count {
            let byte = base[index]
            if state == .idle, byte == 0x24 || byte == 0x21 {
                var digest = SentenceDigest()
                let stop = FramerCore.sentenceEnd(base, from: index &+ 1, to: count, digest: &digest)
                let length = stop &- index
                if stop < count, length <= maximumSentenceLength, base[stop] == 0x0D || base[stop] == 0x0A {
                    counters.bytes = start &+ Int64(index)
                    flushGarbage(into: &sink)
                    deliverWhole(base + index, length: length, at: counters.bytes, digest: digest, into: &sink)
                    // The LF of a CR LF ends nothing more (in `idle` it only marks a line start).
                    index = stop &+ 1
                    if base[stop] == 0x0D, index < count, base[index] == 0x0A { index &+= 1 }
                    continue
                }
            }
            counters.bytes = start &+ Int64(index)
            step(byte, into: &sink)
            index &+= 1
        }
        counters.bytes = start &+ Int64(count)
    }

    @inline(__always)
    mutating func step<Sink: NMEAFramerSink>(_ byte: UInt8, into sink: inout Sink) {
        switch state {
        case .idle:
            idle(byte, into: &sink)
        case .sentence:
            if byte >= 0x20 && byte < 0x7F && byte != 0x24 && byte != 0x21 {
                guard length < maximumSentenceLength else {
                    counters.sentencesTooLong += 1
                    sink.framer(error: .sentenceTooLong(offset: frameStart, maximum: maximumSentenceLength))
                    state = .discardLine
                    return
                }
                buffer[length] = byte
                length &+= 1
            } else if byte == 0x0D || byte == 0x0A {
                emitSentence(into: &sink)
                state = .idle
                atLineStart = true
            } else {
                // A new start delimiter, or a control/binary byte: the sentence was cut short.
                counters.truncatedSentences += 1
                sink.framer(error: .truncatedSentence(offset: frameStart, length: length))
                state = .idle
                idle(byte, into: &sink)
            }
        case .discardLine:
            if byte == 0x0D || byte == 0x0A {
                state = .idle
                atLineStart = true
            } else if byte == 0x24 || byte == 0x21 {
                state = .idle
                idle(byte, into: &sink)
            }
        case .comment:
            if byte == 0x0D || byte == 0x0A {
                state = .idle
                atLineStart = true
            }
        case .ubx:
            ubx(byte, into: &sink)
        case .rtcm3:
            rtcm3(byte, into: &sink)
        case .casic:
            casic(byte, into: &sink)
        }
    }

    @inline(__always)
    mutating func idle<Sink: NMEAFramerSink>(_ byte: UInt8, into sink: inout Sink) {
        switch byte {
        case 0x24, 0x21: // $ !
            flushGarbage(into: &sink)
            state = .sentence
            frameStart = offset
            buffer[0] = byte
            length = 1
        case 0x0D, 0x0A:
            atLineStart = true
        case 0xB5:
            flushGarbage(into: &sink)
            state = .ubx
            frameStart = offset
            buffer[0] = byte
            length = 1
        case 0xBA:
            flushGarbage(into: &sink)
            state = .casic
            frameStart = offset
            buffer[0] = byte
            length = 1
        case 0xD3:
            flushGarbage(into: &sink)
            state = .rtcm3
            frameStart = offset
            buffer[0] = byte
            length = 1
        case 0x23 where skipsCommentLines && atLineStart: // '#'
            flushGarbage(into: &sink)
            state = .comment
        default:
            if garbageCount == 0 { garbageStart = offset }
            garbageCount &+= 1
            counters.garbageBytes &+= 1
            atLineStart = false
        }
    }

    mutating func flushGarbage<Sink: NMEAFramerSink>(into sink: inout Sink) {
        guard garbageCount > 0 else { return }
        sink.framer(error: .garbage(offset: garbageStart, count: garbageCount))
        garbageCount = 0
    }

    /// The first `count` bytes held: a whole binary frame, from its sync bytes through its checksum.
    @inline(__always)
    func held(_ count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer<UInt8>(start: buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count: count)
    }

    mutating func emitSentence<Sink: NMEAFramerSink>(into sink: inout Sink) {
        counters.sentences &+= 1
        let bytes = UnsafeBufferPointer<UInt8>(start: buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count: length)
        sink.framer(sentence: bytes.span)
        length = 0
    }

    /// A false or corrupt binary frame: the sync byte counts as garbage and every byte held after it
    /// goes back through the state machine, so a sentence swallowed by a false length is not lost.
    mutating func abandonBinary<Sink: NMEAFramerSink>(_ byte: UInt8?, into sink: inout Sink) {
        let held = length
        state = .idle
        length = 0
        if garbageCount == 0 { garbageStart = frameStart }
        garbageCount &+= 1
        counters.garbageBytes &+= 1
        if replaying {
            // Already replaying: the held bytes are dropped rather than replayed recursively.
            counters.garbageBytes &+= Int64(max(held - 1, 0))
            garbageCount &+= max(held - 1, 0)
        } else if held > 1 {
            replaying = true
            replay.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[1..<held]))
            for index in 0..<(held - 1) { step(replay[index], into: &sink) }
            replaying = false
        }
        if let byte { step(byte, into: &sink) }
    }

    @inline(__always)
    mutating func ubx<Sink: NMEAFramerSink>(_ byte: UInt8, into sink: inout Sink) {
        switch length {
        case 1:
            guard byte == 0x62 else { abandonBinary(byte, into: &sink); return }
        case 2, 3, 4:
            break
        case 5:
            let payload = Int(buffer[4]) | Int(byte) << 8
            guard payload <= NMEAFramer.maximumUBXPayload else {
                // Real receivers send nothing this large; treat it as a false sync.
                counters.sentencesTooLong += 1
                sink.framer(error: .ubxTooLong(offset: frameStart, length: payload))
                abandonBinary(byte, into: &sink)
                return
            }
            expected = 6 + payload + 2
        default:
            break
        }
        buffer[length] = byte
        length &+= 1
        guard length >= 6, length == expected else { return }
        let (a, b) = UBXFraming.checksum(buffer[2..<(expected - 2)])
        if a == buffer[expected - 2] && b == buffer[expected - 1] {
            counters.ubxFrames += 1
            let payload = UnsafeBufferPointer<UInt8>(
                start: buffer.baseAddress?.advanced(by: 6).assumingMemoryBound(to: UInt8.self), count: expected - 8)
            sink.framer(ubxClass: buffer[2], id: buffer[3], payload: payload.span, frame: held(expected).span)
            state = .idle
            length = 0
        } else {
            counters.badBinaryChecksums += 1
            sink.framer(error: .badUBXChecksum(offset: frameStart, messageClass: buffer[2], id: buffer[3]))
            abandonBinary(nil, into: &sink)
        }
    }

    @inline(__always)
    mutating func rtcm3<Sink: NMEAFramerSink>(_ byte: UInt8, into sink: inout Sink) {
        switch length {
        case 1:
            // Six reserved bits must be zero.
            guard byte & 0xFC == 0 else { abandonBinary(byte, into: &sink); return }
        case 2:
            let payload = Int(buffer[1] & 0x03) << 8 | Int(byte)
            guard payload >= 2 else { abandonBinary(byte, into: &sink); return }
            expected = 3 + payload + 3
        default:
            break
        }
        buffer[length] = byte
        length &+= 1
        guard length >= 3, length == expected else { return }
        var crc: UInt32 = 0
        for index in 0..<(expected - 3) { crc = CRC24Q.step(crc, buffer[index]) }
        let found = UInt32(buffer[expected - 3]) << 16 | UInt32(buffer[expected - 2]) << 8 | UInt32(buffer[expected - 1])
        if crc == found {
            counters.rtcm3Frames += 1
            let type = UInt16(buffer[3]) << 4 | UInt16(buffer[4] >> 4)
            let payload = UnsafeBufferPointer<UInt8>(
                start: buffer.baseAddress?.advanced(by: 3).assumingMemoryBound(to: UInt8.self), count: expected - 6)
            sink.framer(rtcm3MessageType: type, payload: payload.span, frame: held(expected).span)
            state = .idle
            length = 0
        } else {
            // Not a frame after all (0xD3 is common in binary data): resynchronise on the bytes held.
            counters.badBinaryChecksums += 1
            sink.framer(error: .badRTCM3Checksum(offset: frameStart))
            abandonBinary(nil, into: &sink)
        }
    }

}
