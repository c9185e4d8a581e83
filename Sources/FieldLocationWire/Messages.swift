import Beacons
import LocationAPI
import LocationServices

/// The peer as the daemon identified it (`SO_PEERCRED` and the user database).
package struct ClientPeer: Codable, Sendable, Equatable {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32
    package var user: String?
    package var groups: [String]

    package init(pid: Int32, uid: UInt32, gid: UInt32, user: String?, groups: [String]) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.user = user
        self.groups = groups
    }
}

/// A value whose decoder may refuse it with a ``LocationError`` (``ClientServices`` out of range):
/// decoding keeps the refusal, so the daemon reports it where it acts on the value, after the checks
/// that come first (the protocol version, the op, the access policy, the client).
package struct Checked<Value: Codable & Sendable>: Codable, Sendable {
    /// The value, or why it was refused.
    package let result: Result<Value, LocationError>

    package init(_ value: Value) { result = .success(value) }

    package init(from decoder: any Decoder) throws {
        do { result = .success(try Value(from: decoder)) } catch let refusal as LocationError { result = .failure(refusal) }
    }

    package func encode(to encoder: any Encoder) throws {
        switch result {
        case .success(let value): try value.encode(to: encoder)
        case .failure(let refusal):
            throw EncodingError.invalidValue(refusal, .init(codingPath: encoder.codingPath, debugDescription: refusal.message))
        }
    }
}

/// A request line (client to daemon); see ``ClientSocketProtocol`` for the ops and their fields.
package struct ClientRequest: Codable, Sendable {
    package var version: Int?
    package var id: Int?
    package var op: String
    package var client: Int?
    package var name: String?
    package var persistent: String?
    package var services: Checked<ClientServices>?
    package var timeout: Double?
    package var region: CircularRegion?
    /// The beacon region of `monitorBeacon`.
    package var beaconRegion: BeaconRegion?
    package var identifier: String?
    package var purpose: String?
    /// `ack`: the number of the last queued event handled (every event up to it leaves the queue).
    package var seq: UInt64?
    /// The monitor ops: the monitor's name.
    package var monitor: String?
    /// `monitorAdd`: the condition and the state assumed until one is determined.
    package var condition: MonitorCondition?
    package var assuming: MonitorState?

    package init(op: String, client: Int? = nil) {
        self.op = op
        self.client = client
    }
}

/// One event line's event: an engine event, or a part of a long `locations` batch (``continues``
/// on every part but the last). Encoded as the event's keys plus `continues`.
package struct ClientEvent: Codable, Sendable {
    package var event: EngineEvent
    package var continues: Bool

    package init(_ event: EngineEvent, continues: Bool = false) {
        self.event = event
        self.continues = continues
    }

    private enum CodingKeys: String, CodingKey { case continues }

    package init(from decoder: any Decoder) throws {
        event = try EngineEvent(from: decoder)
        continues = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Bool.self, forKey: .continues) ?? false
    }

    package func encode(to encoder: any Encoder) throws {
        try event.encode(to: encoder)
        if continues {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(true, forKey: .continues)
        }
    }

    /// The parts of an engine event: itself, or a long batch of locations in parts of at most
    /// ``ClientSocketProtocol/locationsPerEvent``.
    package static func parts(of event: EngineEvent) -> [ClientEvent] {
        guard case .locations(let l) = event, l.count > ClientSocketProtocol.locationsPerEvent else { return [ClientEvent(event)] }
        return stride(from: 0, to: l.count, by: ClientSocketProtocol.locationsPerEvent).map { start in
            let end = min(start + ClientSocketProtocol.locationsPerEvent, l.count)
            return ClientEvent(.locations(Array(l[start..<end])), continues: end < l.count)
        }
    }
}

/// A line from the daemon: `hello`, `reply` or `event`; the keys of the others are absent.
package struct ClientMessage: Codable, Sendable {
    package var type: String
    // reply
    package var id: Int?
    package var ok: Bool?
    package var error: LocationError?
    package var problems: [String]?
    package var regions: [CircularRegion]?
    /// The reply to `beaconRegions`.
    package var beaconRegions: [BeaconRegion]?
    package var state: String?
    package var record: RegionRecord?
    package var location: Location?
    package var heading: HeadingUpdate?
    /// `register` of a persistent client: events dropped while its queue was full, and events queued now.
    package var dropped: UInt64?
    package var pending: Int?
    /// `visits`: the persisted visit history, oldest first.
    package var visits: [Visit]?
    /// The unit's health (`health` op).
    package var health: UnitHealth?
    // hello (also the reply to the hello op)
    package var version: Int?
    package var server: String?
    package var board: String?
    package var locationServicesEnabled: Bool?
    package var headingAvailable: Bool?
    /// Each service of the board with its availability and reason (absent from older daemons).
    package var capabilities: DeviceCapabilities?
    /// Why beacons cannot be ranged (absent when they can; a daemon before beacons sends neither key).
    package var rangingProblem: String?
    /// Whether the daemon ranges beacons (`true` from daemons that know beacons).
    package var beaconsKnown: Bool?
    package var authorization: AuthorizationStatus?
    package var accuracy: AccuracyAuthorization?
    package var reason: String?
    package var peer: ClientPeer?
    // event
    package var client: Int?
    package var event: ClientEvent?
    /// A queued (region or visit) event's number: acknowledge it with op `ack` once handled.
    package var seq: UInt64?
    /// A `monitorEvent` message: the monitor's name and its event (whose `seq` acknowledges it).
    package var monitor: String?
    package var monitorEvent: MonitorEvent?
    /// `monitorOpen` and `monitorIdentifiers`: the monitor's condition identifiers, in the order added.
    package var identifiers: [String]?
    /// `monitorRecord`: the condition's record (absent when there is none).
    package var monitorRecord: MonitorRecord?
    /// `monitorRemove`: whether there was such a condition.
    package var removed: Bool?
    // every message from the daemon
    package var now: UInt64?

    package init(type: String) { self.type = type }

    /// A reply to request `id`: `ok`, or the error (its message cut to ``ClientSocketProtocol/maximumMessageLength``).
    package static func reply(_ id: Int?, error: LocationError? = nil) -> ClientMessage {
        var m = ClientMessage(type: "reply")
        m.id = id
        m.ok = error == nil
        m.error = error?.clipped
        return m
    }
}

extension LocationError {
    /// The error with its message cut to ``ClientSocketProtocol/maximumMessageLength`` bytes.
    package var clipped: LocationError {
        let limit = ClientSocketProtocol.maximumMessageLength
        guard message.utf8.count > limit else { return self }
        let cut = String(decoding: message.utf8.prefix(limit), as: UTF8.self)
        switch self {
        case .locationUnknown: return .locationUnknown(cut)
        case .denied: return .denied(cut)
        case .headingFailure: return .headingFailure(cut)
        case .regionMonitoringFailure(let region, _): return .regionMonitoringFailure(region: region, reason: cut)
        case .deferredFailed: return .deferredFailed(cut)
        case .invalidArgument: return .invalidArgument(cut)
        case .hardware(let cause, _): return .hardware(cause, cut)
        case .regionMonitoringDenied: return .regionMonitoringDenied(cut)
        case .regionMonitoringSetupDelayed(let region, _): return .regionMonitoringSetupDelayed(region: region, reason: cut)
        case .rangingUnavailable: return .rangingUnavailable(cut)
        case .rangingFailure: return .rangingFailure(cut)
        case .promptDeclined: return .promptDeclined(cut)
        case .requestExpired: return .requestExpired(cut)
        case .network: return .network(cut)
        }
    }
}

extension EngineEvent {
    /// The event with its error messages cut for the wire.
    package var clipped: EngineEvent {
        switch self {
        case .error(let e): return .error(e.clipped)
        case .deferredFinished(let e): return .deferredFinished(e?.clipped)
        default: return self
        }
    }
}
