import HardwareInterfaces

/// A stay at one place: arrival, and departure once the unit leaves.
public struct Visit: Sendable, Hashable {
    /// Centre of the fixes of the stay, degrees.
    public var latitude: Double
    /// Centre of the fixes of the stay, degrees.
    public var longitude: Double
    /// Radius that holds the stay's fixes (at least their accuracy), metres.
    public var horizontalAccuracy: Double
    /// Receiver UTC time of the first fix of the stay (seconds since 1970), when known.
    public var arrivalTime: Double?
    /// When the first fix of the stay arrived, on the engine's monotonic clock.
    public var arrivedAt: MonotonicInstant
    /// Receiver UTC time of the last fix of the stay; `nil` while the stay goes on.
    public var departureTime: Double?
    /// When the last fix of the stay arrived; `nil` while the stay goes on.
    public var departedAt: MonotonicInstant?
}

/// Finds visits in a stream of locations and stillness reports.
///
/// An arrival is a place where the unit stays within ``radius`` for ``minimumStay``: shown by
/// fixes spanning that time, or by one fix followed by the accelerometer's stillness (the
/// power policy stops fixing a still unit). A departure is the first fix beyond the radius plus
/// the fix's own 95 % radius.
public struct VisitDetector: Sendable {
    /// Radius of a place, metres.
    public var radius = 75.0
    /// Time at a place that makes it a visit, seconds.
    public var minimumStay = 300.0
    private var anchor: Location?
    private var sumLat = 0.0, sumLon = 0.0, count = 0
    private var last: Location?
    private var stillSince: MonotonicInstant?
    /// The visit in progress (arrived, not yet departed).
    public private(set) var current: Visit?

    /// Creates a detector.
    public init() {}

    private var centre: (Double, Double)? {
        count > 0 ? (sumLat / Double(count), sumLon / Double(count)) : nil
    }

    private func distanceFromCentre(_ l: Location) -> Double {
        guard let (lat, lon) = centre else { return 0 }
        return Geodesy.distance(latitude1: lat, longitude1: lon, latitude2: l.latitude, longitude2: l.longitude)
    }

    /// Feeds a location; returns an arrival or departure it completes.
    public mutating func update(_ location: Location) -> Visit? {
        if var visit = current {
            // An unknown accuracy takes the widest margin: such a fix alone does not end a stay early.
            let margin = min(2 * (location.knownHorizontalAccuracy ?? radius), radius)
            if distanceFromCentre(location) > radius + margin {
                visit.departureTime = last?.timestamp ?? location.timestamp
                visit.departedAt = last?.receivedAt ?? location.receivedAt
                current = nil
                startCluster(location)
                return visit
            }
            last = location
            return nil
        }
        if anchor == nil || distanceFromCentre(location) > radius {
            startCluster(location)
        } else {
            sumLat += location.latitude; sumLon += location.longitude; count += 1
            last = location
        }
        return arrivalIfDue(now: location.receivedAt)
    }

    /// Resumes a visit in progress from before a restart (its ``Visit/arrivedAt`` already on this
    /// clock): its departure is judged from its centre as if the detector had never stopped, and no
    /// second arrival is reported at that place. A visit that has departed is ignored.
    public mutating func resume(_ visit: Visit) {
        guard visit.departedAt == nil else { return }
        let anchor = Location(latitude: visit.latitude, longitude: visit.longitude, horizontalAccuracy: visit.horizontalAccuracy,
                              receivedAt: visit.arrivedAt, timestamp: visit.arrivalTime)
        startCluster(anchor)
        stillSince = nil
        current = visit
    }

    /// Reports whether the unit is still now (from the accelerometer); stillness after a fix
    /// counts as staying at that fix's place.
    public mutating func motion(still: Bool, at now: MonotonicInstant) -> Visit? {
        if !still { stillSince = nil; return nil }
        if stillSince == nil { stillSince = now }
        return arrivalIfDue(now: now)
    }

    private mutating func startCluster(_ location: Location) {
        anchor = location
        sumLat = location.latitude; sumLon = location.longitude; count = 1
        last = location
    }

    private mutating func arrivalIfDue(now: MonotonicInstant) -> Visit? {
        guard current == nil, let anchor, let (lat, lon) = centre else { return nil }
        let span = (now - anchor.receivedAt).secondsDouble
        // Still since no later than the last fix: the unit has not moved away since.
        let heldStill = stillSince.map { s in last.map { s <= $0.receivedAt.advanced(by: .seconds(5)) } ?? false } ?? false
        let fixesSpan = last.map { ($0.receivedAt - anchor.receivedAt).secondsDouble } ?? 0
        guard fixesSpan >= minimumStay || (heldStill && span >= minimumStay) else { return nil }
        let visit = Visit(latitude: lat, longitude: lon, horizontalAccuracy: max(anchor.horizontalAccuracy, min(radius, 25)),
                          arrivalTime: anchor.timestamp, arrivedAt: anchor.receivedAt, departureTime: nil, departedAt: nil)
        current = visit
        return visit
    }
}
