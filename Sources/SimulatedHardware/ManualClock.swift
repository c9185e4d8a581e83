import HardwareInterfaces
import Synchronization

/// A monotonic clock that moves only when told to, for tests and simulations.
///
/// ``sleep(until:)`` advances the time to the deadline at once, so a driver that waits 20 ms
/// between polls, or a scenario that runs for an hour, takes microseconds of real time. Devices
/// that must react as time passes (a PPS source, a receiver's epoch timer) either compute their
/// state from ``now()`` when asked, or register an observer with ``addObserver(_:)``.
///
/// The clock is thread-safe: every change happens under a `Mutex`, and time never goes back.
public final class ManualClock: MonotonicClock {
    /// Identifies an observer so it can be removed.
    public struct ObserverID: Hashable, Sendable {
        let value: Int
    }

    private struct State {
        var now: MonotonicInstant
        var observers: [(id: Int, body: @Sendable (MonotonicInstant, MonotonicInstant) -> Void)] = []
        var nextObserver = 0
        var sleeps = 0
    }

    private let state: Mutex<State>

    /// Creates a clock reading `start`.
    public init(start: MonotonicInstant = .zero) {
        state = Mutex(State(now: start))
    }

    /// The current instant.
    public func now() -> MonotonicInstant {
        state.withLock { $0.now }
    }

    /// Moves the time forward by `duration` (zero or negative durations do nothing).
    public func advance(by duration: Duration) {
        guard duration > .zero else { return }
        let target = state.withLock { $0.now.advanced(by: duration) }
        advance(to: target)
    }

    /// Moves the time forward to `instant`; an instant in the past does nothing.
    public func advance(to instant: MonotonicInstant) {
        let change = state.withLock { state -> (MonotonicInstant, [@Sendable (MonotonicInstant, MonotonicInstant) -> Void])? in
            guard instant > state.now else { return nil }
            let old = state.now
            state.now = instant
            return (old, state.observers.map(\.body))
        }
        // Observers run outside the lock, so they may read the clock or advance it further.
        guard let (old, observers) = change else { return }
        for observer in observers { observer(old, instant) }
    }

    /// Advances the time to `deadline` at once (a deadline in the past returns at once).
    public func sleep(until deadline: MonotonicInstant) {
        state.withLock { $0.sleeps += 1 }
        advance(to: deadline)
    }

    /// How many times ``sleep(until:)`` was called: lets a test check that a driver waited.
    public var sleepCount: Int { state.withLock { $0.sleeps } }

    /// Registers `observer`, called with the old and the new instant each time the time advances.
    /// It is called outside the clock's lock, on the thread that advanced the clock.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable (_ from: MonotonicInstant, _ to: MonotonicInstant) -> Void) -> ObserverID {
        state.withLock { state in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers.append((id, observer))
            return ObserverID(value: id)
        }
    }

    /// Removes an observer; removing one twice is harmless.
    public func removeObserver(_ id: ObserverID) {
        state.withLock { $0.observers.removeAll { $0.id == id.value } }
    }
}
