/// The framer's shortest path: a chunk that is one whole sentence and its line end.
extension FramerCore {
    /// Frames a chunk that is exactly one sentence and its line end (CR, LF or CR LF), read in the
    /// idle state with no stray bytes pending: a receiver read that returns a line at a time, or a log
    /// fed line by line. It does what ``feed(_:into:)`` does for such a chunk (same counters, same
    /// offsets, same view of the caller's bytes handed to the sink) without the byte loop around it.
    /// Returns `false`, having changed nothing, for any other chunk.
    @inline(__always)
    mutating func feedLine<Sink: NMEAFramerSink>(_ input: UnsafeBufferPointer<UInt8>, into sink: inout Sink) -> Bool {
        guard state == .idle, garbageCount == 0, let base = input.baseAddress else { return false }
        let count = input.count
        guard count >= 2, base[0] == 0x24 || base[0] == 0x21 else { return false }
        var digest = SentenceDigest()
        let stop = FramerCore.sentenceEnd(base, from: 1, to: count, digest: &digest)
        guard stop < count, stop <= maximumSentenceLength, base[stop] == 0x0D || base[stop] == 0x0A else { return false }
        // Nothing may follow but the sentence's own line end.
        let rest = count &- stop
        guard rest == 1 || (rest == 2 && base[stop] == 0x0D && base[stop &+ 1] == 0x0A) else { return false }
        let start = counters.bytes
        deliverWhole(base, length: stop, at: start, digest: digest, into: &sink)
        counters.bytes = start &+ Int64(count)
        return true
    }

    /// Hands the sink a whole sentence that lies in the caller's chunk (from its delimiter, `length`
    /// bytes, at stream offset `offset`), as a view with no copy: what `idle` and `emitSentence` do
    /// for it byte by byte, and with the digest of its bytes after the delimiter (when they are few
    /// enough for the scan's per-lane comma counts, which real sentences always are). The stream
    /// offset is left at the sentence's line end.
    @inline(__always)
    mutating func deliverWhole<Sink: NMEAFramerSink>(_ sentence: UnsafePointer<UInt8>, length: Int, at offset: Int64,
                                                     digest: SentenceDigest, into sink: inout Sink) {
        frameStart = offset
        counters.bytes = offset &+ Int64(length)
        counters.sentences &+= 1
        let view = UnsafeBufferPointer(start: sentence, count: length).span
        if length <= SentenceDigest.maximumLength {
            sink.framer(sentence: view, digest: digest)
        } else {
            sink.framer(sentence: view)
        }
        atLineStart = true
    }
}
