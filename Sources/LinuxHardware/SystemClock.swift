import Glibc
import HardwareInterfaces

/// CLOCK_MONOTONIC, with `clock_nanosleep` (absolute, EINTR-safe) for sleeps.
public struct SystemMonotonicClock: MonotonicClock {
    /// The system's monotonic clock.
    public init() {}

    /// The current CLOCK_MONOTONIC time (the clock the kernel stamps GPIO edge events with).
    public func now() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: UInt64(max(0, ts.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, ts.tv_nsec)))
    }

    /// Sleeps until `deadline` with an absolute `clock_nanosleep`, so a signal only resumes the
    /// same sleep. Returns at once for a deadline in the past and for ``MonotonicInstant/distantFuture``.
    public func sleep(until deadline: MonotonicInstant) {
        guard deadline != .distantFuture else { return }
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        _ = Sys.returningErrorNumber { clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) }
    }
}

/// CLOCK_REALTIME: the system's wall clock, for reports that pair GPS time with the host's clock
/// (gpsd's TOFF and PPS).
public enum SystemWallClock {
    /// Nanoseconds since 1970-01-01 UTC.
    public static func nanosecondsSinceEpoch() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
