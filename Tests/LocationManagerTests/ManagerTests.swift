import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import PowerPolicy
import SimulatedHardware
import Testing

/// Every service end to end on the `sim` board: the simulated receiver streams NMEA through the
/// real NMEA engine, the simulated sensors answer the real drivers, and a manual clock runs the
/// hours in milliseconds.
@Suite struct ManagerTests {
    @Test func standardUpdatesDeliverFreshFixesInOrder() throws {
        let (engine, manager, recorder, clock, _) = try managed([.init(duration: 600, speed: 1.4, course: 90)])
        manager.startUpdatingLocation()
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        engine.advance(by: .seconds(120))
        let locations = recorder.locations
        #expect(locations.count >= 70, "\(locations.count) locations in 2 minutes at 1 Hz")
        for (a, b) in zip(locations, locations.dropFirst()) { #expect(a.receivedAt < b.receivedAt) }
        #expect(locations.allSatisfy { $0.provenance == .simulator && $0.horizontalAccuracy > 0 })
        // Each was current when it was delivered (the maximum-age contract), and `location` is the last.
        #expect(manager.location?.receivedAt == locations.last?.receivedAt)
        manager.stopUpdatingLocation()
        let count = recorder.locations.count
        engine.advance(by: .seconds(30))
        #expect(recorder.locations.count == count)
        _ = clock
    }

    @Test func distanceFilterSpacesDeliveries() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 900, speed: 1.4, course: 0)])
        manager.distanceFilter = 50
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(600))
        let l = recorder.locations
        #expect(l.count >= 10 && l.count <= 20, "\(l.count) deliveries over ~840 m with a 50 m filter")
        for (a, b) in zip(l, l.dropFirst()) { #expect(a.distance(to: b) >= 50) }
    }

    @Test func walkThroughRegionGivesOneEnterAndOneExitWithTheirFixes() throws {
        // 10 minutes east at 1.4 m/s: 840 m; the region of 100 m radius is centred 420 m east.
        let (engine, _, track) = try simEngine([.init(duration: 600, speed: 1.4, course: 90), .init(duration: 60, speed: 0, course: 90)])
        let centre = track.at(300)
        let manager = LocationManager(engine: engine)
        let recorder = Recorder()
        manager.delegate = recorder
        let region = CircularRegion(identifier: "gate", latitude: centre.latitude, longitude: centre.longitude, radius: 100)
        manager.startMonitoring(for: region)
        engine.advance(by: .seconds(660))
        var enters: [Location] = [], exits: [Location] = [], determined: [RegionState] = []
        for e in recorder.events {
            switch e {
            case .enter(let id, let l): #expect(id == "gate"); enters.append(l)
            case .exit(let id, let l): #expect(id == "gate"); exits.append(l)
            case .determined(let s, _): determined.append(s)
            default: break
            }
        }
        #expect(determined == [.outside])
        #expect(enters.count == 1)
        #expect(exits.count == 1)
        if let enter = enters.first, let exit = exits.first {
            #expect(region.distance(to: enter) + 2 * enter.horizontalAccuracy <= region.radius)
            #expect(region.distance(to: exit) - 2 * exit.horizontalAccuracy >= region.radius + 10)
            #expect(enter.receivedAt < exit.receivedAt)
        }
    }

    @Test func aStillHourPausesUpdatesAndMotionResumesThem() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 3600, speed: 0, course: 0), .init(duration: 600, speed: 1.4, course: 45)])
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(3600))
        #expect(recorder.pauses == 1)
        #expect(recorder.resumes == 0)
        // Paused: the receiver sleeps and no location arrives in the second half of the hour.
        let lateFixes = recorder.locations.filter { $0.receivedAt.seconds > 1800 }
        #expect(lateFixes.isEmpty)
        if case .idle = engine.decision?.receiver {} else { Issue.record("paused but the receiver is \(String(describing: engine.decision?.receiver))") }
        #expect(engine.simulatedReceiver?.powerState == .backup)
        // Walking wakes it: resumed, and locations flow again.
        engine.advance(by: .seconds(300))
        #expect(recorder.resumes == 1)
        #expect(recorder.locations.filter { $0.receivedAt.seconds > 3600 }.count >= 100)
    }

    @Test func requestLocationAfterTwoHoursOffReturnsAFreshFixNeverTheOldOne() throws {
        let (engine, manager, recorder, clock, _) = try managed([.init(duration: 4 * 3600, speed: 0, course: 0)])
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(60))
        manager.stopUpdatingLocation()
        let old = try #require(manager.location)
        engine.advance(by: .seconds(2 * 3600))
        #expect(engine.simulatedReceiver?.powerState == .backup)
        recorder.clear()
        let asked = clock.now()
        manager.requestLocation(timeout: .seconds(120))
        engine.advance(by: .seconds(120))
        let answers = recorder.locations
        #expect(answers.count == 1, "one answer, got \(answers.count)")
        let answer = try #require(answers.first)
        #expect(answer.receivedAt > asked)
        #expect(answer.receivedAt != old.receivedAt)
        // Ephemerides two hours old: a hot or warm start, within the receiver's warm-start bound plus settling.
        let waited = (answer.receivedAt - asked).secondsDouble
        #expect(waited <= PowerPolicy(profile: .mt3339).profile.warmStart + 10, "answered after \(waited) s")
        #expect(recorder.errors.isEmpty)
    }

    @Test func requestLocationTimesOutWithLocationUnknown() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 600, speed: 0, course: 0)])
        manager.requestLocation(timeout: .seconds(2))
        engine.advance(by: .seconds(10))
        #expect(recorder.locations.isEmpty)
        #expect(recorder.errors.contains { if case .locationUnknown = $0 { return $0.isTransient } else { return false } })
    }

    @Test func headingsCarryTrueHeadingOnlyAfterTheFirstFix() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 600, speed: 0, course: 0)])
        manager.headingFilter = nil
        manager.startUpdatingHeading()
        engine.advance(by: .seconds(5))
        let before = recorder.headings
        #expect(before.count >= 30)
        #expect(before.allSatisfy { $0.trueHeading == nil })
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(30))
        let firstFix = try #require(recorder.locations.first)
        let after = recorder.headings.filter { $0.takenAt > firstFix.receivedAt }
        #expect(!after.isEmpty)
        #expect(after.allSatisfy { $0.trueHeading != nil })
        #expect(recorder.headings.filter { $0.takenAt < firstFix.receivedAt }.allSatisfy { $0.trueHeading == nil })
    }

    @Test func stoppingTheLastClientIdlesTheReceiver() throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        let a = LocationManager(engine: engine, name: "a")
        let b = LocationManager(engine: engine, name: "b")
        a.desiredAccuracy = .kilometer
        a.startUpdatingLocation()
        b.desiredAccuracy = .best
        b.startUpdatingLocation()
        engine.advance(by: .seconds(30))
        // The most demanding request wins.
        #expect(engine.decision?.receiver == .continuous(rate: 1))
        #expect(engine.decision?.governingClient?.hasPrefix("b#") == true)
        b.stopUpdatingLocation()
        engine.advance(by: .seconds(5))
        #expect(engine.decision?.governingClient?.hasPrefix("a#") == true)
        #expect(engine.decision?.receiver != .continuous(rate: 1))
        a.stopUpdatingLocation()
        engine.advance(by: .seconds(5))
        #expect(engine.decision?.receiver == .idle(.backup))
        #expect(engine.simulatedReceiver?.powerState == .backup)
    }

    @Test func significantChangesComeEvery500Metres() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 900, speed: 12, course: 20)])
        manager.startMonitoringSignificantLocationChanges()
        engine.advance(by: .seconds(900))
        let l = recorder.locations
        // 10.8 km: the first fix, then one per 500 m.
        #expect(l.count >= 15 && l.count <= 23, "\(l.count) significant changes over 10.8 km")
        for (a, b) in zip(l, l.dropFirst()) { #expect(a.distance(to: b) >= 500) }
    }

    @Test func visitsReportArrivalAndDeparture() throws {
        let (engine, _, _) = try simEngine([.init(duration: 300, speed: 1.4, course: 0), .init(duration: 1200, speed: 0, course: 0),
                                            .init(duration: 300, speed: 1.4, course: 180)])
        let manager = LocationManager(engine: engine)
        let recorder = Recorder()
        manager.delegate = recorder
        manager.startMonitoringVisits()
        engine.advance(by: .seconds(1800))
        let visits = recorder.visits
        #expect(visits.count == 2, "\(visits.count) visit events")
        if visits.count == 2 {
            #expect(visits[0].departedAt == nil)
            let departed = try #require(visits[1].departedAt)
            #expect(visits[1].arrivedAt == visits[0].arrivedAt)
            #expect(visits[0].arrivedAt.seconds >= 290 && visits[0].arrivedAt.seconds <= 420, "arrived at \(visits[0].arrivedAt)")
            #expect(departed.seconds >= 1450 && departed.seconds <= 1600, "departed at \(departed)")
        }
    }

    @Test func deferredUpdatesArriveAsOneBatchInTimeOrder() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 900, speed: 1.4, course: 0)])
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(30))
        recorder.clear()
        manager.allowDeferredLocationUpdates(untilTraveled: 200, timeout: nil)
        engine.advance(by: .seconds(300))
        let batches = recorder.batches
        let big = try #require(batches.first)
        #expect(big.count >= 100, "the deferred batch holds \(big.count)")
        for (a, b) in zip(big, big.dropFirst()) { #expect(a.receivedAt < b.receivedAt) }
        #expect(recorder.events.contains { if case .deferredFinished(nil) = $0 { return true } else { return false } })
        // After the deferral, single deliveries again.
        #expect(batches.dropFirst().allSatisfy { $0.count == 1 })
        #expect(batches.count > 50)
    }

    @Test func batchingMaximumDelayHoldsLocations() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 900, speed: 1.4, course: 0)])
        manager.batchingMaximumDelay = 60
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(400))
        let batches = recorder.batches
        #expect(batches.count >= 5 && batches.count <= 8, "\(batches.count) batches in 400 s with a 60 s delay")
        for batch in batches {
            if let first = batch.first, let last = batch.last { #expect((last.receivedAt - first.receivedAt).secondsDouble <= 61) }
        }
    }

    @Test("flushBatchedLocations delivers what batching holds now, oldest first, and batching goes on")
    func flushDeliversTheBatchNow() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 900, speed: 1.4, course: 0)])
        manager.batchingMaximumDelay = 60
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(30))
        #expect(recorder.batches.isEmpty, "within the 60 s delay nothing is delivered yet")
        manager.flushBatchedLocations()
        let flushed = try #require(recorder.batches.first)
        #expect(recorder.batches.count == 1 && flushed.count >= 20, "\(flushed.count) locations flushed after 30 s")
        #expect(zip(flushed, flushed.dropFirst()).allSatisfy { $0.receivedAt < $1.receivedAt })
        manager.flushBatchedLocations()
        #expect(recorder.batches.count == 1, "nothing held, nothing delivered")
        engine.advance(by: .seconds(90))
        #expect(recorder.batches.count >= 2 && recorder.batches.dropFirst().allSatisfy { $0.count > 1 }, "batching goes on")
    }

    @Test func regionsArePersistedAcrossRestarts() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let region = CircularRegion(identifier: "depot", latitude: 47.38, longitude: 8.54, radius: 250, dwellTime: 60)
        do {
            let (engine, _, _) = try simEngine([.init(duration: 60, speed: 0, course: 0)], stateDirectory: directory)
            let manager = LocationManager(engine: engine, name: "fleet")
            manager.startMonitoring(for: region)
            #expect(manager.monitoredRegions == [region])
        }
        let (engine, _, _) = try simEngine([.init(duration: 60, speed: 0, course: 0)], stateDirectory: directory)
        let manager = LocationManager(engine: engine, name: "fleet")
        #expect(manager.monitoredRegions == [region])
        #expect(manager.restoreProblems.isEmpty)
        manager.stopMonitoring(for: region)
        let again = LocationManager(engine: engine, name: "fleet")
        #expect(again.monitoredRegions.isEmpty)
        // A damaged file is reported with its path, not silently replaced.
        let file = RegionStore.path(directory: directory, client: "broken")
        try Data("{\"version\":1,\"regions\":[{\"region\":{}}]}".utf8).write(to: URL(fileURLWithPath: file))
        let broken = LocationManager(engine: engine, name: "broken")
        #expect(broken.restoreProblems.count == 1)
        #expect(broken.restoreProblems.first?.contains(file) == true)
    }

    @Test func badArgumentsAreRefusedWithClearErrors() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 60, speed: 0, course: 0)])
        manager.distanceFilter = -5
        manager.distanceFilter = .nan
        manager.headingFilter = 400
        manager.maximumLocationAge = 0
        #expect(manager.distanceFilter == nil)
        #expect(recorder.errors.count == 4)
        #expect(recorder.errors.allSatisfy { if case .invalidArgument = $0 { return !$0.isTransient } else { return false } })
        manager.startMonitoring(for: CircularRegion(identifier: "zero", latitude: 47, longitude: 8, radius: 0))
        manager.startMonitoring(for: CircularRegion(identifier: "nan", latitude: .nan, longitude: 8, radius: 10))
        manager.startMonitoring(for: CircularRegion(identifier: "huge", latitude: 47, longitude: 8, radius: 1e7))
        let failures = recorder.events.compactMap { e -> String? in if case .regionFailed(let id, _) = e { return id } else { return nil } }
        #expect(failures == ["zero", "nan", "huge"])
        #expect(manager.monitoredRegions.isEmpty)
        manager.allowDeferredLocationUpdates(untilTraveled: nil, timeout: nil)
        #expect(recorder.events.contains { if case .deferredFinished(.some) = $0 { return true } else { return false } })
        #expect(throws: LocationError.self) { try engine.locationUpdates(LocationRequest(distanceFilter: -1)) }
    }

    @Test func availabilityAndAuthorization() throws {
        let (engine, _, _) = try simEngine([.init(duration: 60, speed: 0, course: 0)])
        let manager = LocationManager(engine: engine)
        #expect(manager.locationServicesEnabled && manager.headingAvailable && manager.significantLocationChangeMonitoringAvailable)
        #expect(manager.isMonitoringAvailable(for: CircularRegion.self))
        #expect(manager.isRangingAvailable && manager.rangingUnavailableReason.isEmpty, "the sim board names a Bluetooth adapter")
        #expect(manager.authorizationStatus == .notDetermined)
        let recorder = Recorder()
        manager.delegate = recorder
        manager.requestWhenInUseAuthorization()
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        manager.requestAlwaysAuthorization()
        #expect(manager.authorizationStatus == .authorizedAlways)
        #expect(recorder.events.filter { if case .authorization = $0 { return true } else { return false } }.count == 2)

        // A policy that denies: services refuse with the reason.
        let denied = try AccessPolicy.parse("default = denied\n", file: "test.policy")
        let refused = LocationManager(engine: engine, name: "refused", policy: denied)
        let r2 = Recorder()
        refused.delegate = r2
        refused.startUpdatingLocation()
        #expect(refused.authorizationStatus == .denied)
        #expect(r2.errors.contains { if case .denied = $0 { return true } else { return false } })

        // Reduced accuracy: coarse positions until a declared purpose key grants full accuracy.
        let reduced = try AccessPolicy.parse("accuracy = reduced\npurpose survey = Mapping the site\n", file: "test.policy")
        let coarse = LocationManager(engine: engine, name: "coarse", policy: reduced)
        let r3 = Recorder()
        coarse.delegate = r3
        coarse.startUpdatingLocation()
        engine.advance(by: .seconds(20))
        #expect(coarse.accuracyAuthorization == .reducedAccuracy)
        #expect(!r3.locations.isEmpty && r3.locations.allSatisfy { $0.isReduced && $0.horizontalAccuracy >= 5000 })
        #expect(throws: LocationError.self) { try coarse.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "nope") }
        try coarse.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "survey")
        r3.clear()
        engine.advance(by: .seconds(10))
        #expect(coarse.accuracyAuthorization == .fullAccuracy)
        #expect(!r3.locations.isEmpty && r3.locations.allSatisfy { !$0.isReduced })
    }

    @Test func policyFileErrorsNameTheLine() {
        do {
            _ = try AccessPolicy.parse("# x\ndefault = sometimes\n", file: "p")
            Issue.record("accepted 'sometimes'")
        } catch {
            #expect(error.description == "p:2: key 'default': 'sometimes' is not always, when-in-use, denied or restricted")
        }
        do {
            _ = try AccessPolicy.parse("accuracy = full\nuser = always\n", file: "p")
            Issue.record("accepted a user line without a name")
        } catch {
            #expect(error.line == 2)
        }
        let p = try? AccessPolicy.parse("default = when-in-use\nuser alice = always\ngroup field = denied\ncontrol = root, @admin\n", file: "p")
        #expect(p?.status(user: "alice", groups: ["field"]) == .authorizedAlways)
        #expect(p?.status(user: "bob", groups: ["field"]) == .denied)
        #expect(p?.status(user: "carol", groups: []) == .authorizedWhenInUse)
        #expect(p?.allowsControl(user: "dave", groups: ["admin"]) == true)
        #expect(p?.allowsControl(user: "erin", groups: ["users"]) == false)
    }
}
