import Beacons
import LocationServices

/// Beacons on providers that have none of their own (a provider written before beacons): ranging
/// and beacon regions are refused with the reason.
extension LocationProvider {
    public var rangingProblem: String? { "this location provider does not range beacons" }
    public func startRangingBeacons(_ id: Int, satisfying constraint: BeaconIdentityConstraint) -> LocationError? {
        .hardware(.other, "Bluetooth: \(rangingProblem ?? "unavailable")")
    }
    public func stopRangingBeacons(_ id: Int, satisfying constraint: BeaconIdentityConstraint) {}
    public func startMonitoring(_ id: Int, _ region: BeaconRegion) -> LocationError? {
        .regionMonitoringFailure(region: region.identifier, reason: rangingProblem ?? "beacon regions are unavailable")
    }
    public func stopMonitoring(_ id: Int, beaconRegion identifier: String) -> LocationError? { nil }
    public func monitoredBeaconRegions(_ id: Int) -> [BeaconRegion] { [] }
    public func state(_ id: Int, ofBeaconRegion identifier: String) -> BeaconRegionState { .unknown }
}

/// One element of a beacon-ranging sequence.
public enum BeaconRangingUpdate: Sendable {
    /// The beacons a constraint covers, nearest first (once a second).
    case ranged([Beacon], BeaconIdentityConstraint)
    /// Ranging failed for a constraint (the scanner failed; it is retried).
    case failed(BeaconIdentityConstraint, LocationError)
}

extension LocationProvider {
    /// Ranging of `constraints` as an async sequence, one element per constraint each second;
    /// ending the iteration stops the ranging (and the scan, when no other client needs it).
    /// Throws when ranging cannot run (no Bluetooth adapter).
    public func beaconRanging(satisfying constraints: [BeaconIdentityConstraint]) throws(LocationError) -> EngineSequence<BeaconRangingUpdate> {
        if let problem = rangingProblem { throw .hardware(.other, "Bluetooth: \(problem)") }
        for constraint in constraints where constraint.minor != nil && constraint.major == nil {
            throw .invalidArgument("\(constraint): a minor value needs a major value")
        }
        return sequence("beacons", configure: { id in
            for constraint in constraints { _ = startRangingBeacons(id, satisfying: constraint) }
        }, map: { event in
            switch event {
            case .beacons(let beacons, let constraint): return .ranged(beacons, constraint)
            case .rangingFailed(let constraint, let error): return .failed(constraint, error)
            default: return nil
            }
        })
    }

    /// Beacon region events for `regions` (not persisted: the sequence's lifetime is the monitoring's).
    public func beaconRegionEvents(_ regions: [BeaconRegion]) throws(LocationError) -> EngineSequence<BeaconRegionEvent> {
        for region in regions {
            if let problem = region.validate() { throw .regionMonitoringFailure(region: region.identifier, reason: problem) }
        }
        if let problem = rangingProblem, regions.first != nil {
            throw .regionMonitoringFailure(region: regions[0].identifier, reason: problem)
        }
        return sequence("beacon-regions", configure: { id in
            for region in regions { _ = startMonitoring(id, region) }
        }, map: { event in if case .beaconRegion(let e) = event { return e } else { return nil } })
    }
}
