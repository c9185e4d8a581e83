import LocationAPI
import FieldLocationWire
import HardwareInterfaces
import LocationServices
import NIOCore
import NIOPosix

/// Why a ``RemoteLocationProvider`` could not be created.
public struct RemoteProviderError: Error, Sendable, CustomStringConvertible {
    /// The socket's path.
    public var path: String
    /// What went wrong.
    public var reason: String

    public var description: String { "fieldlocd at \(path): \(reason)" }
}

/// The ``LocationProvider`` interface of `fieldlocd`'s engine over its local socket (see
/// ``ClientSocketProtocol``), so that several programs share one unit through the manager API with
/// the same semantics as in process:
///
/// ```swift
/// let provider = try RemoteLocationProvider()            // /run/fieldloc/client.sock, or $FIELDLOC_CLIENT_SOCKET
/// let manager = LocationManager(provider: provider, name: "fleet", delivery: .queue(.main))
/// manager.delegate = tracker
/// manager.startUpdatingLocation()
/// for await update in try provider.locationUpdates() { … }   // the async sequences work too
/// ```
///
/// The daemon authorises the connection by the user this process runs as (its access policy); the
/// manager's own `policy` can only restrict that further. Calls that return a value wait for the
/// daemon's answer, each for at most ``timeout``; calls that cannot fail in process report a
/// failure to the client's sink as an error event. Events are delivered on a serial queue of the
/// provider's own (never on a SwiftNIO event loop), one at a time and in order. Instants in
/// locations and headings are on the daemon engine's clock; ``clock`` follows that clock.
///
/// When the connection closes (the daemon stopped, or dropped this process for not reading), every
/// client hears `LocationError.hardware(.other, …)` once and later calls fail at once; make a new
/// provider to reconnect. Calling a waiting method on a SwiftNIO event-loop thread fails at once
/// instead of blocking that loop.
public final class RemoteLocationProvider: LocationProvider, Sendable {
    /// Who the daemon saw at the other end of the socket (this process), from its credentials.
    public struct Peer: Sendable, Hashable {
        /// Process id, user id and group id of this process as the kernel told the daemon.
        public var pid: Int32, uid: UInt32, gid: UInt32
        /// The user name, when the uid has one.
        public var user: String?
        /// The user's groups.
        public var groups: [String]
    }

    /// The socket's path.
    public let path: String
    /// The longest any call waits for the daemon.
    public let timeout: Duration
    /// The board the daemon runs.
    public let boardName: String
    /// Whether the daemon's board has a magnetometer and accelerometer and their bus can be used
    /// now; follows the daemon's `capabilities` events.
    public var headingAvailable: Bool { core.capabilities.map { $0.isAvailable(.heading) } ?? helloHeadingAvailable }
    private let helloHeadingAvailable: Bool
    /// Whether the daemon's board has a receiver whose port can be used now and its privacy switch
    /// (if any) is off; follows the daemon's `servicesEnabled` and `capabilities` events.
    public var locationServicesEnabled: Bool { core.servicesEnabled && (core.capabilities.map { $0.isAvailable(.location) } ?? true) }
    /// The daemon's board's services, each with whether its device can be used now and why not;
    /// follows the daemon's `capabilities` events.
    public var capabilities: DeviceCapabilities {
        if let c = core.capabilities { return c }
        var out = [ServiceAvailability(service: .location, device: boardName, problem: core.servicesEnabled ? nil : .missing,
                                       reason: core.servicesEnabled ? nil : "fieldlocd's location services are off")]
        if helloHeadingAvailable { out.append(ServiceAvailability(service: .heading, device: boardName)) }
        return DeviceCapabilities(out)
    }
    /// Why the daemon cannot range beacons (no adapter, or a daemon before beacons), `nil` when it can.
    public let rangingProblem: String?
    /// What the daemon's access policy grants this process.
    public var daemonAuthorization: ProviderAuthorization { core.grant }
    /// This process as the daemon identified it.
    public let peer: Peer
    /// The protocol version the daemon speaks.
    public let protocolVersion: Int
    let core: RemoteConnection

    /// Connects to the daemon at `path` (by default `/run/fieldloc/client.sock`, or `$FIELDLOC_CLIENT_SOCKET`)
    /// and waits (at most `timeout`) for its hello.
    public init(path: String = ClientSocketProtocol.configuredPath, timeout: Duration = .seconds(5),
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws(RemoteProviderError) {
        guard timeout > .zero else { throw RemoteProviderError(path: path, reason: "the timeout must be positive") }
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            throw RemoteProviderError(path: path, reason: "cannot connect from a SwiftNIO event-loop thread (it would block the loop)")
        }
        self.path = path
        self.timeout = timeout
        let core = RemoteConnection(path: path, timeout: timeout)
        self.core = core
        let connected = Waiter<Result<any Channel, any Error>>()
        ClientBootstrap(group: group)
            .channelOption(.maxMessagesPerRead, value: 4)
            .connectTimeout(TimeAmount.nanoseconds(timeout.nanosecondsClamped))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(ClientSocketCodec.lineDecoder()), RemoteConnectionHandler(core: core))
                }
            }
            .connect(unixDomainSocketPath: path)
            .whenComplete { connected.fulfil($0) }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        switch connected.wait(until: deadline) {
        case .success(let channel)?: core.attach(channel)
        case .failure(let error)?: throw RemoteProviderError(path: path, reason: "cannot connect: \(error)")
        case nil: throw RemoteProviderError(path: path, reason: "no connection within \(timeout)")
        }
        guard let hello = core.hello.wait(until: deadline) else {
            core.close()
            throw RemoteProviderError(path: path, reason: core.closedReason ?? "no hello within \(timeout)")
        }
        guard let version = hello.version, version == ClientSocketProtocol.version else {
            core.close()
            throw RemoteProviderError(path: path, reason: "the daemon speaks protocol \(hello.version.map(String.init) ?? "?"), this client \(ClientSocketProtocol.version)")
        }
        protocolVersion = version
        boardName = hello.board ?? "?"
        helloHeadingAvailable = hello.headingAvailable ?? false
        core.capabilities = hello.capabilities
        // The hello's flag is off when the receiver's port is unavailable too; the switch alone is
        // kept here (the port's state follows the capabilities events).
        let locationDevice = hello.capabilities.map { $0.isAvailable(.location) } ?? true
        core.servicesEnabled = (hello.locationServicesEnabled ?? false) || !locationDevice
        rangingProblem = hello.beaconsKnown == true ? hello.rangingProblem : "fieldlocd at \(path) does not range beacons (an older daemon)"
        let status = hello.authorization ?? .denied
        core.grant = ProviderAuthorization(
            status: status, reason: status.allowsLocations ? nil : (hello.reason ?? "fieldlocd's access policy says \(status.rawValue)"),
            accuracy: hello.accuracy ?? .reducedAccuracy)
        let p = hello.peer
        peer = Peer(pid: p?.pid ?? 0, uid: p?.uid ?? UInt32.max, gid: p?.gid ?? UInt32.max, user: p?.user, groups: p?.groups ?? [])
    }

    deinit { core.close() }

    /// Closes the connection: the daemon unregisters every client of this provider.
    public func close() { core.close() }

    /// Whether the connection is open.
    public var isConnected: Bool { core.isOpen }

    /// The daemon engine's clock, followed locally between messages.
    public var clock: any MonotonicClock { core.clock }

    // MARK: LocationProvider

    /// The engine's last location (one round trip; `nil` when the daemon does not answer in time).
    public var lastLocation: Location? {
        guard case .success(let reply) = core.call(ClientRequest(op: "last")) else { return nil }
        return reply.location
    }

    /// The daemon's unit health (one round trip; `nil` when the daemon does not answer in time or
    /// the access policy does not allow this user locations).
    public var health: UnitHealth? {
        guard case .success(let reply) = core.call(ClientRequest(op: "health")) else { return nil }
        return reply.health
    }

    /// The engine's last heading (one round trip; `nil` when the daemon does not answer in time).
    public var lastHeading: HeadingUpdate? {
        guard case .success(let reply) = core.call(ClientRequest(op: "last")) else { return nil }
        return reply.heading
    }

    /// Registers a client with the daemon. A refusal (a denied user, a lost connection) is returned
    /// among the problems, and the client's later requests fail with it.
    public func register(name: String, persistentName: String?,
                         sink: @escaping @Sendable (EngineEvent) -> Void) -> (id: Int, problems: [String]) {
        let id = core.add(sink: sink)
        var request = ClientRequest(op: "register", client: id)
        request.name = name
        request.persistent = persistentName
        switch core.call(request) {
        case .success(let reply):
            core.setRegistered(id)
            return (id, reply.problems ?? [])
        case .failure(let error):
            core.refuse(id, error)
            return (id, [error.description])
        }
    }

    /// Sends the client's whole set of services; a refusal arrives at its sink as an error.
    public func update(_ id: Int, _ change: (inout ClientServices) -> Void) {
        guard let (services, refusal) = core.change(id, change) else { return }
        if let refusal {
            let running = services.updatingLocation || services.updatingHeading || services.significantChanges || services.visits
            if running { core.deliver(.error(refusal), to: id) }
            return
        }
        var request = ClientRequest(op: "services", client: id)
        request.services = Checked(services)
        if case .failure(let error) = core.call(request) { core.deliver(.error(error), to: id) }
    }

    /// Unregisters the client (waiting for the daemon's answer at most ``timeout``).
    public func unregister(_ id: Int) {
        guard core.remove(id) else { return }
        _ = core.call(ClientRequest(op: "unregister", client: id))
    }

    /// Asks for one fresh location; the answer (or `locationUnknown`) arrives at the client's sink.
    public func requestLocation(_ id: Int, timeout: Duration) {
        if let refusal = core.refusal(id) { return core.deliver(.error(refusal), to: id) }
        var request = ClientRequest(op: "request", client: id)
        request.timeout = max(0.001, min(86_400, timeout.secondsDouble))
        if case .failure(let error) = core.call(request) { core.deliver(.error(error), to: id) }
    }

    /// Asks the daemon for the client's held batch now (op `flush`); it arrives at the client's sink.
    public func flushBatch(_ id: Int) {
        if let refusal = core.refusal(id) { return core.deliver(.error(refusal), to: id) }
        if case .failure(let error) = core.call(ClientRequest(op: "flush", client: id)) { core.deliver(.error(error), to: id) }
    }

    /// Starts monitoring a region; returns the daemon's refusal, if any.
    public func startMonitoring(_ id: Int, _ region: CircularRegion) -> LocationError? {
        if let refusal = core.refusal(id) { return refusal }
        var request = ClientRequest(op: "monitor", client: id)
        request.region = region
        if case .failure(let error) = core.call(request) { return error }
        return nil
    }

    /// Stops monitoring a region; returns the daemon's error, if any.
    public func stopMonitoring(_ id: Int, identifier: String) -> LocationError? {
        if core.refusal(id) != nil { return nil }
        var request = ClientRequest(op: "unmonitor", client: id)
        request.identifier = identifier
        if case .failure(let error) = core.call(request) { return error }
        return nil
    }

    /// The client's regions as the daemon monitors them (empty when it cannot be asked).
    public func monitoredRegions(_ id: Int) -> [CircularRegion] {
        if core.refusal(id) != nil { return [] }
        switch core.call(ClientRequest(op: "regions", client: id)) {
        case .success(let reply): return reply.regions ?? []
        case .failure(let error):
            core.deliver(.error(error), to: id)
            return []
        }
    }

    /// A region's state as the daemon knows it (`unknown` when it cannot be asked).
    public func state(_ id: Int, of identifier: String) -> RegionState {
        if core.refusal(id) != nil { return .unknown }
        var request = ClientRequest(op: "state", client: id)
        request.identifier = identifier
        guard case .success(let reply) = core.call(request) else { return .unknown }
        return reply.state.flatMap(RegionState.init(rawValue:)) ?? .unknown
    }

    /// A region's last event and its time as the daemon keeps it (`nil` when none or when it cannot be asked).
    public func record(_ id: Int, for identifier: String) -> RegionRecord? {
        if core.refusal(id) != nil { return nil }
        var request = ClientRequest(op: "record", client: id)
        request.identifier = identifier
        guard case .success(let reply) = core.call(request) else { return nil }
        return reply.record
    }

    /// The daemon's grant, restricted further by `policy`'s default status and accuracy.
    public func authorization(policy: AccessPolicy) -> ProviderAuthorization {
        let local = policy.defaultStatus
        let own = ProviderAuthorization(status: local, reason: local.allowsLocations ? nil : "the access policy says \(local.rawValue)",
                                        accuracy: policy.accuracy)
        return daemonAuthorization.combined(with: own)
    }

    /// Asks the daemon, whose access policy must declare the purpose key.
    public func requestTemporaryFullAccuracy(_ id: Int, purposeKey: String, policy: AccessPolicy) -> LocationError? {
        if let refusal = core.refusal(id) { return refusal }
        var request = ClientRequest(op: "fullAccuracy", client: id)
        request.purpose = purposeKey
        if case .failure(let error) = core.call(request) { return error }
        return nil
    }
}

