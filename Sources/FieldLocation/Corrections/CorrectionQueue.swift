import Synchronization

/// The frames on their way from the caster to the receiver's UART: bounded in bytes, whole
/// frames only; a frame that does not fit is dropped and counted (the oldest corrections are the
/// least useful, but a half-sent frame is worse, so the new one goes).
public final class CorrectionQueue: Sendable {
    struct State {
        var frames: [[UInt8]] = []
        var head = 0
        var bytes = 0
        var dropped = 0
        var enqueued = 0
    }

    /// The most bytes held.
    public let capacity: Int
    private let state = Mutex(State())

    /// A queue holding at most `capacity` bytes (64 KiB: about a minute of a busy mountpoint).
    public init(capacity: Int = 64 * 1024) { self.capacity = max(capacity, 1100) }

    /// Adds a frame; returns false (and counts a drop) when it does not fit.
    @discardableResult
    public func push(_ frame: [UInt8]) -> Bool {
        state.withLock { s in
            guard s.bytes + frame.count <= capacity else { s.dropped += 1; return false }
            s.frames.append(frame)
            s.bytes += frame.count
            s.enqueued += 1
            return true
        }
    }

    /// Takes the oldest frame, if any.
    public func pop() -> [UInt8]? {
        state.withLock { s in
            guard s.head < s.frames.count else { return nil }
            let frame = s.frames[s.head]
            s.head += 1
            s.bytes -= frame.count
            if s.head > 64 && s.head * 2 > s.frames.count {
                s.frames.removeFirst(s.head)
                s.head = 0
            }
            return frame
        }
    }

    /// Bytes held now.
    public var bytes: Int { state.withLock { $0.bytes } }
    /// Frames dropped because the queue was full.
    public var dropped: Int { state.withLock { $0.dropped } }
    /// Frames accepted so far.
    public var enqueued: Int { state.withLock { $0.enqueued } }
}
