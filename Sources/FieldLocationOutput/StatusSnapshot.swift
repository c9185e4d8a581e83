import FieldLocation
import Foundation
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy

/// Everything the status readout shows, taken at one moment.
public struct StatusSnapshot: Sendable {
    /// Board name and title.
    public var board: String, boardTitle: String
    /// Receiver identity (family and model from the board, or what detection found).
    public var receiver: String
    /// The last assembled fix (with satellites), and its age in seconds.
    public var fix: Fix?
    /// Seconds since the last fix arrived.
    public var fixAge: Double?
    /// The last heading, and its age in seconds.
    public var heading: HeadingUpdate?
    /// Seconds since the last heading.
    public var headingAge: Double?
    /// Calibration verdict and score, when one is applied.
    public var calibration: (verdict: String, score: Double)?
    /// The power policy's decision.
    public var decision: PowerDecision?
    /// Receiver charge so far and over how long.
    public var energy: EnergyLedger
    /// Seconds the engine has run.
    public var uptime: Double
    /// Engine counters.
    public var counters: LocationEngine.Counters
    /// Problems to show.
    public var warnings: [String]
    /// Time quality from the PPS line.
    public var pps: PPSStatus = .none
    /// The time service's source, offsets and sentence delay, when the readout runs one.
    public var time: StatusTime?
    /// Read from a daemon's gpsd socket: calibration, power and energy are the daemon's and not shown.
    public var remote = false
    /// The NTRIP corrections (link, age, message types, RTK state), when a client is attached.
    public var corrections: CorrectionStatus?
    /// The unit's health counters and gauges (see ``UnitHealth``).
    public var health = UnitHealth()
    /// Every client's monitored regions and their states.
    public var regions: [RegionOverview] = []
    /// The energy attributed to each client whose demand caused it (``LocationEngine/energyByClient``):
    /// passive clients at 0, what no client caused under ``ClientEnergyLedger/unattributed``.
    public var energyByClient: [(client: String, charge: Double)] = []
    /// Each service of the board with whether its device can be used and why not (`nil` when
    /// read from a daemon's gpsd socket, which does not say).
    public var capabilities: DeviceCapabilities?
    /// Each receiver of a board with several (``LocationEngine/receiverSources``; from a daemon,
    /// its devices as `?DEVICES` and the TPVs name them); the readouts list them when there are
    /// two or more.
    public var receivers: [ReceiverSourceStatus] = []

    /// Creates a snapshot.
    public init(board: String, boardTitle: String, receiver: String, fix: Fix?, fixAge: Double?, heading: HeadingUpdate?,
                headingAge: Double?, calibration: (verdict: String, score: Double)?, decision: PowerDecision?, energy: EnergyLedger,
                uptime: Double, counters: LocationEngine.Counters, warnings: [String]) {
        self.board = board
        self.boardTitle = boardTitle
        self.receiver = receiver
        self.fix = fix
        self.fixAge = fixAge
        self.heading = heading
        self.headingAge = headingAge
        self.calibration = calibration
        self.decision = decision
        self.energy = energy
        self.uptime = uptime
        self.counters = counters
        self.warnings = warnings
    }
}

/// Keeps what the status readout needs from a running engine: a client that wants locations
/// (best) and headings, and an observer of every fix (satellites included).
public final class StatusMonitor: @unchecked Sendable {
    /// The engine.
    public let engine: LocationEngine
    private let client: Int
    private let observer: Int
    private let started: MonotonicInstant

    /// When the stored magnetometer calibration was made (ISO 8601, as the file says), for the
    /// health block; the caller that loaded it sets it.
    public var calibrationCreated: String? {
        get { errorBox.lock.withLock { errorBox.calibrationCreated } }
        set { errorBox.lock.withLock { errorBox.calibrationCreated = newValue } }
    }

    /// Starts watching `engine`. With `demand` (the default) the monitor is a client that wants
    /// locations at the best accuracy and headings when the board has sensors; without, it only
    /// observes what other clients make the engine produce (``setDemand(_:)`` changes it).
    public init(engine: LocationEngine, demand: Bool = true) {
        self.engine = engine
        started = engine.clock.now()
        let box = ErrorBox()
        client = engine.register(name: "status") { event in
            if case .error(let e) = event { box.add(e.description) }
        }.id
        errorBox = box
        let fixBox = FixBox()
        observer = engine.observe { observation in
            if case .fix(let fix, let at) = observation { fixBox.set(fix, at) }
        }
        self.fixBox = fixBox
        if demand { setDemand(true) }
    }
    private let errorBox: ErrorBox
    private let fixBox: FixBox

    /// Makes the monitor want locations (best accuracy) and headings, or nothing.
    public func setDemand(_ on: Bool) {
        let engine = self.engine
        engine.update(client) { s in
            s.updatingLocation = on
            s.desiredAccuracy = .best
            s.pausesAutomatically = false
            s.updatingHeading = on && engine.headingAvailable
            s.headingFilter = nil
        }
    }

    final class ErrorBox: @unchecked Sendable {
        let lock = NSLock()
        var messages: [String] = []
        var calibrationCreated: String?
        /// The fix count and time of the last fix-rate sample, and the rate it gave.
        var rateSample: (fixes: Int, at: MonotonicInstant)?
        var fixRate: Double?
        func add(_ m: String) { lock.withLock { if !messages.contains(m) { messages.append(m); if messages.count > 8 { messages.removeFirst() } } } }
    }

    final class FixBox: @unchecked Sendable {
        let lock = NSLock()
        var value: (Fix, MonotonicInstant)?
        func set(_ f: Fix, _ at: MonotonicInstant) { lock.withLock { value = (f, at) } }
    }

    /// Stops watching (the engine's demand from this monitor goes).
    public func close() {
        engine.unregister(client)
        engine.removeObserver(observer)
    }

    /// Whether a position fix has arrived.
    public var hasPosition: Bool { fixBox.lock.withLock { fixBox.value?.0.hasPosition ?? false } }

    /// The snapshot now.
    public func snapshot() -> StatusSnapshot {
        let now = engine.clock.now()
        let fix = fixBox.lock.withLock { fixBox.value }
        let heading = engine.lastHeading
        var warnings = errorBox.lock.withLock { errorBox.messages }
        if let problem = engine.hardwareProblem, !warnings.contains(problem) { warnings.insert(problem, at: 0) }
        warnings += engine.receiverFailures.suffix(3).map { "receiver command failed: \($0)" }
        if let age = fix.map({ (now - $0.1).secondsDouble }), age > 5, engine.decision.map({ if case .continuous = $0.receiver { return true } else { return false } }) == true {
            warnings.append("no data from the receiver for \(Int(age)) s")
        }
        if let h = heading, h.trueHeading == nil { warnings.append("true heading waits for the first fix (declination)") }
        let calibration = engine.calibration.map { ($0.quality.verdict.rawValue, $0.quality.score) }
        let r = engine.board.receiver
        let receiver = [r?.family.rawValue, r?.model].compactMap { $0 }.joined(separator: " ")
        let pps = engine.ppsStatus
        if case .missing = pps { warnings.append("PPS: \(pps); time comes from NMEA only (about ±100 ms)") }
        if case .irregular = pps { warnings.append("PPS: \(pps)") }
        var snapshot = StatusSnapshot(board: engine.board.name, boardTitle: engine.board.title, receiver: receiver.isEmpty ? "none" : receiver,
                              fix: fix?.0, fixAge: fix.map { (now - $0.1).secondsDouble }, heading: heading,
                              headingAge: heading.map { (now - $0.takenAt).secondsDouble }, calibration: calibration,
                              decision: engine.decision, energy: engine.energyUsed, uptime: (now - started).secondsDouble,
                              counters: engine.statistics, warnings: warnings)
        snapshot.pps = pps
        snapshot.capabilities = engine.capabilities
        snapshot.receivers = engine.receiverSources
        snapshot.corrections = engine.correctionStatus
        var health = engine.health(fixAge: snapshot.fixAge, uptime: snapshot.uptime)
        health.fixRate = errorBox.lock.withLock { () -> Double? in
            // A rate over at least 5 s of the engine's clock: the newest sample replaces the old one then.
            guard let sample = errorBox.rateSample else {
                errorBox.rateSample = (health.fixes, now)
                return nil
            }
            let seconds = (now - sample.at).secondsDouble
            if seconds >= 5 {
                errorBox.fixRate = Double(health.fixes - sample.fixes) / seconds
                errorBox.rateSample = (health.fixes, now)
            }
            return errorBox.fixRate
        }
        health.calibrationCreated = errorBox.lock.withLock { errorBox.calibrationCreated }
        snapshot.health = health
        snapshot.regions = engine.regionOverview()
        snapshot.energyByClient = engine.energyByClient
        if let c = snapshot.corrections, c.link != "streaming" { warnings.append("NTRIP \(c.source): \(c.linkDescription)") }
        snapshot.warnings = warnings
        return snapshot
    }
}
