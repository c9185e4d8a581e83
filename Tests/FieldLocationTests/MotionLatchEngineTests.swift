import BoardConfig
import EnginePlatforms
@testable import FieldLocation
import HardwareInterfaces
import LocationServices
import PowerPolicy
import SimulatedHardware
import Testing

/// The sensor subsystem leaving motion detection to the accelerometer chip's motion latch while
/// no client wants locations, on the simulated boards and a manual clock: what a client finds
/// when it arrives (the stillness history, or the motion), and how often the chip is read.
@Suite("Motion latch in the engine")
struct MotionLatchEngineTests {
    static let policy = PowerPolicy(profile: .mt3339)
    static let idle = policy.decide([], state: PolicyState())
    static let client = policy.decide([ClientDemand(client: "c", desiredAccuracy: .hundredMeters)], state: PolicyState())

    /// A simulated board with `accelerometer` (chip, address, extra lines) and its magnetometer.
    static func board(_ accelerometer: String, _ address: String, _ magnetometer: String, _ magAddress: String) throws -> BoardDescription {
        try BoardLoader.load(text: """
            name = "sim-latch"
            title = "Simulated \(accelerometer)"
            simulated = true

            [receiver]
            baud = 9600
            family = "mtk"
            model = "MT3339 (simulated)"
            wake = "uart-byte"

            [i2c]
            bus = 1

            [[sensor]]
            chip = "\(accelerometer)"
            address = \(address)
            orientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

            [[sensor]]
            chip = "\(magnetometer)"
            address = \(magAddress)
            orientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

            [sim]
            latitude = 47.3769
            longitude = 8.5417
            scenario = "stationary"
            """, file: "test board")
    }

    /// A run of the subsystem as the engine drives it: the decision every second (the tick), the
    /// sample (or latch read) when due.
    final class Rig {
        let clock = ManualClock()
        let sensors: SensorSubsystem
        let bus: SimulatedI2CBus
        let address: I2CAddress
        var decision = MotionLatchEngineTests.idle
        var samples = 0
        var reports: [LocationError] = []

        /// `legs`: the unit's walk (speed 0 is still; a moving leg vibrates the accelerometer).
        init(board: BoardDescription, legs: [Trajectory.Leg]) throws {
            let track = Trajectory.legs(legs, latitude: 47.3769, longitude: 8.5417)
            let simulated = try BoardHardware.simulatedBoard(for: board, motion: .still(BodyAttitude(yaw: 30, pitch: 2, roll: -1)),
                                                             clock: clock, trajectory: track)
            let platform = simulated.platform
            sensors = SensorSubsystem(board: board, hardware: platform)
            bus = try #require(platform.bus(1))
            address = try #require(board.accelerometer?.address)
        }

        var now: Double { clock.now().seconds }

        func run(until end: Double) {
            let stop = MonotonicInstant(nanoseconds: UInt64(end * 1e9))
            var tick = clock.now()
            while clock.now() < stop {
                let next = min(tick, sensors.nextSample, stop)
                clock.advance(to: next)
                if clock.now() >= tick {
                    sensors.schedule(decision, at: clock.now()) { reports.append($0) }
                    tick = clock.now().advanced(by: .seconds(1))
                }
                if clock.now() >= sensors.nextSample {
                    _ = sensors.sample(lastLocation: nil) { reports.append($0) }
                    samples += 1
                }
            }
        }

        /// Reads (samples or latch reads) and accelerometer bus transactions in `seconds` from now.
        func count(for seconds: Double) -> (samples: Int, transactions: Int) {
            bus.clearLog()
            let before = samples
            run(until: now + seconds)
            return (samples - before, bus.log.filter { $0.address == address }.count)
        }

        /// A client arrives now: the decision changes at once (the engine decides on a client's arrival).
        func clientArrives() {
            decision = MotionLatchEngineTests.client
            sensors.schedule(decision, at: clock.now()) { reports.append($0) }
        }
    }

    @Test("still for 10 min with no client: a latch read every 5 s (12 a minute, not 240), and an arriving client finds 600 s of stillness")
    func stillnessHistorySurvivesTheLatch() throws {
        let rig = try Rig(board: try BoardCatalog.load(builtin: "sim"), legs: [.init(duration: 3600, speed: 0, course: 0)])
        rig.run(until: 300)
        #expect(rig.sensors.latchArmedAt != nil)
        let idle = rig.count(for: 60)
        #expect(idle.samples == 12 && idle.transactions == 12, "\(idle)")
        rig.run(until: 600)
        rig.clientArrives()
        #expect(rig.sensors.latchArmedAt == nil)
        #expect(rig.sensors.nextSample == rig.clock.now().advanced(by: .milliseconds(250)))
        #expect(rig.sensors.motion.moving == false)
        let still = rig.sensors.motion.stillFor(at: rig.clock.now())
        #expect(abs(still - 600) <= 1, "still for \(still) s")
        let sampling = rig.count(for: 60)
        #expect(sampling.samples == 240, "\(sampling)")
        #expect(rig.sensors.motion.moving == false)
        #expect(abs(rig.sensors.motion.stillFor(at: rig.clock.now()) - 660) <= 1)
        #expect(rig.reports.isEmpty)
    }

    @Test("a 3 s walk with no client is latched: a client arriving later finds the stillness since then, one arriving at once finds motion")
    func motionWithoutClientIsNotLost() throws {
        let legs: [Trajectory.Leg] = [.init(duration: 300, speed: 0, course: 0), .init(duration: 3, speed: 1.4, course: 45),
                                      .init(duration: 3600, speed: 0, course: 0)]
        let later = try Rig(board: try BoardCatalog.load(builtin: "sim"), legs: legs)
        later.run(until: 600)
        later.clientArrives()
        let motion = later.sensors.motion
        let still = motion.stillFor(at: later.clock.now())
        #expect(still > 0 && still <= 300, "still for \(still) s: not since before the walk")
        #expect(motion.lastMotion.map { $0.seconds >= 300 && $0.seconds <= 310 } == true, "\(String(describing: motion.lastMotion))")

        let atOnce = try Rig(board: try BoardCatalog.load(builtin: "sim"), legs: legs)
        atOnce.run(until: 302)
        atOnce.clientArrives()
        #expect(atOnce.sensors.motion.moving == true && atOnce.sensors.motion.stillFor(at: atOnce.clock.now()) == 0)
        atOnce.run(until: 303.5)
        #expect(atOnce.sensors.motion.moving == true, "the verdict stands while the sample window fills")
    }

    @Test("the LSM303AGR and the ICM-20948 (wake-on-motion) latch too: 12 reads a minute, the stillness history kept")
    func otherChipsLatch() throws {
        let agr = try Rig(board: try Self.board("lsm303agr-accel", "0x19", "lsm303agr-mag", "0x1e"),
                          legs: [.init(duration: 3600, speed: 0, course: 0)])
        agr.run(until: 120)
        let counted = agr.count(for: 60)
        #expect(counted.samples == 12 && counted.transactions == 12, "\(counted)")
        agr.clientArrives()
        #expect(abs(agr.sensors.motion.stillFor(at: agr.clock.now()) - 180) <= 1)

        let icm = try Rig(board: try Self.board("icm20948", "0x68", "ak09916", "0x0c"),
                          legs: [.init(duration: 3600, speed: 0, course: 0)])
        icm.run(until: 120)
        #expect(icm.sensors.latchArmedAt != nil)
        let icmCounted = icm.count(for: 60)
        #expect(icmCounted.samples == 12 && icmCounted.transactions == 12, "\(icmCounted)")
        #expect(icm.reports.isEmpty)
        icm.clientArrives()
        #expect(abs(icm.sensors.motion.stillFor(at: icm.clock.now()) - 180) <= 1)
    }
}
