import HardwareInterfaces
import Heading
import LocationServices
import NMEA
import PowerPolicy

/// What an operator needs to tell a sick unit from a healthy one, taken at one moment: the
/// counters and gauges that the engine's subsystems keep (the receiver's watchdog and NMEA engine,
/// the sensors, the time line, the correction link, the energy account), gathered in one value.
///
/// Nothing here is counted twice: each member is read from the subsystem that owns it when the
/// snapshot is taken (``StatusMonitor/snapshot()``). `fieldloc status` shows it as a "Health"
/// block, the status JSON as a `health` object, and `fieldlocd --http` as Prometheus metrics.
public struct UnitHealth: Sendable, Equatable {
    /// Seconds the engine has run (since the readout started watching it).
    public var uptime: Double = 0
    /// Seconds from the receiver's last start or wake to its first fix with a position, measured
    /// by the host; `nil` before the first.
    public var timeToFirstFix: Double?
    /// The time to first fix that the receiver itself reported (UBX NAV-STATUS), when it did.
    public var receiverTimeToFirstFix: Double?
    /// Starts and wakes that reached a fix with a position.
    public var acquisitions = 0
    /// Of those, the ones after a wake the host aided (time and position sent to the receiver).
    public var aidedAcquisitions = 0
    /// The last time to first fix of an aided and of an unaided acquisition, seconds.
    public var aidedTimeToFirstFix: Double?
    public var unaidedTimeToFirstFix: Double?
    /// Whether the last acquisition (``timeToFirstFix``) was aided.
    public var lastAcquisitionAided = false
    /// Fixes (epochs) assembled in all.
    public var fixes = 0
    /// Fixes a second over the last measured interval (at least 5 s), `nil` before one was measured.
    public var fixRate: Double?
    /// Seconds since the last fix arrived.
    public var fixAge: Double?
    /// Sentences the NMEA engine accepted and rejected, and bytes it could not frame at all.
    public var sentencesAccepted = 0, sentencesRejected = 0
    public var garbageBytes: Int64 = 0
    /// Bytes read from the receiver.
    public var bytes = 0
    /// Times the receiver's port failed, and was opened again.
    public var portFailures = 0, portReopens = 0
    /// Watchdog actions: wakes of a silent receiver, power cycles through the enable line,
    /// autobaud searches and the ones that found the line rate.
    public var watchdogWakes = 0, powerCycles = 0, autobaudRuns = 0, autobaudRecoveries = 0
    /// Sensor reads that failed, sensor re-openings, heading reads that failed.
    public var sensorFailures = 0, sensorReopens = 0, headingFailures = 0
    /// Jamming as the receiver reports it (UBX MON-RF/MON-HW): state and the 0-255 CW indicator.
    public var jamming: JammingState?
    public var jammingIndicator: Int?
    /// Spoofing as the receiver reports it (UBX NAV-STATUS).
    public var spoofing: SpoofingState?
    /// The NTRIP link (`streaming`, `connecting`, ...) and the age of the last correction, seconds.
    public var correctionLink: String?
    public var correctionAge: Double?
    /// The PPS line's state, and the time service's last offsets (seconds) when one runs.
    public var pps: PPSStatus = .none
    public var ppsOffset: Double?
    public var serialTimeOffset: Double?
    /// The last heading's quality and stated accuracy (degrees), and its age in seconds.
    public var headingQuality: HeadingQuality?
    public var headingAccuracy: Double?
    public var headingAge: Double?
    /// The magnetometer calibration's verdict and when it was made (as stored, ISO 8601).
    public var calibrationVerdict: String?
    public var calibrationCreated: String?
    /// The receiver's power state as the policy last decided it: in words, and its short name
    /// (`continuous`, `cyclic`, `periodic`, `idle`).
    public var receiverPower: String?
    public var receiverPowerState: String?
    /// Charge drawn so far per component (mAh) and the receiver's mean current (mA).
    public var receiverCharge = 0.0, sensorCharge = 0.0
    public var receiverMeanCurrent = 0.0

    /// An empty snapshot.
    public init() {}

    /// The jamming state's word (`ok`, `warning`, `critical`, `unknown`).
    public static func word(_ state: JammingState) -> String {
        switch state {
        case .ok: return "ok"
        case .warning: return "warning"
        case .critical: return "critical"
        case .unknown: return "unknown"
        }
    }

    /// The spoofing state's word (`none`, `indicated`, `multiple`, `unknown`).
    public static func word(_ state: SpoofingState) -> String {
        switch state {
        case .none: return "none"
        case .indicated: return "indicated"
        case .multipleIndications: return "multiple"
        case .unknown: return "unknown"
        }
    }

    /// Problems worth a line of their own, in the order an operator should look at them.
    public var concerns: [String] {
        var out: [String] = []
        if let jamming, jamming == .warning || jamming == .critical { out.append("receiver reports jamming (\(Self.word(jamming)))") }
        if let spoofing, spoofing == .indicated || spoofing == .multipleIndications { out.append("receiver reports spoofing (\(Self.word(spoofing)))") }
        if powerCycles > 0 { out.append("the watchdog power-cycled the receiver \(powerCycles) time(s)") }
        if portFailures > portReopens { out.append("the receiver's port is failing (\(portFailures) failures, \(portReopens) reopens)") }
        let seen = sentencesAccepted + sentencesRejected
        if seen >= 100, sentencesRejected * 20 > seen { out.append("\(sentencesRejected) of \(seen) sentences rejected") }
        return out
    }
}

/// One monitored region in a status readout: whose it is, its identifier and its state.
public struct RegionOverview: Sendable, Hashable {
    /// The client's name (a daemon client, a manager, `status`).
    public var client: String
    /// The region's identifier.
    public var identifier: String
    /// Inside, outside or unknown.
    public var state: RegionState

    /// A region's line.
    public init(client: String, identifier: String, state: RegionState) {
        self.client = client
        self.identifier = identifier
        self.state = state
    }
}
