import Beacons
import Foundation
import HardwareInterfaces
import LocationServices
import PowerPolicy

/// Beacon ranging and beacon regions on the engine: the clients' API, and the loop's two steps
/// (the scanner's reports after each receiver read; the scan's demand, ranging updates and region
/// events on each tick).
extension LocationEngine {
    // MARK: clients

    /// Whether the board has a Bluetooth adapter for ranging (`bluetooth = "hci0"` in its file).
    public var isRangingAvailable: Bool { beacons.available }

    /// Why ranging cannot run now: no adapter, or the scanner's last failure; `nil` when it can.
    public var rangingProblem: String? {
        guard beacons.available else { return "the board file names no Bluetooth adapter (bluetooth = \"hci0\")" }
        return published.withLock { $0.beaconProblem }
    }

    /// Starts ranging the beacons `constraint` covers for a client; updates arrive once a second as
    /// ``EngineEvent/beacons(_:_:)``. Returns why ranging cannot run (the client is not changed), as
    /// Core Location does: ``LocationError/rangingUnavailable(_:)`` on a board without a Bluetooth
    /// adapter, ``LocationError/rangingFailure(_:)`` while the scanner's last start failed.
    public func startRangingBeacons(_ id: Int, satisfying constraint: BeaconIdentityConstraint) -> LocationError? {
        guard beacons.available else { return .rangingUnavailable(rangingProblem ?? "no Bluetooth adapter") }
        if let problem = rangingProblem { return .rangingFailure("Bluetooth: \(problem)") }
        if constraint.minor != nil && constraint.major == nil { return .invalidArgument("a minor value needs a major value") }
        registry.update(id) { $0.rangingConstraints.insert(constraint) }
        return nil
    }

    /// Stops ranging `constraint` for a client; the last one stops the scan (unless beacon regions need it).
    public func stopRangingBeacons(_ id: Int, satisfying constraint: BeaconIdentityConstraint) {
        registry.update(id) { $0.rangingConstraints.remove(constraint) }
    }

    /// Starts monitoring a beacon region (persisted with the client's regions); returns why not, or `nil`.
    public func startMonitoring(_ id: Int, _ region: BeaconRegion) -> LocationError? {
        guard beacons.available else {
            return .regionMonitoringFailure(region: region.identifier, reason: "the board file names no Bluetooth adapter (bluetooth = \"hci0\")")
        }
        return registry.startMonitoring(id, beaconRegion: region)
    }

    /// Stops monitoring a beacon region; returns a storage error, if any.
    public func stopMonitoring(_ id: Int, beaconRegion identifier: String) -> LocationError? {
        registry.stopMonitoring(id, beaconRegion: identifier)
    }

    /// A client's beacon regions.
    public func monitoredBeaconRegions(_ id: Int) -> [BeaconRegion] { registry.monitoredBeaconRegions(id) }

    /// The state of a client's beacon region.
    public func state(_ id: Int, ofBeaconRegion identifier: String) -> BeaconRegionState { registry.beaconState(id, of: identifier) }

    /// Advertisements seen by outcome (beacons, other devices, rejected per reason).
    public var advertCounters: AdvertCounters { published.withLock { $0.beaconCounters.adverts } }

    /// The Bluetooth radio's energy while it scans for beacons (component `bluetooth`): its
    /// listening time (state `listening`, at an estimated 10 mA) and, while a duty-cycled scan
    /// runs, its time not listening (`duty-off`). Through BlueZ the duty cycle is the scan started
    /// and stopped (one second of every three); through the HCI socket it is the controller's.
    public var bluetoothEnergy: EnergyLedger { published.withLock { $0.beaconCounters.energy } }

    /// Whether the Bluetooth scan runs, and its parameters.
    public var beaconScan: BluetoothScanParameters? { published.withLock { $0.beaconScan } }

    // MARK: the loop (under `runLock`)

    /// The scanner's reports so far, without waiting.
    func pollBeacons() {
        guard let error = beacons.poll(at: clock.now()) else { return }
        publishBeacons()
        registry.reportBeaconFailure(registry.snapshot(), error)
    }

    /// The scan follows the demand; ranging clients get their beacons and region clients their events.
    func beaconTick(_ records: [(Int, ClientRegistry.Record)], at now: MonotonicInstant) {
        let demand = registry.beaconDemand(records)
        let error = beacons.apply(demand, at: now)
        beacons.tick(at: now)
        publishBeacons()
        if let error { registry.reportBeaconFailure(records, error) }
        guard demand != .none || beacons.scanning else { return }
        registry.deliverBeacons(records, ranger: beacons.ranger, at: BeaconSubsystem.seconds(now), scanning: beacons.scanning)
    }

    private func publishBeacons() {
        let counters = beacons.counters, scan = beacons.running, problem = beacons.problem
        published.withLock {
            $0.beaconCounters = counters
            $0.beaconScan = scan
            $0.beaconProblem = problem
        }
    }
}
