/// Receives what an ``NMEAStream`` produces. Every method has a default that ignores the event.
public protocol NMEAStreamDelegate {
    /// The fix of a completed epoch.
    mutating func stream(fix: Fix)
    /// The fix of a completed epoch, where the stream holds it (valid only during the call). The
    /// stream calls this; its default passes the fix to ``stream(fix:)``. The default is compiled
    /// with the conforming type, so a delegate that reads a few fields of the fix reads them where
    /// they lie: the stream calls its delegate through the delegate's type only, and a fix passed
    /// by value that way (about 1.8 kilobytes) was copied first at every epoch.
    mutating func stream(fixAt fix: UnsafePointer<Fix>)
    /// A sentence that passed the checksum and was parsed; `bytes` is valid only during the call.
    mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>)
    /// A sentence that was rejected, with the reason; `bytes` is valid only during the call.
    mutating func stream(rejected error: NMEAError, bytes: Span<UInt8>)
    /// Bytes the framer dropped.
    mutating func stream(framingError: FramingError)
    /// A u-blox UBX frame with a good checksum.
    mutating func stream(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>)
    /// A CASIC binary frame with a good checksum.
    mutating func stream(casicClass: UInt8, id: UInt8, payload: Span<UInt8>)
    /// A frame as it was received (a sentence up to its line end, not included; a binary frame from
    /// its sync bytes through its checksum), before anything is made of it; called only while the
    /// stream's ``NMEAStream/deliversFrames`` is on. `frame` is valid only during the call.
    mutating func stream(frame: Span<UInt8>, kind: RawFrame.Kind)
}

extension NMEAStreamDelegate {
    public mutating func stream(fix: Fix) {}
    @inlinable
    public mutating func stream(fixAt fix: UnsafePointer<Fix>) { stream(fix: fix.pointee) }
    public mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>) {}
    public mutating func stream(rejected error: NMEAError, bytes: Span<UInt8>) {}
    public mutating func stream(framingError: FramingError) {}
    public mutating func stream(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {}
    public mutating func stream(casicClass: UInt8, id: UInt8, payload: Span<UInt8>) {}
    public mutating func stream(frame: Span<UInt8>, kind: RawFrame.Kind) {}
}

/// Framer, parser, epoch assembler and binary merger in one: bytes in, fixes out. UBX and CASIC
/// navigation frames join the NMEA of their epoch through ``EpochMerger``.
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
    public var parserOptions: NMEAParserOptions {
        get { state.pointee.parserOptions }
        set { state.pointee.parserOptions = newValue }
    }
    /// The epoch assembler (its counters say how many sentences were accepted and rejected, by reason).
    public var assembler: EpochAssembler { state.pointee.assembler }
    /// The merger of binary navigation frames (UBX, CASIC) with the assembler's fixes (its counters say
    /// how many frames were decoded, malformed or ignored).
    public var merger: EpochMerger { state.pointee.merger }
    /// The assembler, the merger and the arrival order, in memory the stream allocates once and owns:
    /// a sentence reaches them through this pointer, with no exclusivity check and no retain of the
    /// stream (a stored property of a class is checked at run time at every access).
    private let state: UnsafeMutablePointer<State>

    struct State {
        var parserOptions: NMEAParserOptions
        var assembler: EpochAssembler
        var merger: EpochMerger
        /// The arrival number of the last sentence, for ordering NMEA against binary within an epoch.
        var lastSentenceOrder = 0
        /// Whether the delegate hears every frame as received.
        var deliversFrames = false

        /// Assembles a parsed sentence, passing the fixes it completes through the merger to `emit`.
        @inline(__always)
        mutating func add(_ parsed: ParsedSentence, emit: (UnsafePointer<Fix>) -> Void) {
            let previous = lastSentenceOrder
            let order = merger.nextSequence()
            lastSentenceOrder = order
            let time = parsed.epochTime
            if let time { merger.noteSentence(time: time) }
            withUnsafeMutablePointer(to: &merger) { merger in
                assembler.add(parsed, time: time) { fix in
                    // A fix emitted at a change of time holds the sentences before this one.
                    // Until a binary frame has come, the merger would only pass the fix on: it
                    // goes to `emit` from where it is.
                    guard merger.pointee.active else { return emit(fix) }
                    let last = time != nil && fix.pointee.timeOfDay != time ? previous : order
                    merger.pointee.add(nmea: fix.pointee, sequence: last) { merged in withUnsafePointer(to: merged, emit) }
                }
            }
        }
    }

    /// Creates a stream.
    public init(parserOptions: NMEAParserOptions = NMEAParserOptions(),
                assemblerOptions: AssemblerOptions = AssemblerOptions(),
                maximumSentenceLength: Int = NMEAFramer.defaultMaximumSentenceLength,
                skipsCommentLines: Bool = false) {
        framer = NMEAFramer(maximumSentenceLength: maximumSentenceLength, skipsCommentLines: skipsCommentLines)
        state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State(parserOptions: parserOptions, assembler: EpochAssembler(options: assemblerOptions),
                                   merger: EpochMerger(options: assemblerOptions)))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Whether the delegate hears every frame as it was received (``NMEAStreamDelegate/stream(frame:kind:)``),
    /// in stream order, before the sentence or frame is parsed: the framer's own frames, for those who
    /// pass the receiver's output on (gpsd's `nmea` and `raw` watchers). Off by default: then nothing is
    /// done for them.
    public var deliversFrames: Bool {
        get { state.pointee.deliversFrames }
        set { state.pointee.deliversFrames = newValue }
    }

    /// Sentence counters: accepted by type, rejected by reason (framing errors included), fixes
    /// emitted, and the optional fields that could not be read and were taken as absent, by sentence
    /// type and field (``SentenceCounters/unreadable(_:field:)``).
    public var counters: SentenceCounters { state.pointee.assembler.counters }

    /// Feeds bytes; the delegate hears every fix, sentence and error.
    ///
    /// Inlined into the caller, where the delegate's type is known: only the pointer to the delegate
    /// and its type cross into the stream, so a feed costs no generic dispatch however small it is.
    @inlinable
    public func feed<Delegate: NMEAStreamDelegate>(_ bytes: Span<UInt8>, delegate: inout Delegate) {
        withUnsafeMutablePointer(to: &delegate) { pointer in
            feed(bytes, delegate: UnsafeMutableRawPointer(pointer), type: Delegate.self)
        }
    }

    /// ``feed(_:delegate:)`` with the delegate as a pointer and its type.
    @usableFromInline
    func feed(_ bytes: Span<UInt8>, delegate: UnsafeMutableRawPointer, type: any NMEAStreamDelegate.Type) {
        var sink = Sink(state: state, delegate: delegate, type: type)
        framer.feed(bytes, into: &sink)
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
        let state = self.state
        withUnsafeMutablePointer(to: &delegate) { pointer in
            var sink = Sink(state: state, delegate: UnsafeMutableRawPointer(pointer), type: Delegate.self)
            framer.finish(into: &sink)
        }
        if let fix = state.pointee.assembler.finish() {
            state.pointee.merger.add(nmea: fix, sequence: state.pointee.lastSentenceOrder) { delegate.stream(fix: $0) }
        }
        state.pointee.merger.finish { delegate.stream(fix: $0) }
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

    /// What the framer calls for one feed. Not generic over the delegate: a generic sink's type
    /// metadata is looked up in the runtime's cache at every feed when the caller's delegate type is
    /// not known to this module (about 330 instructions, more than framing a sentence). The delegate
    /// is reached through its type, kept as an existential metatype and opened at each call.
    private struct Sink: NMEAFramerSink {
        /// The stream's state (the stream outlives the feed that made this sink).
        let state: UnsafeMutablePointer<State>
        /// The caller's delegate, borrowed for the duration of one feed (never stored beyond it).
        let delegate: UnsafeMutableRawPointer
        /// The delegate's type.
        let type: any NMEAStreamDelegate.Type

        mutating func framer(sentence: Span<UInt8>) {
            take(sentence, digest: nil)
        }

        mutating func framer(sentence: Span<UInt8>, digest: SentenceDigest) {
            take(sentence, digest: digest)
        }

        @inline(__always)
        private func take(_ sentence: Span<UInt8>, digest: SentenceDigest?) {
            let delegate = self.delegate
            let type = self.type
            if state.pointee.deliversFrames { Self.deliver(frame: sentence, kind: .sentence, to: delegate, as: type) }
            do throws(NMEAError) {
                let parsed = try NMEAParser.parse(sentence, digest: digest, options: state.pointee.parserOptions)
                // A sentence that does not end in `*hh` either has no checksum or has data after it.
                let count = sentence.count
                if count < 3 || sentence[count &- 3] != 0x2A {
                    state.pointee.assembler.counters.noteTrailingData(NMEAParser.trailingDataLength(sentence))
                }
                Self.deliver(sentence: parsed, bytes: sentence, to: delegate, as: type)
                state.pointee.add(parsed) { Self.deliver(fix: $0, to: delegate, as: type) }
            } catch {
                state.pointee.assembler.noteRejected(error.reason)
                Self.deliver(rejected: error, bytes: sentence, to: delegate, as: type)
            }
        }

        mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>, frame: Span<UInt8>) {
            let delegate = self.delegate
            let type = self.type
            if state.pointee.deliversFrames { Self.deliver(frame: frame, kind: .ubx, to: delegate, as: type) }
            Self.deliver(ubxClass: ubxClass, id: id, payload: payload, to: delegate, as: type)
            state.pointee.merger.add(ubxClass: ubxClass, id: id, payload: payload) { Self.deliver(fix: $0, to: delegate, as: type) }
        }

        mutating func framer(rtcm3MessageType: UInt16, payload: Span<UInt8>, frame: Span<UInt8>) {
            let delegate = self.delegate
            let type = self.type
            if state.pointee.deliversFrames { Self.deliver(frame: frame, kind: .rtcm3, to: delegate, as: type) }
        }

        mutating func framer(casicClass: UInt8, id: UInt8, payload: Span<UInt8>, frame: Span<UInt8>) {
            let delegate = self.delegate
            let type = self.type
            if state.pointee.deliversFrames { Self.deliver(frame: frame, kind: .casic, to: delegate, as: type) }
            Self.deliver(casicClass: casicClass, id: id, payload: payload, to: delegate, as: type)
            state.pointee.merger.add(casicClass: casicClass, id: id, payload: payload) { Self.deliver(fix: $0, to: delegate, as: type) }
        }

        mutating func framer(error: FramingError) {
            state.pointee.assembler.noteRejected(error.reason)
            let type = self.type
            Self.deliver(framingError: error, to: delegate, as: type)
        }

        // One call of the delegate each, with its type opened from the existential metatype.
        private static func deliver<D: NMEAStreamDelegate>(fix: Fix, to raw: UnsafeMutableRawPointer, as: D.Type) {
            raw.assumingMemoryBound(to: D.self).pointee.stream(fix: fix)
        }
        /// The fix read where it is (the assembler's own), not copied first.
        private static func deliver<D: NMEAStreamDelegate>(fix: UnsafePointer<Fix>, to raw: UnsafeMutableRawPointer, as: D.Type) {
            raw.assumingMemoryBound(to: D.self).pointee.stream(fixAt: fix)
        }
        private static func deliver<D: NMEAStreamDelegate>(sentence: ParsedSentence, bytes: Span<UInt8>,
                                                           to raw: UnsafeMutableRawPointer, as: D.Type) {
            raw.assumingMemoryBound(to: D.self).pointee.stream(sentence: sentence, bytes: bytes)
        }
        private static func deliver<D: NMEAStreamDelegate>(rejected: NMEAError, bytes: Span<UInt8>,
                                                           to raw: UnsafeMutableRawPointer, as: D.Type) {
            raw.assumingMemoryBound(to: D.self).pointee.stream(rejected: rejected, bytes: bytes)
        }
        private static func deliver<D: NMEAStreamDelegate>(framingError: FramingError, to raw: UnsafeMutableRawPointer, as: D.Type) {
            raw.assumingMemoryBound(to: D.self).pointee.stream(framingError: framingError)
        }
        private static func deliver<D: NMEAStreamDelegate>(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>,
                                                           to raw: UnsafeMutableRawPointer, as: D.Type) {
            raw.assumingMemoryBound(to: D.self).pointee.stream(ubxClass: ubxClass, id: id, payload: payload)
        }
        private static func deliver<D: NMEAStreamDelegate>(frame: Span<UInt8>, kind: RawFrame.Kind,
                                                           to raw: UnsafeMutableRawPointer, as: D.Type) {
            raw.assumingMemoryBound(to: D.self).pointee.stream(frame: frame, kind: kind)
        }
        private static func deliver<D: NMEAStreamDelegate>(casicClass: UInt8, id: UInt8, payload: Span<UInt8>,
                                                           to raw: UnsafeMutableRawPointer, as: D.Type) {
            raw.assumingMemoryBound(to: D.self).pointee.stream(casicClass: casicClass, id: id, payload: payload)
        }
    }
}
