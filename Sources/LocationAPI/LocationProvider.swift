import Beacons
import HardwareInterfaces
import Heading
import LocationServices

/// What a ``LocationProvider`` grants a client: the most its owner allows, why not more, and the
/// accuracy. ``LocationManager`` turns it into its ``LocationManager/authorizationStatus``.
public struct ProviderAuthorization: Sendable, Hashable {
    /// The most that is allowed: with `authorizedAlways` a manager asking for always authorisation gets
    /// it, and one asking for when-in-use gets that; `denied` and `restricted` refuse every service.
    public var status: AuthorizationStatus
    /// Why `status` refuses locations (it becomes the `.denied` error's text); `nil` when it allows them.
    public var reason: String?
    /// Exact or coarsened positions.
    public var accuracy: AccuracyAuthorization

    /// A grant.
    public init(status: AuthorizationStatus, reason: String? = nil, accuracy: AccuracyAuthorization = .fullAccuracy) {
        self.status = status
        self.reason = reason
        self.accuracy = accuracy
    }

    /// The stricter of two grants: the lower status (denied and restricted below when-in-use,
    /// when-in-use below always), reduced accuracy when either is reduced.
    public func combined(with other: ProviderAuthorization) -> ProviderAuthorization {
        func rank(_ s: AuthorizationStatus) -> Int {
            switch s {
            case .restricted: return 0
            case .denied: return 1
            case .notDetermined: return 2
            case .authorizedWhenInUse: return 3
            case .authorizedAlways: return 4
            }
        }
        let lower = rank(other.status) < rank(status) ? other : self
        let accuracy: AccuracyAuthorization = accuracy == .reducedAccuracy || other.accuracy == .reducedAccuracy
            ? .reducedAccuracy : .fullAccuracy
        return ProviderAuthorization(status: lower.status, reason: lower.reason, accuracy: accuracy)
    }
}

/// The client interface of a location service: what ``LocationManager`` and the async sequences are
/// built on. `LocationEngine` (module `FieldLocation`) provides it in process; `RemoteLocationProvider` (module
/// `FieldLocationClient`) provides it over `fieldlocd`'s local socket, with the same semantics.
///
/// A client registers with a sink for its events, then changes the services it runs; its demand is
/// merged with every other client's (the most demanding wins) and goes when it unregisters.
/// Identifiers are the provider's own; they are never reused while the provider lives.
///
/// Threading: every method may be called from any thread. Sinks are called on the provider's thread
/// (the engine's, or the remote connection's delivery queue), one event at a time, in order.
public protocol LocationProvider: AnyObject, Sendable {
    /// The board's name (`sim`, or the board file's `name`).
    var boardName: String { get }
    /// The clock the provider's instants (`Location.receivedAt`, `HeadingUpdate.takenAt`) are on.
    var clock: any MonotonicClock { get }
    /// The last location (any age: compare its `receivedAt` with ``clock``), `nil` before the first fix.
    var lastLocation: Location? { get }
    /// The last heading, `nil` before the first.
    var lastHeading: HeadingUpdate? { get }
    /// Whether headings can run now (the board has a magnetometer and accelerometer pair and their bus can be used).
    var headingAvailable: Bool { get }
    /// Whether locations can run now (the board has a receiver and its port can be used).
    var locationServicesEnabled: Bool { get }
    /// Each service of the board with whether its device can be used now, and why not; changes
    /// arrive as ``EngineEvent/capabilities(_:)``.
    var capabilities: DeviceCapabilities { get }
    /// Whether calls such as ``unregister(_:)`` may be made from inside a sink: `true` in process
    /// (the engine takes them on its own thread), `false` over a socket, where the manager makes them
    /// from another thread so the connection's delivery queue never waits on itself.
    var callsBackSynchronously: Bool { get }

    /// Registers a client; `sink` receives its events. With a `persistentName`, its regions are kept
    /// under that name. Returns the client's identifier and problems met (restoring regions, reaching
    /// the provider), which do not prevent the registration.
    func register(name: String, persistentName: String?,
                  sink: @escaping @Sendable (EngineEvent) -> Void) -> (id: Int, problems: [String])
    /// Changes a client's services. Turning standard updates on resets its filter.
    func update(_ id: Int, _ change: (inout ClientServices) -> Void)
    /// Removes a client: its demand goes (the last one out idles the receiver).
    func unregister(_ id: Int)
    /// Asks for one location newer than the request within `timeout`; the answer arrives as
    /// `.locations` or `.error(.locationUnknown)`.
    func requestLocation(_ id: Int, timeout: Duration)
    /// Delivers a client's batched or deferred locations now (Android's `flushLocations`), as one
    /// `.locations` event, oldest first; nothing when none are held. Batching goes on.
    func flushBatch(_ id: Int)
    /// Starts monitoring a region; returns why not, or `nil`.
    func startMonitoring(_ id: Int, _ region: CircularRegion) -> LocationError?
    /// Stops monitoring a region; returns a storage error, if any.
    func stopMonitoring(_ id: Int, identifier: String) -> LocationError?
    /// A client's monitored regions.
    func monitoredRegions(_ id: Int) -> [CircularRegion]
    /// The state of a client's region.
    func state(_ id: Int, of identifier: String) -> RegionState
    /// A client's region's last event and its time (`nil` when none; the default answers `nil`).
    func record(_ id: Int, for identifier: String) -> RegionRecord?

    /// What a client of a manager configured with `policy` is granted.
    func authorization(policy: AccessPolicy) -> ProviderAuthorization
    /// Asks for full accuracy for a client while it lives, for `purposeKey`; returns why not, or `nil`.
    func requestTemporaryFullAccuracy(_ id: Int, purposeKey: String, policy: AccessPolicy) -> LocationError?

    /// Why beacon ranging cannot run (no Bluetooth adapter, the scanner failed), or `nil` when it can.
    var rangingProblem: String? { get }
    /// Starts ranging the beacons `constraint` covers; returns why not, or `nil`.
    func startRangingBeacons(_ id: Int, satisfying constraint: BeaconIdentityConstraint) -> LocationError?
    /// Stops ranging `constraint`.
    func stopRangingBeacons(_ id: Int, satisfying constraint: BeaconIdentityConstraint)
    /// Starts monitoring a beacon region (persisted like circular regions); returns why not, or `nil`.
    func startMonitoring(_ id: Int, _ region: BeaconRegion) -> LocationError?
    /// Stops monitoring a beacon region; returns a storage error, if any.
    func stopMonitoring(_ id: Int, beaconRegion identifier: String) -> LocationError?
    /// A client's beacon regions.
    func monitoredBeaconRegions(_ id: Int) -> [BeaconRegion]
    /// The state of a client's beacon region.
    func state(_ id: Int, ofBeaconRegion identifier: String) -> BeaconRegionState
}

extension HeadingUpdate {
    /// A heading with every value given (for providers that rebuild headings, such as a remote one):
    /// `field` in µT and `acceleration` in g, body axes.
    public init(magneticHeading: Double, trueHeading: Double?, headingAccuracy: Double,
                field: (x: Double, y: Double, z: Double), acceleration: (x: Double, y: Double, z: Double),
                pitch: Double?, roll: Double?, inclination: Double?, quality: HeadingQuality, flags: [String],
                takenAt: MonotonicInstant) {
        self.magneticHeading = magneticHeading
        self.trueHeading = trueHeading
        self.headingAccuracy = headingAccuracy
        x = field.x
        y = field.y
        z = field.z
        accelerationX = acceleration.x
        accelerationY = acceleration.y
        accelerationZ = acceleration.z
        self.pitch = pitch
        self.roll = roll
        self.inclination = inclination
        self.quality = quality
        self.flags = flags
        self.takenAt = takenAt
    }
}

extension LocationProvider {
    /// Over a connection unless a provider says otherwise.
    public var callsBackSynchronously: Bool { false }
    /// For providers that know only ``locationServicesEnabled`` and ``headingAvailable``: those
    /// services, unavailable without a stated device when off.
    public var capabilities: DeviceCapabilities {
        func entry(_ service: DeviceService, _ on: Bool) -> ServiceAvailability {
            on ? ServiceAvailability(service: service, device: boardName)
               : ServiceAvailability(service: service, device: boardName, problem: .missing, reason: "\(service.rawValue) is not available on \(boardName)")
        }
        return DeviceCapabilities([entry(.location, locationServicesEnabled), entry(.heading, headingAvailable)])
    }
}
