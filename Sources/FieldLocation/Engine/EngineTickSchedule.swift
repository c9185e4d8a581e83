import Foundation
import HardwareInterfaces
import PowerPolicy
import Synchronization

/// What wakes the engine's run loop between its deadlines: a change in the clients' demand (the
/// next step ticks at once) and, for a manual-clock loop asleep between steps, any setting or
/// ``LocationEngine/stop()``.
final class EngineWake: @unchecked Sendable {
    // @unchecked: the flag is atomic and `DispatchSemaphore` is thread-safe.
    private let demandFlag = Atomic<Bool>(false)
    /// The semaphore a manual-clock loop sleeps on between steps (with a deadline).
    let semaphore = DispatchSemaphore(value: 0)

    /// The clients' demand changed: the next step ticks, and a sleeping loop wakes now.
    func demandChanged() {
        demandFlag.store(true, ordering: .releasing)
        semaphore.signal()
    }

    /// Wakes a sleeping loop (a setting, a stop) without asking for a tick.
    func signal() { semaphore.signal() }

    /// Whether the demand changed since the last call (and clears it).
    func takeDemandChange() -> Bool { demandFlag.exchange(false, ordering: .acquiringAndReleasing) }
}

/// When the engine ticks. While anything is demanded or under way the tick comes every
/// ``LocationEngine/busyTickPeriod``; when nothing is (no client has time-driven work, the
/// receiver is asleep on an idle decision, no sensor, port or radio to retry, no corrections, no
/// privacy switch to read) the engine has no tick of its own: it wakes only for its deadlines (the
/// motion latch's read, the simulated receiver's next transmission) and a demand change ticks at
/// once (``EngineWake``).
extension LocationEngine {
    /// The tick's period while anything is demanded or under way.
    public static let busyTickPeriod = Duration.seconds(1)

    /// The longest sleep of a manual-clock engine with nothing due (wall time): the wait's deadline.
    public static let maximumIdlePacingSleep = 60.0

    /// Whether the engine has nothing to do on time after a tick that decided `decision` for
    /// `demands`: no tick until a deadline or a demand change. Under `runLock`.
    func isIdle(after decision: PowerDecision, demands: [ClientDemand], records: [(Int, ClientRegistry.Record)]) -> Bool {
        guard demands.isEmpty, case .idle = decision.receiver, decision.magnetometer == .powerDown else { return false }
        // A receiver without a command set (or awake) is talking: its watchdog runs on the tick.
        guard receivers.allSatisfy({ r in r.executor.map { !$0.awake } == true && r.port != nil }) else { return false }
        guard sensors.problem == nil, !privacy.hasControls, !beacons.scanning, platform.recordedHeadings == nil,
              published.withLock({ $0.corrections }) == nil else { return false }
        return !registry.hasTimedWork(records)
    }

    /// When the tick after one at `now` is due: ``busyTickPeriod`` later, or never when `idle`
    /// (a deadline or a demand change brings the next).
    static func tickInstant(after now: MonotonicInstant, idle: Bool) -> MonotonicInstant {
        idle ? .distantFuture : now.advanced(by: busyTickPeriod)
    }

    /// Whether the next step ticks at `now`: its time came, or the demand changed (always
    /// consumes the change).
    func tickDue(at now: MonotonicInstant) -> Bool {
        let changed = wake.takeDemandChange()
        return changed || now >= nextTick
    }
}
