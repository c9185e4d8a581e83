import HardwareInterfaces

/// A circular geographic region to monitor.
public struct CircularRegion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The caller's name for it; unique per monitor (a new region with the same identifier replaces the old).
    public var identifier: String
    /// Centre latitude, degrees.
    public var latitude: Double
    /// Centre longitude, degrees.
    public var longitude: Double
    /// Radius, metres.
    public var radius: Double
    /// Whether entering is reported.
    public var notifyOnEntry: Bool
    /// Whether leaving is reported.
    public var notifyOnExit: Bool
    /// Seconds inside after which a dwell event is reported once per stay; `nil` for none.
    public var dwellTime: Double?

    /// The largest radius accepted, metres (as Core Location's maximum region monitoring distance).
    public static let maximumRadius = 100_000.0

    /// Creates a region; ``validate()`` checks it.
    public init(identifier: String, latitude: Double, longitude: Double, radius: Double,
                notifyOnEntry: Bool = true, notifyOnExit: Bool = true, dwellTime: Double? = nil) {
        self.identifier = identifier
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.dwellTime = dwellTime
    }

    /// Why this region cannot be monitored, or `nil` when it can.
    public func validate() -> String? {
        if identifier.isEmpty { return "the region has an empty identifier" }
        if identifier.utf8.count > 256 { return "region \(identifier.prefix(32))…: the identifier is longer than 256 bytes" }
        if !latitude.isFinite || latitude < -90 || latitude > 90 {
            return "region \(identifier): latitude \(latitude) is outside -90...90"
        }
        if !longitude.isFinite || longitude < -180 || longitude > 180 {
            return "region \(identifier): longitude \(longitude) is outside -180...180"
        }
        if !radius.isFinite || radius <= 0 { return "region \(identifier): radius \(radius) m must be a positive number" }
        if radius > Self.maximumRadius {
            return "region \(identifier): radius \(radius) m exceeds the maximum of \(Int(Self.maximumRadius)) m"
        }
        if let dwell = dwellTime, !dwell.isFinite || dwell <= 0 {
            return "region \(identifier): dwell time \(dwell) s must be a positive number"
        }
        return nil
    }

    /// Distance from the centre to a location, metres.
    public func distance(to location: Location) -> Double {
        Geodesy.distance(latitude1: latitude, longitude1: longitude, latitude2: location.latitude, longitude2: location.longitude)
    }

    public var description: String { "\(identifier) (\(latitude), \(longitude) r=\(radius) m)" }
}

/// Whether the unit is inside a region.
public enum RegionState: String, Sendable, Hashable, Codable {
    /// Not known yet (no fix accurate enough to decide).
    case unknown
    /// Inside.
    case inside
    /// Outside.
    case outside
}

/// Something that happened at a region, with the location that showed it.
public struct RegionEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// Entered the region.
        case enter
        /// Left the region.
        case exit
        /// Stayed inside for the region's dwell time.
        case dwell
        /// The state was first determined (monitoring started, or asked for): no crossing happened.
        case determined(RegionState)
    }
    /// What happened.
    public var kind: Kind
    /// The region.
    public var region: CircularRegion
    /// The location that triggered the event.
    public var location: Location
}

/// The enter/exit/dwell state machine of a set of regions.
///
/// Hysteresis accounts for the fix's accuracy: with `u` the fix's 95 % radius (twice the 68 %
/// accuracy) and `h = max(10 m, 10 % of the radius)`, the unit is
/// *inside* when the whole uncertainty circle is in the region (`d + u ≤ r`) and *outside* when
/// it is beyond the region by the band (`d − u ≥ r + h`); anything between changes nothing. A
/// noisy track along the border therefore gives one event, and a fix too coarse to tell gives none.
public struct RegionMonitor: Sendable {
    /// One monitored region and where the unit is with respect to it.
    public struct Entry: Sendable, Hashable, Codable {
        /// The region.
        public var region: CircularRegion
        /// The last determined state.
        public var state: RegionState
        /// When the current stay inside began (monotonic seconds; not persisted meaningfully across restarts).
        public var insideSince: Double?
        /// Whether this stay's dwell event was sent.
        public var dwellReported: Bool
    }

    /// The regions by identifier.
    public private(set) var entries: [String: Entry] = [:]
    /// The most regions one monitor accepts.
    public var capacity = 100

    /// Creates an empty monitor.
    public init() {}

    /// Creates a monitor from persisted entries.
    public init(entries: [Entry]) {
        for e in entries { self.entries[e.region.identifier] = e }
    }

    /// Regions being monitored, sorted by identifier.
    public var regions: [CircularRegion] { entries.values.map(\.region).sorted { $0.identifier < $1.identifier } }

    /// Adds (or replaces) a region; its state starts unknown. Returns why it was refused, or `nil`.
    public mutating func add(_ region: CircularRegion) -> String? {
        if let problem = region.validate() { return problem }
        if entries[region.identifier] == nil && entries.count >= capacity {
            return "region \(region.identifier): already monitoring \(capacity) regions, the most allowed"
        }
        entries[region.identifier] = Entry(region: region, state: .unknown, insideSince: nil, dwellReported: false)
        return nil
    }

    /// Stops monitoring a region; returns whether it was monitored.
    @discardableResult
    public mutating func remove(_ identifier: String) -> Bool { entries.removeValue(forKey: identifier) != nil }

    /// The state a location shows for a region (without changing the monitor), `nil` when the
    /// location cannot tell (also when its accuracy is unknown: no hysteresis can be drawn).
    public static func classify(_ region: CircularRegion, _ location: Location) -> RegionState? {
        guard let accuracy = location.knownHorizontalAccuracy else { return nil }
        let d = region.distance(to: location)
        let u = max(0, accuracy * 2)
        let h = max(10, 0.1 * region.radius)
        if d + u <= region.radius { return .inside }
        if d - u >= region.radius + h { return .outside }
        return nil
    }

    /// The state of a region now: from the monitor when determined, else from `location`.
    public func state(of identifier: String, location: Location?) -> RegionState {
        guard let entry = entries[identifier] else { return .unknown }
        if entry.state != .unknown { return entry.state }
        guard let location else { return .unknown }
        return Self.classify(entry.region, location) ?? .unknown
    }

    /// Feeds one location; returns the events it causes, in identifier order.
    public mutating func update(_ location: Location) -> [RegionEvent] {
        var events: [RegionEvent] = []
        let now = location.receivedAt.seconds
        for id in entries.keys.sorted() {
            guard var e = entries[id] else { continue }
            if let state = Self.classify(e.region, location), state != e.state {
                let previous = e.state
                e.state = state
                e.insideSince = state == .inside ? now : nil
                e.dwellReported = false
                if previous == .unknown {
                    events.append(RegionEvent(kind: .determined(state), region: e.region, location: location))
                } else if state == .inside {
                    if e.region.notifyOnEntry { events.append(RegionEvent(kind: .enter, region: e.region, location: location)) }
                } else if e.region.notifyOnExit {
                    events.append(RegionEvent(kind: .exit, region: e.region, location: location))
                }
            }
            if e.state == .inside && e.insideSince == nil { e.insideSince = now }
            if e.state == .inside, !e.dwellReported, let dwell = e.region.dwellTime,
               let since = e.insideSince, now - since >= dwell {
                e.dwellReported = true
                events.append(RegionEvent(kind: .dwell, region: e.region, location: location))
            }
            entries[id] = e
        }
        return events
    }

    /// Forgets the monotonic times (after a restart, the old clock's instants mean nothing):
    /// a stay inside counts from the next fix.
    public mutating func restarted() {
        for id in entries.keys { entries[id]?.insideSince = nil }
    }
}
