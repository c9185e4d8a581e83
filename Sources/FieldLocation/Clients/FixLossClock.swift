import HardwareInterfaces
import LocationAPI
import LocationServices
import PowerPolicy
import Synchronization

extension ReceiverAction {
    /// Seconds between the fixes this mode gives (`nil` for none): an epoch, or a periodic
    /// schedule's period plus its time on.
    var expectedFixPeriod: Double? {
        switch self {
        case .continuous(let rate): return rate > 0 ? 1 / rate : 1
        case .cyclicTracking: return 1
        case .periodic(let period, let onTime, _): return period + onTime
        case .idle: return nil
        }
    }
}

extension ClientRegistry.Record {
    /// Whether standard updates may deliver at `now` under the client's minimum update interval
    /// (its update interval when it gives none), with half a second (10 % of shorter intervals) for jitter.
    func intervalAllows(_ now: MonotonicInstant) -> Bool {
        guard let minimum = services.minimumUpdateInterval ?? services.updateInterval, minimum > 0,
              let last = lastDeliveredAt else { return true }
        return (now - last).secondsDouble >= minimum - min(0.5, 0.1 * minimum)
    }
}

/// One client's fix-loss clock: loss is reported once the client has had a fix and the time since
/// the last one (or since fixes were expected again) passes the client's timeout; the next fix
/// ends it. No fix expected (the receiver idle, updates paused) stops the clock.
struct FixLossState {
    private var hadFix = false
    private var waitingSince: MonotonicInstant?
    private var lost = false

    /// A fix arrived at `now`; returns whether it ends a reported loss.
    mutating func fixArrived(at now: MonotonicInstant) -> Bool {
        defer { lost = false }
        hadFix = true
        waitingSince = now
        return lost
    }

    /// The loss to report at `now`, once: `expectedPeriod` is the schedule's seconds between fixes
    /// (`nil` when none are expected).
    mutating func check(at now: MonotonicInstant, expectedPeriod: Double?, services: ClientServices) -> LocationError? {
        guard hadFix, let period = expectedPeriod else {
            waitingSince = nil
            return nil
        }
        let since = waitingSince ?? now
        waitingSince = since
        let timeout = Self.timeout(services: services, expectedPeriod: period)
        let waited = (now - since).secondsDouble
        guard !lost, waited >= timeout else { return nil }
        lost = true
        return .locationUnknown(LocationError.fixLossPrefix + "\(FixRecovery.secondsText(waited)) s (one was expected every "
                                + "\(FixRecovery.secondsText(max(period, services.updateInterval ?? 0))) s); updates resume with the next fix")
    }

    /// The client's timeout: its own, or `max(3 × the expected period, 10 s)`.
    static func timeout(services: ClientServices, expectedPeriod: Double) -> Double {
        if let t = services.fixLossTimeout, t.isFinite, t > 0 { return t }
        return max(3 * max(expectedPeriod, services.updateInterval ?? 0), 10)
    }

}
