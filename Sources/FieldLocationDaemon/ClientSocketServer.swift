import FieldLocation
import Foundation
import LinuxHardware
import LocationServices
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// How the local client socket is set up and bounded.
public struct ClientSocketConfiguration: Sendable {
    /// The socket's path (its folder is created when missing, with mode 0755); by default
    /// ``ClientSocketProtocol/configuredPath``.
    public var path = ClientSocketProtocol.configuredPath
    /// The socket file's permission bits: 0660 lets the owner and the group connect.
    public var mode: UInt32 = 0o660
    /// The group the socket file is given (for example `fieldloc`, so that its members can connect);
    /// `nil` leaves the daemon's group.
    public var socketGroup: String?
    /// The access policy: who may use locations, at which accuracy, which purpose keys lift reduced accuracy.
    public var policy = AccessPolicy()
    /// The most connections at once; more are answered with an error and closed.
    public var maxConnections = 64
    /// The most clients (managers, sequences) one connection registers.
    public var maxClientsPerConnection = 32
    /// Unread output per connection, bytes: a client that leaves more unread is disconnected.
    public var outputLimit = 256 * 1024

    /// The defaults: ``ClientSocketProtocol/configuredPath``, mode 0660, 64 connections of 32 clients, 256 KiB.
    public init() {}

    /// Why the configuration cannot be used, or `nil`.
    public func problem() -> String? {
        if path.isEmpty || path.utf8.count > 107 { return "the client socket path '\(path)' must be 1 to 107 bytes long" }
        if mode & ~0o777 != 0 { return "the client socket mode \(String(mode, radix: 8)) has bits beyond 0777" }
        if maxConnections < 1 || maxClientsPerConnection < 1 { return "the client socket needs room for at least one connection and client" }
        if outputLimit < 2 * ClientSocketProtocol.maximumLineLength {
            return "the client socket's output limit must be at least \(2 * ClientSocketProtocol.maximumLineLength) bytes"
        }
        return nil
    }
}

/// Counters of the client socket.
public struct ClientSocketStatistics: Sendable, Equatable {
    /// Connections open now.
    public var connected = 0
    /// Connections accepted since the start.
    public var accepted = 0
    /// Connections refused because the limit was reached.
    public var refusedFull = 0
    /// Connections whose peer the access policy denies (they stay connected, every service refused).
    public var denied = 0
    /// Connections dropped because they left more than the output limit unread.
    public var droppedSlowReaders = 0
    /// Request lines refused as malformed, too long or of an unknown op.
    public var malformedLines = 0

    /// All zero.
    public init() {}
}

/// The peer of a Unix socket as the kernel gives it (`struct ucred`, for `SO_PEERCRED`).
public struct UnixPeerCredentials: Sendable, Equatable {
    /// The peer's process id when it connected.
    public var pid: Int32 = 0
    /// Its effective user id.
    public var uid: UInt32 = 0
    /// Its effective group id.
    public var gid: UInt32 = 0

    /// Zeros (the kernel fills them in).
    public init() {}

    /// The credentials of the peer of a Unix-domain stream channel (on its event loop or not).
    public static func of(_ channel: any Channel) -> EventLoopFuture<UnixPeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        return provider.unsafeGetSocketOption(
            level: SocketOptionLevel(UnixSockets.peerCredentialsOption.level), name: SocketOptionName(UnixSockets.peerCredentialsOption.name))
    }
}

/// `fieldlocd`'s local client socket: programs on the unit use the ``LocationProvider`` interface
/// over a Unix socket (see ``ClientSocketProtocol``), usually through
/// `LocationManager(provider: RemoteLocationProvider(path:))`, with the same semantics as in process:
/// every connection's clients add their demand to the engine's, and a disconnect takes it away.
///
/// Each connection is authorised by its peer's credentials (`SO_PEERCRED`): the uid's user name and
/// groups are judged by the access policy. A denied or restricted peer is told so in `hello` and
/// every service request is refused with `denied`; a policy with `accuracy = reduced` coarsens its
/// positions unless a declared purpose key is given.
///
/// ```swift
/// let server = ClientSocketServer(engine: engine, policy: policy)   // /run/fieldloc/client.sock (or $FIELDLOC_CLIENT_SOCKET)
/// try await server.start()
/// …
/// await server.stop()
/// ```
/// As a `Service` (swift-service-lifecycle), ``run()`` starts it and stops it on graceful shutdown.
public final class ClientSocketServer: Service, Sendable {
    /// The configuration.
    public let configuration: ClientSocketConfiguration
    /// The engine the clients use.
    public let engine: LocationEngine
    private let group: any EventLoopGroup
    private let logger: Logger
    private let hub: ClientSocketHub
    private struct State {
        var channel: (any Channel)?
        var started = false
        var stopped = false
    }
    private let state = Mutex(State())

    /// A server for `engine` on `path` judged by `policy`; `group` runs the sockets.
    public convenience init(engine: LocationEngine, policy: AccessPolicy, path: String = ClientSocketProtocol.configuredPath,
                            group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                            logger: Logger = Logger(label: "fieldlocd.clients")) {
        var configuration = ClientSocketConfiguration()
        configuration.policy = policy
        configuration.path = path
        self.init(engine: engine, configuration: configuration, group: group, logger: logger)
    }

    /// A server for `engine` with every setting given.
    public init(engine: LocationEngine, configuration: ClientSocketConfiguration,
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "fieldlocd.clients")) {
        self.engine = engine
        self.configuration = configuration
        self.group = group
        self.logger = logger
        hub = ClientSocketHub(engine: engine, configuration: configuration, logger: logger)
    }

    /// Why the server cannot start.
    public enum StartError: Error, CustomStringConvertible {
        /// The configuration was refused.
        case configuration(String)
        /// The path is taken (another server answers there, or it is not a socket).
        case pathInUse(path: String, reason: String)
        /// Binding or setting up the socket file failed.
        case bind(path: String, reason: String)
        /// ``start()`` was called twice, or after ``stop()``.
        case alreadyStarted

        public var description: String {
            switch self {
            case .configuration(let text): return text
            case .pathInUse(let path, let reason): return "cannot listen on \(path): \(reason)"
            case .bind(let path, let reason): return "cannot listen on \(path): \(reason)"
            case .alreadyStarted: return "the client socket was already started"
            }
        }
    }

    /// Creates the socket (replacing a stale one nobody answers on), sets its mode and group, and
    /// starts accepting.
    public func start() async throws {
        if let problem = configuration.problem() { throw StartError.configuration(problem) }
        let fresh = state.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started && !s.stopped
        }
        guard fresh else { throw StartError.alreadyStarted }
        let path = configuration.path
        try Self.preparePath(path)
        var gid: UInt32?
        if let name = configuration.socketGroup {
            guard let id = UserDatabase.groupID(named: name) else { throw StartError.configuration("the socket group '\(name)' does not exist") }
            gid = id
        }
        let hub = self.hub
        let limit = configuration.outputLimit
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .childChannelOption(.writeBufferWaterMark, value: ChannelOptions.Types.WriteBufferWaterMark(low: limit / 2, high: limit))
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ClientSocketConnection(hub: hub))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
        } catch {
            throw StartError.bind(path: path, reason: "\(error)")
        }
        do {
            try FilePaths.setPermissions(path, configuration.mode)
            if let gid { try FilePaths.setGroup(path, gid) }
        } catch {
            try? await channel.close().get()
            try? FilePaths.remove(path)
            throw StartError.bind(path: path, reason: "cannot set the socket's mode or group: \(error.errno)")
        }
        state.withLock { $0.channel = channel }
        logger.info("client socket on \(path) (mode \(String(configuration.mode, radix: 8)))")
    }

    /// Stops accepting, closes every connection (their clients' demand goes) and removes the socket file.
    public func stop() async {
        let channel = state.withLock { s -> (any Channel)? in
            guard !s.stopped else { return nil }
            s.stopped = true
            return s.channel
        }
        guard let channel else { return }
        try? await channel.close().get()
        hub.closeAll()
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while hub.connectionCount > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if FilePaths.status(configuration.path)?.kind == .socket { try? FilePaths.remove(configuration.path) }
        logger.info("client socket closed")
    }

    /// Runs the server until graceful shutdown (or cancellation), then stops it. A failure to start
    /// is logged (as an error) and thrown.
    public func run() async throws {
        let running = state.withLock { $0.channel != nil }
        if !running {
            do { try await start() } catch {
                logger.error("client socket: \(error)")
                throw error
            }
        }
        try? await gracefulShutdown()
        await stop()
    }

    /// Counters.
    public var statistics: ClientSocketStatistics { hub.statistics }

    // MARK: the socket file

    /// Creates the folder when missing; removes a stale socket; refuses a live one or another file.
    static func preparePath(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do { try FilePaths.makeDirectory(folder, mode: 0o755) } catch where error.errno != .fileExists {
                throw StartError.bind(path: path, reason: "cannot create \(folder): \(error.errno)")
            } catch {}
        }
        guard let status = FilePaths.status(path) else { return }
        guard status.kind == .socket else {
            throw StartError.pathInUse(path: path, reason: "the file there is not a socket")
        }
        if UnixSockets.answers(path) { throw StartError.pathInUse(path: path, reason: "another server answers there") }
        do { try FilePaths.remove(path) } catch {
            throw StartError.pathInUse(path: path, reason: "cannot remove the stale socket: \(error.errno)")
        }
    }
}

/// What the connections share: the engine, the limits, and who is connected (to close them at stop).
final class ClientSocketHub: Sendable {
    struct Entry: Sendable {
        let loop: any EventLoop
        let handler: NIOLoopBound<ClientSocketConnection>
    }

    private struct State {
        var connections: [Int: Entry] = [:]
        var nextID = 1
        var accepting = true
        var statistics = ClientSocketStatistics()
    }

    let engine: LocationEngine
    let configuration: ClientSocketConfiguration
    let logger: Logger
    private let state = Mutex(State())

    init(engine: LocationEngine, configuration: ClientSocketConfiguration, logger: Logger) {
        self.engine = engine
        self.configuration = configuration
        self.logger = logger
    }

    /// Admits a connection; `nil` when full or stopping.
    func admit(loop: any EventLoop, handler: NIOLoopBound<ClientSocketConnection>) -> Int? {
        state.withLock { s in
            guard s.accepting, s.connections.count < configuration.maxConnections else {
                s.statistics.refusedFull += 1
                return nil
            }
            let id = s.nextID
            s.nextID += 1
            s.connections[id] = Entry(loop: loop, handler: handler)
            s.statistics.accepted += 1
            return id
        }
    }

    func remove(_ id: Int) { _ = state.withLock { $0.connections.removeValue(forKey: id) } }

    func count(_ change: (inout ClientSocketStatistics) -> Void) { state.withLock { change(&$0.statistics) } }

    var connectionCount: Int { state.withLock { $0.connections.count } }

    var statistics: ClientSocketStatistics {
        state.withLock { s in
            var out = s.statistics
            out.connected = s.connections.count
            return out
        }
    }

    /// Stops admitting and closes every connection.
    func closeAll() {
        let entries = state.withLock { s -> [Entry] in
            s.accepting = false
            return Array(s.connections.values)
        }
        for entry in entries {
            let handler = entry.handler
            entry.loop.execute { handler.value.close(reason: "server stopping") }
        }
    }
}

/// One connection of the client socket: framing, the peer's authorisation, its clients.
final class ClientSocketConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The peer as judged by the policy.
    struct Peer {
        var credentials: UnixPeerCredentials
        var identity: PeerIdentity
        var status: AuthorizationStatus
        var reason: String?
        var accuracy: AccuracyAuthorization
    }

    /// One client registered by the connection.
    struct Client {
        var engineID: Int
        var fullAccuracy = false
        var wantsReduced = false
    }

    private let hub: ClientSocketHub
    private var engine: LocationEngine { hub.engine }
    private let gate: ConnectionGate
    private var connectionID: Int?
    private var framer = LineFramer()
    private var peer: Peer?
    private var waiting: [LineFramer.Item] = []
    private var clients: [Int: Client] = [:]
    private let encoder = WireCodec.encoder()
    private let decoder = WireCodec.decoder()

    init(hub: ClientSocketHub) {
        self.hub = hub
        gate = ConnectionGate(name: "client connection", outputLimit: hub.configuration.outputLimit, logger: hub.logger) { [hub] in
            hub.count { $0.droppedSlowReaders += 1 }
        }
    }

    // MARK: lifecycle

    func channelActive(context: ChannelHandlerContext) {
        gate.attach(context)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        guard let id = hub.admit(loop: context.eventLoop, handler: bound) else {
            send(WireMessage.reply(nil, error: WireError(code: "hardware", message: "too many connections (the limit is \(hub.configuration.maxConnections))",
                                                          cause: "other")))
            close(reason: "connection limit reached")
            return
        }
        connectionID = id
        UnixPeerCredentials.of(context.channel).hop(to: context.eventLoop).whenComplete { result in
            bound.value.identified(result)
        }
        context.fireChannelActive()
    }

    private func identified(_ result: Result<UnixPeerCredentials, any Error>) {
        guard !gate.closing else { return }
        switch result {
        case .failure(let error):
            hub.logger.warning("cannot read the peer credentials of a client: \(error); closing it")
            send(WireMessage.reply(nil, error: WireError(code: "denied", message: "the daemon cannot read this connection's credentials")))
            close(reason: "no credentials")
            return
        case .success(let credentials):
            let identity = PeerIdentity.identity(uid: credentials.uid)
            let policy = hub.configuration.policy
            let status = policy.status(user: identity.user ?? "", groups: identity.groups)
            let who = identity.user ?? "uid \(credentials.uid)"
            let reason = status.allowsLocations ? nil : "fieldlocd's access policy gives \(who) '\(status.rawValue)'"
            peer = Peer(credentials: credentials, identity: identity, status: status, reason: reason, accuracy: policy.accuracy)
            if status.allowsLocations {
                hub.logger.debug("client connected: \(who) (pid \(credentials.pid)), \(status.rawValue)")
            } else {
                hub.count { $0.denied += 1 }
                hub.logger.notice("client \(who) (pid \(credentials.pid)) is \(status.rawValue) by the access policy: its services are refused")
            }
        }
        send(hello(id: nil))
        flush()
        let queued = waiting
        waiting = []
        for item in queued { handle(item) }
        flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    /// Unregisters every client (their demand goes) and leaves the hub.
    private func release() {
        gate.detach()
        let ids = clients.values.map(\.engineID)
        clients.removeAll()
        for id in ids { engine.unregister(id) }
        if let connectionID {
            self.connectionID = nil
            hub.remove(connectionID)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { gate.caught(error) }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        gate.dropIfSlowReader()
        context.fireChannelWritabilityChanged()
    }

    /// Closes the connection (idempotent).
    func close(reason: String) { gate.close(reason: reason) }

    // MARK: output

    private func send(_ message: WireMessage) {
        guard let context = gate.open else { return }
        var m = message
        if m.now == nil { m.now = engine.clock.now().nanoseconds }
        guard let line = WireCodec.line(m, encoder: encoder) else {
            hub.logger.error("a \(m.type) line for a client exceeds \(ClientSocketProtocol.maximumLineLength) bytes; not sent")
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: line.count)
        buffer.writeBytes(line)
        context.write(wrapOutboundOut(buffer), promise: nil)
    }

    private func flush() { gate.flush() }

    /// Event lines for one of the clients (on the connection's event loop).
    func deliver(_ bytes: [UInt8]) {
        guard let context = gate.open, !bytes.isEmpty else { return }
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        gate.writeAndFlush(buffer)
    }

    private func hello(id: Int?) -> WireMessage {
        var m = WireMessage(type: id == nil ? "hello" : "reply")
        if id != nil {
            m.id = id
            m.ok = true
        }
        m.version = ClientSocketProtocol.version
        m.server = "fieldlocd"
        m.board = engine.board.name
        m.locationServicesEnabled = engine.locationServicesEnabled
        m.headingAvailable = engine.headingAvailable
        if let peer {
            m.authorization = peer.status
            m.accuracy = peer.accuracy
            m.reason = peer.reason
            m.peer = WirePeer(pid: peer.credentials.pid, uid: peer.credentials.uid, gid: peer.credentials.gid,
                              user: peer.identity.user, groups: peer.identity.groups)
        }
        return m
    }

    // MARK: input

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        for item in framer.feed(buffer) {
            guard !gate.closing else { return }
            if peer == nil {
                // The credentials are read as the connection opens; lines sent before land here.
                guard waiting.count < 64 else { return close(reason: "too many requests before the credentials were read") }
                waiting.append(item)
            } else {
                handle(item)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flush()
        context.fireChannelReadComplete()
    }

    private struct RequestID: Decodable { var id: Int? }

    private func handle(_ item: LineFramer.Item) {
        switch item {
        case .tooLong:
            hub.count { $0.malformedLines += 1 }
            send(.reply(nil, error: .invalid("request line longer than \(ClientSocketProtocol.maximumLineLength) bytes; skipped")))
        case .line(let bytes):
            let data = Data(bytes)
            let request: WireRequest
            do {
                request = try decoder.decode(WireRequest.self, from: data)
            } catch {
                hub.count { $0.malformedLines += 1 }
                let id = (try? decoder.decode(RequestID.self, from: data))?.id
                send(.reply(id, error: .invalid("malformed request: \(WireCodec.describe(error))")))
                return
            }
            do {
                send(try perform(request))
            } catch {
                send(.reply(request.id, error: error))
            }
        }
    }

    private func client(_ request: WireRequest) throws(WireError) -> (wireID: Int, client: Client) {
        guard let id = request.client else { throw .invalid("\(request.op): missing key 'client'") }
        guard let c = clients[id] else { throw .invalid("\(request.op): client \(id) is not registered on this connection") }
        return (id, c)
    }

    private func perform(_ request: WireRequest) throws(WireError) -> WireMessage {
        if let v = request.version, v != ClientSocketProtocol.version {
            throw .invalid("protocol version \(v) is not spoken here (this daemon speaks \(ClientSocketProtocol.version))")
        }
        guard ClientSocketProtocol.operations.contains(request.op) else {
            hub.count { $0.malformedLines += 1 }
            throw .invalid("unknown op '\(request.op.prefix(64))' (known: \(ClientSocketProtocol.operations.joined(separator: ", ")))")
        }
        if request.op == "hello" { return hello(id: request.id) }
        guard let peer else { throw WireError(code: "denied", message: "the connection's credentials are not known") }
        guard peer.status.allowsLocations else {
            throw WireError(code: "denied", message: peer.reason ?? "the access policy says \(peer.status.rawValue)")
        }
        var reply = WireMessage.reply(request.id)
        switch request.op {
        case "register":
            guard let id = request.client, id >= 1, id <= Int(Int32.max) else { throw .invalid("register: 'client' must be 1 to 2147483647") }
            guard clients[id] == nil else { throw .invalid("register: client \(id) is already registered on this connection") }
            guard clients.count < hub.configuration.maxClientsPerConnection else {
                throw .invalid("register: a connection may register at most \(hub.configuration.maxClientsPerConnection) clients")
            }
            guard let name = request.name, !name.isEmpty, name.utf8.count <= ClientSocketProtocol.maximumNameLength else {
                throw .invalid("register: 'name' must be 1 to \(ClientSocketProtocol.maximumNameLength) bytes")
            }
            if let p = request.persistent, p.isEmpty || p.utf8.count > ClientSocketProtocol.maximumNameLength {
                throw .invalid("register: 'persistent' must be 1 to \(ClientSocketProtocol.maximumNameLength) bytes")
            }
            // Only clients authorised always keep regions beyond the connection; their files are per uid.
            let persistent = peer.status == .authorizedAlways ? request.persistent.map { "uid\(peer.credentials.uid)-\($0)" } : nil
            let who = peer.identity.user ?? "uid\(peer.credentials.uid)"
            let registration = engine.register(name: "\(who):\(name)", persistentName: persistent, sink: eventSink(for: id))
            clients[id] = Client(engineID: registration.id)
            reply.problems = registration.problems
        case "services":
            let (id, c) = try client(request)
            guard let wire = request.services else { throw .invalid("services: missing key 'services'") }
            var services = try wire.services()
            clients[id]?.wantsReduced = services.reducedAccuracy
            services.reducedAccuracy = services.reducedAccuracy || (peer.accuracy == .reducedAccuracy && !c.fullAccuracy)
            engine.update(c.engineID) { $0 = services }
        case "request":
            let (_, c) = try client(request)
            guard let timeout = request.timeout, timeout.isFinite, timeout > 0, timeout <= 86_400 else {
                throw .invalid("request: 'timeout' must be 0 to 86400 seconds")
            }
            engine.requestLocation(c.engineID, timeout: .milliseconds(Int64((timeout * 1000).rounded(.up))))
        case "monitor":
            let (_, c) = try client(request)
            guard let region = request.region else { throw .invalid("monitor: missing key 'region'") }
            if let error = engine.startMonitoring(c.engineID, region) { throw WireError(error) }
        case "unmonitor":
            let (_, c) = try client(request)
            guard let identifier = request.identifier else { throw .invalid("unmonitor: missing key 'identifier'") }
            if let error = engine.stopMonitoring(c.engineID, identifier: identifier) { throw WireError(error) }
        case "regions":
            let (_, c) = try client(request)
            reply.regions = engine.monitoredRegions(c.engineID)
        case "state":
            let (_, c) = try client(request)
            guard let identifier = request.identifier else { throw .invalid("state: missing key 'identifier'") }
            reply.state = engine.state(c.engineID, of: identifier).rawValue
        case "fullAccuracy":
            let (id, c) = try client(request)
            guard let key = request.purpose, hub.configuration.policy.purposes[key] != nil else {
                let key = request.purpose ?? ""
                throw .invalid("purpose key '\(key.prefix(64))' is not declared in fieldlocd's access policy (a line 'purpose \(key.prefix(64)) = why')")
            }
            clients[id]?.fullAccuracy = true
            engine.update(c.engineID) { $0.reducedAccuracy = c.wantsReduced }
        case "last":
            var full = peer.accuracy == .fullAccuracy
            if let id = request.client {
                guard let c = clients[id] else { throw .invalid("last: client \(id) is not registered on this connection") }
                full = full || c.fullAccuracy
            }
            reply.location = engine.lastLocation.map { WireLocation(full ? $0 : $0.reduced()) }
            reply.heading = engine.lastHeading.map(WireHeading.init)
        case "unregister":
            let (id, c) = try client(request)
            clients[id] = nil
            engine.unregister(c.engineID)
        default:
            throw .invalid("unknown op '\(request.op.prefix(64))'")
        }
        return reply
    }

    /// The sink of client `wireID`: events are encoded on the engine's thread and written on the
    /// connection's event loop.
    private func eventSink(for wireID: Int) -> @Sendable (EngineEvent) -> Void {
        guard let channel = gate.channel else { return { _ in } }
        let loop = channel.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        let engine = self.engine
        let logger = hub.logger
        return { event in
            let encoder = WireCodec.encoder()
            let now = engine.clock.now().nanoseconds
            var bytes: [UInt8] = []
            for part in WireEvent.of(event) {
                var m = WireMessage(type: "event")
                m.client = wireID
                m.event = part
                m.now = now
                guard let line = WireCodec.line(m, encoder: encoder) else {
                    logger.error("an event line for a client exceeds \(ClientSocketProtocol.maximumLineLength) bytes; not sent")
                    return
                }
                bytes += line
            }
            let payload = bytes
            loop.execute { bound.value.deliver(payload) }
        }
    }
}
