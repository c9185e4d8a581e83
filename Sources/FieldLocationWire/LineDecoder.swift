import NIOCore

/// The line framing of `fieldlocd`'s sockets: a SwiftNIO decoder that splits a byte stream into
/// LF-terminated lines of at most ``maximumLength`` bytes (without the LF).
///
/// The gpsd JSON server, the local client socket (both ends) and the gpsd watch client all frame
/// with it: the client socket and its client through a `ByteToMessageHandler`, the gpsd server and
/// the watch client through a `NIOSingleStepByteToMessageProcessor` (the gpsd server also hands an
/// unterminated request over when its client pauses, by calling `finishProcessing(seenEOF: false)`).
///
/// A line longer than the limit is reported once as ``Item/tooLong(_:)`` with its first
/// `maximumLength + 1` bytes, and the rest of it is skipped up to its LF; the stream goes on after
/// it. The result does not depend on how the bytes arrive (whole, byte by byte, in bursts).
public struct LineDecoder: NIOSingleStepByteToMessageDecoder, Sendable {
    /// What the decoder found.
    public enum Item: Sendable, Hashable {
        /// A line without its LF (and without the CR before it when ``LineDecoder/stripsCarriageReturn``).
        case line(ByteBuffer)
        /// A line over the limit: its first `maximumLength + 1` bytes (the rest is skipped to its LF).
        case tooLong(ByteBuffer)
    }

    /// What ``decode(buffer:)`` produces.
    public typealias InboundOut = Item

    /// The longest line accepted, bytes without the LF (and without a stripped CR).
    public let maximumLength: Int
    /// Whether a CR right before the LF is dropped (and not counted).
    public let stripsCarriageReturn: Bool
    /// Whether empty lines are skipped instead of delivered.
    public let skipsEmptyLines: Bool
    /// Whether `decodeLast` delivers the bytes after the last LF as a line (a sender that paused or
    /// closed mid-line), or drops them.
    public let deliversUnterminatedLine: Bool

    /// Inside a line over the limit: bytes are dropped up to the next LF.
    private var discarding = false
    /// Bytes of the pending line already searched for the LF (so a long line is not rescanned).
    private var scanned = 0

    /// A decoder with the limit `maximumLength` (at least 1) and the given treatment of CR, empty lines and unterminated data.
    public init(maximumLength: Int, stripsCarriageReturn: Bool = true, skipsEmptyLines: Bool = false,
                deliversUnterminatedLine: Bool = false) {
        self.maximumLength = max(1, maximumLength)
        self.stripsCarriageReturn = stripsCarriageReturn
        self.skipsEmptyLines = skipsEmptyLines
        self.deliversUnterminatedLine = deliversUnterminatedLine
    }

    /// The next line or over-long line in `buffer`, or `nil` when it needs more bytes (an over-long
    /// line's rest is consumed as it arrives, so a sender cannot make the decoder hold more than
    /// `maximumLength + 1` bytes). Never throws.
    public mutating func decode(buffer: inout ByteBuffer) throws -> Item? {
        while buffer.readableBytes > 0 {
            let view = buffer.readableBytesView
            if discarding {
                guard let lf = view.firstIndex(of: 0x0A) else {
                    buffer.moveReaderIndex(forwardBy: view.count)
                    return nil
                }
                buffer.moveReaderIndex(forwardBy: view.distance(from: view.startIndex, to: lf) + 1)
                discarding = false
                continue
            }
            let from = view.index(view.startIndex, offsetBy: min(scanned, view.count))
            guard let lf = view[from...].firstIndex(of: 0x0A) else {
                scanned = view.count
                guard overLimit(pending: view) else { return nil }
                let head = buffer.getSlice(at: buffer.readerIndex, length: maximumLength + 1) ?? ByteBuffer()
                buffer.moveReaderIndex(forwardBy: view.count)
                scanned = 0
                discarding = true
                return .tooLong(head)
            }
            scanned = 0
            let length = view.distance(from: view.startIndex, to: lf)
            var content = length
            if stripsCarriageReturn, content > 0, view[view.index(before: lf)] == 0x0D { content -= 1 }
            if content > maximumLength {
                let head = buffer.getSlice(at: buffer.readerIndex, length: maximumLength + 1) ?? ByteBuffer()
                buffer.moveReaderIndex(forwardBy: length + 1)
                return .tooLong(head)
            }
            let line = buffer.readSlice(length: content) ?? ByteBuffer()
            buffer.moveReaderIndex(forwardBy: length + 1 - content)
            if content == 0 && skipsEmptyLines { continue }
            return .line(line)
        }
        return nil
    }

    /// Whether `pending` bytes without an LF already make a line over the limit, whatever follows.
    private func overLimit(pending: ByteBufferView) -> Bool {
        if pending.count > maximumLength + 1 { return true }
        guard pending.count == maximumLength + 1 else { return false }
        // One byte over: only a CR that the next LF would strip keeps it within the limit.
        return !(stripsCarriageReturn && pending.last == 0x0D)
    }

    /// The next item as ``decode(buffer:)`` finds it, then the bytes after the last LF: a line when
    /// ``deliversUnterminatedLine``, else dropped. The gpsd server calls it with `seenEOF: false`
    /// when its client pauses; decoding can go on afterwards. Never throws.
    public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> Item? {
        if let item = try decode(buffer: &buffer) { return item }
        defer { if seenEOF { discarding = false } }
        guard buffer.readableBytes > 0 else { return nil }
        scanned = 0
        guard deliversUnterminatedLine, !discarding else {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            return nil
        }
        var line = buffer.readSlice(length: buffer.readableBytes) ?? ByteBuffer()
        if stripsCarriageReturn, line.readableBytesView.last == 0x0D { line.moveWriterIndex(to: line.writerIndex - 1) }
        if line.readableBytes == 0 && skipsEmptyLines { return nil }
        return .line(line)
    }
}
