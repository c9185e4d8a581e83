import Glibc
import HardwareInterfaces

/// The offset between CLOCK_REALTIME and CLOCK_MONOTONIC, measured by reading CLOCK_REALTIME between
/// two CLOCK_MONOTONIC reads, a few times, and keeping the tightest bracket: the realtime read
/// happened somewhere inside it, so the offset is within half the bracket of the truth (typically
/// 20-100 ns with the vDSO clocks; more when the thread is preempted inside a bracket, which the
/// tightest-of-several choice discards).
///
/// The offset changes only when the system clock is stepped (`settimeofday`, chrony's `makestep`,
/// a leap second): slewing changes both clocks' rates alike. An edge the kernel stamped on one
/// clock is therefore placed on the other with the bracket's error, however old the edge.
public struct ClockBracket: Sendable, Hashable {
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, nanoseconds.
    public var offsetNanoseconds: Int64
    /// Half the tightest bracket, nanoseconds.
    public var errorBoundNanoseconds: Int64

    /// Reads the clocks `reads` times (at least 1) and keeps the tightest bracket.
    public static func measure(reads: Int = 5) -> ClockBracket {
        var best = (width: Int64.max, offset: Int64(0))
        for _ in 0..<max(1, reads) {
            let before = monotonicNanoseconds()
            let wall = SystemWallClock.nanosecondsSinceEpoch()
            let after = monotonicNanoseconds()
            let width = after - before
            if width < best.width { best = (width, wall - (before + width / 2)) }
        }
        return ClockBracket(offsetNanoseconds: best.offset, errorBoundNanoseconds: (best.width + 1) / 2)
    }

    /// `instant` (CLOCK_MONOTONIC) on the system clock.
    public func systemTime(at instant: MonotonicInstant) -> SystemTimeConversion {
        SystemTimeConversion(systemNanoseconds: Int64(clamping: instant.nanoseconds) &+ offsetNanoseconds,
                             errorBoundNanoseconds: errorBoundNanoseconds)
    }

    /// A system-clock time (CLOCK_REALTIME nanoseconds) on the monotonic clock (0 for a time before
    /// the monotonic clock's start).
    public func monotonic(atSystemNanoseconds system: Int64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: UInt64(max(0, system &- offsetNanoseconds)))
    }

    private static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
