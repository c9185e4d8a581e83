import EnginePlatforms
import FieldLocation
import HardwareInterfaces
import LinuxHardware
import NMEA
import Synchronization

/// A simulated board's clock tied to the system clock, so its receiver's time can go through the
/// time service (`fieldlocd --board sim --sim-time-offset SECONDS`): when the engine starts
/// (``start(engine:at:systemNow:)``), the manual-clock instant it is paced from is paired with the
/// system time, and the receiver's UTC is set to the system time plus the offset. From then on a
/// manual instant's system time is the pair's plus the manual time elapsed over the speed.
///
/// At speed 1 the receiver's UTC is the system clock plus ``offsetNanoseconds`` at every epoch, so
/// chrony should measure exactly that offset (less nothing: a simulated port has no transmission time).
///
/// With a fixed start (``init(startingAt:speed:)``, `--sim-time ISO8601`) the receiver's UTC at the
/// engine's start is that instant instead, whatever the system clock says, and the "system time" of
/// a manual instant is that start plus the time elapsed: a simulated world with its own fixed date,
/// for tests. Such a clock must not feed the system's time service.
public final class SimulatedSystemTime: Sendable {
    /// The receiver's clock ahead of the system clock, nanoseconds.
    public let offsetNanoseconds: Int64
    /// The receiver's UTC at the engine's start (nanoseconds since 1970), when fixed; `nil`: the
    /// system clock plus ``offsetNanoseconds``.
    public let fixedStartNanoseconds: Int64?
    /// The simulation's speed (manual seconds per wall second).
    public let speed: Double
    private let anchor = Mutex<(manual: MonotonicInstant, system: Int64)?>(nil)

    /// Ties a board to the system clock with the receiver `offsetSeconds` ahead, running at `speed`.
    public init(offsetSeconds: Double, speed: Double = 1) {
        offsetNanoseconds = offsetSeconds.isFinite ? Int64((offsetSeconds * 1e9).rounded()) : 0
        fixedStartNanoseconds = nil
        self.speed = speed.isFinite && speed > 0 ? speed : 1
    }

    /// A simulated board whose receiver starts at `utcNanoseconds` (nanoseconds since 1970) whenever
    /// it runs, at `speed` (`--sim-time`).
    public init(startingAt utcNanoseconds: Int64, speed: Double = 1) {
        offsetNanoseconds = 0
        fixedStartNanoseconds = utcNanoseconds
        self.speed = speed.isFinite && speed > 0 ? speed : 1
    }

    /// Why `--sim-time` or `--sim-time-offset` cannot be used, as the sentence to show.
    public struct OptionError: Error, Sendable, CustomStringConvertible {
        /// The option at fault and what it must be.
        public let description: String
    }

    /// The simulated board's clock that `--sim-time ISO8601` and `--sim-time-offset SECONDS` ask
    /// for: a fixed start, or the system clock `offsetSeconds` ahead (0 without either), at
    /// `speed`. Throws when the offset is beyond ±366 days, the start is not a UTC instant, or
    /// both are given.
    public static func choice(simTime: String?, offsetSeconds: Double?, speed: Double) throws(OptionError) -> SimulatedSystemTime {
        if let offsetSeconds, !(offsetSeconds.isFinite && abs(offsetSeconds) <= 31_622_400) {
            throw OptionError(description: "--sim-time-offset must be within ±366 days (in seconds)")
        }
        guard let simTime else { return SimulatedSystemTime(offsetSeconds: offsetSeconds ?? 0, speed: speed) }
        guard let start = utcNanoseconds(iso8601: simTime) else {
            throw OptionError(description: "--sim-time '\(simTime)' is not a UTC instant like 2026-05-01T12:00:00Z")
        }
        if offsetSeconds != nil {
            throw OptionError(description: "--sim-time fixes the simulated clock; --sim-time-offset ties it to the system clock: give one")
        }
        return SimulatedSystemTime(startingAt: start, speed: speed)
    }

    /// Nanoseconds since 1970 of `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (a `--sim-time` value), or `nil`
    /// when the text is not such an instant.
    public static func utcNanoseconds(iso8601 text: String) -> Int64? {
        let s = Array(text.utf8)
        guard s.count >= 20, s.count <= 40, s[4] == 0x2D, s[7] == 0x2D, s[10] == 0x54 || s[10] == 0x20, s[13] == 0x3A, s[16] == 0x3A,
              s.last == 0x5A || s.last == 0x7A else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard s[range].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return Int(String(decoding: s[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), hour < 24, minute < 60, second < 60,
              let date = CalendarDate(year: year, month: month, day: day) else { return nil }
        var fraction: Int64 = 0
        let tail = s[19..<(s.count - 1)]
        if !tail.isEmpty {
            guard tail.first == 0x2E, tail.count >= 2, tail.count <= 10, tail.dropFirst().allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            var digits = Array(tail.dropFirst())
            while digits.count < 9 { digits.append(0x30) }
            fraction = Int64(String(decoding: digits, as: UTF8.self)) ?? 0
        }
        let seconds = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return seconds * 1_000_000_000 + fraction
    }

    /// Pairs `instant` of the engine's manual clock with `systemNow` and sets the receiver's UTC.
    /// With a fixed start, the pair is `instant` and that start, and the receiver starts there.
    public func start(engine: LocationEngine, at instant: MonotonicInstant, systemNow: Int64 = SystemWallClock.nanosecondsSinceEpoch()) {
        let system = fixedStartNanoseconds ?? systemNow
        anchor.withLock { $0 = (instant, system) }
        engine.setSimulatedReceiverUTC(system &+ offsetNanoseconds, at: instant)
    }

    /// Whether ``start(engine:at:systemNow:)`` ran.
    public var isStarted: Bool { anchor.withLock { $0 != nil } }

    /// The system time (nanoseconds since 1970) of a manual-clock instant; before the start, the
    /// instant read as seconds since 1970 (no sample is taken then: no epoch has come).
    @Sendable public func systemNanoseconds(_ instant: MonotonicInstant) -> Int64 {
        guard let anchor = anchor.withLock({ $0 }) else { return Int64(clamping: instant.nanoseconds) }
        let elapsed = instant >= anchor.manual ? Double((instant - anchor.manual).nanosecondsClamped)
                                               : -Double((anchor.manual - instant).nanosecondsClamped)
        return anchor.system &+ Int64((elapsed / speed).rounded())
    }
}
