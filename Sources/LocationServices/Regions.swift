import HardwareInterfaces

/// A geographic region to monitor: a circle, or (with ``polygon``) a polygon of great-circle edges.
///
/// For a polygon, `latitude`, `longitude` and `radius` describe its bounding cap (the circle that
/// holds every vertex), which ``init(identifier:polygon:notifyOnEntry:notifyOnExit:dwellTime:)``
/// computes; the polygon alone decides inside and outside.
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
    /// The outline when the region is a polygon; `nil` for a circle.
    public var polygon: RegionPolygon?
    /// Seconds after monitoring starts when the region lapses and is removed (Android's expiration
    /// duration), on the engine's clock; `nil` for never.
    public var expiresAfter: Double?
    /// When the region lapses, UTC seconds since 1970 (Android's expiration date); `nil` for never.
    /// With ``expiresAfter`` too, the earlier wins.
    public var expiresAt: Double?

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

    /// A polygon region: `polygon`'s outline, with its bounding cap as `latitude`, `longitude` and
    /// `radius` (zeros when the polygon is not valid: ``validate()`` says why).
    public init(identifier: String, polygon: RegionPolygon,
                notifyOnEntry: Bool = true, notifyOnExit: Bool = true, dwellTime: Double? = nil) {
        self.init(identifier: identifier, latitude: 0, longitude: 0, radius: 0,
                  notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit, dwellTime: dwellTime)
        self.polygon = polygon
        if case .success(let g) = PolygonGeometry.make(polygon) {
            latitude = Sphere.latitude(g.centre)
            longitude = Sphere.longitude(g.centre)
            radius = g.capAngle * Sphere.radius
        }
    }

    /// Whether the region is a polygon.
    public var isPolygon: Bool { polygon != nil }

    /// Why this region cannot be monitored, or `nil` when it can.
    public func validate() -> String? {
        if let problem = validateShared() { return problem }
        if let polygon {
            if identifier.isEmpty { return "the region has an empty identifier" }
            if identifier.utf8.count > 256 { return "region \(identifier.prefix(32))…: the identifier is longer than 256 bytes" }
            if let dwell = dwellTime, !dwell.isFinite || dwell <= 0 {
                return "region \(identifier): dwell time \(dwell) s must be a positive number"
            }
            if case .failure(let problem) = PolygonGeometry.make(polygon) { return "region \(identifier): polygon: \(problem.text)" }
            return nil
        }
        return validateCircle()
    }

    private func validateShared() -> String? {
        if let after = expiresAfter, !after.isFinite || after <= 0 {
            return "region \(identifier): expiration \(after) s must be a positive number"
        }
        if let at = expiresAt, !at.isFinite { return "region \(identifier): expiration date \(at) is not a time" }
        return nil
    }

    private func validateCircle() -> String? {
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

    public var description: String {
        if let polygon { return "\(identifier) (polygon of \(polygon.vertices.count) vertices about \(latitude), \(longitude))" }
        return "\(identifier) (\(latitude), \(longitude) r=\(radius) m)"
    }
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

