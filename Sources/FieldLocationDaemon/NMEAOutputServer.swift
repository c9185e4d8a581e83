import FieldLocation
import FieldLocationWire
import LocationAPI
import Logging
import NIOCore
import NIOPosix
import NMEA
import ServiceLifecycle
import Synchronization

/// Counters of the NMEA outputs, for tests and logs.
public struct NMEAOutputStatistics: Sendable, Equatable {
    /// TCP clients connected now.
    public var connected = 0
    /// TCP connections accepted since the start.
    public var accepted = 0
    /// TCP connections refused: the client limit, or a peer not on this host.
    public var refused = 0
    /// Sentences written to TCP clients and sent as UDP datagrams.
    public var tcpSentences = 0, udpSentences = 0
    /// Sentences not written to a TCP client whose unread output passed the limit.
    public var dropped = 0
    /// Filter lines taken, and refused.
    public var filtersTaken = 0, filtersRefused = 0

    /// All zero.
    public init() {}
}

/// The daemon's NMEA-0183 outputs: a TCP server (OpenCPN, SignalK and autopilots read
/// port 10110) and a UDP sender, both fed by ``NMEAOutputComposer``: the receiver's sentences as
/// received, and HDT, HDM, HDG and XDR from the engine's headings. Each TCP client has its own
/// ``NMEAOutputFilter`` (it starts with the configured one and may send a filter line); the UDP
/// output uses the configured filter.
///
/// While a TCP client is connected, or a UDP output is configured (nobody can tell whether a
/// datagram is heard), the feed holds the receiver (and the compass, where the board has one).
public final class NMEAOutputServer: Service, Sendable {
    /// The configuration.
    public let configuration: NMEAOutputConfiguration
    private let feed: any GPSDFeed
    private let group: any EventLoopGroup
    private let logger: Logger

    struct Client {
        let channel: any Channel
        var gate: NMEAOutputGate
    }
    struct State {
        var clients: [Int: Client] = [:]
        var nextID = 0
        var tcp: (any Channel)?
        var udp: (channel: any Channel, destination: SocketAddress, gate: NMEAOutputGate)?
        var started = false, stopped = false
        var demand = GPSDDemand.idle
        var statistics = NMEAOutputStatistics()
    }
    private let state = Mutex(State())
    /// Serialises composing.
    private let composer = Mutex(NMEAOutputComposer())

    /// Outputs for `feed` (an ``EngineFeed`` of its own: the feed's observer and demand are this server's).
    public init(configuration: NMEAOutputConfiguration, feed: any GPSDFeed,
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "fieldlocd.nmea")) {
        self.configuration = configuration
        self.feed = feed
        self.group = group
        self.logger = logger
    }

    /// The counters.
    public var statistics: NMEAOutputStatistics {
        state.withLock { s in
            var out = s.statistics
            out.connected = s.clients.count
            return out
        }
    }

    /// The bound TCP port, once started.
    public var tcpPort: Int? { state.withLock { $0.tcp?.localAddress?.port } }

    /// Binds the outputs and starts publishing; returns the TCP listener's address (nil without TCP).
    @discardableResult
    public func start() async throws -> SocketAddress? {
        do { try configuration.validate() } catch { throw GPSDServer.StartError.configuration(error.description) }
        let fresh = state.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started
        }
        guard fresh else { throw GPSDServer.StartError.alreadyStarted }
        if let udp = configuration.udp {
            let destination: SocketAddress
            do { destination = try SocketAddress.makeAddressResolvingHost(udp.host, port: udp.port) } catch {
                throw GPSDServer.StartError.bind(host: udp.host, port: udp.port, reason: "\(error)")
            }
            let local = destination.protocol == .inet6 ? "::" : "0.0.0.0"
            do {
                let channel = try await DatagramBootstrap(group: group)
                    .channelOption(.socketOption(.so_broadcast), value: 1)
                    .bind(host: local, port: 0).get()
                state.withLock { $0.udp = (channel, destination, NMEAOutputGate(filter: configuration.filter)) }
                logger.info("NMEA-0183 over UDP to \(destination)")
            } catch {
                throw GPSDServer.StartError.bind(host: udp.host, port: udp.port, reason: "\(error)")
            }
        }
        feed.start(publishing: { [weak self] observation in self?.publish(observation) })
        reconcileDemand()
        guard let tcp = configuration.tcp else { return nil }
        let settings = self.configuration
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 32)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark,
                                value: ChannelOptions.Types.WriteBufferWaterMark(low: settings.outputLimit / 2, high: settings.outputLimit))
            .childChannelInitializer { [weak self] channel in
                guard let self else { return channel.close() }
                guard settings.allowRemote || GPSDAddressRules.isLoopback(channel.remoteAddress) else {
                    self.state.withLock { $0.statistics.refused += 1 }
                    self.logger.notice("refused an NMEA client from \(channel.remoteAddress.map { "\($0)" } ?? "an unknown peer"): not on this host (see --nmea-allow-remote)")
                    return channel.close()
                }
                guard let id = self.admit(channel) else {
                    self.logger.notice("refused an NMEA client: \(settings.maxClients) connected")
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(ByteToMessageHandler(NMEAClientHandler.lineDecoder()),
                                                                    NMEAClientHandler(server: self, id: id))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: tcp.host, port: tcp.port).get()
        } catch {
            await stop()
            throw GPSDServer.StartError.bind(host: tcp.host, port: tcp.port, reason: "\(error)")
        }
        state.withLock { $0.tcp = channel }
        logger.info("NMEA-0183 over TCP on \(channel.localAddress.map { "\($0)" } ?? "?")")
        return channel.localAddress
    }

    private func admit(_ channel: any Channel) -> Int? {
        let id = state.withLock { s -> Int? in
            guard !s.stopped, s.clients.count < configuration.maxClients else {
                s.statistics.refused += 1
                return nil
            }
            s.nextID += 1
            s.clients[s.nextID] = Client(channel: channel, gate: NMEAOutputGate(filter: configuration.filter))
            s.statistics.accepted += 1
            return s.nextID
        }
        if id != nil { reconcileDemand() }
        return id
    }

    /// A client's connection closed.
    func remove(_ id: Int) {
        let removed = state.withLock { $0.clients.removeValue(forKey: id) != nil }
        if removed { reconcileDemand() }
    }

    /// A line from a TCP client: a filter (sentences from the peer are ignored).
    func received(line: String, from id: Int) {
        let trimmed = line.trimmingSpaces
        guard !trimmed.isEmpty, !trimmed.hasPrefix("$"), !trimmed.hasPrefix("!") else { return }
        do throws(NMEAOutputFilter.Problem) {
            let current = state.withLock { $0.clients[id]?.gate.filter } ?? configuration.filter
            let filter = try NMEAOutputFilter.parse(trimmed, base: current)
            state.withLock { s in
                s.clients[id]?.gate = NMEAOutputGate(filter: filter)
                s.statistics.filtersTaken += 1
            }
        } catch {
            state.withLock { $0.statistics.filtersRefused += 1 }
            logger.notice("NMEA client \(id): filter line refused: \(error.description)")
        }
    }

    private func reconcileDemand() {
        let device = feed.device
        let change = state.withLock { s -> GPSDDemand? in
            let active = !s.stopped && (s.udp != nil || !s.clients.isEmpty)
            let wanted = GPSDDemand(active: active, heading: active && device.hasCompass, frames: active)
            guard wanted != s.demand else { return nil }
            s.demand = wanted
            return wanted
        }
        if let change { feed.demandChanged(change) }
    }

    /// Publishes an observation to the outputs as if the feed had sent it.
    public func publish(_ observation: EngineObservation) {
        composer.withLock { composer in
            let lines = composer.lines(for: observation)
            guard !lines.isEmpty else { return }
            state.withLock { s in
                for id in s.clients.keys.sorted() {
                    guard var client = s.clients[id] else { continue }
                    var out: [UInt8] = []
                    var count = 0
                    for line in lines where client.gate.pass(line.formatter) {
                        out += line.bytes
                        count += 1
                    }
                    s.clients[id] = client
                    guard count > 0 else { continue }
                    if client.channel.isWritable {
                        client.channel.writeAndFlush(ByteBuffer(bytes: out), promise: nil)
                        s.statistics.tcpSentences += count
                    } else {
                        s.statistics.dropped += count
                    }
                }
                if var udp = s.udp {
                    for line in lines where udp.gate.pass(line.formatter) {
                        udp.channel.writeAndFlush(AddressedEnvelope(remoteAddress: udp.destination, data: ByteBuffer(bytes: line.bytes)), promise: nil)
                        s.statistics.udpSentences += 1
                    }
                    s.udp = udp
                }
            }
        }
    }

    /// Stops accepting, closes the clients and the UDP socket, and releases the receiver.
    public func stop() async {
        let (tcp, udp, clients) = state.withLock { s -> ((any Channel)?, (any Channel)?, [any Channel]) in
            guard !s.stopped else { return (nil, nil, []) }
            s.stopped = true
            return (s.tcp, s.udp?.channel, s.clients.values.map(\.channel))
        }
        try? await tcp?.close().get()
        for client in clients { try? await client.close().get() }
        try? await udp?.close().get()
        state.withLock { $0.clients.removeAll() }
        reconcileDemand()
        feed.stop()
    }

    /// Runs the outputs until graceful shutdown (or cancellation), then stops them.
    public func run() async throws {
        let alreadyRunning = state.withLock { $0.started }
        if !alreadyRunning { try await start() }
        try? await gracefulShutdown()
        await stop()
    }
}

/// One TCP client of the NMEA output: reads filter lines (at most 256 bytes each, framed by
/// ``LineDecoder``; longer ones are dropped), and tells the server when it goes away.
final class NMEAClientHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = LineDecoder.Item
    let server: NMEAOutputServer
    let id: Int
    /// The longest filter line, bytes before its LF (a CR before the LF counts).
    static let maximumLine = 256

    /// The framing of a client's lines: at most ``maximumLine`` bytes, the CR left to the filter's
    /// parser (it trims it), a line the client did not finish dropped.
    static func lineDecoder() -> LineDecoder {
        LineDecoder(maximumLength: maximumLine, stripsCarriageReturn: false, skipsEmptyLines: false, deliversUnterminatedLine: false)
    }

    init(server: NMEAOutputServer, id: Int) {
        self.server = server
        self.id = id
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .line(let line) = unwrapInboundIn(data) else { return }
        server.received(line: String(buffer: line), from: id)
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.remove(id)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and CRs.
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
