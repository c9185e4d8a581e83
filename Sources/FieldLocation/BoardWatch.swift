import LocationServices
import BoardConfig
import GPSDProtocol
import HardwareInterfaces
import Heading
import NMEA
import PowerPolicy
import SensorDrivers

/// Runs a board for a while: the receiver's NMEA through the NMEA engine into fixes, the sensors
/// through the drivers and the heading engine into headings (true heading once a fix gives the
/// WMM reference), each printed as one JSON line. The same code runs a simulated board on a
/// manual clock (fast) and a real one on the system clock.
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
    /// printed at the end as a `POWER` line.
    public var energy: (@Sendable () -> EnergyLedger)?

    /// Creates a watch.
    public init(board: BoardDescription, platform: any HardwarePlatform) {
        self.board = board
        self.platform = platform
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

    /// Runs for `duration` of the platform's clock, calling `emit` with each JSON line.
    public func run(duration: Duration, emit: (String) -> Void) throws(HardwareError) -> Summary {
        var summary = Summary()
        let clock = platform.clock
        let end = clock.now().advanced(by: duration)
        let portName = board.simulated ? BoardHardware.simulatedPortName : (board.receiver?.uart ?? "")
        let port = try platform.openSerialPort(portName, baudRate: board.receiver?.baudRate ?? .b9600)
        defer { port.close() }
        var sensors: BoardSensors? = nil
        if headingRate > 0 && board.magnetometer != nil {
            do {
                sensors = try BoardSensors.open(board, platform: platform)
                if let calibration { sensors?.engine.calibration = calibration }
            } catch {
                summary.warnings.append("no heading: \(error)")
                emit(#"{"class":"WARNING","message":"# + JSONText.quote("no heading: \(error)") + "}")
            }
        }
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(provenance: board.simulated ? .simulator : .receiver))
        var referencePosition: (Double, Double)? = nil
        let interval = headingRate > 0 ? Duration.nanoseconds(Int64(1e9 / headingRate)) : .seconds(3600)
        // The first heading one interval in: the sensors need that long for their first sample.
        var nextHeading = clock.now().advanced(by: interval)
        var buffer = [UInt8](repeating: 0, count: 1024)
        var lastTime: String? = nil
        var lastMotion: (course: Double, speed: Double, at: MonotonicInstant)? = nil
        while clock.now() < end {
            let readDeadline = sensors == nil ? end : min(end, nextHeading)
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(HardwareError) -> Int in try port.read(into: raw, deadline: readDeadline) }
            }
            let count = try result.get()
            if count > 0 {
                var fixes: [Fix] = []
                buffer[0..<count].withUnsafeBufferPointer { stream.feed($0.span) { fixes.append($0) } }
                for fix in fixes {
                    emit(FixJSON.line(fix))
                    summary.fixes += 1
                    lastTime = fix.time.map { $0.iso8601(fractionDigits: 3) }
                    if let course = fix.course, let speed = fix.speed { lastMotion = (course, speed, clock.now()) }
                    if let lat = fix.latitude, let lon = fix.longitude, var s = sensors {
                        let moved = referencePosition.map { Geodesy.distance(latitude1: $0.0, longitude1: $0.1, latitude2: lat, longitude2: lon) } ?? .infinity
                        if moved > 1000 {
                            let year = fix.time.map { t in GeomagCSV.decimalYear(CalendarDate(daysSinceEpoch: Int((t.secondsSinceEpoch / 86_400).rounded(.down)))) } ?? 2026.0
                            let e = WorldMagneticModel.wmm2025.evaluate(latitude: lat, longitude: lon,
                                                                        heightKm: (fix.altitudeHAE ?? fix.altitudeMSL ?? 0) / 1000, decimalYear: year)
                            s.engine.reference = ReferenceField(e)
                            sensors = s
                            referencePosition = (lat, lon)
                        }
                    }
                }
            }
            if var s = sensors, clock.now() >= nextHeading {
                nextHeading = nextHeading.advanced(by: interval)
                do {
                    var reading = try s.heading()
                    // While moving, the GNSS course cross-checks the heading (x axis along the track).
                    if let motion = lastMotion, clock.now() - motion.at < .seconds(2) {
                        HeadingEngine.crossCheck(&reading, course: motion.course, speed: motion.speed)
                    }
                    emit(HeadingJSON.line(reading, time: lastTime))
                    summary.headings += 1
                    if reading.quality == .unavailable { summary.headingFailures += 1 }
                } catch {
                    summary.headingFailures += 1
                    if summary.warnings.count < 20 { summary.warnings.append("\(error)") }
                    emit(#"{"class":"WARNING","message":"# + JSONText.quote("\(error)") + "}")
                }
                sensors = s
            }
        }
        if let energy {
            let ledger = energy()
            let states = (ledger.entries[.receiver] ?? [:]).keys.sorted().map { state -> String in
                let e = ledger.entries[.receiver]?[state] ?? EnergyLedger.Entry()
                return "\"\(state)\":{\"mAh\":\(FixText.fixed(e.charge, 4)),\"s\":\(FixText.fixed(e.seconds, 1))}"
            }
            emit(#"{"class":"POWER","component":"receiver","mAh":"# + FixText.fixed(ledger.charge(.receiver), 4)
                 + ",\"mean_mA\":" + FixText.fixed(ledger.meanCurrent(.receiver), 3) + ",\"states\":{" + states.joined(separator: ",") + "}}")
        }
        return summary
    }
}

/// Headings as JSON lines: `{"class":"HEADING","magnetic":…,"true":…,"accuracy":…,"pitch":…,"roll":…,
/// "dip":…,"field_uT":…,"quality":"good","flags":[…]}`; missing values are omitted.
public enum HeadingJSON {
    /// One line.
    public static func line(_ r: HeadingReading, time: String? = nil) -> String {
        var out = #"{"class":"HEADING""#
        if let time { out += ",\"time\":\"\(time)\"" }
        func add(_ key: String, _ value: Double?, _ digits: Int) {
            guard let value, value.isFinite else { return }
            out += ",\"\(key)\":\(FixText.fixed(value, digits))"
        }
        add("magnetic", r.magneticHeading, 2)
        add("true", r.trueHeading, 2)
        add("accuracy", r.accuracy, 2)
        add("pitch", r.pitch, 2)
        add("roll", r.roll, 2)
        add("dip", r.inclination, 2)
        add("field_uT", r.field.length, 2)
        out += ",\"quality\":\"\(r.quality.rawValue)\",\"flags\":[" + r.flags.names.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        return out
    }
}

/// JSON string quoting.
public enum JSONText {
    /// `"text"` with quotes, backslashes and control characters escaped (the same escaping as the
    /// gpsd reports use).
    public static func quote(_ s: String) -> String { GPSDNumber.quoted(s) }
}
