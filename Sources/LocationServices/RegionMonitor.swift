import HardwareInterfaces

/// The enter/exit/dwell state machine of a set of regions (circles and polygons).
///
/// Hysteresis accounts for the fix's accuracy: with `u` the fix's 95 % radius (twice the 68 %
/// accuracy) and `h = max(10 m, 10 % of the radius)`, the unit is
/// *inside* when the whole uncertainty circle is in the region (`d + u ≤ r`) and *outside* when
/// it is beyond the region by the band (`d − u ≥ r + h`); anything between changes nothing. A
/// noisy track along the border therefore gives one event, and a fix too coarse to tell gives none.
/// A polygon uses the same rule with the distance to its nearest edge (see ``RegionPolygon``).
///
/// **Many regions.** A fix is checked against the regions not known to be outside (inside, or
/// unknown) and against the regions whose box holds the fix, found through a latitude/longitude
/// grid (``RegionGrid``): a region known to be outside can only change when the fix is inside it.
/// This gives the same events as checking every region (``updateLinear(_:)``), allocates nothing
/// when no event happens, and costs microseconds against ten thousand regions.
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
        /// The last event and its time (CLMonitor's record); `nil` before the first.
        public var record: RegionRecord?
        /// When the region lapses, UTC seconds since 1970 (persisted; the deadline follows from it).
        public var expiryDate: Double?
        /// When the region lapses on the monitor's monotonic clock, seconds (not persisted).
        public var deadline: Double?

        private enum CodingKeys: String, CodingKey { case region, state, insideSince, dwellReported, record, expiryDate }

        /// An entry of `region` in `state`.
        public init(region: CircularRegion, state: RegionState = .unknown, insideSince: Double? = nil, dwellReported: Bool = false) {
            self.region = region
            self.state = state
            self.insideSince = insideSince
            self.dwellReported = dwellReported
        }
    }

    private var slots: [Entry] = []
    private var shapes: [RegionShape] = []
    private var slotOf: [String: Int] = [:]
    private var grid = RegionGrid()
    /// Slots whose state is not `outside`.
    private var active: [Int32] = []
    /// Per slot, the fix generation that last checked it (so the grid pass skips regions checked already).
    private var checked: [UInt32] = []
    private var generation: UInt32 = 0
    private var indexStale = false
    private var earliestDeadline: Double?

    /// The most regions one monitor accepts (a sanity limit, not a performance one).
    public var capacity = 100_000
    /// Counts persisted changes (states, records, regions): save when it moved.
    public private(set) var revision = 0

    /// Creates an empty monitor.
    public init() {}

    /// Creates a monitor from persisted entries.
    public init(entries: [Entry]) {
        for e in entries { insert(e) }
    }

    /// The regions by identifier (built on each call: prefer ``sortedEntries`` or ``count``).
    public var entries: [String: Entry] { Dictionary(uniqueKeysWithValues: slots.map { ($0.region.identifier, $0) }) }
    /// The entries sorted by identifier.
    public var sortedEntries: [Entry] { slots.sorted { $0.region.identifier < $1.region.identifier } }
    /// Regions being monitored, sorted by identifier.
    public var regions: [CircularRegion] { sortedEntries.map(\.region) }
    /// How many regions are monitored.
    public var count: Int { slots.count }
    /// Whether no region is monitored.
    public var isEmpty: Bool { slots.isEmpty }
    /// The smallest radius (a polygon's bounding radius), metres; `nil` with no regions.
    public var smallestRadius: Double? { slots.lazy.map(\.region.radius).min() }
    /// The earliest deadline of a region that expires (monotonic seconds).
    public var nextExpiry: Double? { earliestDeadline }

    /// The entry of a region.
    public func entry(_ identifier: String) -> Entry? { slotOf[identifier].map { slots[$0] } }

    /// The last event of a region and its time (CLMonitor's `record(for:)`), `nil` when the region
    /// is not monitored or nothing happened yet.
    public func record(for identifier: String) -> RegionRecord? { entry(identifier)?.record }

    private mutating func insert(_ entry: Entry) {
        if let slot = slotOf[entry.region.identifier] {
            slots[slot] = entry
            shapes[slot] = RegionShape(entry.region)
        } else {
            slotOf[entry.region.identifier] = slots.count
            slots.append(entry)
            shapes.append(RegionShape(entry.region))
            checked.append(0)
        }
        indexStale = true
        refreshDeadline()
    }

    /// Adds (or replaces) a region; its state starts unknown. `now` (monotonic seconds) and
    /// `wallClock` (UTC seconds since 1970) place its expiry; without them an `expiresAfter`
    /// counts from the first ``restarted(now:wallClock:)``. Returns why it was refused, or `nil`.
    public mutating func add(_ region: CircularRegion, now: Double? = nil, wallClock: Double? = nil) -> String? {
        if let problem = region.validate() { return problem }
        var region = region
        if let polygon = region.polygon {
            // The bounding cap always follows the outline (a hand-written file may say otherwise).
            let cap = CircularRegion(identifier: region.identifier, polygon: polygon)
            (region.latitude, region.longitude, region.radius) = (cap.latitude, cap.longitude, cap.radius)
        }
        if slotOf[region.identifier] == nil && slots.count >= capacity {
            return "region \(region.identifier): already monitoring \(capacity) regions, the most allowed (RegionMonitor.capacity)"
        }
        var entry = Entry(region: region)
        var dates: [Double] = []
        if let at = region.expiresAt { dates.append(at) }
        if let after = region.expiresAfter, let wallClock { dates.append(wallClock + after) }
        entry.expiryDate = dates.min()
        if let now {
            var deadlines: [Double] = []
            if let after = region.expiresAfter { deadlines.append(now + after) }
            if let date = entry.expiryDate, let wallClock { deadlines.append(now + (date - wallClock)) }
            entry.deadline = deadlines.min()
        }
        insert(entry)
        revision += 1
        return nil
    }

    /// Stops monitoring a region; returns whether it was monitored.
    @discardableResult
    public mutating func remove(_ identifier: String) -> Bool {
        guard let slot = slotOf.removeValue(forKey: identifier) else { return false }
        let last = slots.count - 1
        if slot != last {
            slots.swapAt(slot, last)
            shapes.swapAt(slot, last)
            slotOf[slots[slot].region.identifier] = slot
        }
        slots.removeLast()
        shapes.removeLast()
        checked.removeLast()
        indexStale = true
        refreshDeadline()
        revision += 1
        return true
    }

    /// Removes the regions whose deadline is at or before `now` (monotonic seconds) and returns
    /// them, in identifier order.
    public mutating func expire(now: Double) -> [CircularRegion] {
        guard let first = earliestDeadline, first <= now else { return [] }
        let lapsed = slots.filter { ($0.deadline ?? .infinity) <= now }.map(\.region).sorted { $0.identifier < $1.identifier }
        for region in lapsed { remove(region.identifier) }
        return lapsed
    }

    private mutating func refreshDeadline() { earliestDeadline = slots.lazy.compactMap(\.deadline).min() }

    /// The state a location shows for a region (without changing the monitor), `nil` when the
    /// location cannot tell.
    public static func classify(_ region: CircularRegion, _ location: Location) -> RegionState? {
        RegionShape(region).classify(region, location)
    }

    /// The state of a region now: from the monitor when determined, else from `location`.
    public func state(of identifier: String, location: Location?) -> RegionState {
        guard let slot = slotOf[identifier] else { return .unknown }
        let entry = slots[slot]
        if entry.state != .unknown { return entry.state }
        guard let location else { return .unknown }
        return shapes[slot].classify(entry.region, location) ?? .unknown
    }

    private mutating func rebuildIndex() {
        grid = RegionGrid(shapes)
        active.removeAll(keepingCapacity: true)
        for (slot, e) in slots.enumerated() where e.state != .outside { active.append(Int32(slot)) }
        indexStale = false
    }

    /// Feeds one location; returns the events it causes, in identifier order. Checks only the
    /// regions the fix can change (see the type's discussion).
    public mutating func update(_ location: Location) -> [RegionEvent] {
        if indexStale { rebuildIndex() }
        generation &+= 1
        if generation == 0 {
            for i in checked.indices { checked[i] = 0 }
            generation = 1
        }
        var events: [RegionEvent] = []
        let now = location.receivedAt.seconds
        // Inside or unknown: every one.
        var kept = 0
        for k in active.indices {
            let slot = Int(active[k])
            checked[slot] = generation
            step(slot, location, now: now, into: &events)
            if slots[slot].state != .outside {
                active[kept] = active[k]
                kept += 1
            }
        }
        active.removeLast(active.count - kept)
        // Outside: only those whose box holds the fix.
        let range = grid.cellRange(latitude: location.latitude, longitude: location.longitude)
        for k in range { checkOutside(Int(grid.members[k]), location, now: now, into: &events) }
        for slot in grid.large { checkOutside(Int(slot), location, now: now, into: &events) }
        if events.count > 1 { events.sort { $0.region.identifier < $1.region.identifier } }
        return events
    }

    private mutating func checkOutside(_ slot: Int, _ location: Location, now: Double, into events: inout [RegionEvent]) {
        guard checked[slot] != generation else { return }
        checked[slot] = generation
        guard shapes[slot].boxContains(latitude: location.latitude, longitude: location.longitude) else { return }
        step(slot, location, now: now, into: &events)
        if slots[slot].state != .outside { active.append(Int32(slot)) }
    }

    /// Feeds one location checking every region (the reference the index must agree with; for
    /// tests and benchmarks). Same events as ``update(_:)``.
    public mutating func updateLinear(_ location: Location) -> [RegionEvent] {
        var events: [RegionEvent] = []
        let now = location.receivedAt.seconds
        for slot in slots.indices { step(slot, location, now: now, into: &events) }
        indexStale = true
        if events.count > 1 { events.sort { $0.region.identifier < $1.region.identifier } }
        return events
    }

    /// One region, one fix: the state machine.
    @inline(__always)
    private mutating func step(_ slot: Int, _ location: Location, now: Double, into events: inout [RegionEvent]) {
        var e = slots[slot]
        var changed = false
        if let state = shapes[slot].classify(e.region, location), state != e.state {
            let previous = e.state
            e.state = state
            e.insideSince = state == .inside ? now : nil
            e.dwellReported = false
            let kind: RegionEvent.Kind
            if previous == .unknown {
                kind = .determined(state)
                events.append(RegionEvent(kind: kind, region: e.region, location: location))
            } else if state == .inside {
                kind = .enter
                if e.region.notifyOnEntry { events.append(RegionEvent(kind: kind, region: e.region, location: location)) }
            } else {
                kind = .exit
                if e.region.notifyOnExit { events.append(RegionEvent(kind: kind, region: e.region, location: location)) }
            }
            e.record = RegionRecord(identifier: e.region.identifier, lastEvent: kind, state: state, location: location)
            changed = true
        }
        if e.state == .inside && e.insideSince == nil {
            e.insideSince = now
            changed = true
        }
        if e.state == .inside, !e.dwellReported, let dwell = e.region.dwellTime,
           let since = e.insideSince, now - since >= dwell {
            e.dwellReported = true
            e.record = RegionRecord(identifier: e.region.identifier, lastEvent: .dwell, state: .inside, location: location)
            events.append(RegionEvent(kind: .dwell, region: e.region, location: location))
            changed = true
        }
        if changed {
            slots[slot] = e
            revision += 1
        }
    }

    /// Forgets the monotonic times (after a restart, the old clock's instants mean nothing):
    /// a stay inside counts from the next fix.
    public mutating func restarted() {
        for i in slots.indices { slots[i].insideSince = nil }
    }

    /// After a restart at `now` (monotonic seconds) and `wallClock` (UTC seconds since 1970):
    /// forgets the old monotonic times and places each expiry date on the new clock (a region
    /// without a date but with an `expiresAfter` counts from now).
    public mutating func restarted(now: Double, wallClock: Double) {
        restarted()
        for i in slots.indices {
            if slots[i].expiryDate == nil, let after = slots[i].region.expiresAfter { slots[i].expiryDate = wallClock + after }
            slots[i].deadline = slots[i].expiryDate.map { now + ($0 - wallClock) }
        }
        refreshDeadline()
    }
}
