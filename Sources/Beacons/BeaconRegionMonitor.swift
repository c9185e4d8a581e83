/// Whether the unit is in a beacon region.
public enum BeaconRegionState: String, Sendable, Hashable, Codable {
    /// Not decided yet (scanning has not run long enough).
    case unknown
    /// A covered beacon was heard recently.
    case inside
    /// No covered beacon for the exit timeout.
    case outside
}

/// Something that happened at a beacon region.
public struct BeaconRegionEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// Entered: a covered beacon was heard after the region was determined outside.
        case enter
        /// Left: no covered beacon for the exit timeout.
        case exit
        /// The state was first determined (monitoring started, or asked for): no crossing happened.
        case determined(BeaconRegionState)
    }
    /// What happened.
    public var kind: Kind
    /// The region.
    public var region: BeaconRegion
    /// When, seconds on the monitor's clock.
    public var time: Double

    /// An event.
    public init(kind: Kind, region: BeaconRegion, time: Double) {
        self.kind = kind
        self.region = region
        self.time = time
    }
}

/// One client's beacon regions and their states, with hysteresis: a region is entered when a covered
/// beacon was heard in at least ``entryEvidence`` of the last ``exitTimeout`` seconds (one advert
/// carried far by a fade does not enter it), and left once none was heard for ``exitTimeout``
/// (Core Location waits about 30 s before it reports an exit; the default here is 10 s).
public struct BeaconRegionMonitor: Sendable {
    /// One region's state.
    public struct Entry: Sendable, Hashable {
        /// The region.
        public var region: BeaconRegion
        /// Its state.
        public var state: BeaconRegionState
        /// When monitoring (or scanning, after a restart) began; `nil` until the first update.
        public var since: Double?
    }

    /// The most regions one client may monitor (Core Location allows 20 per app).
    public static let maximumRegions = 20

    /// Seconds without a covered beacon before the region is left; also the window of the entry evidence.
    public var exitTimeout: Double
    /// Whole seconds with a covered beacon heard, within the last ``exitTimeout``, that enter the region.
    public var entryEvidence = 3
    /// The regions by identifier.
    public private(set) var entries: [String: Entry] = [:]

    /// A monitor with no regions.
    public init(exitTimeout: Double = 10) { self.exitTimeout = exitTimeout }

    /// A monitor with `regions` (restored from storage: states unknown until scanning decides).
    public init(regions: [BeaconRegion], exitTimeout: Double = 10) {
        self.exitTimeout = exitTimeout
        for region in regions { entries[region.identifier] = Entry(region: region, state: .unknown, since: nil) }
    }

    /// The regions, by identifier.
    public var regions: [BeaconRegion] { entries.values.map(\.region).sorted { $0.identifier < $1.identifier } }

    /// Adds (or replaces) a region; returns why not, or `nil`.
    public mutating func add(_ region: BeaconRegion) -> String? {
        if let problem = region.validate() { return problem }
        if entries[region.identifier] == nil && entries.count >= Self.maximumRegions {
            return "at most \(Self.maximumRegions) beacon regions per client"
        }
        entries[region.identifier] = Entry(region: region, state: .unknown, since: nil)
        return nil
    }

    /// Removes a region; returns whether it was there.
    @discardableResult
    public mutating func remove(_ identifier: String) -> Bool { entries.removeValue(forKey: identifier) != nil }

    /// The state of a region (`unknown` for one not monitored).
    public func state(of identifier: String) -> BeaconRegionState { entries[identifier]?.state ?? .unknown }

    /// Scanning stopped: states become unknown and are decided again when it resumes.
    public mutating func scanningStopped() {
        for key in entries.keys {
            entries[key]?.state = .unknown
            entries[key]?.since = nil
        }
    }

    /// Decides every region at `now` from when a covered beacon was last heard, and returns the
    /// events in region order: `determined` the first time, `enter` and `exit` on crossings
    /// (each only when the region asks for it).
    public mutating func update(at now: Double, presence: (BeaconIdentityConstraint) -> BeaconPresence) -> [BeaconRegionEvent] {
        var events: [BeaconRegionEvent] = []
        for identifier in entries.keys.sorted() {
            guard var entry = entries[identifier] else { continue }
            let since = entry.since ?? now
            entry.since = since
            let p = presence(entry.region.constraint)
            let heard = p.lastHeard.map { now - $0 <= exitTimeout && $0 <= now } ?? false
            let evidence = p.recentSeconds >= entryEvidence
            let next: BeaconRegionState
            switch entry.state {
            case .inside: next = heard ? .inside : .outside
            case .outside: next = evidence ? .inside : .outside
            case .unknown: next = evidence ? .inside : now - since >= exitTimeout ? .outside : .unknown
            }
            if next != entry.state {
                switch (entry.state, next) {
                case (.unknown, _): events.append(BeaconRegionEvent(kind: .determined(next), region: entry.region, time: now))
                case (.outside, .inside):
                    if entry.region.notifyOnEntry { events.append(BeaconRegionEvent(kind: .enter, region: entry.region, time: now)) }
                case (.inside, .outside):
                    if entry.region.notifyOnExit { events.append(BeaconRegionEvent(kind: .exit, region: entry.region, time: now)) }
                default: break
                }
                entry.state = next
            }
            entries[identifier] = entry
        }
        return events
    }
}
