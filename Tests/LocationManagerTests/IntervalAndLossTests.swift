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

/// Issue 20 on the `sim` board with the manual clock: fix loss and recovery, the update interval,
/// one-shot locations that can be cancelled, and the cached location's age bound.
@Suite struct IntervalAndLossTests {
    /// Index of the first event matching `match`.
    private func index(_ events: [Recorder.Event], _ match: (Recorder.Event) -> Bool) -> Int? { events.firstIndex(where: match) }

    @Test func aTwentySecondOutageIsReportedOnceAndItsRecoveryComesWithTheNextFix() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 600, speed: 1.4, course: 90)])
        let receiver = try #require(engine.simulatedReceiver)
        receiver.addSkyOutage(from: 60, seconds: 20)
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(120))
        let losses = recorder.errors.filter(\.isFixLoss)
        #expect(losses.count == 1, "\(recorder.errors)")
        #expect(losses.allSatisfy { $0.isTransient })
        #expect(recorder.locations.allSatisfy { !(61...79).contains($0.receivedAt.seconds) })
        let recovery = try #require(recorder.recoveries.first)
        #expect(recorder.recoveries.count == 1)
        #expect(recovery.location.receivedAt.seconds >= 80)
        let outage = try #require(recovery.outage)
        #expect(outage >= 20 && outage <= 23, "outage \(outage) s")
        #expect(recovery.description.hasPrefix("fix recovered after"))
        // Order: the loss (10 s after the last fix, the 1 Hz default), the recovery, then that fix.
        let events = recorder.events
        let lost = try #require(index(events) { if case .error(let e) = $0 { return e.isFixLoss } else { return false } })
        let back = try #require(index(events) { if case .recovered = $0 { return true } else { return false } })
        let fix = try #require(index(events) { if case .locations(let l) = $0 { return l.first?.receivedAt == recovery.location.receivedAt } else { return false } })
        #expect(lost < back && back < fix)
        // Updates flow again after the recovery.
        #expect(recorder.locations.filter { $0.receivedAt.seconds > 80 }.count >= 35)
    }

    @Test func fixLossReachesTheAsyncSequenceWithItsRecovery() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        try #require(engine.simulatedReceiver).addSkyOutage(from: 40, seconds: 20)
        let updates = try engine.locationUpdates(LocationRequest(desiredAccuracy: .best, fixLossTimeout: 5))
        engine.advance(by: .seconds(90))
        var sawLoss = false, sawRecovery = false, fixesAfter = 0
        for await update in updates {
            switch update {
            case .error(let e) where e.isFixLoss:
                #expect(!sawRecovery)
                #expect(e.description.contains("no usable fix for 5"), "\(e)")  // 5 s, or a little more: the loss is noticed at a step
                sawLoss = true
            case .recovered(let r):
                #expect(sawLoss)
                #expect((r.outage ?? 0) >= 20)
                sawRecovery = true
            case .locations(let l):
                if sawRecovery { fixesAfter += l.count }
            default: break
            }
            if fixesAfter >= 5 { break }
        }
        #expect(sawLoss && sawRecovery)
    }

    @Test func anIntervalOf300SecondsGivesTwelveFixesAnHourWithTheReceiverAsleepBetween() throws {
        let (engine, manager, recorder, _, track) = try managed([.init(duration: 4000, speed: 1.4, course: 45)])
        manager.updateInterval = 300
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(3600))
        let fixes = recorder.locations
        #expect(fixes.count == 12, "\(fixes.map(\.receivedAt.seconds))")
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            let gap = (b.receivedAt - a.receivedAt).secondsDouble
            #expect(gap >= 299 && gap <= 302, "gap \(gap) s")
        }
        #expect(recorder.errors.isEmpty, "\(recorder.errors)")
        guard case .periodic(let period, _, let sleep)? = engine.decision?.receiver else {
            Issue.record("receiver \(String(describing: engine.decision?.receiver))")
            return
        }
        #expect(period == 300)
        #expect(sleep == .backup)
        // Asleep between fixes: the receiver's own ledger has it in backup nearly all hour.
        let ledger = try #require(engine.simulatedReceiver?.ledger)
        let receiver = ledger.entries[.receiver] ?? [:]
        let backup = receiver["backup"]?.seconds ?? 0
        #expect(backup >= 3300, "\(receiver)")
        // The figure in BENCHMARKS.md: under a tenth of continuous tracking's charge.
        let charge = ledger.charge(.receiver)
        // Accuracy: each delivered fix against the trajectory's truth at the moment it was received.
        let errors = fixes.map { fix -> Double in
            let truth = track.at(fix.receivedAt.seconds)
            return fix.distance(to: Location(latitude: truth.latitude, longitude: truth.longitude, horizontalAccuracy: 0,
                                             receivedAt: fix.receivedAt))
        }.sorted()
        #expect((errors.last ?? .infinity) < 20, "\(errors)")
        print("interval 300 s over an hour: \(charge) mAh, mean \(ledger.meanCurrent(.receiver)) mA, "
              + receiver.map { "\($0.key) \($0.value.seconds) s" }.sorted().joined(separator: ", ")
              + "; fix error median \(errors[errors.count / 2]) m, max \(errors.last ?? 0) m")
        #expect(charge < PowerPolicy(profile: .mt3339).profile.tracking / 10)
    }

    @Test func theMinimumUpdateIntervalSpacesDeliveriesOfContinuousTracking() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 900, speed: 1.4, course: 0)])
        manager.minimumUpdateInterval = 10
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(300))
        let fixes = recorder.locations
        #expect(fixes.count >= 28 && fixes.count <= 31, "\(fixes.count)")
        for (a, b) in zip(fixes, fixes.dropFirst()) { #expect((b.receivedAt - a.receivedAt).secondsDouble >= 9) }
        if case .continuous = engine.decision?.receiver {} else { Issue.record("\(String(describing: engine.decision?.receiver))") }
    }

    @Test func aCancelledRequestLeavesNoDemandAndNoAnswer() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 600, speed: 0, course: 0)])
        let token = manager.requestLocation(timeout: .seconds(120))
        engine.advance(by: .seconds(1))
        #expect(engine.clientCount == 2)
        #expect(engine.decision?.governingClient?.hasSuffix("(one fix)") == true)
        token.cancel()
        #expect(engine.clientCount == 1)
        engine.advance(by: .seconds(200))
        #expect(recorder.locations.isEmpty)
        #expect(recorder.errors.isEmpty)
        if case .idle = engine.decision?.receiver {} else { Issue.record("\(String(describing: engine.decision?.receiver))") }
        // stopRequestingLocation ends every request the same way.
        manager.requestLocation(timeout: .seconds(5))
        manager.requestLocation(timeout: .seconds(5))
        #expect(engine.clientCount == 3)
        manager.stopRequestingLocation()
        #expect(engine.clientCount == 1)
        engine.advance(by: .seconds(10))
        #expect(recorder.errors.isEmpty && recorder.locations.isEmpty)
    }

    @Test func asyncLocationAnswersWithAFreshFixAndCancellationRemovesItsDemand() async throws {
        let (engine, manager, _, clock, _) = try managed([.init(duration: 600, speed: 0, course: 0)])
        let asked = clock.now()
        let task = Task { try await manager.location(timeout: .seconds(60), desiredAccuracy: .nearestTenMeters) }
        while engine.clientCount < 2 { await Task.yield() }
        engine.advance(by: .seconds(30))
        let fix = try await task.value
        #expect(fix.receivedAt > asked)
        #expect(engine.clientCount == 1)
        // The cached location with an age bound, and maxAge answering from it without a request.
        #expect(manager.cachedLocation(maxAge: 60)?.receivedAt == fix.receivedAt)
        let cached = try await manager.location(maxAge: 60)
        #expect(cached.receivedAt == fix.receivedAt)
        engine.advance(by: .seconds(120))
        #expect(manager.cachedLocation(maxAge: 60) == nil)
        #expect(manager.location != nil)
        // Cancelled while waiting: the demand goes at once and the caller gets CancellationError.
        let waiting = Task { try await manager.location(timeout: .seconds(60)) }
        while engine.clientCount < 2 { await Task.yield() }
        engine.advance(by: .seconds(1))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(engine.clientCount == 1)
        engine.advance(by: .seconds(2))
        if case .idle = engine.decision?.receiver {} else { Issue.record("\(String(describing: engine.decision?.receiver))") }
        // A timeout throws locationUnknown.
        let (sky, skyManager, _, _, _) = try managed([.init(duration: 600, speed: 0, course: 0)])
        try #require(sky.simulatedReceiver).addSkyOutage(from: 0, seconds: 600)
        let timed = Task { try await skyManager.location(timeout: .seconds(5)) }
        while sky.clientCount < 2 { await Task.yield() }
        sky.advance(by: .seconds(10))
        await #expect(throws: LocationError.self) { try await timed.value }
    }

    @Test func badIntervalsAreRefused() throws {
        let (_, manager, recorder, _, _) = try managed([.init(duration: 60, speed: 0, course: 0)])
        manager.updateInterval = -1
        manager.minimumUpdateInterval = .nan
        manager.fixLossTimeout = 0
        #expect(recorder.errors.count == 3)
        #expect(manager.updateInterval == nil)
        #expect(throws: LocationError.self) { try LocationRequest(updateInterval: .infinity).validate() }
    }
}
