import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import Beacons
import BoardConfig
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import SimulatedHardware
import Testing

/// Records the beacon callbacks in order.
final class BeaconRecorder: LocationManagerDelegate, @unchecked Sendable {
    enum Event: Sendable, Equatable {
        case ranged([Beacon]), rangingFailed(LocationError)
        case enter(String), exit(String), determined(BeaconRegionState, String), failed(String, LocationError)
    }
    private let lock = NSLock()
    private var storage: [(Event, Double)] = []
    let clock: any MonotonicClock
    init(clock: any MonotonicClock) { self.clock = clock }
    var events: [(Event, Double)] { lock.withLock { storage } }
    func add(_ e: Event) {
        let now = clock.now().seconds
        lock.withLock { storage.append((e, now)) }
    }

    func locationManager(_ m: LocationManager, didRange beacons: [Beacon], satisfying constraint: BeaconIdentityConstraint) { add(.ranged(beacons)) }
    func locationManager(_ m: LocationManager, didFailRangingFor constraint: BeaconIdentityConstraint, error: LocationError) { add(.rangingFailed(error)) }
    func locationManager(_ m: LocationManager, didEnterRegion region: BeaconRegion) { add(.enter(region.identifier)) }
    func locationManager(_ m: LocationManager, didExitRegion region: BeaconRegion) { add(.exit(region.identifier)) }
    func locationManager(_ m: LocationManager, didDetermineState state: BeaconRegionState, for region: BeaconRegion) { add(.determined(state, region.identifier)) }
    func locationManager(_ m: LocationManager, monitoringDidFailFor region: BeaconRegion, withError error: LocationError) { add(.failed(region.identifier, error)) }
}

/// A walk past three simulated beacons on the sim board, on a manual clock with fixed seeds.
@Suite struct BeaconWalkTests {
    static let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let start = (latitude: 47.3769, longitude: 8.5417)

    /// Metres east and north of the start, `along` metres along a walk to the north-east and 2 m to its left.
    static func place(_ along: Double) -> (east: Double, north: Double) {
        let s = 0.5.squareRoot()
        return (along * s - 2 * s, along * s + 2 * s)
    }

    /// The sim board with three beacons 150, 450 and 750 m along a north-east walk at 1.4 m/s.
    static func walk(seconds: Int = 700, stateDirectory: String? = nil) throws -> (LocationEngine, ManualClock, Trajectory, [SimulatedBeaconDescription]) {
        var board = try BoardCatalog.load(builtin: "sim")
        let beacons = [(150.0, 1), (450.0, 2), (750.0, 3)].map { along, minor in
            let p = place(along)
            return SimulatedBeaconDescription(uuid: uuid.description, major: 7, minor: minor, east: p.east, north: p.north)
        }
        board.simulation?.beacons = beacons
        board.simulation?.latitude = start.latitude
        board.simulation?.longitude = start.longitude
        let clock = ManualClock()
        let track = Trajectory.legs([.init(duration: seconds, speed: 1.4, course: 45)], latitude: start.latitude, longitude: start.longitude)
        let engine = try LocationEngine.simulated(board: board, stateDirectory: stateDirectory, clock: clock, trajectory: track, receiverTracking: true)
        return (engine, clock, track, beacons)
    }

    /// The true distance from the walker at `seconds` to a beacon, metres.
    static func distance(_ track: Trajectory, _ seconds: Double, _ beacon: SimulatedBeaconDescription) -> Double {
        let p = track.at(seconds)
        let north = (p.latitude - start.latitude) * 111_320 - beacon.north
        let east = (p.longitude - start.longitude) * 111_320 * cos(start.latitude * .pi / 180) - beacon.east
        return (north * north + east * east).squareRoot()
    }

    @Test func walkPastThreeBeaconsEntersAndExitsInOrderAndProximityFollowsDistance() throws {
        let (engine, clock, track, beacons) = try Self.walk()
        let manager = LocationManager(engine: engine)
        let recorder = BeaconRecorder(clock: clock)
        manager.delegate = recorder
        #expect(manager.isRangingAvailable)
        for minor in 1...3 {
            manager.startMonitoring(for: BeaconRegion(identifier: "b\(minor)",
                                                      constraint: BeaconIdentityConstraint(uuid: Self.uuid, major: 7, minor: UInt16(minor))))
        }
        manager.startRangingBeacons(satisfying: BeaconIdentityConstraint(uuid: Self.uuid))
        #expect(engine.beaconScan?.dutyCycle == nil, "the scan starts at the next tick")
        engine.advance(by: .seconds(700))
        #expect(engine.beaconScan?.dutyCycle == 1, "ranging listens all the time")

        let regionEvents = recorder.events.compactMap { event, time -> (String, Double)? in
            switch event {
            case .enter(let id): return ("enter \(id)", time)
            case .exit(let id): return ("exit \(id)", time)
            case .determined(let s, let id): return ("\(s.rawValue) \(id)", time)
            default: return nil
            }
        }
        #expect(regionEvents.map(\.0) == ["outside b1", "outside b2", "outside b3", "enter b1", "exit b1", "enter b2", "exit b2", "enter b3", "exit b3"],
                "\(regionEvents)")
        // Each region is entered before the walker passes its beacon and left after.
        for (index, beacon) in beacons.enumerated() {
            let passing = (150.0 + 300 * Double(index)) / 1.4
            let enter = regionEvents.first { $0.0 == "enter b\(index + 1)" }?.1 ?? .infinity
            let exit = regionEvents.first { $0.0 == "exit b\(index + 1)" }?.1 ?? -.infinity
            #expect(enter < passing && exit > passing + 10, "b\(index + 1): enter \(enter) s, exit \(exit) s, passing \(passing) s")
            // A −59 dBm beacon and a −90 dBm receiver: heard in most seconds out to about 100 m (n = 2).
            let (enterAt, exitAt) = (Self.distance(track, enter, beacon), Self.distance(track, exit, beacon))
            #expect(enterAt < 130 && exitAt < 150, "b\(index + 1): entered \(enterAt) m before, left \(exitAt) m after")
            print(String(format: "beacon walk: b%d entered %.0f m before it, left %.0f m after it", index + 1, enterAt, exitAt))
        }

        // Proximity follows the true distance.
        var samples: [(truth: Double, estimate: Double, proximity: BeaconProximity)] = []
        for (event, time) in recorder.events {
            guard case .ranged(let ranged) = event else { continue }
            for b in ranged {
                guard let beacon = beacons.first(where: { $0.minor == Int(b.minor) }) else { continue }
                samples.append((Self.distance(track, time, beacon), b.accuracy, b.proximity))
            }
        }
        #expect(samples.count > 100)
        let close = samples.filter { $0.truth <= 2.5 }
        let far = samples.filter { $0.truth >= 12 && $0.proximity != .unknown }
        #expect(close.count >= 3 && close.allSatisfy { $0.proximity == .near || $0.proximity == .immediate }, "\(close)")
        #expect(far.count > 50 && far.allSatisfy { $0.proximity == .far }, "\(far.filter { $0.proximity != .far })")
        // The estimate's error in log distance: the median within a factor of 1.5.
        let ratios = samples.filter { $0.estimate > 0 && $0.truth >= 1 && $0.truth <= 20 }.map { abs(log($0.estimate / $0.truth)) }.sorted()
        #expect(!ratios.isEmpty && ratios[ratios.count / 2] < log(1.5), "median |ln(estimate/truth)| \(ratios.isEmpty ? .nan : ratios[ratios.count / 2])")
        // The figures docs/BEACONS.md quotes: the error factor's median and 90th percentile, and
        // how often the proximity is the truth's (immediate ≤ 0.5 m, near ≤ 4 m, far beyond).
        let model = RangingModel()
        let known = samples.filter { $0.proximity != .unknown }
        let agree = known.filter { $0.proximity == model.proximity(distance: $0.truth) }.count
        print(String(format: "beacon walk: %d ranged samples, %d unknown; error factor (1-20 m) median %.2f, p90 %.2f; proximity agrees %d of %d",
                     samples.count, samples.count - known.count, exp(ratios[ratios.count / 2]), exp(ratios[ratios.count * 9 / 10]), agree, known.count))
        // Silent beacons become unknown before they are dropped.
        #expect(samples.contains { $0.proximity == .unknown && $0.estimate == -1 })
        let last = recorder.events.last { if case .ranged = $0.0 { return true } else { return false } }
        if case .ranged(let final)? = last?.0 { #expect(final.isEmpty, "beacon 3 was passed 100 s ago: \(final)") } else { Issue.record("no ranging") }

        manager.stopRangingBeacons(satisfying: BeaconIdentityConstraint(uuid: Self.uuid))
        engine.advance(by: .seconds(2))
        #expect(engine.beaconScan?.dutyCycle == 0.1, "regions alone scan 10 % of the time")
        for minor in 1...3 {
            manager.stopMonitoring(for: BeaconRegion(identifier: "b\(minor)", constraint: BeaconIdentityConstraint(uuid: Self.uuid)))
        }
        engine.advance(by: .seconds(2))
        #expect(engine.beaconScan == nil, "no client ranges or monitors: the scan stops")
        #expect(engine.advertCounters.beacons > 1000 && engine.advertCounters.rejected == 0)
    }

    @Test func beaconRegionsArePersistedWithTheRegionStore() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (engine, clock, _, _) = try Self.walk(seconds: 60, stateDirectory: directory)
        let region = BeaconRegion(identifier: "dock", constraint: BeaconIdentityConstraint(uuid: Self.uuid, major: 7), notifyOnEntry: true, notifyOnExit: false)
        let circle = CircularRegion(identifier: "yard", latitude: Self.start.latitude, longitude: Self.start.longitude, radius: 200)
        do {
            let manager = LocationManager(engine: engine, name: "forklift")
            manager.delegate = BeaconRecorder(clock: clock)
            manager.startMonitoring(for: region)
            manager.startMonitoring(for: circle)
            #expect(manager.monitoredBeaconRegions == [region])
        }
        let again = LocationManager(engine: engine, name: "forklift")
        #expect(again.restoreProblems.isEmpty)
        #expect(again.monitoredBeaconRegions == [region])
        #expect(again.monitoredRegions.map(\.identifier) == ["yard"])
        again.stopMonitoring(for: region)
        #expect(LocationManager(engine: engine, name: "forklift").monitoredBeaconRegions.isEmpty)
    }

    @Test func boardWithoutAdapterFailsRanging() throws {
        var board = try BoardCatalog.load(builtin: "sim")
        board.bluetooth = nil
        let engine = try LocationEngine.simulated(board: board)
        let manager = LocationManager(engine: engine)
        let recorder = BeaconRecorder(clock: engine.clock)
        manager.delegate = recorder
        #expect(!manager.isRangingAvailable && !manager.rangingUnavailableReason.isEmpty)
        manager.startRangingBeacons(satisfying: BeaconIdentityConstraint(uuid: Self.uuid))
        manager.startMonitoring(for: BeaconRegion(identifier: "dock", constraint: BeaconIdentityConstraint(uuid: Self.uuid)))
        let kinds = recorder.events.map(\.0)
        #expect(kinds.contains { if case .rangingFailed(.rangingUnavailable) = $0 { return true } else { return false } },
                "Core Location's rangingUnavailable: \(kinds)")
        #expect(kinds.contains { if case .failed("dock", _) = $0 { return true } else { return false } })
        #expect(throws: LocationError.self) { try engine.beaconRanging(satisfying: [BeaconIdentityConstraint(uuid: Self.uuid)]) }
    }

    @Test("the adapter vanishing mid-ranging gives Core Location's rangingFailure; ranging again is refused with it")
    func scannerFailureIsRangingFailure() throws {
        let (engine, _, _, _) = try Self.walk(seconds: 200)
        let manager = LocationManager(engine: engine)
        let recorder = BeaconRecorder(clock: engine.clock)
        manager.delegate = recorder
        let constraint = BeaconIdentityConstraint(uuid: Self.uuid)
        manager.startRangingBeacons(satisfying: constraint)
        engine.advance(by: .seconds(5))
        #expect(engine.beaconScan != nil)
        let scanner = try #require((engine.platform as? SimulatedEnginePlatform)?.beaconScanner)
        scanner.unplug()
        engine.advance(by: .seconds(5))
        let failures = recorder.events.compactMap { event -> LocationError? in
            if case .rangingFailed(let error) = event.0 { return error } else { return nil }
        }
        #expect(failures.contains { if case .rangingFailure = $0 { return true } else { return false } }, "\(failures)")
        #expect(!failures.contains { if case .hardware = $0 { return true } else { return false } })
        #expect(engine.startRangingBeacons(99, satisfying: constraint).map { if case .rangingFailure = $0 { return true } else { return false } } == true)
    }

    @Test func rangingAsAnAsyncSequence() async throws {
        let (engine, _, _, _) = try Self.walk(seconds: 200)
        let sequence = try engine.beaconRanging(satisfying: [BeaconIdentityConstraint(uuid: Self.uuid, major: 7, minor: 1)])
        engine.advance(by: .seconds(110))
        var heard = 0, updates = 0
        for await update in sequence {
            updates += 1
            if case .ranged(let beacons, _) = update, beacons.contains(where: { $0.proximity != .unknown }) { heard += 1 }
            if updates == 108 { break }
        }
        #expect(heard > 10, "\(heard) of \(updates) updates heard beacon 1")
        engine.advance(by: .seconds(2))
        #expect(engine.beaconScan == nil, "the sequence's end stops the scan")
    }
}
