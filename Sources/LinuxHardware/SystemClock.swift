import CRefclock
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

extension SystemWallClock {
    /// The wall clock's UTC and the kernel's bound on its error (seconds), when the kernel says
    /// the clock is synchronised: `adjtimex` (read only) returns no `TIME_ERROR` and `STA_UNSYNC`
    /// is clear, as an NTP, chrony or PTP daemon (or FieldLocation's time service) leaves it. `nil`
    /// otherwise: a clock set only from an RTC or by hand is not trusted for aiding.
    public static func synchronised() -> (utcSeconds: Double, maximumError: Double)? {
        var tx = timex()
        tx.modes = 0
        let state = adjtimex(&tx)
        guard state >= 0, state != TIME_ERROR, tx.status & STA_UNSYNC == 0 else { return nil }
        let now = Double(nanosecondsSinceEpoch()) / 1e9
        return (now, Double(max(0, tx.maxerror)) / 1e6)
    }
}
