import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import PowerPolicy
import SimulatedHardware
import Testing

@Suite("The engine on a simulated board with one client: issue targets on the one-hour walk")
struct SimulationTests {
    /// The walk at `best` (continuous tracking), run once for every level's comparison.
    static let walkContinuous = Result { try run("walk", .best) }

    static func run(_ scenario: String, _ accuracy: DesiredAccuracy, _ profile: ReceiverProfile = .ubloxM10, seed: UInt64 = 1) throws
        -> EngineSimulation.Result
    {
        let trajectory = Trajectory.scenario(scenario, seconds: 3600)!
        var sim = EngineSimulation(trajectory: trajectory, scenario: scenario, profile: profile, desiredAccuracy: accuracy,
                                   activity: scenario == "drive" ? .automotiveNavigation : .fitness)
        sim.seed = seed
        sim.stillBeforeStart = scenario == "stationary" ? 600 : 0
        return try sim.run()
    }

    func run(_ scenario: String, _ accuracy: DesiredAccuracy, _ profile: ReceiverProfile = .ubloxM10, seed: UInt64 = 1) throws
        -> EngineSimulation.Result
    {
        try Self.run(scenario, accuracy, profile, seed: seed)
    }

    @Test("u-blox M10 walk: energy share and p95 error per level", arguments: [
        (DesiredAccuracy.best, 1.0, 6.0),
        (.nearestTenMeters, 0.60, 10.0),
        (.hundredMeters, 0.08, 100.0),
        (.kilometer, 0.02, 1000.0),
        (.threeKilometers, 0.015, 3000.0),
    ])
    func walkTargets(level: DesiredAccuracy, energyShare: Double, p95: Double) throws {
        let continuous = try Self.walkContinuous.get()
        for seed: UInt64 in [1, 2, 3] {
            let r = try run("walk", level, seed: seed)
            #expect(r.energy / continuous.energy <= energyShare + 1e-9, "seed \(seed): \(r.energy) mAh")
            #expect(r.p95Error <= p95, "seed \(seed): p95 \(r.p95Error) m")
            #expect(r.fixesDelivered > 0)
            #expect(r.commandFailures.isEmpty, "\(r.commandFailures)")
        }
    }

    @Test("a stationary hour after the first fix costs at most twice the backup floor, at every level and receiver")
    func stationary() throws {
        for profile in [ReceiverProfile.ubloxM10, .ubloxM8, .mt3339] {
            for level in DesiredAccuracy.allCases where level != .bestForNavigation {
                let r = try run("stationary", level, profile)
                #expect(r.fixesDelivered == 1, "\(level)")
                #expect(r.energyAfterFirstFix <= 2 * r.backupFloorAfterFirstFix,
                        "\(profile.name) \(level): \(r.energyAfterFirstFix) mAh against a floor of \(r.backupFloorAfterFirstFix)")
            }
        }
        // On the M10 even the whole hour, first fix included, stays under twice the floor.
        let m10 = try run("stationary", .best)
        #expect(m10.energy <= 2 * m10.backupFloor)
    }

    @Test("the energy ledger adds up to the time simulated, and every wake of a warm receiver is hot")
    func ledger() throws {
        let r = try run("walk", .hundredMeters)
        // A sum of many intervals (the settings' command exchanges split some seconds): rounding only.
        #expect(abs(r.ledger.seconds(.receiver) - 3600) < 1e-9)
        #expect(abs(r.ledger.charge(.receiver) - r.energy) < 1e-12)
        #expect((r.starts[.warm] ?? 0) == 0 && (r.starts[.cold] ?? 0) == 0)
        #expect((r.starts[.hot] ?? 0) > 40)
    }

    @Test("MT3339: no cyclic tracking, so ten metres costs as much as best; a hundred metres about a tenth")
    func mediatek() throws {
        let best = try run("walk", .best, .mt3339)
        #expect(try run("walk", .nearestTenMeters, .mt3339).energy == best.energy)
        let hundred = try run("walk", .hundredMeters, .mt3339)
        #expect(hundred.energy / best.energy < 0.15)
        #expect(hundred.p95Error <= 100)
    }

    @Test("the client's distance filter reaches the engine: a walk at best with 50 m between deliveries")
    func distanceFilter() throws {
        var sim = EngineSimulation(trajectory: Trajectory.scenario("walk", seconds: 600)!, scenario: "walk", profile: .ubloxM10,
                                   desiredAccuracy: .best, distanceFilter: 50, activity: .fitness)
        sim.seed = 2
        let r = try sim.run()
        // 600 s at 1.4 m/s is 840 m: at most one delivery per 50 m, plus the first.
        #expect(r.fixesDelivered >= 10 && r.fixesDelivered <= 18, "\(r.fixesDelivered)")
        #expect(r.p95Error <= 50 + 10, "\(r.p95Error)")
    }

    @Test("a hot start proves the receiver's ephemerides: a fresh engine's first wake spends no upkeep window")
    func hotStartNeedsNoUpkeep() throws {
        let sim = EngineSimulation(trajectory: Trajectory.scenario("walk", seconds: 120)!, scenario: "walk", profile: .ubloxM10,
                                   desiredAccuracy: .hundredMeters, activity: .fitness)
        let r = try sim.run()
        let wakes = r.starts[.hot] ?? 0
        #expect(wakes >= 2 && (r.starts[.warm] ?? 0) == 0)
        // About 4 s awake per wake (a hot start from backup), not 30 s of ephemeris upkeep at the first.
        let awake = (r.timeInState["acquiring"] ?? 0) + (r.timeInState["tracking"] ?? 0)
        #expect(awake <= 6 * Double(wakes), "\(r.timeInState)")
    }

    @Test("tracks: CSV rows and GPX points resample to one per second; bad rows name their line")
    func tracks() throws {
        let csv = try Trajectory.csv("time_s,lat_deg,lon_deg\n0,38.0,-122.0\n10,38.0001,-122.0\n", file: "t.csv")
        #expect(csv.points.count == 11)
        #expect(abs(csv.at(5).latitude - 38.00005) < 1e-9)
        #expect(abs(csv.at(5).speed - 1.112) < 0.01)
        do {
            _ = try Trajectory.csv("time_s,lat_deg,lon_deg\n0,38,-122\n5,95,-122\n", file: "t.csv")
            Issue.record("accepted latitude 95")
        } catch {
            #expect(error.description == "t.csv: line 3: '5,95,-122' is not time_s,lat_deg,lon_deg in range")
        }
        let gpx = """
        <gpx><trk><trkseg>
        <trkpt lat="38.0" lon="-122.0"><time>2026-06-01T12:00:00Z</time></trkpt>
        <trkpt lat="38.0" lon="-121.9999"><time>2026-06-01T12:00:04Z</time></trkpt>
        </trkseg></trk></gpx>
        """
        let g = try Trajectory.gpx(gpx, file: "t.gpx")
        #expect(g.points.count == 5)
        #expect(abs(g.at(4).longitude + 121.9999) < 1e-9)
        #expect(throws: TrackError.self) { try Trajectory.gpx("<gpx><trkpt lat=\"x\" lon=\"1\"></trkpt></gpx>", file: "b.gpx") }
    }
}
