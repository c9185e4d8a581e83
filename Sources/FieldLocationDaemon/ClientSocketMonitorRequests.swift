import FieldLocation
import FieldLocationWire
import Foundation
import LocationAPI
import LocationServices
import NIOCore

/// The monitor ops of a client-socket connection (`monitorOpen`, `monitorAdd`, …).
extension ClientSocketConnection {
    /// The daemon's name of monitor `name` for this peer (`uid1000-NAME`).
    private func monitorName(_ request: ClientRequest, peer: Peer) throws(LocationError) -> (wire: String, full: String) {
        guard let name = request.monitor, !name.isEmpty, name.utf8.count <= ClientSocketProtocol.maximumNameLength else {
            throw .invalidArgument("\(request.op): 'monitor' must be 1 to \(ClientSocketProtocol.maximumNameLength) bytes")
        }
        return (name, "uid\(peer.credentials.uid)-\(name)")
    }

    /// A monitor this connection opened.
    private func openedMonitor(_ request: ClientRequest, peer: Peer) throws(LocationError) -> SocketMonitors.Entry {
        let (wire, full) = try monitorName(request, peer: peer)
        guard openMonitors[wire] == full else { throw .invalidArgument("\(request.op): monitor '\(wire.prefix(64))' is not open on this connection (op monitorOpen)") }
        return try hub.monitors.entry(full)
    }

    func performMonitor(_ request: ClientRequest, peer: Peer, reply: inout ClientMessage) throws(LocationError) {
        switch request.op {
        case "monitorOpen":
            // Core Location keeps monitoring while the app is away only for apps authorised always.
            guard peer.status == .authorizedAlways else {
                throw .regionMonitoringDenied("a monitor needs 'always' from fieldlocd's access policy (this client has \(peer.status.rawValue))")
            }
            let (wire, full) = try monitorName(request, peer: peer)
            guard let channel = gate.channel, let connectionID else { throw .hardware(.other, "monitorOpen: the connection is closing") }
            let entry = try hub.monitors.entry(full)
            let loop = channel.eventLoop
            let bound = NIOLoopBound(self, eventLoop: loop)
            let engine = self.engine
            let logger = hub.logger
            try hub.monitors.attach(entry, connectionID: connectionID) { event in
                var m = ClientMessage(type: "monitorEvent")
                m.monitor = wire
                m.monitorEvent = event
                m.seq = event.seq
                m.now = engine.clock.now().nanoseconds
                guard let line = ClientSocketCodec.line(m, encoder: ClientSocketCodec.encoder()) else {
                    logger.error("a monitor event line exceeds \(ClientSocketProtocol.maximumLineLength) bytes; not sent")
                    return
                }
                loop.execute { bound.value.deliver(line) }
            }
            openMonitors[wire] = full
            reply.identifiers = entry.monitor.identifiers
            reply.pending = entry.monitor.pendingEvents.count
            reply.dropped = entry.monitor.dropped
        case "monitorClose":
            let (wire, full) = try monitorName(request, peer: peer)
            guard openMonitors.removeValue(forKey: wire) != nil else { return }
            hub.monitors.detach(full, connectionID: connectionID ?? 0)
        case "monitorAdd":
            let entry = try openedMonitor(request, peer: peer)
            guard let identifier = request.identifier, identifier.utf8.count <= ClientSocketProtocol.maximumNameLength else {
                throw .invalidArgument("monitorAdd: 'identifier' must be 1 to \(ClientSocketProtocol.maximumNameLength) bytes")
            }
            guard let condition = request.condition else { throw .invalidArgument("monitorAdd: missing key 'condition'") }
            try hub.monitors.add(condition, identifier: identifier, assuming: request.assuming ?? .unknown, to: entry)
        case "monitorRemove":
            let entry = try openedMonitor(request, peer: peer)
            guard let identifier = request.identifier else { throw .invalidArgument("monitorRemove: missing key 'identifier'") }
            reply.removed = try hub.monitors.remove(identifier, from: entry)
        case "monitorIdentifiers":
            reply.identifiers = try openedMonitor(request, peer: peer).monitor.identifiers
        case "monitorRecord":
            let entry = try openedMonitor(request, peer: peer)
            guard let identifier = request.identifier else { throw .invalidArgument("monitorRecord: missing key 'identifier'") }
            reply.monitorRecord = entry.monitor.record(for: identifier)
        case "monitorAck":
            let entry = try openedMonitor(request, peer: peer)
            guard let seq = request.seq else { throw .invalidArgument("monitorAck: missing key 'seq'") }
            // Saved before the reply: a client that acknowledged and reconnects does not get the event again.
            do { try entry.monitor.acknowledge(through: seq) } catch { throw .hardware(.other, "monitorAck: \(error.description)") }
        default:
            throw .invalidArgument("unknown op '\(request.op.prefix(64))'")
        }
    }
}
