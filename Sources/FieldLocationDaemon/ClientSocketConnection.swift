import FieldLocation
import FieldLocationWire
import Foundation
import LocationServices
import NIOCore

/// One connection of the client socket: framing, the peer's authorisation, its clients.
final class ClientSocketConnection: ServerConnection {
    typealias InboundIn = LineDecoder.Item
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
        /// The session of a persistent client authorised `always` (it outlives the connection).
        var session: PersistentSession?
    }

    let hub: ClientSocketHub
    var engine: LocationEngine { hub.engine }
    let gate: ConnectionGate
    private(set) var connectionID: Int?
    var peer: Peer?
    /// Lines that arrived before the peer's credentials were read.
    private var waiting: [LineDecoder.Item] = []
    var clients: [Int: Client] = [:]
    /// The monitors this connection opened: the name it uses, and the daemon's (`uid1000-NAME`).
    var openMonitors: [String: String] = [:]
    private let encoder = ClientSocketCodec.encoder()
    let decoder = ClientSocketCodec.decoder()

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
            send(.reply(nil, error: .hardware(.other, "too many connections (the limit is \(hub.configuration.maxConnections))")))
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
            send(.reply(nil, error: .denied("the daemon cannot read this connection's credentials")))
            close(reason: "no credentials")
            return
        case .success(let credentials):
            let identity = PeerIdentity.identity(uid: credentials.uid)
            let policy = hub.configuration.currentPolicy
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
        let left = Array(clients.values)
        clients.removeAll()
        for c in left { leave(c) }
        for name in openMonitors.values { hub.monitors.detach(name, connectionID: connectionID ?? 0) }
        openMonitors.removeAll()
        if let connectionID {
            self.connectionID = nil
            hub.remove(connectionID)
        }
    }

    /// A client goes: an ordinary one is unregistered, a persistent one is monitored in the background.
    func leave(_ client: Client) {
        if let session = client.session {
            hub.sessions.leave(session, connectionID: connectionID ?? 0)
        } else {
            engine.unregister(client.engineID)
        }
    }

    // MARK: output

    func send(_ message: ClientMessage) {
        guard let context = gate.open else { return }
        var m = message
        if m.now == nil { m.now = engine.clock.now().nanoseconds }
        guard let line = ClientSocketCodec.line(m, encoder: encoder) else {
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

    func hello(id: Int?) -> ClientMessage {
        var m = ClientMessage(type: id == nil ? "hello" : "reply")
        if id != nil {
            m.id = id
            m.ok = true
        }
        m.version = ClientSocketProtocol.version
        m.server = "fieldlocd"
        m.board = engine.board.name
        m.locationServicesEnabled = engine.locationServicesEnabled
        m.headingAvailable = engine.headingAvailable
        m.capabilities = engine.capabilities
        m.beaconsKnown = true
        m.rangingProblem = engine.rangingProblem
        if let peer {
            m.authorization = peer.status
            m.accuracy = peer.accuracy
            m.reason = peer.reason
            m.peer = ClientPeer(pid: peer.credentials.pid, uid: peer.credentials.uid, gid: peer.credentials.gid,
                              user: peer.identity.user, groups: peer.identity.groups)
        }
        return m
    }

    // MARK: input

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let item = unwrapInboundIn(data)
        guard !gate.closing else { return }
        if peer == nil {
            // The credentials are read as the connection opens; lines sent before land here.
            guard waiting.count < 64 else { return close(reason: "too many requests before the credentials were read") }
            waiting.append(item)
        } else {
            handle(item)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flush()
        context.fireChannelReadComplete()
    }
}
