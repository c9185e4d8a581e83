import Beacons
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices

/// The clients' beacon services: beacon regions (persisted beside the circular regions), the
/// demand they and ranging put on the radio, ranging updates and region events.
extension ClientRegistry {
    /// Starts monitoring a beacon region for a client; returns why not, or `nil`.
    func startMonitoring(_ id: Int, beaconRegion region: BeaconRegion) -> LocationError? {
        changeRegions(id, region: region.identifier) { c in c.beaconRegions.add(region).map { .refused($0) } ?? .changed }
    }

    /// Stops monitoring a beacon region; returns a storage error, if any.
    func stopMonitoring(_ id: Int, beaconRegion identifier: String) -> LocationError? {
        changeRegions(id, region: identifier, refuseGoneClient: false) { $0.beaconRegions.remove(identifier) ? .changed : .unchanged }
    }

    /// A client's beacon regions.
    func monitoredBeaconRegions(_ id: Int) -> [BeaconRegion] { lock.withLock { clients[id]?.beaconRegions.regions ?? [] } }

    /// The state of a client's beacon region.
    func beaconState(_ id: Int, of identifier: String) -> BeaconRegionState {
        lock.withLock { clients[id]?.beaconRegions.state(of: identifier) ?? .unknown }
    }

    /// What the clients ask of the radio: ranging beats monitoring beats nothing.
    func beaconDemand(_ records: [(Int, Record)]) -> BeaconDemand {
        lock.withLock {
            records.reduce(BeaconDemand.none) { demand, entry in
                let c = entry.1
                if !c.services.rangingConstraints.isEmpty { return .ranging }
                return c.beaconRegions.entries.isEmpty ? demand : max(demand, .monitoring)
            }
        }
    }

    /// Hands every ranging client the beacons of each of its constraints, and every monitoring
    /// client its beacon region events. `scanning` false (the radio is off or failed) makes the
    /// regions' states unknown until it runs again.
    func deliverBeacons(_ records: [(Int, Record)], ranger: BeaconRanger, at now: Double, scanning: Bool) {
        var deliveries: [(Sink, EngineEvent)] = []
        lock.withLock {
            for (_, c) in records {
                if scanning {
                    for constraint in c.services.rangingConstraints.sorted(by: { $0.description < $1.description }) {
                        deliveries.append((c.sink, .beacons(ranger.beacons(satisfying: constraint, at: now), constraint)))
                    }
                    let window = Int(c.beaconRegions.exitTimeout)
                    for event in c.beaconRegions.update(at: now, presence: { ranger.presence(matching: $0, at: now, window: window) }) {
                        deliveries.append((c.sink, .beaconRegion(event)))
                    }
                } else {
                    c.beaconRegions.scanningStopped()
                }
            }
        }
        for (sink, event) in deliveries { sink(event) }
    }

    /// Tells every beacon client that the radio failed: ranging clients per constraint (with
    /// ``LocationError/rangingFailure(_:)``, as Core Location), monitoring clients per region.
    func reportBeaconFailure(_ records: [(Int, Record)], _ error: LocationError) {
        var deliveries: [(Sink, EngineEvent)] = []
        let ranging = LocationError.rangingFailure(error.message)
        lock.withLock {
            for (_, c) in records {
                for constraint in c.services.rangingConstraints.sorted(by: { $0.description < $1.description }) {
                    deliveries.append((c.sink, .rangingFailed(constraint, ranging)))
                }
                for region in c.beaconRegions.regions {
                    deliveries.append((c.sink, .error(.regionMonitoringFailure(region: region.identifier, reason: error.description))))
                }
            }
        }
        for (sink, event) in deliveries { sink(event) }
    }
}
