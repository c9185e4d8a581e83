import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware

/// One run of the power policy against the simulated receiver on a virtual clock: the policy
/// decides every second, an executor wakes and sleeps the receiver model as the decision says,
/// the receiver's fixes go out as NMEA through the real framer, parser and epoch assembler, and
/// the delivered locations are compared with the ground truth.
public struct PolicySimulation: Sendable {
    /// The result of a run.
    public struct Result: Sendable {
        /// Scenario name.
        public var scenario: String
        /// Receiver profile name.
        public var receiver: String
        /// Accuracy level.
        public var accuracy: DesiredAccuracy
        /// Simulated seconds.
        public var duration: Double
        /// Receiver charge, mAh.
        public var energy: Double
        /// Mean receiver current, mA.
        public var meanCurrent: Double
        /// 95th percentile of the distance between the last delivered location and the truth,
        /// sampled every second (what an application believes), metres.
        public var p95Error: Double
        /// 95th percentile of the error of each delivered fix at its own time, metres.
        public var p95FixError: Double
        /// Locations delivered.
        public var fixesDelivered: Int
        /// Wake-ups by kind.
        public var starts: [StartKind: Int]
        /// Seconds per receiver state.
        public var timeInState: [String: Double]
        /// The energy ledger.
        public var ledger: EnergyLedger
        /// The charge the receiver's backup current alone draws over the run, mAh.
        public var backupFloor: Double
        /// Charge drawn after the first delivered fix, mAh.
        public var energyAfterFirstFix: Double
        /// The backup floor over the time after the first delivered fix, mAh.
        public var backupFloorAfterFirstFix: Double
        /// Receiver commands that failed.
        public var commandFailures: [String]
    }

    /// The truth.
    public var trajectory: Trajectory
    /// Scenario name (for the result).
    public var scenario: String
    /// The receiver.
    public var profile: ReceiverProfile
    /// The client's demand.
    public var demand: ClientDemand
    /// Seconds the unit has been still before the start (a parked unit has been still for long).
    public var stillBeforeStart: Double = 0
    /// Random seed of the receiver's error.
    public var seed: UInt64 = 1

    /// Creates a simulation.
    public init(trajectory: Trajectory, scenario: String, profile: ReceiverProfile, demand: ClientDemand) {
        self.trajectory = trajectory
        self.scenario = scenario
        self.profile = profile
        self.demand = demand
    }

    /// The emulated receiver family for a profile.
    var family: ReceiverEmulator.Family {
        if profile == .ubloxM10 { return .ublox10 }
        if profile == .ubloxM8 { return .ublox8 }
        return .mediatek
    }

    /// Runs it: every simulated second the policy decides, the executor commands the receiver
    /// through its driver (bytes on a simulated serial port, a power-enable line), the emulator
    /// answers and streams NMEA, and the NMEA engine turns that into the fixes delivered.
    public func run() -> Result {
        let policy = PowerPolicy(profile: profile)
        let clock = ManualClock()
        let start = clock.now()
        let port = SimulatedSerialPort(name: "sim-gnss", clock: clock)
        let receiver = ReceiverEmulator(family: family, profile: profile, trajectory: trajectory, start: start,
                                        awake: false, seed: seed)
        port.attach(receiver)
        let power = receiver.powerLine(clock: clock)
        try? power.set(false)
        let channel = CommandChannel(port: port)
        let lines = ReceiverLines(powerEnable: power)
        let driver: any ReceiverDriver
        switch family {
        case .ublox10: driver = UBloxDriver(channel: channel, generation: .m10, lines: lines)
        case .ublox8: driver = UBloxDriver(channel: channel, generation: .m8, lines: lines)
        case .mediatek: driver = MediaTekDriver(channel: channel, lines: lines)
        case .casic: driver = CASICDriver(channel: channel, lines: lines)
        }
        let executor = ReceiverExecutor(driver: driver, clock: clock, awake: false)
        if family == .ublox8 || family == .ublox10 { executor.binaryOutput = .both }  // u-blox 8+ default
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, provenance: .simulator,
                                                                           ecefConversion: Geodesy.wgs84ECEF))
        // NMEA read by the driver while it waits for acknowledgements must reach the stream too.
        var passed: [UInt8] = []
        channel.passThrough = { passed += $0 }
        let duration = Int(trajectory.duration)
        var stillFor = stillBeforeStart
        var lastFix: (at: MonotonicInstant, accuracy: Double?)? = nil
        var recentSpeeds: [(Double, Double)] = []
        var delivered: (latitude: Double, longitude: Double)? = nil
        var believedErrors: [Double] = []
        var fixErrors: [Double] = []
        var deliveredCount = 0
        var firstFixAt: Double? = nil
        var chargeAtFirstFix = 0.0
        let budget = demand.desiredAccuracy?.budget
        var second = 0
        while second < duration {
            let t = Double(second)
            let truth = trajectory.at(t)
            let moving = truth.speed > 0.2
            stillFor = moving ? 0 : stillFor + 1
            // Speeds of the fixes of the last 15 minutes: sparse schedules see few fixes, and a fix taken
            // at a traffic light must not make the policy believe the car is slow.
            recentSpeeds.removeAll { t - $0.0 > 900 }
            let sortedSpeeds = recentSpeeds.map(\.1).sorted()
            let speed95 = sortedSpeeds.isEmpty ? nil : sortedSpeeds[min(sortedSpeeds.count - 1, Int(Double(sortedSpeeds.count) * 0.95))]
            let ephemerisAge = receiver.ephemerisAge
            let state = PolicyState(timeSinceFix: lastFix.map { (clock.now() - $0.at).secondsDouble }, recentSpeed: speed95,
                                    moving: moving, stillFor: stillFor, ephemerisAge: ephemerisAge,
                                    satellitesUsed: lastFix == nil ? 0 : 9, horizontalAccuracy: lastFix?.accuracy ?? nil)
            let decision = policy.decide([demand], state: state)
            executor.apply(decision, lastFix: lastFix?.at, ephemerisFresh: (ephemerisAge ?? .infinity) < policy.ephemerisRefreshAge)
            // Read to the end of this second (commands may have used part of it, or more).
            let end = start.advanced(by: .seconds(second + 1))
            var bytes = passed
            passed.removeAll()
            while clock.now() < end, let chunk = try? port.readAvailable(maximum: 4096, deadline: end), !chunk.isEmpty {
                bytes += chunk
            }
            var fixes: [Fix] = []
            bytes.withUnsafeBufferPointer { stream.feed($0.span) { fixes.append($0) } }
            for fix in fixes where fix.mode != .noFix {
                guard let lat = fix.latitude, let lon = fix.longitude else { continue }
                // 95 % from the 68 % radius; a fix without an estimate has none (nothing is invented).
                let accuracy = fix.horizontalAccuracy.map { $0 * 2 }
                lastFix = (clock.now(), accuracy)
                recentSpeeds.append((t, fix.speed ?? 0))
                executor.noteFix(good: budget == nil || accuracy.map { $0 <= max(budget ?? 0, 5) } == true)
                let passes: Bool
                if let d = demand.distanceFilter, let last = delivered {
                    passes = Geodesy.distance(latitude1: last.latitude, longitude1: last.longitude, latitude2: lat, longitude2: lon) >= d
                } else {
                    passes = true
                }
                if passes {
                    delivered = (lat, lon)
                    deliveredCount += 1
                    if firstFixAt == nil {
                        firstFixAt = t
                        chargeAtFirstFix = receiver.ledger.charge(.receiver)
                    }
                    fixErrors.append(Geodesy.distance(latitude1: lat, longitude1: lon, latitude2: truth.latitude, longitude2: truth.longitude))
                }
            }
            // Commands can carry the clock past several seconds (a boot wait): account for each.
            let reached = max(second + 1, Int((clock.now() - start).secondsDouble.rounded(.down)))
            while second < min(reached, duration) {
                let truthNow = trajectory.at(Double(second))
                if let believed = delivered {
                    believedErrors.append(Geodesy.distance(latitude1: believed.latitude, longitude1: believed.longitude,
                                                           latitude2: truthNow.latitude, longitude2: truthNow.longitude))
                }
                second += 1
            }
        }
        _ = receiver.transmit(upTo: start.advanced(by: .seconds(duration)))
        let ledger = receiver.ledger
        var timeInState: [String: Double] = [:]
        for (state, entry) in ledger.entries[.receiver] ?? [:] { timeInState[state] = entry.seconds }
        let hours = Double(duration) / 3600
        let energy = ledger.charge(.receiver)
        return Result(
            scenario: scenario, receiver: profile.name, accuracy: demand.desiredAccuracy ?? .best, duration: Double(duration),
            energy: energy, meanCurrent: hours > 0 ? energy / hours : 0,
            p95Error: Self.percentile95(believedErrors), p95FixError: Self.percentile95(fixErrors),
            fixesDelivered: deliveredCount, starts: receiver.starts, timeInState: timeInState, ledger: ledger,
            backupFloor: profile.backup * hours, energyAfterFirstFix: energy - chargeAtFirstFix,
            backupFloorAfterFirstFix: profile.backup * (Double(duration) - (firstFixAt ?? Double(duration))) / 3600,
            commandFailures: executor.failures.map(\.description))
    }

    /// The 95th percentile (nearest rank); 0 for no values.
    static func percentile95(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((0.95 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, rank))]
    }
}
