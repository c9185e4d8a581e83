import PowerPolicy
import Testing

@Suite("Power policy: demand and state to actions")
struct PowerPolicyTests {
    // Walking at 1.4 m/s with a good, recent fix and fresh ephemerides.
    let walking = PolicyState(timeSinceFix: 1, recentSpeed: 1.4, moving: true, stillFor: 0, ephemerisAge: 600,
                              satellitesUsed: 9, horizontalAccuracy: 4)
    let m10 = PowerPolicy(profile: .ubloxM10)
    let mtk = PowerPolicy(profile: .mt3339)

    func walker(_ accuracy: DesiredAccuracy) -> ClientDemand {
        ClientDemand(client: "walker", desiredAccuracy: accuracy, activity: .fitness)
    }

    @Test("the walking table: modes and periods per accuracy level (u-blox M10)")
    func walkingTable() {
        #expect(m10.decide([walker(.best)], state: walking).receiver == .continuous(rate: 1))
        #expect(m10.decide([walker(.bestForNavigation)], state: walking).receiver == .continuous(rate: 5))
        #expect(m10.decide([walker(.nearestTenMeters)], state: walking).receiver == .cyclicTracking)
        // (100 - 15) / (0.95 x 1.4) = 64 s, capped at the level's 60 s; above the M10's crossover: backup.
        #expect(m10.decide([walker(.hundredMeters)], state: walking).receiver == .periodic(period: 60, onTime: 4, sleep: .backup))
        #expect(m10.decide([walker(.kilometer)], state: walking).receiver == .periodic(period: 600, onTime: 4, sleep: .backup))
        #expect(m10.decide([walker(.threeKilometers)], state: walking).receiver == .periodic(period: 1800, onTime: 4, sleep: .backup))
        #expect(abs(m10.profile.crossoverPeriod - 1 * 12.3 / (0.346 - 0.032)) < 1e-9)
    }

    @Test("energy against continuous stays within the issue's targets (M10, upkeep included)")
    func energyRatios() {
        let continuous = m10.decide([walker(.best)], state: walking).meanCurrent(.ubloxM10)
        #expect(continuous == 12.3)
        let ratio = { (a: DesiredAccuracy) in m10.decide([walker(a)], state: walking).meanCurrent(.ubloxM10) / continuous }
        #expect(ratio(.nearestTenMeters) <= 0.60)
        #expect(ratio(.hundredMeters) <= 0.08)
        #expect(ratio(.kilometer) <= 0.02)
        #expect(ratio(.threeKilometers) <= 0.015)
        // Every periodic level pays 30 s of tracking per hour for ephemerides.
        #expect(m10.decide([walker(.kilometer)], state: walking).upkeepPerHour == 30)
        // Stale ephemerides make the next wake a warm start instead of a separate upkeep.
        var stale = walking
        stale.ephemerisAge = 7300
        #expect(m10.decide([walker(.kilometer)], state: stale).receiver == .periodic(period: 600, onTime: 30, sleep: .backup))
    }

    @Test("MT3339 has no cyclic tracking and a short crossover: ten metres is continuous, a hundred is backup")
    func mediatek() {
        #expect(mtk.decide([walker(.nearestTenMeters)], state: walking).receiver == .continuous(rate: 1))
        #expect(mtk.profile.crossoverPeriod < 15)
        #expect(mtk.decide([walker(.hundredMeters)], state: walking).receiver == .periodic(period: 60, onTime: 5, sleep: .backup))
    }

    @Test("driving at 13 m/s makes ten metres continuous and a kilometre about 78 s")
    func driving() {
        let driving = PolicyState(timeSinceFix: 1, recentSpeed: 13.4, moving: true, ephemerisAge: 60, satellitesUsed: 9)
        let car = { (a: DesiredAccuracy) in ClientDemand(client: "car", desiredAccuracy: a, activity: .automotiveNavigation) }
        #expect(m10.decide([car(.nearestTenMeters)], state: driving).receiver == .continuous(rate: 1))
        guard case .periodic(let period, _, let sleep) = m10.decide([car(.kilometer)], state: driving).receiver else {
            Issue.record("kilometer while driving is not periodic"); return
        }
        #expect(abs(period - 985 / (0.95 * 13.4)) < 1e-9)
        #expect(sleep == .backup)
    }

    @Test("the most demanding client wins; the last stop leaves the receiver idle in backup")
    func arbitration() {
        let decision = m10.decide([walker(.kilometer), walker(.hundredMeters), ClientDemand(client: "map", desiredAccuracy: .best)],
                                  state: walking)
        #expect(decision.receiver == .continuous(rate: 1))
        #expect(decision.governingClient == "map")
        let none = m10.decide([], state: walking)
        #expect(none.receiver == .idle(.backup))
        #expect(none.magnetometer == .powerDown)
    }

    @Test("distance filter and update interval shorten the period")
    func filters() {
        var demand = walker(.kilometer)
        demand.distanceFilter = 100   // 0.5 x 100 / 1.4 = 35.7 s
        guard case .periodic(let p, _, _) = m10.decide([demand], state: walking).receiver else { Issue.record("not periodic"); return }
        #expect(abs(p - 50 / 1.4) < 1e-9)
        demand.updateInterval = 20
        guard case .periodic(let q, _, let sleep) = m10.decide([demand], state: walking).receiver else { Issue.record("not periodic"); return }
        #expect(q == 20)
        #expect(sleep == .standby)  // below the M10's 39 s crossover
    }

    @Test("an update interval is the client's period at every accuracy level, still or moving (Android's interval)")
    func updateIntervalIsThePeriod() {
        let still = PolicyState(timeSinceFix: 30, recentSpeed: 0, moving: false, stillFor: 60, ephemerisAge: 600, satellitesUsed: 9)
        for accuracy in [DesiredAccuracy.best, .nearestTenMeters, .hundredMeters, .kilometer] {
            for state in [walking, still] {
                var demand = walker(accuracy)
                demand.pausesAutomatically = false
                demand.updateInterval = 300
                guard case .periodic(let period, _, let sleep) = m10.decide([demand], state: state).receiver else {
                    Issue.record("\(accuracy): not periodic"); continue
                }
                #expect(period == 300)
                #expect(sleep == .backup)  // above the M10's 39 s crossover
            }
        }
        // Without an interval the same still client needs no fix at all.
        #expect(m10.decide([walker(.hundredMeters)], state: still).receiver == .idle(.backup))
        // A distance filter still asks for fixes sooner while moving: 0.5 x 100 m / 1.4 m/s.
        var both = walker(.kilometer)
        both.updateInterval = 300
        both.distanceFilter = 100
        guard case .periodic(let p, _, _) = m10.decide([both], state: walking).receiver else { Issue.record("not periodic"); return }
        #expect(abs(p - 50 / 1.4) < 1e-9)
    }

    @Test("stillness: stationary scheduling after 20 s, pause after the activity's window, upkeep while still")
    func stillness() {
        let still = PolicyState(timeSinceFix: 30, recentSpeed: 0, moving: false, stillFor: 60, ephemerisAge: 8000, satellitesUsed: 9)
        let decision = m10.decide([walker(.hundredMeters)], state: still)
        #expect(decision.receiver == .idle(.backup))
        #expect(!decision.paused)
        #expect(decision.ephemerisUpkeep == 30)
        var longStill = still
        longStill.stillFor = 121  // fitness pauses after 2 min
        let pausedDecision = m10.decide([walker(.best)], state: longStill)
        #expect(pausedDecision.paused)
        #expect(pausedDecision.receiver == .idle(.backup))
        #expect(pausedDecision.motionDetection)
        var noPause = walker(.best)
        noPause.pausesAutomatically = false
        // Without pausing the client is not told it paused, but a still unit still needs no new fix.
        let unpaused = m10.decide([noPause], state: longStill)
        #expect(!unpaused.paused)
        #expect(unpaused.receiver == .idle(.backup))
    }

    @Test("no fix yet: cyclic tracking waits for 5 satellites; warm starts and failures stretch the schedule")
    func acquisition() {
        let noFix = PolicyState(moving: true, ephemerisAge: nil, satellitesUsed: 0)
        #expect(m10.decide([walker(.nearestTenMeters)], state: noFix).receiver == .continuous(rate: 1))
        // No recent fix: plan with the activity's cap (6 m/s on foot): (85)/(0.95 x 6) = 14.9 s.
        guard case .periodic(let period, let onTime, _) = m10.decide([walker(.hundredMeters)], state: noFix).receiver else {
            Issue.record("not periodic"); return
        }
        #expect(abs(period - 85 / (0.95 * 6)) < 1e-9)
        #expect(onTime == 30)
        var failing = walking
        failing.failedAcquisitions = 3
        guard case .periodic(let backedOff, _, _) = m10.decide([walker(.kilometer)], state: failing).receiver else {
            Issue.record("not periodic"); return
        }
        #expect(backedOff == 2400)
    }

    @Test("significant changes: motion-gated fixes every min(300 s, 250 m / v)")
    func significantChanges() {
        let monitor = ClientDemand(client: "slc", desiredAccuracy: .threeKilometers, activity: .fitness, significantChangesOnly: true)
        guard case .periodic(let p, _, _) = m10.decide([monitor], state: walking).receiver else { Issue.record("not periodic"); return }
        #expect(abs(p - 250 / 1.4) < 1e-9)
        let still = PolicyState(moving: false, stillFor: 3600, ephemerisAge: 100)
        #expect(m10.decide([monitor], state: still).receiver == .idle(.backup))
    }

    @Test("heading demand sets the magnetometer: fine filters continuous, coarse low-power, very coarse single-shot")
    func magnetometer() {
        func mag(_ filter: Double?) -> MagnetometerAction {
            m10.decide([ClientDemand(client: "h", desiredAccuracy: nil, wantsHeading: true, headingFilter: filter)], state: walking).magnetometer
        }
        #expect(mag(nil) == .continuous(rate: 20))
        #expect(mag(2) == .continuous(rate: 20))
        #expect(mag(15) == .lowPower(rate: 10))
        #expect(mag(45) == .singleShot(period: 1))
        // Heading only: no location demand, the receiver idles.
        #expect(m10.decide([ClientDemand(client: "h", desiredAccuracy: nil, wantsHeading: true)], state: walking).receiver == .idle(.backup))
    }
}

@Suite("Power policy: stillness at every level")
struct StillnessTests {
    @Test("a still unit idles at every level but best for navigation; motion resumes at once")
    func stillEverywhere() {
        let policy = PowerPolicy(profile: .ubloxM10)
        let still = PolicyState(timeSinceFix: 40, recentSpeed: 0, moving: false, stillFor: 30, ephemerisAge: 100, satellitesUsed: 8)
        for level in DesiredAccuracy.allCases where level != .bestForNavigation {
            let d = policy.decide([ClientDemand(client: "c", desiredAccuracy: level, pausesAutomatically: false)], state: still)
            #expect(d.receiver == .idle(.backup), "\(level)")
            #expect(d.motionDetection)
        }
        #expect(policy.decide([ClientDemand(client: "c", desiredAccuracy: .bestForNavigation)], state: still).receiver == .continuous(rate: 5))
        var moving = still
        moving.moving = true
        moving.stillFor = 0
        #expect(policy.decide([ClientDemand(client: "c", desiredAccuracy: .best)], state: moving).receiver == .continuous(rate: 1))
        // Just stopped (under 20 s): keep the schedule.
        var justStopped = still
        justStopped.stillFor = 5
        #expect(policy.decide([ClientDemand(client: "c", desiredAccuracy: .best)], state: justStopped).receiver == .continuous(rate: 1))
    }
}
