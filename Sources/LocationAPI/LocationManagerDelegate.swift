import Beacons
import LocationServices

/// Receives a ``LocationManager``'s events; every method has an empty default.
public protocol LocationManagerDelegate: AnyObject, Sendable {
    /// New locations, oldest first (more than one after deferred or batched delivery).
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location])
    /// An error: transient ones (`isTransient`) mean keep waiting; terminal ones stop the service.
    func locationManager(_ manager: LocationManager, didFailWithError error: LocationError)
    /// Updates paused after stillness (`pausesLocationUpdatesAutomatically`).
    func locationManagerDidPauseLocationUpdates(_ manager: LocationManager)
    /// Updates resumed on motion.
    func locationManagerDidResumeLocationUpdates(_ manager: LocationManager)
    /// A new heading.
    func locationManager(_ manager: LocationManager, didUpdateHeading heading: HeadingUpdate)
    /// Entered a monitored region; `location` triggered it.
    func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion, location: Location)
    /// Left a monitored region; `location` triggered it.
    func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion, location: Location)
    /// Stayed in a region for its dwell time.
    func locationManager(_ manager: LocationManager, didDwellIn region: CircularRegion, location: Location)
    /// A region's state was determined (monitoring started, or `requestState(for:)`).
    func locationManager(_ manager: LocationManager, didDetermineState state: RegionState, for region: CircularRegion)
    /// A region lapsed (its expiration) and is no longer monitored.
    func locationManager(_ manager: LocationManager, didExpire region: CircularRegion)
    /// A region cannot be monitored.
    func locationManager(_ manager: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError)
    /// A visit: an arrival (`departedAt == nil`) or a departure.
    func locationManager(_ manager: LocationManager, didVisit visit: Visit)
    /// Deferred updates ended (`nil`) or failed.
    func locationManager(_ manager: LocationManager, didFinishDeferredUpdatesWithError error: LocationError?)
    /// The authorisation changed.
    func locationManagerDidChangeAuthorization(_ manager: LocationManager)
    /// A device of the board appeared, went or changed permissions: `capabilities` says which
    /// services can run now and why the others cannot (``LocationManager/capabilities``).
    /// ``locationManagerDidChangeAuthorization(_:)`` is called too, before this.
    func locationManager(_ manager: LocationManager, didChangeCapabilities capabilities: DeviceCapabilities)
    /// Fixes are back after a loss that standard updates reported as `locationUnknown`; the
    /// recovered location follows through `didUpdateLocations`.
    func locationManager(_ manager: LocationManager, didRecoverFix recovery: FixRecovery)
    /// Monitoring of a region began (after `startMonitoring(for:)` accepted it).
    func locationManager(_ manager: LocationManager, didStartMonitoringFor region: CircularRegion)
    /// Headings are poor for want of calibration: return true to show the guided calibration
    /// prompt (``LocationManager/headingCalibrationPrompt``) until it is dismissed or calibrated.
    func locationManagerShouldDisplayHeadingCalibration(_ manager: LocationManager) -> Bool
    /// The diagnostics changed (see ``LocationManager/diagnostics``).
    func locationManager(_ manager: LocationManager, didChangeDiagnostics diagnostics: LocationDiagnostics)
    /// The beacons a ranged constraint covers, nearest first (once a second; see `LocationManagerBeacons.swift`).
    func locationManager(_ manager: LocationManager, didRange beacons: [Beacon], satisfying constraint: BeaconIdentityConstraint)
    /// Ranging a constraint failed (no adapter, or the scanner failed).
    func locationManager(_ manager: LocationManager, didFailRangingFor constraint: BeaconIdentityConstraint, error: LocationError)
    /// Entered a beacon region.
    func locationManager(_ manager: LocationManager, didEnterRegion region: BeaconRegion)
    /// Left a beacon region.
    func locationManager(_ manager: LocationManager, didExitRegion region: BeaconRegion)
    /// A beacon region's state was determined (monitoring started, or asked for).
    func locationManager(_ manager: LocationManager, didDetermineState state: BeaconRegionState, for region: BeaconRegion)
    /// Monitoring a beacon region failed.
    func locationManager(_ manager: LocationManager, monitoringDidFailFor region: BeaconRegion, withError error: LocationError)
}

extension LocationManagerDelegate {
    public func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {}
    public func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) {}
    public func locationManagerDidPauseLocationUpdates(_ manager: LocationManager) {}
    public func locationManagerDidResumeLocationUpdates(_ manager: LocationManager) {}
    public func locationManager(_ manager: LocationManager, didUpdateHeading heading: HeadingUpdate) {}
    public func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion, location: Location) {}
    public func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion, location: Location) {}
    public func locationManager(_ manager: LocationManager, didDwellIn region: CircularRegion, location: Location) {}
    public func locationManager(_ manager: LocationManager, didDetermineState state: RegionState, for region: CircularRegion) {}
    public func locationManager(_ manager: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError) {}
    public func locationManager(_ manager: LocationManager, didExpire region: CircularRegion) {}
    public func locationManager(_ manager: LocationManager, didVisit visit: Visit) {}
    public func locationManager(_ manager: LocationManager, didFinishDeferredUpdatesWithError error: LocationError?) {}
    public func locationManagerDidChangeAuthorization(_ manager: LocationManager) {}
    public func locationManager(_ manager: LocationManager, didChangeCapabilities capabilities: DeviceCapabilities) {}
    public func locationManager(_ manager: LocationManager, didRecoverFix recovery: FixRecovery) {}
    public func locationManager(_ manager: LocationManager, didStartMonitoringFor region: CircularRegion) {}
    public func locationManagerShouldDisplayHeadingCalibration(_ manager: LocationManager) -> Bool { false }
    public func locationManager(_ manager: LocationManager, didChangeDiagnostics diagnostics: LocationDiagnostics) {}
}
