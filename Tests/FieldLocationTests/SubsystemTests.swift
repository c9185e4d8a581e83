import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
@testable import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import NMEA
import PowerPolicy
import SimulatedHardware
import Testing

/// Each of the engine's subsystems alone, on a manual clock, with values in and values out.
@Suite("Engine subsystems alone")
struct SubsystemTests {
    final class Box<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [T] = []
        func append(_ item: T) { lock.withLock { items.append(item) } }
        var all: [T] { lock.withLock { items } }
    }

    // MARK: ClientRegistry

    @Test("the registry merges its clients' demands into one decision; the last one gone idles it")
    func demandMerging() throws {
        let registry = ClientRegistry(stateDirectory: nil)
        let policy = PowerPolicy(profile: .ubloxM10)
        let coarse = registry.register(name: "coarse", persistentName: nil) { _ in }.id
        registry.update(coarse) { s in
            s.updatingLocation = true
            s.desiredAccuracy = .threeKilometers
        }
        let compass = registry.register(name: "compass", persistentName: nil) { _ in }.id
        var motion = MotionDetector()
        motion.reset()

        var decision = registry.decide(registry.snapshot(), policy: policy, state: PolicyState(), motion: motion, lastFixAt: nil)
        let coarseOnly = decision
        #expect(decision.magnetometer == .powerDown, "no client wants headings yet")

        registry.update(compass) { $0.updatingHeading = true }
        let demands = registry.demands(registry.snapshot(), motion: motion, lastFixAt: nil)
        #expect(Set(demands.map(\.client)) == ["coarse#\(coarse)", "compass#\(compass)"])
        decision = registry.decide(registry.snapshot(), policy: policy, state: PolicyState(), motion: motion, lastFixAt: nil)
        #expect(decision.magnetometer != .powerDown, "the compass client's headings win for the magnetometer")
        #expect(decision.receiver == coarseOnly.receiver, "headings alone ask nothing of the receiver")

        registry.update(coarse) { $0.desiredAccuracy = .best }
        decision = registry.decide(registry.snapshot(), policy: policy, state: PolicyState(), motion: motion, lastFixAt: nil)
        #expect(decision.receiver == policy.decide([ClientDemand(client: "x", desiredAccuracy: .best)], state: PolicyState()).receiver,
                "the most demanding accuracy governs the receiver")

        registry.unregister(coarse)
        registry.unregister(compass)
        decision = registry.decide(registry.snapshot(), policy: policy, state: PolicyState(), motion: motion, lastFixAt: nil)
        #expect(decision == policy.decide([], state: PolicyState()))
        #expect(registry.count == 0)
    }

    @Test("the registry delivers a location through each client's own distance filter and reduces accuracy per client")
    func perClientDelivery() {
        let registry = ClientRegistry(stateDirectory: nil)
        let every = Box<EngineEvent>(), filtered = Box<EngineEvent>()
        let a = registry.register(name: "every", persistentName: nil) { every.append($0) }.id
        let b = registry.register(name: "filtered", persistentName: nil) { filtered.append($0) }.id
        registry.update(a) { $0.updatingLocation = true }
        registry.update(b) { s in
            s.updatingLocation = true
            s.distanceFilter = 100
            s.reducedAccuracy = true
        }
        let t0 = MonotonicInstant.zero
        for step in 0..<5 {
            let at = t0.advanced(by: .seconds(step))
            // 10 m north per second.
            let location = Location(latitude: 47 + Double(step) * 10 / 111_000, longitude: 8, horizontalAccuracy: 3, receivedAt: at)
            registry.deliver(location, at: at)
        }
        #expect(every.all.count == 5)
        #expect(filtered.all.count == 1, "40 m travelled is within the 100 m filter")
        if case .locations(let l) = filtered.all.first {
            #expect(l.first?.horizontalAccuracy ?? 0 > 3, "reduced accuracy is coarsened")
        } else {
            Issue.record("no location for the filtered client")
        }
    }

    // MARK: EnergyAccounting

    @Test("energy accounting charges each stretch between ticks to the decision in force during it")
    func energyAccumulates() {
        let profile = ReceiverProfile.ubloxM10
        let policy = PowerPolicy(profile: profile)
        let tracking = policy.decide([ClientDemand(client: "a", desiredAccuracy: .best, pausesAutomatically: false)], state: PolicyState())
        let idle = policy.decide([], state: PolicyState())
        var energy = EnergyAccounting(profile: profile)
        energy.tick(at: .zero, previous: nil)
        #expect(energy.ledger.charge(.receiver) == 0, "nothing before the first decision")
        energy.tick(at: MonotonicInstant.zero.advanced(by: .seconds(60)), previous: tracking)
        energy.tick(at: MonotonicInstant.zero.advanced(by: .seconds(3660)), previous: idle)
        let trackingCharge = tracking.meanCurrent(profile) * 60 / 3600
        let idleCharge = idle.meanCurrent(profile) * 3600 / 3600
        #expect(abs(energy.ledger.charge(.receiver) - (trackingCharge + idleCharge)) < 1e-9)
        #expect(energy.ledger.entries[.receiver]?[tracking.receiver.stateName]?.seconds == 60)
        #expect(energy.ledger.entries[.receiver]?[idle.receiver.stateName]?.seconds == 3600)
        #expect(energy.ledger.seconds(.receiver) == 3660)
    }

    // MARK: ReceiverSubsystem

    @Test("the receiver subsystem retries a missing port after 0.25, 0.5, 1, 2, 2 s, reporting each failure")
    func portBackoff() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let clock = ManualClock()
        let empty = try SimulatedPlatform(SimulatedPlatformDescription(), clock: clock)
        let receiver = ReceiverSubsystem(board: board, platform: SimulatedEnginePlatform(platform: empty), initiallyAwake: true)
        var attempts: [Double] = []
        let start = clock.now()
        while clock.now() < start.advanced(by: .seconds(6)) {
            let before = attempts.count
            receiver.ensurePort(at: clock.now()) { error in
                if case .hardware(.other, let message) = error, message.contains(BoardHardware.simulatedPortName) {
                    attempts.append((clock.now() - start).secondsDouble)
                }
            }
            #expect(attempts.count <= before + 1)
            clock.advance(by: .milliseconds(50))
        }
        #expect(attempts.map { ($0 * 100).rounded() / 100 } == [0, 0.25, 0.75, 1.75, 3.75, 5.75])
        #expect(receiver.port == nil)
        #expect(receiver.portProblem?.contains("No such file") == true)
    }

    @Test("the receiver subsystem's watchdog wakes a silent receiver, then power-cycles it, and its fixes come back")
    func watchdog() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let clock = ManualClock()
        let sim = try BoardHardware.simulatedBoard(for: board, clock: clock)
        let receiver = ReceiverSubsystem(board: board, platform: SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver),
                                         initiallyAwake: true)
        var reports: [String] = []
        var fixes: [Fix] = []
        func run(seconds: Int) {
            for _ in 0..<seconds {
                let now = clock.now()
                receiver.ensurePort(at: now) { reports.append($0.description) }
                receiver.watchdog(at: now) { reports.append($0.description) }
                let bytes = receiver.read(until: now.advanced(by: .seconds(1))) { reports.append($0.description) }
                fixes += receiver.decode(bytes, at: clock.now()).fixes
            }
        }
        run(seconds: 5)
        #expect(!fixes.isEmpty)
        #expect(reports.isEmpty, "\(reports)")
        sim.receiver.setPower(false, at: clock.now())
        fixes.removeAll()
        run(seconds: 7)
        #expect(reports.count == 1 && reports.first?.contains("waking the receiver") == true, "\(reports)")
        #expect(receiver.counters.watchdogWakes == 1 && receiver.counters.powerCycles == 0)
        run(seconds: 5)
        #expect(reports.contains { $0.contains("power-cycling") }, "\(reports)")
        #expect(receiver.counters.powerCycles == 1)
        fixes.removeAll()
        run(seconds: 10)
        #expect(!fixes.isEmpty, "fixes again after the power cycle")
    }

    // MARK: SensorSubsystem

    @Test("the sensor subsystem samples at the decision's rate and reports sensors that do not answer once")
    func sensors() throws {
        // The sim board with its gyroscope off: one sample per heading at the decision's rate
        // (with the gyroscope on, samples come every 20 ms and headings every 100 ms:
        // AttitudeWiringTests).
        var board = try BoardCatalog.load(builtin: "sim")
        board.sensors = board.sensors.map { var s = $0; s.gyroscopeRange = nil; return s }
        let platform = try BoardHardware.simulatedPlatform(for: board)
        let policy = PowerPolicy(profile: .mt3339)
        let headings = policy.decide([ClientDemand(client: "h", desiredAccuracy: nil, wantsHeading: true, headingFilter: nil)],
                                     state: PolicyState())
        let sensors = SensorSubsystem(board: board, hardware: platform)
        var reports: [LocationError] = []
        sensors.schedule(headings, at: platform.clock.now()) { reports.append($0) }
        #expect(sensors.nextSample == platform.clock.now().advanced(by: .milliseconds(100)))
        var updates: [HeadingUpdate] = []
        for _ in 0..<10 {
            platform.clock.sleep(until: sensors.nextSample)
            if let h = sensors.sample(lastLocation: nil, report: { reports.append($0) }) { updates.append(h) }
        }
        #expect(updates.count == 10)
        #expect(updates.allSatisfy { $0.trueHeading == nil }, "no reference field before a location")
        #expect(reports.isEmpty)

        var absent = board
        absent.sensors = absent.sensors.map { var s = $0; if s.role.measuresMagneticField { s.address = I2CAddressForTest.lis3mdlAlt }; return s }
        let missing = SensorSubsystem(board: absent, hardware: platform)
        for _ in 0..<5 {
            missing.schedule(headings, at: platform.clock.now()) { reports.append($0) }
            platform.clock.sleep(until: platform.clock.now().advanced(by: .seconds(1)))
        }
        #expect(reports.count == 1, "reported once, retried every 2 s: \(reports)")
        if case .headingFailure = reports.first {} else { Issue.record("\(reports)") }
        #expect(missing.problem != nil && missing.nextSample == .distantFuture)
    }

    @Test("the magnetic reference's date comes from a UTC instant (2026-05-01 is day 121 of 2026)")
    func decimalYear() {
        let may1 = 1_777_593_600.0
        #expect(abs(SensorSubsystem.decimalYear(utcSeconds: may1) - (2026 + 120.0 / 365)) < 1e-12)
        #expect(SensorSubsystem.decimalYear(utcSeconds: 0) == 1970)
        let platform = SimulatedEnginePlatform(platform: try! SimulatedPlatform(SimulatedPlatformDescription()))
        #expect(platform.utcSeconds(at: MonotonicInstant.zero.advanced(by: .seconds(60))) == may1 + 60)
    }

    // MARK: TimingSubsystem

    @Test("the timing subsystem pairs a PPS edge with the fix of the second it starts")
    func pps() throws {
        let text = (BoardCatalog.text(ofBuiltin: "sim") ?? "")
            .replacingOccurrences(of: "name = \"sim\"", with: "name = \"sim-pps\"")
            .replacingOccurrences(of: "[setup]", with: "[gpio]\nchip = \"gpiochip0\"\ngnss_pps = \"gnss-pps\"\n\n[setup]")
        let board = try BoardLoader.load(text: text, file: "sim-pps.toml")
        let platform = try BoardHardware.simulatedPlatform(for: board)
        let clock = platform.manualClock
        let timing = TimingSubsystem(board: board, hardware: platform)
        #expect(timing.status(at: clock.now()) == .waiting)
        var reports: [LocationError] = []
        timing.ensureLine { reports.append($0) }
        #expect(reports.isEmpty)
        let line = try #require(platform.gpioChip(named: "gpiochip0")?.line(named: "gnss-pps"))
        line.schedulePulses(GPIOPulseTrain(start: clock.now().advanced(by: .seconds(1))))
        clock.advance(by: .milliseconds(1100))
        timing.drain()
        let sample = try #require(timing.fix(utc: 1_777_593_601, receivedAt: clock.now()))
        #expect(sample.utcSecond == 1_777_593_601)
        #expect((sample.nmeaArrival - sample.edge).secondsDouble < 1)
        #expect(timing.fix(utc: 1_777_593_601.5, receivedAt: clock.now()) == nil, "one pairing per edge")

        let plain = TimingSubsystem(board: try BoardCatalog.load(builtin: "sim"), hardware: platform)
        #expect(plain.status(at: clock.now()) == .none)
    }
}
