import Beacons
import Dispatch
import Foundation
import LocationServices
import PowerPolicy

/// Where a manager's delegate callbacks run. Order is kept on every target.
public enum DeliveryTarget: Sendable {
    /// On the provider's thread, synchronously: the engine's (tests with a virtual clock), or a remote
    /// provider's delivery queue. Callbacks must be quick.
    case immediate
    /// On a dispatch queue.
    case queue(DispatchQueue)
    /// On an actor's executor (for example the main actor), in order.
    case actor(any Actor)
}

/// Runs a job on an actor's executor.
private func run(on actor: isolated any Actor, _ job: @Sendable () -> Void) { job() }

/// The manager API, mirroring Core Location's `CLLocationManager` start/stop services on a
/// ``LocationProvider``: a `LocationEngine` (module `FieldLocation`) in the process that owns the board, or
/// `RemoteLocationProvider` (module `FieldLocationClient`) on `fieldlocd`'s local socket. Several
/// managers share one engine, and their demand is merged into one power-policy decision.
///
/// Authorisation maps to Linux: a manager in the process that owns the board is authorised when
/// its access policy allows it. The hardware does not decide authorisation: each service has its
/// own availability (``capabilities``, from `DeviceAccess` in module `EnginePlatforms`), so a
/// missing or inaccessible device (the receiver's port, the I2C bus, the GPIO chip) makes only its
/// service unavailable, with the reason, until the device appears. A manager on the daemon's socket is
/// authorised by the daemon's access policy for the user it runs as (peer credentials), and `policy`
/// can only restrict that further. Starting a service while ``authorizationStatus`` is
/// `notDetermined` asks for when-in-use authorisation first.
///
/// There is no `allowsBackgroundLocationUpdates`: Linux has no foreground and background, a
/// manager's services run while its process does, and what outlives a daemon client's connection
/// (regions, visits) is decided by `authorizedAlways`. The property promised nothing, so it is gone.
public final class LocationManager: @unchecked Sendable {
    /// What the manager runs on.
    public let provider: any LocationProvider
    /// The name regions are persisted under.
    public let name: String
    private let delivery: DeliveryTarget
    let policy: AccessPolicy
    let lock = NSLock()
    weak var delegateValue: (any LocationManagerDelegate)?
    private(set) var clientID = 0
    var status: AuthorizationStatus = .notDetermined
    private var temporaryFullAccuracy = false
    var options = ClientServices()
    private var fixLoss = FixLossTracker()
    /// Diagnostics and the heading calibration prompt (LocationManagerExtras.swift).
    var extras = ManagerExtras()
    /// The one-shot requests running (`requestLocation`), each its own client of the provider.
    var oneShots: Set<Int> = []
    private var pending: AsyncStream<@Sendable () -> Void>.Continuation?
    /// Problems met while restoring persisted regions.
    public let restoreProblems: [String]

    /// Creates a manager on `provider` (an engine, or the daemon's socket). Regions persisted under
    /// `name` are restored and monitored again.
    public init(provider: any LocationProvider, name: String = "default", delivery: DeliveryTarget = .immediate,
                policy: AccessPolicy = AccessPolicy()) {
        self.provider = provider
        self.name = name
        self.delivery = delivery
        self.policy = policy
        if case .actor(let actor) = delivery {
            let (stream, continuation) = AsyncStream<@Sendable () -> Void>.makeStream()
            pending = continuation
            Task { for await job in stream { await run(on: actor, job) } }
        }
        let box = WeakManager()
        let registration = provider.register(name: name, persistentName: name) { event in box.manager?.receive(event) }
        clientID = registration.id
        restoreProblems = registration.problems
        box.manager = self
    }

    deinit {
        provider.unregister(clientID)
        for id in oneShots { provider.unregister(id) }
        pending?.finish()
    }

    private final class WeakManager: @unchecked Sendable {
        weak var manager: LocationManager?
    }

    /// The delegate (held weakly). Region, visit and beacon-region events that arrived before it
    /// was set (a daemon's queue delivered on reconnect) are handed to it when it is set.
    public var delegate: (any LocationManagerDelegate)? {
        get { lock.withLock { delegateValue } }
        set { setDelegate(newValue) }
    }

    func dispatch(_ call: @escaping @Sendable (any LocationManagerDelegate, LocationManager) -> Void) {
        guard let delegate = self.delegate else { return }
        let job: @Sendable () -> Void = { [self] in call(delegate, self) }
        switch delivery {
        case .immediate: job()
        case .queue(let queue): queue.async(execute: job)
        case .actor: pending?.yield(job)
        }
    }

    func receive(_ event: EngineEvent) {
        if holdUntilDelegate(event) { return }
        noteExtras(event)
        if let recovery = lock.withLock({ fixLoss.note(event) }) {
            dispatch { $0.locationManager($1, didRecoverFix: recovery) }
        }
        switch event {
        case .locations(let l): dispatch { $0.locationManager($1, didUpdateLocations: l) }
        case .paused: dispatch { $0.locationManagerDidPauseLocationUpdates($1) }
        case .resumed: dispatch { $0.locationManagerDidResumeLocationUpdates($1) }
        case .heading(let h): dispatch { $0.locationManager($1, didUpdateHeading: h) }
        case .visit(let v): dispatch { $0.locationManager($1, didVisit: v) }
        case .deferredFinished(let e): dispatch { $0.locationManager($1, didFinishDeferredUpdatesWithError: e) }
        case .error(let e): dispatch { $0.locationManager($1, didFailWithError: e) }
        case .authorization: authorizationChanged()
        case .servicesEnabled: dispatch { $0.locationManagerDidChangeAuthorization($1) }
        case .capabilities(let c):
            authorizationChanged()
            dispatch { $0.locationManagerDidChangeAuthorization($1) }
            dispatch { $0.locationManager($1, didChangeCapabilities: c) }
        case .region(let r):
            switch r.kind {
            case .enter: dispatch { $0.locationManager($1, didEnterRegion: r.region, location: r.location) }
            case .exit: dispatch { $0.locationManager($1, didExitRegion: r.region, location: r.location) }
            case .dwell: dispatch { $0.locationManager($1, didDwellIn: r.region, location: r.location) }
            case .determined(let s): dispatch { $0.locationManager($1, didDetermineState: s, for: r.region) }
            }
        case .regionExpired(let region): dispatch { $0.locationManager($1, didExpire: region) }
        case .beacons, .rangingFailed, .beaconRegion: receiveBeacons(event)
        case .sky: break  // a manager does not ask for the sky; `skyUpdates()` does
        }
    }

    func fail(_ error: LocationError) { dispatch { $0.locationManager($1, didFailWithError: error) } }

    func apply(_ change: (inout ClientServices) -> Void) {
        let accuracy = provider.authorization(policy: policy).accuracy
        let snapshot: ClientServices = lock.withLock {
            change(&options)
            options.reducedAccuracy = !temporaryFullAccuracy && accuracy == .reducedAccuracy
            return options
        }
        provider.update(clientID) { $0 = Self.merge(running: $0, options: snapshot) }
    }

    /// The options of `options` with the running flags of `running` kept as the engine has them.
    private static func merge(running: ClientServices, options: ClientServices) -> ClientServices {
        var s = options
        s.deferral = running.deferral.flatMap { _ in options.deferral }
        return s
    }

    // MARK: configuration

    /// Accuracy wanted. Default `.best`.
    public var desiredAccuracy: DesiredAccuracy {
        get { lock.withLock { options.desiredAccuracy } }
        set { apply { $0.desiredAccuracy = newValue } }
    }

    /// Metres the unit must move before a new location is delivered; `nil` (default) for every fix.
    /// A negative, zero or non-finite value is refused with `didFailWithError(.invalidArgument)`.
    public var distanceFilter: Double? {
        get { lock.withLock { options.distanceFilter } }
        set {
            if let d = newValue, !(d.isFinite && d > 0) {
                fail(.invalidArgument("distanceFilter \(d): must be a positive number of metres, or nil for none"))
                return
            }
            apply { $0.distanceFilter = newValue }
        }
    }

    /// What the unit is doing (a prior on speed and on when to pause).
    public var activityType: ActivityType {
        get { lock.withLock { options.activityType } }
        set { apply { $0.activityType = newValue } }
    }

    /// Whether updates pause after stillness (they resume by themselves on motion). Default true.
    public var pausesLocationUpdatesAutomatically: Bool {
        get { lock.withLock { options.pausesAutomatically } }
        set { apply { $0.pausesAutomatically = newValue } }
    }

    /// The oldest a delivered location may be, seconds (default 2): a stale fix is never
    /// delivered as current. Refused unless positive and finite.
    public var maximumLocationAge: Double {
        get { lock.withLock { options.maximumAge } }
        set {
            guard newValue.isFinite && newValue > 0 else {
                fail(.invalidArgument("maximumLocationAge \(newValue): must be a positive number of seconds"))
                return
            }
            apply { $0.maximumAge = newValue }
        }
    }

    /// Degrees of change between headings; `nil` for every reading. Default 1.
    public var headingFilter: Double? {
        get { lock.withLock { options.headingFilter } }
        set {
            if let d = newValue, !(d.isFinite && d >= 0 && d <= 360) {
                fail(.invalidArgument("headingFilter \(d): must be 0 to 360 degrees, or nil for every reading"))
                return
            }
            apply { $0.headingFilter = newValue }
        }
    }

    /// The board axis headings refer to. Default `.forward`.
    public var headingOrientation: HeadingOrientation {
        get { lock.withLock { options.headingOrientation } }
        set { apply { $0.headingOrientation = newValue } }
    }

    /// The longest a location is held to be delivered in a batch, seconds; `nil` (default)
    /// delivers each at once.
    public var batchingMaximumDelay: Double? {
        get { lock.withLock { options.batchingMaximumDelay } }
        set {
            if let d = newValue, !(d.isFinite && d > 0) {
                fail(.invalidArgument("batchingMaximumDelay \(d): must be a positive number of seconds"))
                return
            }
            apply { $0.batchingMaximumDelay = newValue }
        }
    }

    // MARK: last values and availability

    /// The last known location (may be old: check `receivedAt`, or use ``cachedLocation(maxAge:)``);
    /// `nil` before the first fix.
    public var location: Location? {
        guard let l = provider.lastLocation else { return nil }
        return accuracyAuthorization == .reducedAccuracy ? l.reduced() : l
    }

    /// The last known location when it is at most `maxAge` seconds old on the provider's clock, else `nil`.
    public func cachedLocation(maxAge: Double) -> Location? {
        guard let l = location, l.age(at: provider.clock.now()) <= maxAge else { return nil }
        return l
    }

    /// The last heading.
    public var heading: HeadingUpdate? { provider.lastHeading }

    /// Whether locations can run now: the board has a receiver, its port can be used, and the
    /// privacy switch is off. When not, ``capabilities`` says why.
    public var locationServicesEnabled: Bool { provider.locationServicesEnabled }
    /// Whether headings can run now: the board has a magnetometer and accelerometer and their
    /// I2C bus can be used. When not, ``capabilities`` says why.
    public var headingAvailable: Bool { provider.headingAvailable }
    /// Each service of the board (location, heading, time, beacons) with whether its device can
    /// be used now and, when not, which device and why (missing, permission with the group that
    /// grants it, kernel interface not enabled). Re-checked when devices appear or go; changes
    /// reach ``LocationManagerDelegate/locationManager(_:didChangeCapabilities:)``.
    public var capabilities: DeviceCapabilities { provider.capabilities }
    /// Whether significant-change monitoring works (it needs a receiver).
    public var significantLocationChangeMonitoringAvailable: Bool { provider.locationServicesEnabled }
    /// Whether regions of this kind can be monitored (circular regions: yes, with a receiver).
    public func isMonitoringAvailable(for regionType: CircularRegion.Type) -> Bool { provider.locationServicesEnabled }
    /// Whether beacons can be ranged: the board has a Bluetooth adapter (`bluetooth = "hci0"`) that works.
    public var isRangingAvailable: Bool { provider.rangingProblem == nil }
    /// Why ranging is not available (empty when it is).
    public var rangingUnavailableReason: String { provider.rangingProblem ?? "" }

    // MARK: authorization

    /// The authorisation status.
    public var authorizationStatus: AuthorizationStatus { lock.withLock { status } }

    /// Full or reduced accuracy: the access policy's accuracy, lifted by a temporary full-accuracy grant.
    public var accuracyAuthorization: AccuracyAuthorization {
        let accuracy = provider.authorization(policy: policy).accuracy
        return lock.withLock { temporaryFullAccuracy ? .fullAccuracy : accuracy }
    }

    private func evaluate(always: Bool) {
        let granted = provider.authorization(policy: policy)
        let changed: Bool = lock.withLock {
            let old = status
            switch granted.status {
            case .authorizedAlways: status = always ? .authorizedAlways : .authorizedWhenInUse
            case .authorizedWhenInUse: status = .authorizedWhenInUse
            default:
                status = granted.status
                deniedReason = granted.reason ?? "the access policy says \(granted.status.rawValue)"
            }
            return old != status
        }
        if changed { dispatch { $0.locationManagerDidChangeAuthorization($1) } }
    }
    var deniedReason = ""

    /// Asks for when-in-use authorisation (evaluated at once; the change callback follows when it changes).
    public func requestWhenInUseAuthorization() {
        if authorizationStatus == .notDetermined { evaluate(always: false) }
    }

    /// Asks for always authorisation (also from when-in-use).
    public func requestAlwaysAuthorization() {
        let s = authorizationStatus
        if s == .notDetermined || s == .authorizedWhenInUse { evaluate(always: true) }
    }

    /// Grants full accuracy while this manager lives when the access policy lists `purposeKey` (the
    /// manager's `policy` in process, the daemon's over its socket); otherwise the error names the key
    /// and says where purposes are declared.
    public func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String) throws(LocationError) {
        if let error = provider.requestTemporaryFullAccuracy(clientID, purposeKey: purposeKey, policy: policy) { throw error }
        let accuracy = provider.authorization(policy: policy).accuracy
        let changed = lock.withLock { () -> Bool in
            defer { temporaryFullAccuracy = true }
            return !temporaryFullAccuracy && accuracy == .reducedAccuracy
        }
        apply { _ in }
        if changed { dispatch { $0.locationManagerDidChangeAuthorization($1) } }
    }

    /// Whether services may start; when not, the delegate hears why.
    func authorized() -> Bool {
        guard let problem = authorizationProblem() else { return true }
        fail(problem)
        return false
    }

    /// Why services may not start (asking for when-in-use authorisation first), or `nil`.
    func authorizationProblem() -> LocationError? {
        if authorizationStatus == .notDetermined { evaluate(always: false) }
        let s = authorizationStatus
        if s.allowsLocations { return nil }
        let reason = lock.withLock { deniedReason }
        return .denied(reason.isEmpty ? "authorization is \(s.rawValue)" : reason)
    }

    // MARK: services

    /// Starts standard location updates.
    public func startUpdatingLocation() {
        guard authorized() else { return }
        apply { $0.updatingLocation = true }
        // Updates start once the receiver's device appears; meanwhile the delegate hears why not.
        if let problem = provider.capabilities.problem(.location, board: provider.boardName) {
            fail(.locationUnknown("location is unavailable: \(problem)"))
        }
    }

    /// Stops standard location updates.
    public func stopUpdatingLocation() { apply { $0.updatingLocation = false } }

    /// Starts heading updates; `didFailWithError(.headingFailure)` when the board has no sensors.
    public func startUpdatingHeading() {
        guard headingAvailable else {
            let entry = provider.capabilities[.heading]
            fail(.headingFailure(entry.flatMap(\.reason).map { "heading is unavailable: \($0)" }
                                 ?? "the board \(provider.boardName) has no magnetometer and accelerometer"))
            return
        }
        apply { $0.updatingHeading = true }
    }

    /// Stops heading updates.
    public func stopUpdatingHeading() { apply { $0.updatingHeading = false } }

    /// Starts significant-change monitoring (the first fix, then every 500 m).
    public func startMonitoringSignificantLocationChanges() {
        guard authorized() else { return }
        apply { $0.significantChanges = true }
    }

    /// Stops significant-change monitoring.
    public func stopMonitoringSignificantLocationChanges() { apply { $0.significantChanges = false } }

    /// Starts visit monitoring (arrivals and departures).
    public func startMonitoringVisits() {
        guard authorized() else { return }
        apply { $0.visits = true }
    }

    /// Stops visit monitoring.
    public func stopMonitoringVisits() { apply { $0.visits = false } }

    /// Starts monitoring a region (persisted under the manager's name, written atomically).
    public func startMonitoring(for region: CircularRegion) {
        guard authorized() else { return monitoringDenied(region) }
        if let error = provider.startMonitoring(clientID, region) {
            dispatch { $0.locationManager($1, monitoringDidFailFor: region, withError: error) }
        } else {
            monitoringStarted(region)
        }
    }

    /// Stops monitoring a region.
    public func stopMonitoring(for region: CircularRegion) {
        if let error = provider.stopMonitoring(clientID, identifier: region.identifier) {
            dispatch { $0.locationManager($1, monitoringDidFailFor: region, withError: error) }
        }
    }

    /// The monitored regions.
    public var monitoredRegions: Set<CircularRegion> { Set(provider.monitoredRegions(clientID)) }

    /// Reports a region's state through `didDetermineState` (unknown when no fresh fix can tell).
    public func requestState(for region: CircularRegion) {
        let state = provider.state(clientID, of: region.identifier)
        dispatch { $0.locationManager($1, didDetermineState: state, for: region) }
    }

    /// Defers delivery until the unit has travelled `distance` metres or `timeout` seconds have
    /// passed (either may be `nil`, not both); the batch then arrives through `didUpdateLocations`
    /// and `didFinishDeferredUpdatesWithError(nil)` follows. Needs standard updates running.
    public func allowDeferredLocationUpdates(untilTraveled distance: Double?, timeout: Double?) {
        if let d = distance, !(d.isFinite && d > 0) {
            return dispatch { $0.locationManager($1, didFinishDeferredUpdatesWithError: .invalidArgument("distance \(d) must be positive")) }
        }
        if let t = timeout, !(t.isFinite && t > 0) {
            return dispatch { $0.locationManager($1, didFinishDeferredUpdatesWithError: .invalidArgument("timeout \(t) must be positive")) }
        }
        guard distance != nil || timeout != nil else {
            return dispatch { $0.locationManager($1, didFinishDeferredUpdatesWithError: .invalidArgument("give a distance, a timeout or both")) }
        }
        guard lock.withLock({ options.updatingLocation }) else {
            return dispatch { $0.locationManager($1, didFinishDeferredUpdatesWithError: .deferredFailed("standard location updates are not running")) }
        }
        lock.withLock { options.deferral = (distance, timeout) }
        provider.update(clientID) { s in s.deferral = (distance, timeout) }
    }

    /// Ends a deferral at once: what is held is delivered.
    public func disallowDeferredLocationUpdates() {
        lock.withLock { options.deferral = nil }
        provider.update(clientID) { $0.deferral = nil }
    }

    /// Delivers what batching (``batchingMaximumDelay``) or a deferral holds now, through
    /// `didUpdateLocations`, oldest first (Android's `flushLocations`); batching and the deferral go
    /// on. Nothing happens when nothing is held.
    public func flushBatchedLocations() { provider.flushBatch(clientID) }
}
