import HardwareInterfaces

/// A region's last event and when it happened (Core Location's `CLMonitor` record), kept with the
/// region and persisted with it.
///
/// Every state change is recorded, also the ones the region does not report (an exit of a region
/// with `notifyOnExit` off is still its last event).
public struct RegionRecord: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The region's identifier.
    public var identifier: String
    /// The last event (`enter`, `exit`, `dwell` or `determined`).
    public var lastEvent: RegionEvent.Kind
    /// The state the event left the region in.
    public var state: RegionState
    /// When: the receiver's UTC time of the fix that showed it, seconds since 1970 (when known).
    public var time: Double?
    /// When: the instant the fix was received, on the engine's monotonic clock.
    public var receivedAt: MonotonicInstant

    /// A record of `lastEvent` leaving the region in `state`, shown by `location`.
    public init(identifier: String, lastEvent: RegionEvent.Kind, state: RegionState, location: Location) {
        self.identifier = identifier
        self.lastEvent = lastEvent
        self.state = state
        time = location.timestamp
        receivedAt = location.receivedAt
    }

    private enum CodingKeys: String, CodingKey { case identifier, lastEvent, state, time, receivedAt }

    /// Decodes `{"identifier","lastEvent","state","time"?,"receivedAt"}` (`receivedAt` in nanoseconds).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(String.self, forKey: .identifier)
        state = try c.decode(RegionState.self, forKey: .state)
        let name = try c.decode(String.self, forKey: .lastEvent)
        guard let kind = RegionEvent.Kind(name: name, state: state) else {
            throw DecodingError.dataCorruptedError(forKey: .lastEvent, in: c, debugDescription: "region record: event '\(name)' is unknown")
        }
        lastEvent = kind
        time = try c.decodeIfPresent(Double.self, forKey: .time)
        receivedAt = MonotonicInstant(nanoseconds: try c.decode(UInt64.self, forKey: .receivedAt))
    }

    /// Encodes the record.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(lastEvent.name, forKey: .lastEvent)
        try c.encode(state, forKey: .state)
        try c.encodeIfPresent(time, forKey: .time)
        try c.encode(receivedAt.nanoseconds, forKey: .receivedAt)
    }

    public var description: String { "\(identifier): \(lastEvent.name) (\(state.rawValue))" + (time.map { " at \($0)" } ?? "") }
}

extension RegionEvent.Kind {
    /// The kind's name: `enter`, `exit`, `dwell` or `determined`.
    public var name: String {
        switch self {
        case .enter: return "enter"
        case .exit: return "exit"
        case .dwell: return "dwell"
        case .determined: return "determined"
        }
    }

    /// The kind of `name`; `determined` takes `state`.
    public init?(name: String, state: RegionState) {
        switch name {
        case "enter": self = .enter
        case "exit": self = .exit
        case "dwell": self = .dwell
        case "determined": self = .determined(state)
        default: return nil
        }
    }
}
