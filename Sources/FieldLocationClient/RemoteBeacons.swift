import Beacons
import LocationAPI
import FieldLocationWire
import LocationServices

/// Beacons over the daemon's socket: ranging travels in the client's services
/// (`rangingConstraints`), beacon regions by their own ops (`monitorBeacon`, `unmonitorBeacon`,
/// `beaconRegions`, `beaconState`); ranging updates and region events arrive as events.
extension RemoteLocationProvider {
    /// Starts ranging `constraint`: refused at once when the daemon cannot range beacons.
    public func startRangingBeacons(_ id: Int, satisfying constraint: BeaconIdentityConstraint) -> LocationError? {
        if let rangingProblem { return .hardware(.other, "Bluetooth: \(rangingProblem)") }
        if let refusal = core.refusal(id) { return refusal }
        if constraint.minor != nil && constraint.major == nil { return .invalidArgument("a minor value needs a major value") }
        update(id) { $0.rangingConstraints.insert(constraint) }
        return nil
    }

    /// Stops ranging `constraint`.
    public func stopRangingBeacons(_ id: Int, satisfying constraint: BeaconIdentityConstraint) {
        update(id) { $0.rangingConstraints.remove(constraint) }
    }

    /// Starts monitoring a beacon region; returns the daemon's refusal, if any.
    public func startMonitoring(_ id: Int, _ region: BeaconRegion) -> LocationError? {
        if let rangingProblem { return .regionMonitoringFailure(region: region.identifier, reason: rangingProblem) }
        if let refusal = core.refusal(id) { return refusal }
        var request = ClientRequest(op: "monitorBeacon", client: id)
        request.beaconRegion = region
        if case .failure(let error) = core.call(request) { return error }
        return nil
    }

    /// Stops monitoring a beacon region; returns the daemon's error, if any.
    public func stopMonitoring(_ id: Int, beaconRegion identifier: String) -> LocationError? {
        if rangingProblem != nil || core.refusal(id) != nil { return nil }
        var request = ClientRequest(op: "unmonitorBeacon", client: id)
        request.identifier = identifier
        if case .failure(let error) = core.call(request) { return error }
        return nil
    }

    /// The client's beacon regions as the daemon monitors them (empty when it cannot be asked).
    public func monitoredBeaconRegions(_ id: Int) -> [BeaconRegion] {
        if rangingProblem != nil || core.refusal(id) != nil { return [] }
        guard case .success(let reply) = core.call(ClientRequest(op: "beaconRegions", client: id)) else { return [] }
        return reply.beaconRegions ?? []
    }

    /// A beacon region's state as the daemon knows it (`unknown` when it cannot be asked).
    public func state(_ id: Int, ofBeaconRegion identifier: String) -> BeaconRegionState {
        if rangingProblem != nil || core.refusal(id) != nil { return .unknown }
        var request = ClientRequest(op: "beaconState", client: id)
        request.identifier = identifier
        guard case .success(let reply) = core.call(request) else { return .unknown }
        return reply.state.flatMap(BeaconRegionState.init(rawValue:)) ?? .unknown
    }
}
