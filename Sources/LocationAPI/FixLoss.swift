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
        return "fix recovered after \(Self.secondsText(outage)) s without one"
    }

    /// Seconds to one decimal, without a trailing `.0`.
    package static func secondsText(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        return r == r.rounded() && abs(r) < 1e12 ? String(Int(r)) : String(r)
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
package final class FixLossBox: Sendable {
    private let state = Mutex(FixLossTracker())
    /// No loss yet.
    package init() {}
    /// See ``FixLossTracker/note(_:)``.
    package func note(_ event: EngineEvent) -> FixRecovery? { state.withLock { $0.note(event) } }
}
