/// A point on a monotonic clock, in nanoseconds from an arbitrary origin.
///
/// Monotonic instants never jump with the wall clock (NTP, GNSS time setting), so deadlines and
/// timestamps of GPIO edges stay comparable. Instants from different clocks are not comparable.
public struct MonotonicInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: UInt64

    /// Creates an instant `nanoseconds` after the clock's origin.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The clock's origin.
    public static let zero = MonotonicInstant(nanoseconds: 0)

    /// The latest representable instant: a deadline that never passes.
    public static let distantFuture = MonotonicInstant(nanoseconds: UInt64.max)

    public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }

    /// This instant moved by `duration`, clamped to the clock's range (never traps).
    public func advanced(by duration: Duration) -> MonotonicInstant {
        let delta = duration.nanosecondsClamped
        if delta >= 0 {
            let (sum, overflow) = nanoseconds.addingReportingOverflow(UInt64(delta))
            return MonotonicInstant(nanoseconds: overflow ? .max : sum)
        }
        let magnitude = delta == Int64.min ? UInt64(Int64.max) + 1 : UInt64(-delta)
        return MonotonicInstant(nanoseconds: nanoseconds > magnitude ? nanoseconds - magnitude : 0)
    }

    /// The time from `self` to `other` (negative when `other` is earlier).
    public func duration(to other: MonotonicInstant) -> Duration {
        if other.nanoseconds >= nanoseconds {
            let d = other.nanoseconds - nanoseconds
            return .nanoseconds(d > UInt64(Int64.max) ? Int64.max : Int64(d))
        }
        let d = nanoseconds - other.nanoseconds
        return .nanoseconds(d > UInt64(Int64.max) ? Int64.min : -Int64(d))
    }

    public static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        instant.advanced(by: duration)
    }

    public static func - (a: MonotonicInstant, b: MonotonicInstant) -> Duration { b.duration(to: a) }

    /// Seconds since the origin, as a decimal (for logs).
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String { "\(seconds) s" }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64` (never traps).
    public var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = ns.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// The duration in seconds, as a decimal.
    public var secondsDouble: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// A monotonic clock with a sleep, injected into every driver and service.
///
/// Drivers never read the wall clock or sleep on their own: they take a clock, so a test with a
/// ``ManualClock``-style implementation runs an hour-long scenario in milliseconds.
///
/// The one primitive is ``sleep(until:)``; ``now()`` reads the clock, and waiting for a
/// duration is derived.
public protocol MonotonicClock: Sendable {
    /// The current instant.
    func now() -> MonotonicInstant
    /// Returns once `deadline` has passed (at once when it already has).
    func sleep(until deadline: MonotonicInstant)
}

extension MonotonicClock {
    /// Sleeps for `duration` (returns at once for zero or negative durations).
    public func sleep(for duration: Duration) {
        guard duration > .zero else { return }
        sleep(until: now().advanced(by: duration))
    }

    /// The deadline `duration` from now.
    public func deadline(after duration: Duration) -> MonotonicInstant {
        now().advanced(by: duration)
    }

    /// Calls `poll` until it returns a value or `attempts` calls have failed, sleeping `interval`
    /// between calls. The kernel's IIO drivers wait this way (for example 150 x 20 ms); there is
    /// no unbounded loop. Returns `nil` when every attempt returned `nil`.
    public func poll<T, E: Error>(
        attempts: Int, interval: Duration, _ poll: () throws(E) -> T?
    ) throws(E) -> T? {
        var remaining = attempts
        while remaining > 0 {
            if let value = try poll() { return value }
            remaining -= 1
            if remaining > 0 { sleep(for: interval) }
        }
        return nil
    }
}
