import LocationServices

extension LocationManager {
    /// A monitored region's last event and its time (Core Location's `CLMonitor` record): enter,
    /// exit, dwell or determined, with the fix's UTC time and monotonic instant. Persisted with
    /// the region; `nil` when the region is not monitored or nothing happened yet (and from a
    /// provider that keeps no records).
    public func record(for identifier: String) -> RegionRecord? { provider.record(clientID, for: identifier) }

    /// Starts monitoring a polygon region (a convenience for
    /// ``startMonitoring(for:)`` with ``CircularRegion/init(identifier:polygon:notifyOnEntry:notifyOnExit:dwellTime:)``).
    /// Failures arrive through `monitoringDidFailFor`.
    public func startMonitoring(identifier: String, polygon: RegionPolygon, dwellTime: Double? = nil,
                                expiresAfter: Double? = nil) {
        var region = CircularRegion(identifier: identifier, polygon: polygon, dwellTime: dwellTime)
        region.expiresAfter = expiresAfter
        startMonitoring(for: region)
    }
}

/// What `LocationEngine.regionActivity(_:)` yields: a region event, or a region's expiry.
public enum RegionActivity: Sendable, Hashable {
    /// Enter, exit, dwell or determined.
    case event(RegionEvent)
    /// The region lapsed and is no longer monitored.
    case expired(CircularRegion)
}
