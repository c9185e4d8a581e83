/// Receives what an ``NMEAStream`` produces. Every method has a default that ignores the event.
public protocol NMEAStreamDelegate {
    /// The fix of a completed epoch.
    mutating func stream(fix: Fix)
    /// A sentence that passed the checksum and was parsed; `bytes` is valid only during the call.
    mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>)
    /// A sentence that was rejected, with the reason; `bytes` is valid only during the call.
    mutating func stream(rejected error: NMEAError, bytes: Span<UInt8>)
    /// Bytes the framer dropped.
    mutating func stream(framingError: FramingError)
    /// A u-blox UBX frame with a good checksum.
    mutating func stream(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>)
}

extension NMEAStreamDelegate {
    public mutating func stream(fix: Fix) {}
    public mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>) {}
    public mutating func stream(rejected error: NMEAError, bytes: Span<UInt8>) {}
    public mutating func stream(framingError: FramingError) {}
    public mutating func stream(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {}
}

/// Framer, parser and epoch assembler in one: bytes in, fixes out.
///
/// ```swift
/// let stream = NMEAStream()
/// stream.feed(chunk) { fix in print(fix.latitude ?? .nan) }
/// ```
/// Nothing is allocated per sentence once the stream exists.
public final class NMEAStream {
    /// The framer (its counters say how many bytes, sentences and binary frames were seen).
    public let framer: NMEAFramer
    /// Parser options (checksum strictness).
    public var parserOptions: NMEAParserOptions
    /// The epoch assembler (its counters say how many sentences were accepted and rejected, by reason).
    public private(set) var assembler: EpochAssembler

    /// Creates a stream.
    public init(parserOptions: NMEAParserOptions = NMEAParserOptions(),
                assemblerOptions: AssemblerOptions = AssemblerOptions(),
                maximumSentenceLength: Int = NMEAFramer.defaultMaximumSentenceLength,
                skipsCommentLines: Bool = false) {
        framer = NMEAFramer(maximumSentenceLength: maximumSentenceLength, skipsCommentLines: skipsCommentLines)
        self.parserOptions = parserOptions
        assembler = EpochAssembler(options: assemblerOptions)
    }

    /// Sentence counters: accepted by type, rejected by reason (framing errors included), fixes
    /// emitted, and the optional fields that could not be read and were taken as absent, by sentence
    /// type and field (``SentenceCounters/unreadable(_:field:)``).
    public var counters: SentenceCounters { assembler.counters }

    /// Feeds bytes; the delegate hears every fix, sentence and error.
    public func feed<Delegate: NMEAStreamDelegate>(_ bytes: Span<UInt8>, delegate: inout Delegate) {
        withUnsafeMutablePointer(to: &delegate) { pointer in
            var sink = Sink(stream: self, delegate: pointer)
            framer.feed(bytes, into: &sink)
        }
    }

    /// Feeds bytes; `onFix` is called with the fix of each completed epoch.
    public func feed(_ bytes: Span<UInt8>, onFix: (Fix) -> Void) {
        withoutActuallyEscaping(onFix) { onFix in
            var delegate = ClosureDelegate(onFix: onFix)
            feed(bytes, delegate: &delegate)
        }
    }

    /// Ends the stream: a pending sentence and the last epoch are delivered.
    public func finish<Delegate: NMEAStreamDelegate>(delegate: inout Delegate) {
        withUnsafeMutablePointer(to: &delegate) { pointer in
            var sink = Sink(stream: self, delegate: pointer)
            framer.finish(into: &sink)
        }
        if let fix = assembler.finish() { delegate.stream(fix: fix) }
    }

    /// Ends the stream; `onFix` receives the last epoch's fix if it was pending.
    public func finish(onFix: (Fix) -> Void) {
        withoutActuallyEscaping(onFix) { onFix in
            var delegate = ClosureDelegate(onFix: onFix)
            finish(delegate: &delegate)
        }
    }

    private struct ClosureDelegate: NMEAStreamDelegate {
        let onFix: (Fix) -> Void
        mutating func stream(fix: Fix) { onFix(fix) }
    }

    private struct Sink<Delegate: NMEAStreamDelegate>: NMEAFramerSink {
        unowned(unsafe) let stream: NMEAStream
        /// The caller's delegate, borrowed for the duration of one feed (never stored beyond it).
        let delegate: UnsafeMutablePointer<Delegate>

        mutating func framer(sentence: Span<UInt8>) {
            do throws(NMEAError) {
                let parsed = try NMEAParser.parse(sentence, options: stream.parserOptions)
                delegate.pointee.stream(sentence: parsed, bytes: sentence)
                let delegate = self.delegate
                stream.assembler.add(parsed) { delegate.pointee.stream(fix: $0) }
            } catch {
                stream.assembler.noteRejected(error.reason)
                delegate.pointee.stream(rejected: error, bytes: sentence)
            }
        }

        mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {
            delegate.pointee.stream(ubxClass: ubxClass, id: id, payload: payload)
        }

        mutating func framer(error: FramingError) {
            stream.assembler.noteRejected(error.reason)
            delegate.pointee.stream(framingError: error)
        }
    }
}
