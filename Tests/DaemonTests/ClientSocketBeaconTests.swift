import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import Beacons
import FieldLocation
import FieldLocationClient
import FieldLocationDaemon
import Foundation
import LocationServices
import Testing

/// Beacon callbacks over the socket, in order.
final class CSBeaconRecorder: LocationManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var ranged: [[Beacon]] = []
    private var states: [(String, BeaconRegionState)] = []
    private var failures: [LocationError] = []
    var rangings: [[Beacon]] { lock.withLock { ranged } }
    var determined: [(String, BeaconRegionState)] { lock.withLock { states } }
    var errors: [LocationError] { lock.withLock { failures } }

    func locationManager(_ m: LocationManager, didRange beacons: [Beacon], satisfying constraint: BeaconIdentityConstraint) {
        lock.withLock { ranged.append(beacons) }
    }
    func locationManager(_ m: LocationManager, didFailRangingFor constraint: BeaconIdentityConstraint, error: LocationError) {
        lock.withLock { failures.append(error) }
    }
    func locationManager(_ m: LocationManager, didDetermineState state: BeaconRegionState, for region: BeaconRegion) {
        lock.withLock { states.append((region.identifier, state)) }
    }
    func locationManager(_ m: LocationManager, didEnterRegion region: BeaconRegion) { lock.withLock { states.append((region.identifier, .inside)) } }
    func locationManager(_ m: LocationManager, monitoringDidFailFor region: BeaconRegion, withError error: LocationError) {
        lock.withLock { failures.append(error) }
    }
}

@Suite("client socket beacons", .serialized)
struct ClientSocketBeaconTests {
    @Test("a manager over the socket ranges the sim board's beacons and monitors a beacon region")
    func beaconsOverTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            #expect(provider.rangingProblem == nil, "the sim board names a Bluetooth adapter")
            let manager = LocationManager(provider: provider, name: "forklift")
            let recorder = CSBeaconRecorder()
            manager.delegate = recorder
            #expect(manager.isRangingAvailable)
            let uuid = try #require(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
            let region = BeaconRegion(identifier: "dock", constraint: BeaconIdentityConstraint(uuid: uuid, major: 1, minor: 1))
            manager.startMonitoring(for: region)
            manager.startRangingBeacons(satisfying: BeaconIdentityConstraint(uuid: uuid))
            // The sim board's walk starts 40 m from beacon 1: it is heard within a few simulated seconds.
            #expect(await csWait(seconds: 20) { recorder.rangings.contains { $0.contains { $0.minor == 1 && $0.proximity != .unknown } } },
                    "ranged beacon 1 over the socket")
            #expect(await csWait(seconds: 20) { recorder.determined.contains { $0.0 == "dock" } }, "the region's state is determined")
            #expect(manager.monitoredBeaconRegions == [region])
            #expect(recorder.errors.isEmpty, "\(recorder.errors)")
            let before = recorder.determined.count
            manager.requestState(for: region)
            #expect(recorder.determined.count == before + 1 && recorder.determined.last?.1 != .unknown, "the daemon knows the region's state")
            manager.stopRangingBeacons(satisfying: BeaconIdentityConstraint(uuid: uuid))
            manager.stopMonitoring(for: region)
            #expect(manager.monitoredBeaconRegions.isEmpty)
            #expect(await csWait(seconds: 20) { f.engine.beaconScan == nil }, "no client ranges or monitors: the scan stops")
        }
    }
}
