import Beacons
import FieldLocation
import FieldLocationWire
import Foundation
import LocationAPI
import LocationServices
import NIOCore

/// The requests of one client-socket connection: decoding, the ops, and the clients' event sinks.
extension ClientSocketConnection {
    private struct RequestID: Decodable { var id: Int? }

    /// Answers one line: a request, or an error for a line that is not one.
    func handle(_ item: LineDecoder.Item) {
        switch item {
        case .tooLong:
            hub.count { $0.malformedLines += 1 }
            send(.reply(nil, error: .invalidArgument("request line longer than \(ClientSocketProtocol.maximumLineLength) bytes; skipped")))
        case .line(let line):
            let request: ClientRequest
            do {
                request = try ClientSocketCodec.decode(ClientRequest.self, from: line, decoder: decoder)
            } catch {
                hub.count { $0.malformedLines += 1 }
                let id = (try? ClientSocketCodec.decode(RequestID.self, from: line, decoder: decoder))?.id
                send(.reply(id, error: .invalidArgument("malformed request: \(ClientSocketCodec.describe(error))")))
                return
            }
            do {
                send(try perform(request))
            } catch {
                send(.reply(request.id, error: error))
            }
        }
    }

    private func client(_ request: ClientRequest) throws(LocationError) -> (wireID: Int, client: Client) {
        guard let id = request.client else { throw .invalidArgument("\(request.op): missing key 'client'") }
        guard let c = clients[id] else { throw .invalidArgument("\(request.op): client \(id) is not registered on this connection") }
        return (id, c)
    }

    private func perform(_ request: ClientRequest) throws(LocationError) -> ClientMessage {
        if let v = request.version, v != ClientSocketProtocol.version {
            throw .invalidArgument("protocol version \(v) is not spoken here (this daemon speaks \(ClientSocketProtocol.version))")
        }
        guard ClientSocketProtocol.operations.contains(request.op) else {
            hub.count { $0.malformedLines += 1 }
            throw .invalidArgument("unknown op '\(request.op.prefix(64))' (known: \(ClientSocketProtocol.operations.joined(separator: ", ")))")
        }
        if request.op == "hello" { return hello(id: request.id) }
        guard let peer else { throw .denied("the connection's credentials are not known") }
        guard peer.status.allowsLocations else {
            throw .denied(peer.reason ?? "the access policy says \(peer.status.rawValue)")
        }
        var reply = ClientMessage.reply(request.id)
        switch request.op {
        case "register":
            guard let id = request.client, id >= 1, id <= Int(Int32.max) else { throw .invalidArgument("register: 'client' must be 1 to 2147483647") }
            guard clients[id] == nil else { throw .invalidArgument("register: client \(id) is already registered on this connection") }
            guard clients.count < hub.configuration.maxClientsPerConnection else {
                throw .invalidArgument("register: a connection may register at most \(hub.configuration.maxClientsPerConnection) clients")
            }
            guard let name = request.name, !name.isEmpty, name.utf8.count <= ClientSocketProtocol.maximumNameLength else {
                throw .invalidArgument("register: 'name' must be 1 to \(ClientSocketProtocol.maximumNameLength) bytes")
            }
            if let p = request.persistent, p.isEmpty || p.utf8.count > ClientSocketProtocol.maximumNameLength {
                throw .invalidArgument("register: 'persistent' must be 1 to \(ClientSocketProtocol.maximumNameLength) bytes")
            }
            // Only clients authorised always keep regions beyond the connection; their files are per uid.
            let persistent = peer.status == .authorizedAlways ? request.persistent.map { "uid\(peer.credentials.uid)-\($0)" } : nil
            let who = peer.identity.user ?? "uid\(peer.credentials.uid)"
            let attachment = gate.channel.flatMap { channel in
                connectionID.map { PersistentSession.Attachment(connection: NIOLoopBound(self, eventLoop: channel.eventLoop),
                                                                loop: channel.eventLoop, wireID: id, connectionID: $0) }
            }
            if let persistent, let attachment,
               let opened = hub.sessions.open(name: persistent, displayName: "\(who):\(name)", attachment: attachment) {
                guard let engineID = opened.session.engineID else { throw .hardware(.other, "register: the engine refused the client") }
                clients[id] = Client(engineID: engineID, session: opened.session)
                reply.problems = opened.problems
                reply.dropped = opened.dropped
                reply.pending = opened.pending
            } else {
                let registration = engine.register(name: "\(who):\(name)", persistentName: persistent, sink: eventSink(for: id))
                clients[id] = Client(engineID: registration.id)
                reply.problems = registration.problems
            }
        case "services":
            let (id, c) = try client(request)
            guard let checked = request.services else { throw .invalidArgument("services: missing key 'services'") }
            var services = try checked.result.get()
            clients[id]?.wantsReduced = services.reducedAccuracy
            services.reducedAccuracy = services.reducedAccuracy || (peer.accuracy == .reducedAccuracy && !c.fullAccuracy)
            engine.update(c.engineID) { $0 = services }
            c.session?.setVisits(services.visits)
        case "request":
            let (_, c) = try client(request)
            guard let timeout = request.timeout, timeout.isFinite, timeout > 0, timeout <= 86_400 else {
                throw .invalidArgument("request: 'timeout' must be 0 to 86400 seconds")
            }
            engine.requestLocation(c.engineID, timeout: .milliseconds(Int64((timeout * 1000).rounded(.up))))
        case "flush":
            let (_, c) = try client(request)
            engine.flushBatch(c.engineID)
        case "monitor":
            let (_, c) = try client(request)
            guard let region = request.region else { throw .invalidArgument("monitor: missing key 'region'") }
            if let error = engine.startMonitoring(c.engineID, region) { throw error }
        case "unmonitor":
            let (_, c) = try client(request)
            guard let identifier = request.identifier else { throw .invalidArgument("unmonitor: missing key 'identifier'") }
            if let error = engine.stopMonitoring(c.engineID, identifier: identifier) { throw error }
        case "regions":
            let (_, c) = try client(request)
            reply.regions = engine.monitoredRegions(c.engineID)
        case "state":
            let (_, c) = try client(request)
            guard let identifier = request.identifier else { throw .invalidArgument("state: missing key 'identifier'") }
            reply.state = engine.state(c.engineID, of: identifier).rawValue
        case "record":
            let (_, c) = try client(request)
            guard let identifier = request.identifier else { throw .invalidArgument("record: missing key 'identifier'") }
            reply.record = engine.record(c.engineID, for: identifier)
        case "monitorBeacon":
            let (_, c) = try client(request)
            guard let region = request.beaconRegion else { throw .invalidArgument("monitorBeacon: missing key 'beaconRegion'") }
            guard region.identifier.utf8.count <= ClientSocketProtocol.maximumNameLength else {
                throw .invalidArgument("monitorBeacon: the identifier is longer than \(ClientSocketProtocol.maximumNameLength) bytes")
            }
            if let error = engine.startMonitoring(c.engineID, region) { throw error }
        case "unmonitorBeacon":
            let (_, c) = try client(request)
            guard let identifier = request.identifier else { throw .invalidArgument("unmonitorBeacon: missing key 'identifier'") }
            if let error = engine.stopMonitoring(c.engineID, beaconRegion: identifier) { throw error }
        case "beaconRegions":
            let (_, c) = try client(request)
            reply.beaconRegions = engine.monitoredBeaconRegions(c.engineID)
        case "beaconState":
            let (_, c) = try client(request)
            guard let identifier = request.identifier else { throw .invalidArgument("beaconState: missing key 'identifier'") }
            reply.state = engine.state(c.engineID, ofBeaconRegion: identifier).rawValue
        case "fullAccuracy":
            let (id, c) = try client(request)
            guard let key = request.purpose, hub.configuration.currentPolicy.purposes[key] != nil else {
                let key = request.purpose ?? ""
                throw .invalidArgument("purpose key '\(key.prefix(64))' is not declared in fieldlocd's access policy (a line 'purpose \(key.prefix(64)) = why')")
            }
            clients[id]?.fullAccuracy = true
            engine.update(c.engineID) { $0.reducedAccuracy = c.wantsReduced }
        case "last":
            var full = peer.accuracy == .fullAccuracy
            if let id = request.client {
                guard let c = clients[id] else { throw .invalidArgument("last: client \(id) is not registered on this connection") }
                full = full || c.fullAccuracy
            }
            reply.location = engine.lastLocation.map { full ? $0 : $0.reduced() }
            reply.heading = engine.lastHeading
        case "unregister":
            let (id, c) = try client(request)
            clients[id] = nil
            leave(c)
        case "ack":
            let (_, c) = try client(request)
            guard let seq = request.seq else { throw .invalidArgument("ack: missing key 'seq'") }
            guard let session = c.session else { throw .invalidArgument("ack: client \(request.client ?? 0) has no queued events (not persistent)") }
            session.acknowledge(through: seq)
        case "visits":
            let (_, c) = try client(request)
            reply.visits = c.session?.history ?? []
        case "health":
            reply.health = engine.health()
        case "monitorOpen", "monitorClose", "monitorAdd", "monitorRemove", "monitorIdentifiers", "monitorRecord", "monitorAck":
            try performMonitor(request, peer: peer, reply: &reply)
        default:
            throw .invalidArgument("unknown op '\(request.op.prefix(64))'")
        }
        return reply
    }

    /// The sink of client `wireID`: events are encoded on the engine's thread and written on the
    /// connection's event loop.
    func eventSink(for wireID: Int) -> @Sendable (EngineEvent) -> Void {
        guard let channel = gate.channel else { return { _ in } }
        let loop = channel.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        let engine = self.engine
        let logger = hub.logger
        return { event in
            let encoder = ClientSocketCodec.encoder()
            let now = engine.clock.now().nanoseconds
            var bytes: [UInt8] = []
            for part in ClientEvent.parts(of: event.clipped) {
                var m = ClientMessage(type: "event")
                m.client = wireID
                m.event = part
                m.now = now
                guard let line = ClientSocketCodec.line(m, encoder: encoder) else {
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
