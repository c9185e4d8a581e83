import FieldLocation
import HardwareInterfaces
import ReceiverProtocols

/// What `fieldloc detect` found on a machine: sensors on every I2C bus, receivers on every
/// likely serial port, and what to check where nothing answered.
public struct DetectReport: Sendable {
    /// One I2C bus: what answered, or why it could not be scanned.
    public struct Bus: Sendable {
        /// Bus number (`/dev/i2c-N`).
        public var number: Int
        /// Chips found.
        public var findings: [I2CFinding]
        /// The error that stopped the scan, if any.
        public var error: HardwareError?
    }

    /// One serial port: the receiver found, or why not.
    public struct Port: Sendable {
        /// The port path.
        public var path: String
        /// The detection result, when the port could be opened.
        public var result: DetectionResult?
        /// The error that kept it from being probed, if any.
        public var error: HardwareError?
    }

    /// Buses scanned.
    public var buses: [Bus] = []
    /// Ports probed.
    public var ports: [Port] = []

    /// Runs detection on `platform`: every I2C bus it lists (or `onlyBuses`), every candidate
    /// port (or `onlyPorts`). Errors on one bus or port are recorded and the others still run.
    public static func run(platform: any HardwarePlatform, onlyBuses: [Int]? = nil, onlyPorts: [String]? = nil,
                           listenWindow: Duration = .milliseconds(1200)) -> DetectReport {
        var report = DetectReport()
        for number in onlyBuses ?? platform.availableI2CBuses() {
            do {
                let bus = try platform.openI2CBus(number)
                report.buses.append(Bus(number: number, findings: try SensorScan.scan(bus, clock: platform.clock)))
            } catch {
                report.buses.append(Bus(number: number, findings: [], error: error))
            }
        }
        for path in onlyPorts ?? platform.candidateSerialPorts() {
            do {
                let port = try platform.openSerialPort(path, baudRate: .b9600)
                defer { port.close() }
                let detector = ReceiverDetector(port: port, listenWindow: listenWindow)
                report.ports.append(Port(path: path, result: try detector.detect()))
            } catch {
                report.ports.append(Port(path: path, error: error))
            }
        }
        return report
    }
}
