import Dispatch
import FieldLocation
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationServices
import NIOCore
import NIOPosix
import Synchronization

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
    /// Whether the daemon's board has a magnetometer and accelerometer.
    public let headingAvailable: Bool
    /// Whether the daemon's board has a receiver.
    public let locationServicesEnabled: Bool
    /// What the daemon's access policy grants this process.
    public let daemonAuthorization: ProviderAuthorization
    /// This process as the daemon identified it.
    public let peer: Peer
    /// The protocol version the daemon speaks.
    public let protocolVersion: Int
    private let core: RemoteConnection

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
                    try channel.pipeline.syncOperations.addHandler(RemoteConnectionHandler(core: core))
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
        headingAvailable = hello.headingAvailable ?? false
        locationServicesEnabled = hello.locationServicesEnabled ?? false
        let status = hello.authorization ?? .denied
        daemonAuthorization = ProviderAuthorization(
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
        guard case .success(let reply) = core.call(WireRequest(op: "last")) else { return nil }
        return try? reply.location?.location()
    }

    /// The engine's last heading (one round trip; `nil` when the daemon does not answer in time).
    public var lastHeading: HeadingUpdate? {
        guard case .success(let reply) = core.call(WireRequest(op: "last")) else { return nil }
        return try? reply.heading?.heading()
    }

    /// Registers a client with the daemon. A refusal (a denied user, a lost connection) is returned
    /// among the problems, and the client's later requests fail with it.
    public func register(name: String, persistentName: String?,
                         sink: @escaping @Sendable (EngineEvent) -> Void) -> (id: Int, problems: [String]) {
        let id = core.add(sink: sink)
        var request = WireRequest(op: "register", client: id)
        request.name = name
        request.persistent = persistentName
        switch core.call(request) {
        case .success(let reply):
            core.setRegistered(id)
            return (id, reply.problems ?? [])
        case .failure(let error):
            core.refuse(id, error.locationError)
            return (id, [error.locationError.description])
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
        var request = WireRequest(op: "services", client: id)
        request.services = WireServices(services)
        if case .failure(let error) = core.call(request) { core.deliver(.error(error.locationError), to: id) }
    }

    /// Unregisters the client (waiting for the daemon's answer at most ``timeout``).
    public func unregister(_ id: Int) {
        guard core.remove(id) else { return }
        _ = core.call(WireRequest(op: "unregister", client: id))
    }

    /// Asks for one fresh location; the answer (or `locationUnknown`) arrives at the client's sink.
    public func requestLocation(_ id: Int, timeout: Duration) {
        if let refusal = core.refusal(id) { return core.deliver(.error(refusal), to: id) }
        var request = WireRequest(op: "request", client: id)
        request.timeout = max(0.001, min(86_400, timeout.secondsDouble))
        if case .failure(let error) = core.call(request) { core.deliver(.error(error.locationError), to: id) }
    }

    /// Starts monitoring a region; returns the daemon's refusal, if any.
    public func startMonitoring(_ id: Int, _ region: CircularRegion) -> LocationError? {
        if let refusal = core.refusal(id) { return refusal }
        var request = WireRequest(op: "monitor", client: id)
        request.region = region
        if case .failure(let error) = core.call(request) { return error.locationError }
        return nil
    }

    /// Stops monitoring a region; returns the daemon's error, if any.
    public func stopMonitoring(_ id: Int, identifier: String) -> LocationError? {
        if core.refusal(id) != nil { return nil }
        var request = WireRequest(op: "unmonitor", client: id)
        request.identifier = identifier
        if case .failure(let error) = core.call(request) { return error.locationError }
        return nil
    }

    /// The client's regions as the daemon monitors them (empty when it cannot be asked).
    public func monitoredRegions(_ id: Int) -> [CircularRegion] {
        if core.refusal(id) != nil { return [] }
        switch core.call(WireRequest(op: "regions", client: id)) {
        case .success(let reply): return reply.regions ?? []
        case .failure(let error):
            core.deliver(.error(error.locationError), to: id)
            return []
        }
    }

    /// A region's state as the daemon knows it (`unknown` when it cannot be asked).
    public func state(_ id: Int, of identifier: String) -> RegionState {
        if core.refusal(id) != nil { return .unknown }
        var request = WireRequest(op: "state", client: id)
        request.identifier = identifier
        guard case .success(let reply) = core.call(request) else { return .unknown }
        return reply.state.flatMap(RegionState.init(rawValue:)) ?? .unknown
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
        var request = WireRequest(op: "fullAccuracy", client: id)
        request.purpose = purposeKey
        if case .failure(let error) = core.call(request) { return error.locationError }
        return nil
    }
}

/// A value handed from one thread to a waiting one, with a deadline on the monotonic clock.
final class Waiter<Value: Sendable>: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let value = Mutex<Value?>(nil)

    /// Sets the value (the first one wins) and wakes the waiter.
    func fulfil(_ v: Value) {
        let first = value.withLock { stored -> Bool in
            guard stored == nil else { return false }
            stored = v
            return true
        }
        if first { semaphore.signal() }
    }

    /// The value, waiting until `deadline` at most; `nil` when none came in time.
    func wait(until deadline: ContinuousClock.Instant) -> Value? {
        if let v = value.withLock({ $0 }) { return v }
        let left = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, left.nanosecondsClamped)
        _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
        return value.withLock { $0 }
    }
}

/// The daemon engine's clock as seen from here: its last reported time plus the local time since.
final class FollowedClock: MonotonicClock {
    private let local = SystemMonotonicClock()
    private struct Sync {
        var remote: UInt64 = 0
        var local: UInt64 = 0
        var lastGiven: UInt64 = 0
    }
    private let sync = Mutex(Sync())

    /// A message from the daemon said it was `remote` nanoseconds on its clock.
    func observe(remote: UInt64) {
        let now = local.now().nanoseconds
        sync.withLock { s in
            s.remote = remote
            s.local = now
        }
    }

    func now() -> MonotonicInstant {
        let here = local.now().nanoseconds
        return sync.withLock { s in
            let (value, overflow) = s.remote.addingReportingOverflow(here >= s.local ? here - s.local : 0)
            s.lastGiven = max(s.lastGiven, overflow ? .max : value)
            return MonotonicInstant(nanoseconds: s.lastGiven)
        }
    }

    func sleep(until deadline: MonotonicInstant) {
        guard deadline != .distantFuture else { return }
        while true {
            let now = self.now()
            if now >= deadline { return }
            local.sleep(for: min(deadline - now, .milliseconds(50)))
        }
    }
}

/// The connection's shared state: the channel, requests waiting for replies, the clients and their sinks.
final class RemoteConnection: Sendable {
    struct Client {
        var sink: @Sendable (EngineEvent) -> Void
        var services = ClientServices()
        var registered = false
        var refusal: LocationError?
        var partial: [Location] = []
    }

    private struct State {
        var channel: (any Channel)?
        var open = false
        var closedReason: String?
        var closedByUs = false
        var nextRequest = 1
        var pending: [Int: Waiter<Result<WireMessage, WireError>>] = [:]
        var clients: [Int: Client] = [:]
        var nextClient = 1
        var backlog = 0
        var readingPaused = false
    }

    let path: String
    let timeout: Duration
    let clock = FollowedClock()
    let hello = Waiter<WireMessage>()
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "fieldloc.remote-provider.delivery")
    private let encoder = Mutex(WireCodec.encoder())
    /// Events waiting for their sinks above which the socket is not read (the daemon then drops a
    /// process that stays behind), and below which reading resumes.
    static let backlogHigh = 4096, backlogLow = 1024
    /// The most locations one batch may have when it arrives in parts.
    static let maximumBatch = 100_000

    init(path: String, timeout: Duration) {
        self.path = path
        self.timeout = timeout
    }

    func attach(_ channel: any Channel) {
        let live = state.withLock { s -> Bool in
            guard s.closedReason == nil else { return false }
            s.channel = channel
            s.open = true
            return true
        }
        if !live { channel.close(promise: nil) }
    }

    var isOpen: Bool { state.withLock { $0.open } }
    var closedReason: String? { state.withLock { $0.closedReason } }

    func close() {
        let channel = state.withLock { s -> (any Channel)? in
            s.closedByUs = true
            return s.channel
        }
        channel?.close(promise: nil)
        closed(reason: "closed by this process")
    }

    // MARK: clients

    func add(sink: @escaping @Sendable (EngineEvent) -> Void) -> Int {
        state.withLock { s in
            let id = s.nextClient
            s.nextClient += 1
            s.clients[id] = Client(sink: sink)
            return id
        }
    }

    func setRegistered(_ id: Int) { state.withLock { $0.clients[id]?.registered = true } }

    func refuse(_ id: Int, _ error: LocationError) { state.withLock { $0.clients[id]?.refusal = error } }

    /// Why a client's requests are not sent: the daemon refused it, or the connection is gone.
    func refusal(_ id: Int) -> LocationError? {
        state.withLock { s in
            if let r = s.clients[id]?.refusal { return r }
            return s.open ? nil : .hardware(.other, "the connection to fieldlocd at \(path) is closed")
        }
    }

    /// Applies a change to a client's services; `nil` for an unknown client.
    func change(_ id: Int, _ change: (inout ClientServices) -> Void) -> (ClientServices, LocationError?)? {
        state.withLock { s in
            guard var c = s.clients[id] else { return nil }
            change(&c.services)
            s.clients[id] = c
            let refusal = c.refusal ?? (s.open ? nil : .hardware(.other, "the connection to fieldlocd at \(path) is closed"))
            return (c.services, refusal)
        }
    }

    /// Forgets a client; returns whether the daemon knows it.
    func remove(_ id: Int) -> Bool {
        state.withLock { s in
            guard let c = s.clients.removeValue(forKey: id) else { return false }
            return c.registered && s.open
        }
    }

    /// Hands an event to a client's sink on the delivery queue.
    func deliver(_ event: EngineEvent, to id: Int) {
        guard let sink = state.withLock({ $0.clients[id]?.sink }) else { return }
        enqueue(sink, event)
    }

    private func enqueue(_ sink: @escaping @Sendable (EngineEvent) -> Void, _ event: EngineEvent) {
        let pause = state.withLock { s -> (any Channel)? in
            s.backlog += 1
            guard s.backlog >= Self.backlogHigh, !s.readingPaused, let channel = s.channel else { return nil }
            s.readingPaused = true
            return channel
        }
        if let pause { pause.setOption(.autoRead, value: false).whenFailure { _ in } }
        queue.async { [self] in
            sink(event)
            let resume = state.withLock { s -> (any Channel)? in
                s.backlog -= 1
                guard s.readingPaused, s.backlog <= Self.backlogLow, let channel = s.channel else { return nil }
                s.readingPaused = false
                return channel
            }
            if let resume { resume.setOption(.autoRead, value: true).whenFailure { _ in } }
        }
    }

    // MARK: requests

    /// Sends a request and waits for its reply (at most ``timeout``).
    func call(_ request: WireRequest) -> Result<WireMessage, WireError> {
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            return .failure(WireError(code: "hardware", message: "\(request.op): called on a SwiftNIO event-loop thread, where waiting for fieldlocd would block the loop",
                                      cause: "other"))
        }
        let waiter = Waiter<Result<WireMessage, WireError>>()
        var request = request
        let channel: (any Channel)? = state.withLock { s in
            guard s.open, let channel = s.channel else { return nil }
            request.id = s.nextRequest
            s.nextRequest += 1
            s.pending[s.nextRequest - 1] = waiter
            return channel
        }
        guard let channel, let id = request.id else {
            return .failure(WireError(code: "hardware", message: "the connection to fieldlocd at \(path) is closed", cause: "other"))
        }
        guard let line = encoder.withLock({ WireCodec.line(request, encoder: $0) }) else {
            _ = state.withLock { $0.pending.removeValue(forKey: id) }
            return .failure(.invalid("\(request.op): the request is longer than \(ClientSocketProtocol.maximumLineLength) bytes"))
        }
        var buffer = channel.allocator.buffer(capacity: line.count)
        buffer.writeBytes(line)
        channel.writeAndFlush(buffer).whenFailure { error in
            waiter.fulfil(.failure(WireError(code: "hardware", message: "cannot write to fieldlocd at \(self.path): \(error)", cause: "other")))
        }
        let result = waiter.wait(until: ContinuousClock.now.advanced(by: timeout))
        _ = state.withLock { $0.pending.removeValue(forKey: id) }
        return result ?? .failure(WireError(code: "hardware", message: "fieldlocd at \(path) did not answer '\(request.op)' within \(timeout)", cause: "other"))
    }

    // MARK: from the daemon (on the event loop)

    func received(_ message: WireMessage) {
        if let now = message.now { clock.observe(remote: now) }
        switch message.type {
        case "hello": hello.fulfil(message)
        case "reply":
            guard let id = message.id, let waiter = state.withLock({ $0.pending[id] }) else { return }
            if message.ok == true {
                waiter.fulfil(.success(message))
            } else {
                waiter.fulfil(.failure(message.error ?? WireError(code: "hardware", message: "fieldlocd refused '\(id)' without a reason", cause: "other")))
            }
        case "event":
            guard let id = message.client, let wire = message.event else { return }
            let decoded: EngineEvent
            do { decoded = try wire.event() } catch {
                return deliver(.error(.hardware(.other, "fieldlocd sent an event this client cannot read: \(error.message)")), to: id)
            }
            let ready: (sink: @Sendable (EngineEvent) -> Void, event: EngineEvent)? = state.withLock { s in
                guard var c = s.clients[id] else { return nil }
                defer { s.clients[id] = c }
                switch decoded {
                case .locations(let part):
                    if wire.continues == true {
                        c.partial += part
                        if c.partial.count > Self.maximumBatch {
                            c.partial = []
                            return (c.sink, .error(.hardware(.other, "fieldlocd sent a batch of more than \(Self.maximumBatch) locations; dropped")))
                        }
                        return nil
                    }
                    let batch = c.partial + part
                    c.partial = []
                    return (c.sink, .locations(batch))
                case .deferredFinished:
                    // The engine ends a deferral by itself when it finishes.
                    c.services.deferral = nil
                    return (c.sink, decoded)
                default:
                    return (c.sink, decoded)
                }
            }
            if let ready { enqueue(ready.sink, ready.event) }
        default:
            return
        }
    }

    /// The connection closed: waiting calls fail, and (unless this process closed it) every client hears it once.
    func closed(reason: String) {
        let (waiters, sinks) = state.withLock { s -> ([Waiter<Result<WireMessage, WireError>>], [@Sendable (EngineEvent) -> Void]) in
            guard s.closedReason == nil else { return ([], []) }
            s.closedReason = reason
            s.open = false
            s.channel = nil
            let waiters = Array(s.pending.values)
            s.pending.removeAll()
            return (waiters, s.closedByUs ? [] : s.clients.values.map(\.sink))
        }
        let error = WireError(code: "hardware", message: "the connection to fieldlocd at \(path) closed: \(reason)", cause: "other")
        for w in waiters { w.fulfil(.failure(error)) }
        for sink in sinks { enqueue(sink, .error(error.locationError)) }
    }
}

/// The provider's end of the socket: lines in, messages to the shared state.
final class RemoteConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let core: RemoteConnection
    private var framer = LineFramer()
    private let decoder = WireCodec.decoder()

    init(core: RemoteConnection) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        for item in framer.feed(unwrapInboundIn(data)) {
            guard case .line(let bytes) = item, let message = try? decoder.decode(WireMessage.self, from: Data(bytes)) else { continue }
            core.received(message)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        core.closed(reason: "fieldlocd closed it")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        core.closed(reason: "\(error)")
        context.close(promise: nil)
    }
}
