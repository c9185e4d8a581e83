import Beacons
import Foundation
import LocationServices

// The values of a CLMonitor-like monitor, in process (FieldLocation's `Monitor`) and over fieldlocd's
// client socket (FieldLocationClient's `RemoteMonitor`).

/// What a condition watches (Core Location's `CLMonitor` conditions): a circle, a polygon or a
/// beacon identity.
public enum MonitorCondition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Satisfied while the unit is inside the circle (centre in degrees, radius in metres).
    case circle(latitude: Double, longitude: Double, radius: Double)
    /// Satisfied while the unit is inside the polygon (great-circle edges, holes allowed).
    case polygon(RegionPolygon)
    /// Satisfied while a beacon matching the constraint (UUID, optional major and minor) is heard.
    case beacon(BeaconIdentityConstraint)

    /// Whether the condition needs Bluetooth.
    public var isBeacon: Bool {
        if case .beacon = self { return true }
        return false
    }

    /// The geographic region the condition is, for ``RegionMonitor`` (`nil` for a beacon).
    package func region(identifier: String) -> CircularRegion? {
        switch self {
        case .circle(let latitude, let longitude, let radius):
            return CircularRegion(identifier: identifier, latitude: latitude, longitude: longitude, radius: radius)
        case .polygon(let polygon):
            return CircularRegion(identifier: identifier, polygon: polygon)
        case .beacon:
            return nil
        }
    }

    /// Why the condition cannot be added, or `nil`.
    package func validate(identifier: String) -> String? {
        if identifier.isEmpty { return "a condition needs an identifier" }
        if case .beacon(let constraint) = self {
            return BeaconRegion(identifier: identifier, constraint: constraint).validate().map { "condition \(identifier): \($0)" }
        }
        return region(identifier: identifier)?.validate().map { "condition \(identifier): \($0)" }
    }

    private enum CodingKeys: String, CodingKey { case kind, latitude, longitude, radius, polygon, beacon }

    /// Decodes `{"kind":"circle","latitude","longitude","radius"}`, `{"kind":"polygon","polygon"}` or
    /// `{"kind":"beacon","beacon":{"uuid","major"?,"minor"?}}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try c.decode(String.self, forKey: .kind)
        switch kind {
        case "circle":
            self = .circle(latitude: try c.decode(Double.self, forKey: .latitude), longitude: try c.decode(Double.self, forKey: .longitude),
                           radius: try c.decode(Double.self, forKey: .radius))
        case "polygon": self = .polygon(try c.decode(RegionPolygon.self, forKey: .polygon))
        case "beacon": self = .beacon(try c.decode(BeaconIdentityConstraint.self, forKey: .beacon))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "condition kind '\(kind)' is not circle, polygon or beacon")
        }
    }

    /// Encodes the condition with its `kind`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .circle(let latitude, let longitude, let radius):
            try c.encode("circle", forKey: .kind)
            try c.encode(latitude, forKey: .latitude)
            try c.encode(longitude, forKey: .longitude)
            try c.encode(radius, forKey: .radius)
        case .polygon(let polygon):
            try c.encode("polygon", forKey: .kind)
            try c.encode(polygon, forKey: .polygon)
        case .beacon(let constraint):
            try c.encode("beacon", forKey: .kind)
            try c.encode(constraint, forKey: .beacon)
        }
    }

    public var description: String {
        switch self {
        case .circle(let latitude, let longitude, let radius): return "circle (\(latitude), \(longitude)) r=\(radius) m"
        case .polygon(let polygon): return "polygon of \(polygon.vertices.count) vertices"
        case .beacon(let constraint): return "beacon \(constraint)"
        }
    }
}

/// A condition's state (Core Location's `CLMonitor.Event.State`).
public enum MonitorState: String, Sendable, Hashable, Codable {
    /// Not decided yet.
    case unknown
    /// The condition holds: inside the region, or a matching beacon is heard.
    case satisfied
    /// The condition does not hold.
    case unsatisfied
    /// The condition cannot be monitored now (see ``MonitorEvent/reason``): no Bluetooth for a beacon
    /// condition, more conditions than 20 conditions (``LocationManager``'s and a monitor's limit), or no authorisation.
    case unmonitored
}

/// A change of a condition's state. Events are numbered (`seq`, from 1, never reused within a
/// monitor); the record of a condition that has had no event yet holds its assumed state with seq 0.
public struct MonitorEvent: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The event's number in its monitor.
    public var seq: UInt64
    /// The condition's identifier.
    public var identifier: String
    /// The state the condition entered.
    public var state: MonitorState
    /// When, UTC seconds since 1970 (the monitor's wall clock).
    public var date: Double
    /// Why the condition is unmonitored (only with ``MonitorState/unmonitored``).
    public var reason: String?

    /// An event.
    public init(seq: UInt64, identifier: String, state: MonitorState, date: Double, reason: String? = nil) {
        self.seq = seq
        self.identifier = identifier
        self.state = state
        self.date = date
        self.reason = reason
    }

    public var description: String {
        "#\(seq) \(identifier): \(state.rawValue)" + (reason.map { " (\($0))" } ?? "")
    }
}

/// A condition and its last event (Core Location's `CLMonitor.Record`).
public struct MonitorRecord: Sendable, Hashable, Codable {
    /// The condition.
    public var condition: MonitorCondition
    /// Its last event (the assumed state with seq 0 before any).
    public var lastEvent: MonitorEvent

    /// A record.
    public init(condition: MonitorCondition, lastEvent: MonitorEvent) {
        self.condition = condition
        self.lastEvent = lastEvent
    }
}
