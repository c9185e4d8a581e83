import EnginePlatforms
import FieldLocation
import HardwareInterfaces
import LinuxHardware
import Synchronization

/// A simulated board's clock tied to the system clock, so its receiver's time can go through the
/// time service (`fieldlocd --board sim --sim-time-offset SECONDS`): when the engine starts
/// (``start(engine:at:systemNow:)``), the manual-clock instant it is paced from is paired with the
/// system time, and the receiver's UTC is set to the system time plus the offset. From then on a
/// manual instant's system time is the pair's plus the manual time elapsed over the speed.
///
/// At speed 1 the receiver's UTC is the system clock plus ``offsetNanoseconds`` at every epoch, so
/// chrony should measure exactly that offset (less nothing: a simulated port has no transmission time).
public final class SimulatedSystemTime: Sendable {
    /// The receiver's clock ahead of the system clock, nanoseconds.
    public let offsetNanoseconds: Int64
    /// The simulation's speed (manual seconds per wall second).
    public let speed: Double
    private let anchor = Mutex<(manual: MonotonicInstant, system: Int64)?>(nil)

    /// Ties a board to the system clock with the receiver `offsetSeconds` ahead, running at `speed`.
    public init(offsetSeconds: Double, speed: Double = 1) {
        offsetNanoseconds = offsetSeconds.isFinite ? Int64((offsetSeconds * 1e9).rounded()) : 0
        self.speed = speed.isFinite && speed > 0 ? speed : 1
    }

    /// Pairs `instant` of the engine's manual clock with `systemNow` and sets the receiver's UTC.
    public func start(engine: LocationEngine, at instant: MonotonicInstant, systemNow: Int64 = SystemWallClock.nanosecondsSinceEpoch()) {
        anchor.withLock { $0 = (instant, systemNow) }
        engine.setSimulatedReceiverUTC(systemNow &+ offsetNanoseconds, at: instant)
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
