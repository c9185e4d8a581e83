import FieldLocation
import FieldLocationDaemon
import FieldLocationOutput
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization

/// The unit's HTTP console on a board's engine: a live status page at `/` (sky plot, C/N0 bars,
/// track, compass, attitude, time, power, health), its Server-Sent Events stream at `/events`,
/// the snapshot at `/status.json`, and Prometheus metrics at `/metrics`.
///
/// Built on SwiftNIO's HTTP/1.1 codec, which the daemon already links: the console serves four
/// fixed routes and one event stream, and needs no router, middleware or file serving. Every
/// connection lives on one event loop, where the hub builds one update per interval for all pages.
public final class ConsoleServer: Service, Sendable {
    /// How the console listens.
    public let configuration: ConsoleConfiguration
    let hub: ConsoleHub
    private let logger: Logger
    private let group: any EventLoopGroup
    private let channel = Mutex<(any Channel)?>(nil)

    /// A console for `engine`'s status as `monitor` sees it (the monitor's demand is the console's:
    /// on while a page is open). Nothing listens before ``start()``.
    /// `time` gives the time service's state (offsets, samples) when the process runs one.
    public init(monitor: StatusMonitor, configuration: ConsoleConfiguration, logger: Logger,
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, time: (@Sendable () -> StatusTime?)? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.group = group
        hub = ConsoleHub(monitor: monitor, configuration: configuration, loop: group.next(), time: time)
    }

    /// The registry the metrics are kept in (a process may add its own collectors to it).
    public var registry: PrometheusCollectorRegistry { hub.metrics.registry }

    /// Open connections and page streams now.
    public var counts: (connections: Int, streams: Int) { hub.counts }

    /// Binds and starts serving; returns the bound address (with the real port when 0 was asked for).
    @discardableResult
    public func start() async throws -> SocketAddress {
        if let problem = configuration.problem() { throw ConsoleError(description: problem) }
        let hub = self.hub
        let configuration = self.configuration
        let logger = self.logger
        let bootstrap = ServerBootstrap(group: hub.loop)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark,
                                value: ChannelOptions.Types.WriteBufferWaterMark(low: configuration.outputLimit / 2, high: configuration.outputLimit))
            .childChannelInitializer { channel in
                guard configuration.allowRemote || GPSDAddressRules.isLoopback(channel.remoteAddress) else {
                    logger.notice("console: refused \(channel.remoteAddress.map { "\($0)" } ?? "an unknown peer"): not on this host (see --allow-remote)")
                    return channel.close()
                }
                let admitted = hub.admit()
                return channel.eventLoop.makeCompletedFuture {
                    let limit = RequestHeadLimit(limit: configuration.maxRequestHead)
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(limit)
                    try sync.addHandler(HTTPResponseEncoder())
                    try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try sync.addHandler(ConsoleHTTPHandler(hub: hub, admitted: admitted, headLimit: limit, logger: logger))
                }
            }
        let bound: any Channel
        do {
            bound = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch {
            throw ConsoleError(description: "cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
        channel.withLock { $0 = bound }
        guard let address = bound.localAddress else { throw ConsoleError(description: "the console's socket has no local address") }
        logger.info("console on http://\(address.ipAddress ?? configuration.host):\(address.port ?? configuration.port)/ (metrics at /metrics)")
        return address
    }

    /// The bound port, once started.
    public var port: Int? { channel.withLock { $0?.localAddress?.port } }

    /// Stops listening and closes every page stream.
    public func stop() async {
        let bound = channel.withLock { c -> (any Channel)? in
            defer { c = nil }
            return c
        }
        try? await bound?.close().get()
        hub.closeAll()
    }

    /// Runs until graceful shutdown, then stops.
    public func run() async throws {
        if port == nil { try await start() }
        try? await gracefulShutdown()
        await stop()
    }
}

/// Why the console could not start.
public struct ConsoleError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String
}
