import HardwareInterfaces
import LocationAPI
import Synchronization

/// A recording's headings for the engine, each due at its time after the replay's start: the
/// engine publishes them as it would its sensors' (``EnginePlatform/recordedHeadings``).
public final class RecordedHeadingSource: Sendable {
    private let headings: [(at: MonotonicInstant, heading: HeadingUpdate)]
    private let next = Mutex(0)

    /// The headings, each with the instant it is due, in time order.
    public init(_ headings: [(at: MonotonicInstant, heading: HeadingUpdate)]) {
        self.headings = headings
    }

    /// When the next heading is due, if any is left.
    public var nextDue: MonotonicInstant? { next.withLock { $0 < headings.count ? headings[$0].at : nil } }

    /// The headings due by `instant`, in order (each once).
    public func take(upTo instant: MonotonicInstant) -> [HeadingUpdate] {
        next.withLock { index in
            var out: [HeadingUpdate] = []
            while index < headings.count, headings[index].at <= instant {
                out.append(headings[index].heading)
                index += 1
            }
            return out
        }
    }
}
