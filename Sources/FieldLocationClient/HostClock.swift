import Foundation
import HardwareInterfaces

/// The host's monotonic time for the client's own waits: the standard library's `SuspendingClock`
/// (CLOCK_MONOTONIC on Linux), counted from the first use. The client links no hardware backend.
struct HostClock: MonotonicClock {
    private static let origin = SuspendingClock.now

    func now() -> MonotonicInstant {
        let elapsed = SuspendingClock.now - Self.origin
        let (seconds, attoseconds) = elapsed.components
        return MonotonicInstant(nanoseconds: UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000)))
    }

    /// Sleeps until `deadline`; `Thread.sleep` resumes after a signal until the time has passed.
    func sleep(until deadline: MonotonicInstant) {
        guard deadline != .distantFuture else { return }
        let current = now()
        guard deadline > current else { return }
        Thread.sleep(forTimeInterval: (deadline - current).secondsDouble)
    }
}
