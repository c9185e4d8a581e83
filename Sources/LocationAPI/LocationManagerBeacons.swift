import Beacons
import LocationServices

extension LocationManagerDelegate {
    public func locationManager(_ manager: LocationManager, didRange beacons: [Beacon], satisfying constraint: BeaconIdentityConstraint) {}
    public func locationManager(_ manager: LocationManager, didFailRangingFor constraint: BeaconIdentityConstraint, error: LocationError) {}
    public func locationManager(_ manager: LocationManager, didEnterRegion region: BeaconRegion) {}
    public func locationManager(_ manager: LocationManager, didExitRegion region: BeaconRegion) {}
    public func locationManager(_ manager: LocationManager, didDetermineState state: BeaconRegionState, for region: BeaconRegion) {}
    public func locationManager(_ manager: LocationManager, monitoringDidFailFor region: BeaconRegion, withError error: LocationError) {}
}

/// Beacon ranging and beacon regions, as Core Location's `CLLocationManager` offers them.
extension LocationManager {
    /// Starts ranging the beacons `constraint` covers: `didRange` once a second, nearest first;
    /// `didFailRangingFor` when the board has no adapter or the scanner fails.
    public func startRangingBeacons(satisfying constraint: BeaconIdentityConstraint) {
        guard authorized() else { return }
        if let error = provider.startRangingBeacons(clientID, satisfying: constraint) {
            dispatch { $0.locationManager($1, didFailRangingFor: constraint, error: error) }
            return
        }
        lock.withLock { _ = options.rangingConstraints.insert(constraint) }
    }

    /// Stops ranging `constraint`; the last ranging client stops the scan (beacon regions keep a
    /// low duty cycle running).
    public func stopRangingBeacons(satisfying constraint: BeaconIdentityConstraint) {
        lock.withLock { _ = options.rangingConstraints.remove(constraint) }
        provider.stopRangingBeacons(clientID, satisfying: constraint)
    }

    /// The constraints being ranged.
    public var rangedBeaconConstraints: Set<BeaconIdentityConstraint> { lock.withLock { options.rangingConstraints } }

    /// Whether beacon regions can be monitored (the board has a Bluetooth adapter).
    public func isMonitoringAvailable(for regionType: BeaconRegion.Type) -> Bool { provider.rangingProblem == nil }

    /// Starts monitoring a beacon region (persisted under the manager's name with its circular
    /// regions): `didDetermineState` once the scan decides, then `didEnterRegion` and
    /// `didExitRegion` (after 10 s without a covered beacon).
    public func startMonitoring(for region: BeaconRegion) {
        guard authorized() else { return }
        if let error = provider.startMonitoring(clientID, region) {
            dispatch { $0.locationManager($1, monitoringDidFailFor: region, withError: error) }
        }
    }

    /// Stops monitoring a beacon region.
    public func stopMonitoring(for region: BeaconRegion) {
        if let error = provider.stopMonitoring(clientID, beaconRegion: region.identifier) {
            dispatch { $0.locationManager($1, monitoringDidFailFor: region, withError: error) }
        }
    }

    /// The monitored beacon regions.
    public var monitoredBeaconRegions: Set<BeaconRegion> { Set(provider.monitoredBeaconRegions(clientID)) }

    /// Reports a beacon region's state through `didDetermineState`.
    public func requestState(for region: BeaconRegion) {
        let state = provider.state(clientID, ofBeaconRegion: region.identifier)
        dispatch { $0.locationManager($1, didDetermineState: state, for: region) }
    }

    func receiveBeacons(_ event: EngineEvent) {
        switch event {
        case .beacons(let beacons, let constraint): dispatch { $0.locationManager($1, didRange: beacons, satisfying: constraint) }
        case .rangingFailed(let constraint, let error): dispatch { $0.locationManager($1, didFailRangingFor: constraint, error: error) }
        case .beaconRegion(let e):
            switch e.kind {
            case .enter: dispatch { $0.locationManager($1, didEnterRegion: e.region) }
            case .exit: dispatch { $0.locationManager($1, didExitRegion: e.region) }
            case .determined(let s): dispatch { $0.locationManager($1, didDetermineState: s, for: e.region) }
            }
        default: break
        }
    }
}
