import LocationServices
import Synchronization

/// Why data is (or is not) flowing, in the style of Core Location's `CLServiceSession.Diagnostic`
/// and `CLLocationUpdate`'s flags: on every ``LiveLocationUpdate``, on a ``LocationSession`` and on
/// a ``LocationManager`` (``LocationManager/diagnostics``).
public struct LocationDiagnostics: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16
    /// Creates diagnostics from their bits.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The unit is still: updates paused after stillness (Core Location's `isStationary`).
    public static let isStationary = LocationDiagnostics(rawValue: 1 << 0)
    /// No usable location now: the fix was lost, or none came yet (`locationUnavailable`).
    public static let locationUnavailable = LocationDiagnostics(rawValue: 1 << 1)
    /// The client is not authorised: device-node access or the access policy (`authorizationDenied`).
    public static let authorizationDenied = LocationDiagnostics(rawValue: 1 << 2)
    /// The access policy restricts this client (`authorizationRestricted`).
    public static let authorizationRestricted = LocationDiagnostics(rawValue: 1 << 3)
    /// Positions are coarsened: reduced accuracy (`accuracyLimited`).
    public static let accuracyLimited = LocationDiagnostics(rawValue: 1 << 4)
    /// The receiver sends nothing, or its port is gone.
    public static let receiverSilent = LocationDiagnostics(rawValue: 1 << 5)
    /// Updates are paused (`pausesLocationUpdatesAutomatically`); they resume on motion.
    public static let paused = LocationDiagnostics(rawValue: 1 << 6)

    /// Every flag with its name, in bit order.
    public static let named: [(LocationDiagnostics, String)] = [
        (.isStationary, "isStationary"), (.locationUnavailable, "locationUnavailable"),
        (.authorizationDenied, "authorizationDenied"), (.authorizationRestricted, "authorizationRestricted"),
        (.accuracyLimited, "accuracyLimited"), (.receiverSilent, "receiverSilent"), (.paused, "paused"),
    ]

    /// The names of the flags set, in bit order.
    public var names: [String] { Self.named.filter { contains($0.0) }.map(\.1) }

    /// The flags named (unknown names are ignored).
    public init(names: [String]) {
        self = LocationDiagnostics(Self.named.filter { names.contains($0.1) }.map(\.0))
    }

    /// The flags an authorisation status gives.
    public init(authorization status: AuthorizationStatus) {
        switch status {
        case .denied: self = [.authorizationDenied]
        case .restricted: self = [.authorizationRestricted]
        default: self = []
        }
    }

    public var description: String { names.isEmpty ? "[]" : "[" + names.joined(separator: ", ") + "]" }
}

/// What a client's events say about its diagnostics: each event moves the flags.
public struct DiagnosticsTracker: Sendable, Hashable {
    /// The flags now.
    public private(set) var current: LocationDiagnostics

    /// Starts from `initial` (for example the authorisation's flags, and `locationUnavailable` until a fix).
    public init(_ initial: LocationDiagnostics = [.locationUnavailable]) { current = initial }

    /// Applies `event`; returns whether the flags changed.
    @discardableResult
    public mutating func note(_ event: EngineEvent) -> Bool {
        let before = current
        switch event {
        case .locations(let locations):
            guard let last = locations.last else { break }
            current.subtract([.locationUnavailable, .receiverSilent, .paused, .isStationary, .authorizationDenied, .authorizationRestricted])
            if last.isReduced { current.insert(.accuracyLimited) } else { current.remove(.accuracyLimited) }
        case .paused: current.formUnion([.paused, .isStationary])
        case .resumed: current.subtract([.paused, .isStationary])
        case .error(let error):
            switch error {
            case .locationUnknown: current.insert(.locationUnavailable)
            case .denied: current.formUnion([.authorizationDenied, .locationUnavailable])
            case .hardware(let cause, _) where cause == .receiverSilent || cause == .portGone:
                current.formUnion([.receiverSilent, .locationUnavailable])
            default: break
            }
        case .authorization(let grant):
            current.subtract([.authorizationDenied, .authorizationRestricted, .accuracyLimited])
            current.formUnion(LocationDiagnostics(authorization: grant.status))
            if grant.accuracy == .reducedAccuracy { current.insert(.accuracyLimited) }
            if !grant.status.allowsLocations { current.insert(.locationUnavailable) }
        case .servicesEnabled(let on):
            // Off: the privacy switch (whose `denied` error came first). On: the denial is over;
            // `locationUnavailable` goes with the next location.
            if on { current.remove(.authorizationDenied) } else { current.formUnion([.authorizationDenied, .locationUnavailable]) }
        case .capabilities(let capabilities):
            // The receiver's port went: no locations until it is back (they clear the flag).
            if capabilities[.location].map({ !$0.isAvailable }) == true { current.insert(.locationUnavailable) }
        default: break
        }
        return current != before
    }
}

/// A ``DiagnosticsTracker`` that an escaping sink can hold.
package final class DiagnosticsBox: Sendable {
    private let state: Mutex<DiagnosticsTracker>
    package init(_ initial: LocationDiagnostics) { state = Mutex(DiagnosticsTracker(initial)) }
    /// Applies `event`; returns the flags after it and whether they changed.
    package func note(_ event: EngineEvent) -> (LocationDiagnostics, changed: Bool) {
        state.withLock { t in
            let changed = t.note(event)
            return (t.current, changed)
        }
    }
    package var current: LocationDiagnostics { state.withLock { $0.current } }
}

/// One element of ``LocationProvider/liveUpdates(_:policy:)``: Core Location's `CLLocationUpdate`,
/// a location (or none) with the diagnostics in force when it was produced.
public struct LiveLocationUpdate: Sendable {
    /// The location, `nil` for an update that only reports a condition (stillness, fix loss, denial).
    public var location: Location?
    /// The flags when this update was produced.
    public var diagnostics: LocationDiagnostics
    /// The fix loss this update ends, when it is the first location after one.
    public var recovery: FixRecovery?
    /// The error behind a condition update, if any.
    public var error: LocationError?

    /// Creates an update.
    public init(location: Location?, diagnostics: LocationDiagnostics, recovery: FixRecovery? = nil, error: LocationError? = nil) {
        self.location = location
        self.diagnostics = diagnostics
        self.recovery = recovery
        self.error = error
    }

    /// The unit is still (updates paused).
    public var isStationary: Bool { diagnostics.contains(.isStationary) }
    /// No usable location now.
    public var locationUnavailable: Bool { diagnostics.contains(.locationUnavailable) }
    /// Not authorised.
    public var authorizationDenied: Bool { diagnostics.contains(.authorizationDenied) }
    /// Restricted by the access policy.
    public var authorizationRestricted: Bool { diagnostics.contains(.authorizationRestricted) }
    /// Positions coarsened.
    public var accuracyLimited: Bool { diagnostics.contains(.accuracyLimited) }
    /// The receiver is silent.
    public var receiverSilent: Bool { diagnostics.contains(.receiverSilent) }
    /// Updates paused.
    public var paused: Bool { diagnostics.contains(.paused) }
}

extension LocationProvider {
    /// Live updates for `request` (Core Location's `CLLocationUpdate.liveUpdates()`): every location,
    /// pause, resume, fix loss, hardware fault and authorisation change becomes one
    /// ``LiveLocationUpdate`` carrying the diagnostics. A client that `policy` (with the provider's
    /// own grant) does not authorise gets one update with `authorizationDenied` (or restricted) and no
    /// demand is added. Ending the iteration stops the service.
    public func liveUpdates(_ request: LocationRequest = LocationRequest(),
                            policy: AccessPolicy = AccessPolicy()) throws(LocationError) -> EngineSequence<LiveLocationUpdate> {
        try request.validate()
        let grant = authorization(policy: policy)
        var initial = LocationDiagnostics(authorization: grant.status).union(.locationUnavailable)
        if grant.accuracy == .reducedAccuracy { initial.insert(.accuracyLimited) }
        let diagnostics = DiagnosticsBox(initial)
        let tracker = FixLossBox()
        let (stream, continuation) = AsyncStream<LiveLocationUpdate>.makeStream(
            bufferingPolicy: .bufferingNewest(sequenceBuffer))
        let id = register(name: "live", persistentName: nil) { event in
            let recovery = tracker.note(event)
            let (flags, changed) = diagnostics.note(event)
            switch event {
            case .locations(let locations):
                for (index, location) in locations.enumerated() {
                    continuation.yield(LiveLocationUpdate(location: location, diagnostics: flags, recovery: index == 0 ? recovery : nil))
                }
            case .paused, .resumed, .authorization:
                continuation.yield(LiveLocationUpdate(location: nil, diagnostics: flags))
            case .error(let error):
                continuation.yield(LiveLocationUpdate(location: nil, diagnostics: flags, error: error))
            default:
                if changed { continuation.yield(LiveLocationUpdate(location: nil, diagnostics: flags)) }
            }
        }.id
        continuation.onTermination = { [weak self] _ in self?.unregister(id) }
        if grant.status.allowsLocations {
            update(id) { s in
                request.apply(to: &s)
                s.reducedAccuracy = grant.accuracy == .reducedAccuracy
            }
        } else {
            continuation.yield(LiveLocationUpdate(location: nil, diagnostics: initial,
                                                  error: .denied(grant.reason ?? "authorization is \(grant.status.rawValue)")))
        }
        return EngineSequence(stream: stream, registration: EngineSequence<LiveLocationUpdate>.Registration(engine: self, id: id))
    }
}

extension LocationSession {
    /// The session's diagnostics now: authorisation, reduced accuracy, no fix yet or lost,
    /// receiver silent, paused and stationary.
    public var diagnostics: LocationDiagnostics { diagnosticsBox.current }

    /// The flags a new session starts with: its grant's, and `locationUnavailable` until a fix.
    static func initialDiagnostics(_ provider: any LocationProvider) -> LocationDiagnostics {
        let grant = provider.authorization(policy: AccessPolicy())
        var flags = LocationDiagnostics(authorization: grant.status).union(.locationUnavailable)
        if grant.accuracy == .reducedAccuracy { flags.insert(.accuracyLimited) }
        return flags
    }
}
