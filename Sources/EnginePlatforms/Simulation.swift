import BoardConfig
import Devices
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import PowerPolicy
import SimulatedHardware

/// One client of the real ``LocationEngine`` on a simulated board, on a manual clock: the
/// board's receiver emulator follows the truth (a scenario or a recorded track), one
/// ``LocationManager`` asks for an accuracy level (and a distance filter), the engine runs as it
/// runs on hardware (its power policy, receiver driver, NMEA engine, motion detection from the
/// simulated accelerometer, client filters), and the energy is read from the emulated
/// receiver's own ledger. `fieldloc simulate` prints what it measures.
///
/// An hour of simulated time takes about a second of wall time.
public struct EngineSimulation: Sendable {
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
        /// 95th percentile of the error of each delivered location at the time it was received, metres.
        public var p95FixError: Double
        /// Locations delivered to the client.
        public var fixesDelivered: Int
        /// Wake-ups by kind.
        public var starts: [StartKind: Int]
        /// Seconds per receiver state.
        public var timeInState: [String: Double]
        /// The emulated receiver's energy ledger.
        public var ledger: EnergyLedger
        /// The charge the receiver's backup current alone draws over the run, mAh.
        public var backupFloor: Double
        /// Charge drawn after the first delivered location, mAh.
        public var energyAfterFirstFix: Double
        /// The backup floor over the time after the first delivered location, mAh.
        public var backupFloorAfterFirstFix: Double
        /// Receiver commands that failed (the engine keeps the last 20).
        public var commandFailures: [String]
        /// Errors the engine reported to the client.
        public var clientErrors: [String]
    }

    /// The truth the receiver emulator follows.
    public var trajectory: Trajectory
    /// Scenario name (for the result).
    public var scenario: String
    /// The receiver: the simulated board's receiver is of this profile's family and model.
    public var profile: ReceiverProfile
    /// The client's accuracy level.
    public var desiredAccuracy: DesiredAccuracy
    /// The client's distance filter, metres; `nil` for every fix.
    public var distanceFilter: Double?
    /// The client's activity.
    public var activity: ActivityType = .other
    /// Random seed of the receiver's error.
    public var seed: UInt64 = 1
    /// Seconds the unit stands still at the trajectory's start with the engine running and no
    /// client, before the client starts and the measured time begins (a parked unit: the
    /// engine's motion detection has seen it still for that long). Nothing of it is measured.
    public var stillBeforeStart = 0

    /// Creates a simulation of `trajectory` with one client asking for `desiredAccuracy`.
    public init(trajectory: Trajectory, scenario: String, profile: ReceiverProfile, desiredAccuracy: DesiredAccuracy,
                distanceFilter: Double? = nil, activity: ActivityType = .other) {
        self.trajectory = trajectory
        self.scenario = scenario
        self.profile = profile
        self.desiredAccuracy = desiredAccuracy
        self.distanceFilter = distanceFilter
        self.activity = activity
    }

    /// The simulated board: the built-in `sim` board (its accelerometer and magnetometer), its
    /// receiver of `profile`'s family and model (u-blox M10, u-blox M8 or MediaTek MT3339).
    public static func board(for profile: ReceiverProfile) throws(HardwareError) -> BoardDescription {
        var board: BoardDescription
        do {
            board = try BoardCatalog.load(builtin: "sim")
        } catch {
            throw HardwareError(.notFound, device: "sim", operation: "load", detail: "the built-in sim board: \(error)")
        }
        guard let base = board.receiver else {
            throw HardwareError(.notFound, device: "sim", operation: "load", detail: "the built-in sim board names no receiver")
        }
        let (family, model): (ReceiverFamily, String) =
            profile == .ubloxM10 ? (.ublox, "MAX-M10S (simulated)")
            : profile == .ubloxM8 ? (.ublox, "NEO-M8N (simulated)")
            : (.mediatek, "MT3339 (simulated)")
        board.receiver = ReceiverDescription(uart: nil, baudRate: base.baudRate, family: family, model: model, wake: base.wake)
        return board
    }

    /// Runs it: the engine advances one simulated second at a time until the trajectory ends;
    /// after each second the location the client last received is compared with the truth.
    public func run() throws(HardwareError) -> Result {
        let clock = ManualClock()
        let lead = max(0, stillBeforeStart)
        let engine = try LocationEngine.simulated(board: Self.board(for: profile), clock: clock,
                                                  trajectory: Self.still(lead, before: trajectory), receiverTracking: false, seed: seed)
        guard let receiver = engine.simulatedReceiver else {
            throw HardwareError(.notFound, device: BoardHardware.simulatedPortName, operation: "open", detail: "no simulated receiver")
        }
        // The parked time before the client: the engine runs with no demand.
        let start = clock.now().advanced(by: .seconds(lead))
        engine.advance(until: start)
        _ = receiver.transmit(upTo: start)
        let ledgerAtStart = receiver.ledger
        let startsAtStart = receiver.starts

        let client = Client(receiver: receiver)
        let manager = LocationManager(engine: engine, name: "simulate")
        manager.delegate = client
        manager.desiredAccuracy = desiredAccuracy
        if let distanceFilter, distanceFilter > 0 { manager.distanceFilter = distanceFilter }
        manager.activityType = activity
        manager.startUpdatingLocation()

        let duration = Int(trajectory.duration)
        var believedErrors: [Double] = []
        believedErrors.reserveCapacity(duration)
        for second in 1...max(duration, 1) where second <= duration {
            engine.advance(until: start.advanced(by: .seconds(second)))
            guard let believed = client.last else { continue }
            let truth = trajectory.at(Double(second))
            believedErrors.append(Geodesy.distance(latitude1: believed.latitude, longitude1: believed.longitude,
                                                   latitude2: truth.latitude, longitude2: truth.longitude))
        }
        manager.stopUpdatingLocation()
        _ = receiver.transmit(upTo: start.advanced(by: .seconds(duration)))  // the ledger up to the end of the run
        let ledger = Self.ledger(receiver.ledger, since: ledgerAtStart)
        let delivered = client.delivered
        let fixErrors = delivered.map { location -> Double in
            let truth = trajectory.at((location.receivedAt - start).secondsDouble)
            return Geodesy.distance(latitude1: location.latitude, longitude1: location.longitude,
                                    latitude2: truth.latitude, longitude2: truth.longitude)
        }
        var timeInState: [String: Double] = [:]
        for (state, entry) in ledger.entries[.receiver] ?? [:] { timeInState[state] = entry.seconds }
        var starts: [StartKind: Int] = [:]
        for (kind, count) in receiver.starts where count > startsAtStart[kind] ?? 0 { starts[kind] = count - (startsAtStart[kind] ?? 0) }
        let hours = Double(duration) / 3600
        let energy = ledger.charge(.receiver)
        let backup = engine.policy.profile.backup
        let first = client.first
        let chargeAtFirst = first.map { $0.charge - ledgerAtStart.charge(.receiver) } ?? energy
        let afterFirst = first.map { Double(duration) - ($0.at - start).secondsDouble } ?? 0
        return Result(
            scenario: scenario, receiver: engine.policy.profile.name, accuracy: desiredAccuracy, duration: Double(duration),
            energy: energy, meanCurrent: hours > 0 ? energy / hours : 0,
            p95Error: Self.percentile95(believedErrors), p95FixError: Self.percentile95(fixErrors),
            fixesDelivered: delivered.count, starts: starts, timeInState: timeInState, ledger: ledger,
            backupFloor: backup * hours, energyAfterFirstFix: energy - chargeAtFirst,
            backupFloorAfterFirstFix: backup * max(0, afterFirst) / 3600,
            commandFailures: engine.receiverFailures, clientErrors: client.errors)
    }

    /// `trajectory` after `seconds` standing still at its first point.
    static func still(_ seconds: Int, before trajectory: Trajectory) -> Trajectory {
        guard seconds > 0, var first = trajectory.points.first else { return trajectory }
        first.speed = 0
        var points: [Trajectory.Point] = []
        points.reserveCapacity(seconds + trajectory.points.count)
        for second in 0..<seconds {
            first.time = Double(second)
            points.append(first)
        }
        for var point in trajectory.points {
            point.time += Double(seconds)
            points.append(point)
        }
        return Trajectory(points: points)
    }

    /// What `ledger` holds beyond `earlier` (an earlier reading of the same ledger).
    static func ledger(_ ledger: EnergyLedger, since earlier: EnergyLedger) -> EnergyLedger {
        guard !earlier.entries.isEmpty else { return ledger }
        var out = EnergyLedger()
        for (component, states) in ledger.entries {
            for (state, entry) in states {
                let before = earlier.entries[component]?[state] ?? EnergyLedger.Entry()
                let seconds = entry.seconds - before.seconds
                guard seconds > 0 else { continue }
                out.add(component, state: state, current: max(0, entry.charge - before.charge) * 3600 / seconds, seconds: seconds)
            }
        }
        return out
    }

    /// The 95th percentile (nearest rank); 0 for no values.
    static func percentile95(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((0.95 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, rank))]
    }

    /// The client's delegate: what it was handed, and the receiver's charge at its first location.
    private final class Client: LocationManagerDelegate, @unchecked Sendable {
        let receiver: ReceiverEmulator
        private let lock = NSLock()
        private var locations: [Location] = []
        private var failures: [String] = []
        private var firstAt: (at: MonotonicInstant, charge: Double)?

        init(receiver: ReceiverEmulator) { self.receiver = receiver }

        var delivered: [Location] { lock.withLock { locations } }
        var last: Location? { lock.withLock { locations.last } }
        var errors: [String] { lock.withLock { failures } }
        var first: (at: MonotonicInstant, charge: Double)? { lock.withLock { firstAt } }

        func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {
            guard let latest = locations.last else { return }
            let charge = receiver.ledger.charge(.receiver)
            lock.withLock {
                if firstAt == nil { firstAt = (latest.receivedAt, charge) }
                self.locations += locations
            }
        }

        func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) {
            lock.withLock { failures.append("\(error)") }
        }
    }
}
