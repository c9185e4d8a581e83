import FieldLocation
import GPSDProtocol
import LocationAPI
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// gpsd's JSON socket over a ``GPSDFeed``: every gpsd client (gpspipe, cgps, gpxlogger, python3-gps,
/// a relaying gpsd, ntpsec, Home Assistant) works against a field unit.
///
/// ```swift
/// let engine = try LocationEngine.open(board: board, linux: LinuxPlatform())
/// let server = GPSDServer(configuration: GPSDServerConfiguration(), feed: EngineFeed(engine: engine))
/// let address = try await server.start()      // 127.0.0.1:2947
/// …
/// await server.stop()
/// ```
///
/// Commands: `?VERSION`, `?DEVICES`, `?WATCH` (json: TPV, SKY, ATT with a compass, TOFF with `pps`;
/// nmea: the receiver's sentences; raw 1: sentences and binary frames as hex; raw 2: every byte),
/// `?POLL`, `?DEVICE` (read-only; `?DEVICE={...}` needs a user on the access policy's control line,
/// identified from the kernel's socket table, and even then only restates the device). Limits: clients,
/// request line length, unread output per client. The feed holds demand only while someone watches.
///
/// As a `Service` (swift-service-lifecycle), ``run()`` starts the server and stops it on graceful shutdown.
public final class GPSDServer: Service, Sendable {
    /// The configuration.
    public let configuration: GPSDServerConfiguration
    /// The feed.
    public let feed: any GPSDFeed
    private let group: any EventLoopGroup
    private let logger: Logger
    private let hub: GPSDHub
    private let observers: [@Sendable (EngineObservation) -> Void]
    private struct State {
        var channel: (any Channel)?
        var started = false
        var stopped = false
    }
    private let state = Mutex(State())

    /// A server for `feed`; `group` runs the sockets (NIO's shared group by default). `observers` see
    /// every observation of the feed too, in order, before the watchers (the time service).
    public init(configuration: GPSDServerConfiguration, feed: any GPSDFeed,
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "fieldlocd.gpsd"),
                observers: [@Sendable (EngineObservation) -> Void] = []) {
        self.observers = observers
        self.configuration = configuration
        self.feed = feed
        self.group = group
        self.logger = logger
        hub = GPSDHub(configuration: configuration, feed: feed, logger: logger)
    }

    /// Why the server cannot start.
    public enum StartError: Error, CustomStringConvertible {
        /// The configuration was refused.
        case configuration(String)
        /// Binding failed (address in use, no such address, no permission).
        case bind(host: String, port: Int, reason: String)
        /// ``start()`` was called twice, or after ``stop()``.
        case alreadyStarted

        public var description: String {
            switch self {
            case .configuration(let text): return text
            case .bind(let host, let port, let reason): return "cannot listen on \(host):\(port): \(reason)"
            case .alreadyStarted: return "the server was already started"
            }
        }
    }

    /// Binds and starts accepting; returns the bound address (with the real port when 0 was asked for).
    @discardableResult
    public func start() async throws -> SocketAddress {
        do { try configuration.validate() } catch { throw StartError.configuration(error.description) }
        let fresh = state.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started
        }
        guard fresh else { throw StartError.alreadyStarted }
        let hub = self.hub
        let configuration = self.configuration
        let logger = self.logger
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark,
                                value: ChannelOptions.Types.WriteBufferWaterMark(low: configuration.outputLimit / 2,
                                                                                 high: configuration.outputLimit))
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelInitializer { channel in
                guard configuration.allowRemote || GPSDAddressRules.isLoopback(channel.remoteAddress) else {
                    hub.count { $0.refusedRemote += 1 }
                    logger.notice("refused a connection from \(channel.remoteAddress.map { "\($0)" } ?? "an unknown peer"): not on this host (see --allow-remote)")
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        GPSDConnectionHandler(hub: hub, configuration: configuration, logger: logger))
                }
            }
        let observers = self.observers
        feed.start(publishing: { [hub] observation in
            for observe in observers { observe(observation) }
            hub.publish(observation)
        })
        if configuration.holdsReceiver { hub.reconcileDemand() }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch {
            feed.stop()
            throw StartError.bind(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        state.withLock { $0.channel = channel }
        guard let address = channel.localAddress else {
            throw StartError.bind(host: configuration.host, port: configuration.port, reason: "no local address")
        }
        logger.info("gpsd JSON socket on \(address) (device \(feed.device.path))")
        return address
    }

    /// The bound port, once started.
    public var port: Int? { state.withLock { $0.channel?.localAddress?.port } }

    /// Stops accepting, closes every client (the feed's demand goes with the last watcher) and stops the feed.
    public func stop() async {
        let channel = state.withLock { s -> (any Channel)? in
            guard !s.stopped else { return nil }
            s.stopped = true
            return s.channel
        }
        guard let channel else { return }
        try? await channel.close().get()
        hub.closeAll()
        // Each client closes on its own event loop; wait (bounded) until all are gone.
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while hub.clientCount > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        feed.stop()
        logger.info("gpsd JSON socket closed")
    }

    /// Counters: clients, watchers, refusals, dropped slow readers.
    public var statistics: GPSDServerStatistics { hub.statistics }

    /// Publishes an observation to the watchers as if the feed had sent it (the feed's own path; also
    /// for tests and tools that inject data).
    public func publish(_ observation: EngineObservation) { hub.publish(observation) }

    /// Runs the server until graceful shutdown (or cancellation), then stops it.
    public func run() async throws {
        let alreadyRunning = state.withLock { $0.channel != nil }
        if !alreadyRunning { try await start() }
        try? await gracefulShutdown()
        await stop()
    }
}

extension GPSDServer {
    private static let networkThreadsChosen = Mutex(false)

    /// Gives SwiftNIO's shared event loop group, which the daemon's servers run on unless given
    /// another group, one thread instead of one per core: every watcher's socket is then written
    /// from one place, and an epoch sent to many watchers wakes one thread. Call it first in the
    /// daemon's main, before any server starts (afterwards it has no effect); later calls do
    /// nothing, and `NIO_SINGLETON_GROUP_LOOP_COUNT` in the environment keeps its say.
    public static func useOneNetworkThread(environment: [String: String]) {
        guard environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil else { return }
        let first = networkThreadsChosen.withLock { chosen -> Bool in
            defer { chosen = true }
            return !chosen
        }
        if first { NIOSingletons.groupLoopCountSuggestion = 1 }
    }
}
