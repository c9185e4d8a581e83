import FieldLocation
import FieldLocationWire
import Foundation
import LinuxHardware
import LocationAPI
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
    /// Where the policy may change while the daemon runs (``AccessPolicySource``): when set, its
    /// ``AccessPolicySource/current`` is used instead of ``policy``, and each change reaches the
    /// connected clients whose grant moved as an `authorization` event.
    public var policySource: AccessPolicySource?

    /// The policy in force now.
    public var currentPolicy: AccessPolicy { policySource?.current ?? policy }
    /// The most connections at once; more are answered with an error and closed.
    public var maxConnections = 64
    /// The most clients (managers, sequences) one connection registers.
    public var maxClientsPerConnection = 32
    /// Unread output per connection, bytes: a client that leaves more unread is disconnected.
    public var outputLimit = 256 * 1024
    /// The wall clock (UTC seconds since 1970) that dates monitor events and the arrival of a
    /// background client's visit in progress (kept across restarts); tests inject one.
    public var wallClock: @Sendable () -> Double = { Date().timeIntervalSince1970 }

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
                    try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(ClientSocketCodec.lineDecoder()), ClientSocketConnection(hub: hub))
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
        hub.sessions.restore()
        hub.monitors.restore()
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

    /// The persistent clients monitored now (connected or not), by persistent name (`uid1000-NAME`).
    public var persistentClients: [String] { hub.sessions.names }
    /// The monitors opened over the socket and kept by the daemon (`uid1000-NAME`).
    public var monitorNames: [String] { hub.monitors.names }

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
