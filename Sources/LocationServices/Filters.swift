import HardwareInterfaces

/// Which fixes a standard-updates client receives: only fresh ones (the maximum-age contract),
/// and with a distance filter only those that moved far enough from the last delivered.
public struct UpdateFilter: Sendable {
    /// Metres between deliveries; `nil` for every fix.
    public var distanceFilter: Double?
    /// The oldest a delivered location may be, seconds: a stale fix is never delivered as current.
    public var maximumAge: Double
    /// The last location delivered.
    public private(set) var lastDelivered: Location?

    /// Creates a filter.
    public init(distanceFilter: Double? = nil, maximumAge: Double = 2) {
        self.distanceFilter = distanceFilter
        self.maximumAge = maximumAge
    }

    /// Whether `location` is delivered at `now`; records it when it is.
    public mutating func admit(_ location: Location, now: MonotonicInstant) -> Bool {
        guard location.age(at: now) <= maximumAge else { return false }
        if let last = lastDelivered {
            if let t = location.timestamp, let lt = last.timestamp, t <= lt { return false }
            if location.receivedAt <= last.receivedAt { return false }
            if let d = distanceFilter, d > 0, location.distance(to: last) < d { return false }
        }
        lastDelivered = location
        return true
    }

    /// Forgets the last delivery (the next fresh fix passes).
    public mutating func reset() { lastDelivered = nil }
}

/// Significant-change monitoring: the first fix, then one each time the unit has moved at
/// least ``threshold`` metres from the last one delivered.
public struct SignificantChangeFilter: Sendable {
    /// Metres that count as significant (Core Location: about 500 m).
    public var threshold = 500.0
    /// The last location delivered.
    public private(set) var lastDelivered: Location?

    /// Creates a filter.
    public init(threshold: Double = 500) { self.threshold = threshold }

    /// Whether `location` is a significant change; records it when it is.
    public mutating func admit(_ location: Location) -> Bool {
        if let last = lastDelivered, location.distance(to: last) < threshold { return false }
        lastDelivered = location
        return true
    }
}

/// Which headings a client receives: a change of at least ``headingFilter`` degrees from the last delivered.
public struct HeadingFilter: Sendable {
    /// Degrees between deliveries; `nil` for every reading.
    public var headingFilter: Double?
    private var last: Double?
    private var lastHadTrue = false

    /// Creates a filter.
    public init(headingFilter: Double? = nil) { self.headingFilter = headingFilter }

    /// Whether a reading with this heading is delivered; records it when it is. The first reading
    /// with a true heading always passes (its arrival is news).
    public mutating func admit(heading: Double, hasTrueHeading: Bool) -> Bool {
        if let last, let filter = headingFilter, filter > 0, hasTrueHeading == lastHadTrue {
            var delta = Swift.abs(heading - last).truncatingRemainder(dividingBy: 360)
            if delta > 180 { delta = 360 - delta }
            if delta < filter { return false }
        }
        last = heading
        lastHadTrue = hasTrueHeading
        return true
    }
}

/// Deferred and batched delivery: locations are held and handed over as one array, in time
/// order, when the unit has travelled ``untilTraveled`` metres, when ``timeout`` has passed since
/// the first held location, or when the batch is older than ``maximumDelay``.
public struct DeferredBatcher: Sendable {
    /// Metres of travel (along the track) that end the deferral; `nil` for no distance bound.
    public var untilTraveled: Double?
    /// Seconds after which the deferral ends; `nil` for no time bound.
    public var timeout: Double?
    /// The longest any location is held before delivery, seconds (batching maximum delay).
    public var maximumDelay: Double?
    /// Locations held, oldest first.
    public private(set) var held: [Location] = []
    private var travelled = 0.0
    private var started: MonotonicInstant?
    /// The most locations held; older ones are handed over early rather than dropped.
    public var capacity = 3600

    /// Creates a batcher.
    public init(untilTraveled: Double? = nil, timeout: Double? = nil, maximumDelay: Double? = nil) {
        self.untilTraveled = untilTraveled
        self.timeout = timeout
        self.maximumDelay = maximumDelay
    }

    /// Why a batch was handed over.
    public enum Reason: String, Sendable, Hashable {
        /// The distance was travelled.
        case traveled
        /// The deferral's timeout passed.
        case timeout
        /// The batching maximum delay passed.
        case maximumDelay
        /// The batch reached its capacity.
        case capacity
        /// The client asked (stop, disallow).
        case flushed
    }

    /// Holds a location; returns a batch when one is due.
    public mutating func add(_ location: Location) -> (batch: [Location], reason: Reason)? {
        if let previous = held.last { travelled += previous.distance(to: location) }
        if started == nil { started = location.receivedAt }
        held.append(location)
        if let d = untilTraveled, travelled >= d { return flush(.traveled) }
        if held.count >= capacity { return flush(.capacity) }
        return due(now: location.receivedAt)
    }

    /// A batch when a time bound has passed at `now`.
    public mutating func due(now: MonotonicInstant) -> (batch: [Location], reason: Reason)? {
        guard let started, !held.isEmpty else { return nil }
        let age = (now - started).secondsDouble
        if let t = timeout, age >= t { return flush(.timeout) }
        if let m = maximumDelay, age >= m { return flush(.maximumDelay) }
        return nil
    }

    /// Hands over everything held.
    public mutating func flush(_ reason: Reason = .flushed) -> (batch: [Location], reason: Reason)? {
        defer { held.removeAll(); travelled = 0; started = nil }
        guard !held.isEmpty else { return nil }
        return (held.sorted { $0.receivedAt < $1.receivedAt }, reason)
    }
}
