import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import SimulatedHardware
import Testing

/// Records the issue 20 callbacks beside the old ones: diagnostics, monitoring started, the
/// calibration prompt question.
final class ExtrasRecorder: LocationManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var diagnosticsStorage: [LocationDiagnostics] = []
    private var startedStorage: [String] = []
    private var failuresStorage: [(String?, LocationError)] = []
    private var errorsStorage: [LocationError] = []
    private var askedStorage = 0
    private var authorizationStorage = 0
    /// What `locationManagerShouldDisplayHeadingCalibration` answers.
    var showCalibration = true

    var diagnostics: [LocationDiagnostics] { lock.withLock { diagnosticsStorage } }
    var started: [String] { lock.withLock { startedStorage } }
    var failures: [(String?, LocationError)] { lock.withLock { failuresStorage } }
    var errors: [LocationError] { lock.withLock { errorsStorage } }
    var asked: Int { lock.withLock { askedStorage } }
    var authorizationChanges: Int { lock.withLock { authorizationStorage } }

    func locationManager(_ m: LocationManager, didChangeDiagnostics diagnostics: LocationDiagnostics) {
        lock.withLock { diagnosticsStorage.append(diagnostics) }
    }
    func locationManager(_ m: LocationManager, didStartMonitoringFor region: CircularRegion) {
        lock.withLock { startedStorage.append(region.identifier) }
    }
    func locationManager(_ m: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError) {
        lock.withLock { failuresStorage.append((region?.identifier, error)) }
    }
    func locationManager(_ m: LocationManager, didFailWithError error: LocationError) { lock.withLock { errorsStorage.append(error) } }
    func locationManagerShouldDisplayHeadingCalibration(_ m: LocationManager) -> Bool {
        lock.withLock { askedStorage += 1 }
        return showCalibration
    }
    func locationManagerDidChangeAuthorization(_ m: LocationManager) { lock.withLock { authorizationStorage += 1 } }
}

/// Issue 20, items 6 and 7 on the `sim` board with the manual clock: diagnostics on live updates,
/// sessions and managers; the heading calibration prompt; monitoring started and the new errors.
@Suite struct DiagnosticsTests {
    private func extras(_ legs: [Trajectory.Leg], policy: AccessPolicy = AccessPolicy(), receiverTracking: Bool = false)
        throws -> (LocationEngine, LocationManager, ExtrasRecorder) {
        let (engine, _, _) = try simEngine(legs, receiverTracking: receiverTracking)
        let manager = LocationManager(engine: engine, policy: policy)
        let recorder = ExtrasRecorder()
        manager.delegate = recorder
        return (engine, manager, recorder)
    }

    @Test func liveUpdatesCarryTheOutageAsLocationUnavailableAndClearItWithTheRecovery() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        try #require(engine.simulatedReceiver).addSkyOutage(from: 40, seconds: 20)
        let updates = try engine.liveUpdates(LocationRequest(desiredAccuracy: .best, fixLossTimeout: 5))
        engine.advance(by: .seconds(90))
        var before = 0, unavailable: LiveLocationUpdate?, recovered: LiveLocationUpdate?, after = 0
        for await update in updates {
            if let location = update.location {
                #expect(!update.locationUnavailable && !update.receiverSilent && !update.authorizationDenied)
                #expect(location.fixType != .none)
                if update.recovery != nil { recovered = update }
                if unavailable == nil { before += 1 } else if recovered != nil { after += 1 }
            } else if update.locationUnavailable, unavailable == nil {
                #expect(update.error?.isFixLoss == true, "\(String(describing: update.error))")
                unavailable = update
            }
            if after >= 3 { break }
        }
        #expect(before > 20)
        let loss = try #require(unavailable)
        #expect(loss.diagnostics.names == ["locationUnavailable"], "\(loss.diagnostics)")
        let back = try #require(recovered)
        #expect((back.recovery?.outage ?? 0) >= 20)
        #expect(back.diagnostics.isEmpty, "\(back.diagnostics)")
    }

    @Test func liveUpdatesOfADeniedClientSayAuthorizationDeniedAndAddNoDemand() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 0, course: 0)])
        var policy = AccessPolicy()
        policy.defaultStatus = .denied
        let updates = try engine.liveUpdates(policy: policy)
        engine.advance(by: .seconds(5))
        #expect((1...50).compactMap { engine.services($0) }.allSatisfy { !$0.updatingLocation })
        for await update in updates {
            #expect(update.location == nil && update.authorizationDenied && update.locationUnavailable)
            if case .denied? = update.error {} else { Issue.record("error \(String(describing: update.error))") }
            break
        }
    }

    @Test func aStillUnitPausesAndTheLiveUpdateSaysStationary() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 3600, speed: 0, course: 0)])
        let updates = try engine.liveUpdates(LocationRequest(desiredAccuracy: .hundredMeters, pausesAutomatically: true))
        engine.advance(by: .seconds(1800))
        var stationary: LiveLocationUpdate?
        for await update in updates where update.location == nil {
            stationary = update
            break
        }
        let paused = try #require(stationary)
        #expect(paused.isStationary && paused.paused, "\(paused.diagnostics)")
    }

    @Test func aSessionReportsItsDiagnosticsThroughAnOutage() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        try #require(engine.simulatedReceiver).addSkyOutage(from: 40, seconds: 20)
        let session = try engine.session(LocationRequest(desiredAccuracy: .best, fixLossTimeout: 5))
        #expect(session.diagnostics == [.locationUnavailable])
        engine.advance(by: .seconds(30))
        #expect(session.diagnostics.isEmpty, "\(session.diagnostics)")
        engine.advance(by: .seconds(20))
        #expect(session.diagnostics == [.locationUnavailable], "\(session.diagnostics)")
        engine.advance(by: .seconds(20))
        #expect(session.diagnostics.isEmpty, "\(session.diagnostics)")
        session.invalidate()
        var seen: [LocationDiagnostics] = []
        for await flags in session.diagnosticUpdates { seen.append(flags) }
        #expect(seen == [[.locationUnavailable], [], [.locationUnavailable], []], "\(seen)")
    }

    @Test func aSilentReceiverShowsInTheManagersDiagnosticsAndDelaysRegionSetup() throws {
        let (engine, manager, recorder) = try extras([.init(duration: 600, speed: 1.4, course: 30)], receiverTracking: true)
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(30))
        #expect(manager.diagnostics.isEmpty, "\(manager.diagnostics)")
        try #require(engine.simulatedReceiver).setPower(false, at: engine.clock.now())
        var silentAt: Int?
        for second in 1...30 where silentAt == nil {
            engine.advance(by: .seconds(1))
            if manager.diagnostics.contains(.receiverSilent) { silentAt = second }
        }
        #expect(silentAt != nil, "\(recorder.diagnostics)")
        #expect(manager.diagnostics.contains(.locationUnavailable))
        let here = try #require(engine.lastLocation)
        manager.startMonitoring(for: CircularRegion(identifier: "yard", latitude: here.latitude, longitude: here.longitude, radius: 200))
        #expect(recorder.started == ["yard"])
        let delayed = recorder.failures.first { if case .regionMonitoringSetupDelayed = $0.1 { return true } else { return false } }
        #expect(delayed?.0 == "yard" && delayed?.1.isTransient == true, "\(recorder.failures)")
        // The watchdog power-cycles the receiver: fixes and clear diagnostics come back.
        engine.advance(by: .seconds(60))
        #expect(manager.diagnostics.isEmpty, "\(manager.diagnostics)")
        #expect(recorder.diagnostics.contains { $0.contains(.receiverSilent) } && recorder.diagnostics.last == [])
    }

    @Test func monitoringStartedIsReportedAndADeniedClientGetsRegionMonitoringDenied() throws {
        let (engine, manager, recorder) = try extras([.init(duration: 600, speed: 0, course: 0)])
        manager.startMonitoring(for: CircularRegion(identifier: "depot", latitude: 47.38, longitude: 8.54, radius: 150))
        #expect(recorder.started == ["depot"] && recorder.failures.isEmpty)
        var policy = AccessPolicy()
        policy.defaultStatus = .denied
        let denied = LocationManager(engine: engine, name: "denied", policy: policy)
        let deniedRecorder = ExtrasRecorder()
        denied.delegate = deniedRecorder
        denied.startMonitoring(for: CircularRegion(identifier: "gate", latitude: 47.38, longitude: 8.54, radius: 150))
        #expect(deniedRecorder.started.isEmpty)
        guard let (region, error) = deniedRecorder.failures.first, case .regionMonitoringDenied = error else {
            Issue.record("\(deniedRecorder.failures)")
            return
        }
        #expect(region == "gate" && !error.isTransient)
        #expect(denied.diagnostics.contains(.authorizationDenied))
        #expect(denied.monitoredRegions.isEmpty)
    }

    @Test func aDeniedClientsFullAccuracyRequestIsDeclined() throws {
        var policy = AccessPolicy()
        policy.defaultStatus = .denied
        policy.purposes["navigation"] = "Turn-by-turn guidance"
        let (_, manager, _) = try extras([.init(duration: 60, speed: 0, course: 0)], policy: policy)
        #expect(throws: LocationError.self) { try manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "navigation") }
        do {
            try manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "navigation")
        } catch {
            guard case .promptDeclined(let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("navigation"))
        }
        // An undeclared key stays an invalid argument (a programming error, not a refusal).
        do {
            try manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "nothing")
        } catch {
            guard case .invalidArgument = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func poorlyCalibratedHeadingsAskOnceAndThePromptStaysUntilDismissed() throws {
        let (engine, manager, recorder) = try extras([.init(duration: 600, speed: 0, course: 0)])
        try #require(manager.headingAvailable)
        manager.startUpdatingHeading()
        engine.advance(by: .seconds(5))
        // The sim board has no stored calibration: its headings say poor-calibration.
        #expect(recorder.asked == 1)
        let prompt = try #require(manager.headingCalibrationPrompt)
        #expect(manager.isDisplayingHeadingCalibration)
        #expect(prompt.reason.contains("calibration") && prompt.command == "fieldloc calibrate --board sim --save", "\(prompt)")
        manager.dismissHeadingCalibrationDisplay()
        #expect(manager.headingCalibrationPrompt == nil)
        engine.advance(by: .seconds(5))
        #expect(recorder.asked == 1 && !manager.isDisplayingHeadingCalibration)
    }

    @Test func aGoodCalibrationEndsThePromptByItself() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let dance = try BoardHardware.simulatedPlatform(for: board, motion: .calibrationDance(maximumTilt: 180))
        var sensors = try BoardSensors.open(board, platform: dance)
        var routine = LiveCalibration()
        routine.expectedField = 48.4
        let calibration = try #require(try routine.run(&sensors, clock: dance.clock) { _ in }.0)
        let (engine, manager, recorder) = try extras([.init(duration: 600, speed: 0, course: 0)])
        manager.startUpdatingHeading()
        engine.advance(by: .seconds(5))
        #expect(manager.isDisplayingHeadingCalibration && recorder.asked == 1)
        engine.calibration = calibration
        engine.advance(by: .seconds(5))
        #expect(!manager.isDisplayingHeadingCalibration, "\(String(describing: manager.heading?.flags)) \(String(describing: manager.heading?.headingAccuracy))")
        #expect(recorder.asked == 1)
    }

    @Test func aDelegateThatDeclinesTheCalibrationPromptLeavesNothingDisplayed() throws {
        let (engine, manager, recorder) = try extras([.init(duration: 600, speed: 0, course: 0)])
        recorder.showCalibration = false
        manager.startUpdatingHeading()
        engine.advance(by: .seconds(5))
        #expect(recorder.asked == 1 && manager.headingCalibrationPrompt == nil)
        manager.headingCalibrationAccuracyLimit = -3
        #expect(recorder.errors.contains { if case .invalidArgument = $0 { return true } else { return false } })
    }
}
