import HardwareInterfaces
import LocationServices
import PowerPolicy
import Synchronization

/// The first fix after a reported loss (`locationUnknown` from standard updates): the diagnostic
/// that says the fix is back, delivered before that fix itself.
public struct FixRecovery: Sendable, Hashable, CustomStringConvertible {
    /// The first location after the loss (it is delivered too, whatever the client's filters say).
    public var location: Location
    /// The last location delivered before the loss, if the client had one.
    public var lastBefore: Location?

    /// Creates a recovery.
    public init(location: Location, lastBefore: Location?) {
        self.location = location
        self.lastBefore = lastBefore
    }

    /// Seconds between the last location before the loss and the first after it, on the engine's clock.
    public var outage: Double? { lastBefore.map { (location.receivedAt - $0.receivedAt).secondsDouble } }

    public var description: String {
        guard let outage else { return "fix recovered" }
        return "fix recovered after \(FixLossState.secondsText(outage)) s without one"
    }
}

extension LocationError {
    /// How every fix-loss message starts (the one `locationUnknown` that standard updates report
    /// after a time without a usable fix; a timed-out one-shot request says something else).
    public static let fixLossPrefix = "no usable fix for "

    /// Whether this is the fix loss of standard updates (it survives the daemon's socket: the
    /// message travels as it is).
    public var isFixLoss: Bool {
        if case .locationUnknown(let message) = self { return message.hasPrefix(Self.fixLossPrefix) }
        return false
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
        return .locationUnknown(LocationError.fixLossPrefix + "\(Self.secondsText(waited)) s (one was expected every "
                                + "\(Self.secondsText(max(period, services.updateInterval ?? 0))) s); updates resume with the next fix")
    }

    /// The client's timeout: its own, or `max(3 × the expected period, 10 s)`.
    static func timeout(services: ClientServices, expectedPeriod: Double) -> Double {
        if let t = services.fixLossTimeout, t.isFinite, t > 0 { return t }
        return max(3 * max(expectedPeriod, services.updateInterval ?? 0), 10)
    }

    static func secondsText(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        return r == r.rounded() && abs(r) < 1e12 ? String(Int(r)) : String(r)
    }
}

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

/// What a consumer of one client's events (a manager, a location-updates sequence) makes of fix
/// loss: it remembers the last location and, after a loss, turns the next locations into a
/// ``FixRecovery``.
struct FixLossTracker: Sendable {
    private var last: Location?
    private var lostAfter: Location??

    /// The recovery `event` brings, if any.
    mutating func note(_ event: EngineEvent) -> FixRecovery? {
        switch event {
        case .error(let error) where error.isFixLoss:
            if lostAfter == nil { lostAfter = .some(last) }
            return nil
        case .locations(let locations):
            guard let first = locations.first else { return nil }
            defer { last = locations.last }
            guard let before = lostAfter else { return nil }
            lostAfter = nil
            return FixRecovery(location: first, lastBefore: before)
        default:
            return nil
        }
    }
}

/// A ``FixLossTracker`` that an escaping sink can hold.
final class FixLossBox: Sendable {
    private let state = Mutex(FixLossTracker())
    /// See ``FixLossTracker/note(_:)``.
    func note(_ event: EngineEvent) -> FixRecovery? { state.withLock { $0.note(event) } }
}
