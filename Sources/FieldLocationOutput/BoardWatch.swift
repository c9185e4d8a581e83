import BoardConfig
import EnginePlatforms
import FieldLocation
import GPSDProtocol
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy
import SensorDrivers
import Synchronization

/// Runs a board for a while and prints what its ``LocationEngine`` sees, one JSON line each: every
/// fix the engine assembles, and the engine's headings (true heading once a fix gives the WMM
/// reference) at ``headingRate``. The watch is an observer and a client of the engine, with no
/// receiver loop of its own; the same code runs a simulated board on a manual clock (fast) and a
/// real one on the system clock.
public struct BoardWatch {
    /// The board.
    public var board: BoardDescription
    /// Its platform.
    public var platform: any HardwarePlatform
    /// Headings per second (0 for none).
    public var headingRate: Double = 10
    /// Stored calibration to apply, if any.
    public var calibration: MagnetometerCalibration?
    /// The receiver's energy account, when the platform keeps one (a simulated receiver does);
    /// printed at the end as a `POWER` line. Without it, the engine platform's measurement is used.
    public var energy: (@Sendable () -> EnergyLedger)?
    /// Seconds between the fixes printed (the watch's update interval: the receiver takes one fix
    /// each interval and sleeps between); `nil` prints every epoch the receiver sends.
    public var updateInterval: Double?
    private var enginePlatform: (any EnginePlatform)?

    /// Creates a watch on hardware (a ``SimulatedPlatform`` runs on its manual clock).
    public init(board: BoardDescription, platform: any HardwarePlatform) {
        self.board = board
        self.platform = platform
    }

    /// Creates a watch on an engine platform (see ``BoardHardware/enginePlatform(for:linux:)``).
    public init(board: BoardDescription, platform: any EnginePlatform) {
        self.board = board
        self.platform = platform.hardware
        enginePlatform = platform
    }

    /// What happened during a run.
    public struct Summary: Sendable {
        /// Fixes printed.
        public var fixes = 0
        /// Headings printed.
        public var headings = 0
        /// Headings that were unavailable or failed to read.
        public var headingFailures = 0
        /// Problems met (a sensor absent, a read error), each once.
        public var warnings: [String] = []
    }

    private enum Line: Sendable {
        case fix(Fix, MonotonicInstant)
        case delivered(MonotonicInstant)
        case heading(HeadingUpdate)
        case warning(String)
        case status(String)
    }

    /// Runs for `duration` of the platform's clock, calling `emit` with each JSON line. A receiver
    /// port that cannot be opened is thrown at once.
    public func run(duration: Duration, emit: (String) -> Void) throws(HardwareError) -> Summary {
        let platform = enginePlatform ?? BoardHardware.enginePlatform(self.platform)
        let engine = LocationEngine(board: board, platform: platform)
        let headings = headingRate > 0 && board.magnetometer != nil
        if headings { engine.headingPeriod = .nanoseconds(Int64(1e9 / headingRate)) }
        if let calibration { engine.calibration = calibration }
        try engine.openReceiver()
        defer { engine.closeReceiver() }
        let lines = Mutex<[Line]>([])
        let observer = engine.observe { observation in
            switch observation {
            case .fix(let fix, let at): lines.withLock { $0.append(.fix(fix, at)) }
            case .heading(let heading): lines.withLock { $0.append(.heading(heading)) }
            case .bytes, .frames, .pps, .sensorSample, .advert, .receiverBytes, .receiverPort: break
            }
        }
        defer { engine.removeObserver(observer) }
        let loss = FixLossBox()
        let diagnostics = DiagnosticsBox([.locationUnavailable])
        let client = engine.register(name: "watch") { event in
            let recovery = loss.note(event)
            let (flags, _) = diagnostics.note(event)
            if let recovery { lines.withLock { $0.append(.status(Self.statusLine(recovery, flags: flags))) } }
            switch event {
            case .error(let error) where error.isFixLoss: lines.withLock { $0.append(.status(Self.statusLine(lost: error, flags: flags))) }
            case .error(.headingFailure(let reason)): lines.withLock { $0.append(.warning("no heading: \(reason)")) }
            case .error(let error): lines.withLock { $0.append(.warning("\(error)")) }
            case .locations(let l): lines.withLock { $0.append(contentsOf: l.map { .delivered($0.receivedAt) }) }
            default: break
            }
        }.id
        defer { engine.unregister(client) }
        engine.update(client) { s in
            s.updatingLocation = true
            s.pausesAutomatically = false
            s.updatingHeading = headings
            s.headingFilter = nil
            s.updateInterval = updateInterval
        }
        var summary = Summary()
        var lastTime: String? = nil
        func flush() {
            let batch = lines.withLock { l in defer { l.removeAll() }; return l }
            // With an update interval, only the fixes the watch's client was given are printed.
            let delivered = Set(batch.compactMap { if case .delivered(let at) = $0 { return at } else { return nil } })
            for line in batch {
                switch line {
                case .delivered: break
                case .status(let text): emit(text)
                case .fix(let fix, let at):
                    if updateInterval != nil && !delivered.contains(at) { continue }
                    emit(FixJSON.line(fix))
                    summary.fixes += 1
                    lastTime = fix.time.map { $0.iso8601(fractionDigits: 3) }
                case .heading(let heading):
                    emit(HeadingJSON.line(heading, time: lastTime))
                    summary.headings += 1
                case .warning(let message):
                    if summary.warnings.count < 20 { summary.warnings.append(message) }
                    emit(#"{"class":"WARNING","message":"# + JSONText.quote(message) + "}")
                }
            }
        }
        // In short steps, so a real board's lines appear as they come.
        let end = engine.clock.now().advanced(by: duration)
        while engine.clock.now() < end {
            engine.advance(until: min(end, engine.clock.now().advanced(by: .milliseconds(200))))
            flush()
        }
        summary.headingFailures = engine.statistics.headingFailures
        if let ledger = energy?() ?? platform.measuredReceiverEnergy() {
            let states = (ledger.entries[.receiver] ?? [:]).keys.sorted().map { state -> String in
                let e = ledger.entries[.receiver]?[state] ?? EnergyLedger.Entry()
                return "\"\(state)\":{\"mAh\":\(FixText.fixed(e.charge, 4)),\"s\":\(FixText.fixed(e.seconds, 1))}"
            }
            emit(#"{"class":"POWER","component":"receiver","mAh":"# + FixText.fixed(ledger.charge(.receiver), 4)
                 + ",\"mean_mA\":" + FixText.fixed(ledger.meanCurrent(.receiver), 3) + ",\"states\":{" + states.joined(separator: ",") + "}}")
        }
        return summary
    }

    /// The `STATUS` line of a fix loss: gpsd's mode 1 (no fix), the diagnostic and the diagnostic
    /// flags (``LocationDiagnostics`` names, for example `["locationUnavailable"]`).
    static func statusLine(lost error: LocationError, flags: LocationDiagnostics = [.locationUnavailable]) -> String {
        #"{"class":"STATUS","status":"fix lost","mode":1,"transient":"# + (error.isTransient ? "true" : "false")
            + #","diagnostic":"# + JSONText.quote(error.description) + #","flags":"# + flagsJSON(flags) + "}"
    }

    /// The `STATUS` line of a recovery: the recovered fix's mode and type, the outage, the diagnostic and the flags.
    static func statusLine(_ recovery: FixRecovery, flags: LocationDiagnostics = []) -> String {
        var out = #"{"class":"STATUS","status":"fix recovered","mode":"# + (recovery.location.altitude != nil ? "3" : "2")
        out += #","fix_type":"# + JSONText.quote(recovery.location.fixType.rawValue)
        if let outage = recovery.outage { out += #","outage_s":"# + FixText.fixed(outage, 1) }
        return out + #","diagnostic":"# + JSONText.quote(recovery.description) + #","flags":"# + flagsJSON(flags) + "}"
    }

    /// Diagnostic flags as a JSON array of their names.
    static func flagsJSON(_ flags: LocationDiagnostics) -> String {
        "[" + flags.names.map(JSONText.quote).joined(separator: ",") + "]"
    }
}

/// Headings as JSON lines: `{"class":"HEADING","magnetic":…,"true":…,"accuracy":…,"pitch":…,"roll":…,
/// "dip":…,"field_uT":…,"quality":"good","flags":[…]}`; missing values are omitted.
public enum HeadingJSON {
    /// One line for a reading of the heading engine.
    public static func line(_ r: HeadingReading, time: String? = nil) -> String {
        line(time: time, magnetic: r.magneticHeading, true: r.trueHeading, accuracy: r.accuracy, pitch: r.pitch, roll: r.roll,
             dip: r.inclination, field: r.field.length, quality: r.quality, flags: r.flags.names)
    }

    /// One line for an engine's heading (the same keys; an invalid, negative accuracy is omitted).
    public static func line(_ h: HeadingUpdate, time: String? = nil) -> String {
        line(time: time, magnetic: h.magneticHeading, true: h.trueHeading, accuracy: h.headingAccuracy >= 0 ? h.headingAccuracy : nil,
             pitch: h.pitch, roll: h.roll, dip: h.inclination, field: Vector3(h.x, h.y, h.z).length, quality: h.quality, flags: h.flags)
    }

    private static func line(time: String?, magnetic: Double?, true trueHeading: Double?, accuracy: Double?, pitch: Double?,
                             roll: Double?, dip: Double?, field: Double, quality: HeadingQuality, flags: [String]) -> String {
        var out = #"{"class":"HEADING""#
        if let time { out += ",\"time\":\"\(time)\"" }
        func add(_ key: String, _ value: Double?, _ digits: Int) {
            guard let value, value.isFinite else { return }
            out += ",\"\(key)\":\(FixText.fixed(value, digits))"
        }
        add("magnetic", magnetic, 2)
        add("true", trueHeading, 2)
        add("accuracy", accuracy, 2)
        add("pitch", pitch, 2)
        add("roll", roll, 2)
        add("dip", dip, 2)
        add("field_uT", field, 2)
        out += ",\"quality\":\"\(quality.rawValue)\",\"flags\":[" + flags.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        return out
    }
}

/// JSON string quoting.
public enum JSONText {
    /// `"text"` with quotes, backslashes and control characters escaped (the same escaping as the
    /// gpsd reports use).
    public static func quote(_ s: String) -> String { GPSDNumber.quoted(s) }
}
