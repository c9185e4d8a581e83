import HardwareInterfaces

/// One pulse-per-second edge paired with the UTC second it marks.
public struct PPSSample: Sendable, Hashable {
    /// The UTC second that starts at the pulse (seconds since 1970).
    public var utcSecond: Int64
    /// The kernel's timestamp of the rising edge, on the engine's monotonic clock.
    public var edge: MonotonicInstant
    /// When the NMEA of that second arrived (its delay after the pulse is the serial latency
    /// that PPS removes).
    public var nmeaArrival: MonotonicInstant
    /// The edge on the system clock (CLOCK_REALTIME nanoseconds since 1970), where the platform
    /// knows it: a `/dev/ppsN` edge as the kernel stamped it, a GPIO edge converted by bracketing
    /// clock reads. `nil` on a simulated clock. The time service and gpsd's `PPS` report both use it.
    public var edgeSystemNanoseconds: Int64?
    /// The error bound of ``edgeSystemNanoseconds`` from the clock conversion, nanoseconds (0 for a
    /// stamp the kernel took on the system clock itself).
    public var edgeSystemErrorNanoseconds: Int64?

    /// A pulse paired with its second.
    public init(utcSecond: Int64, edge: MonotonicInstant, nmeaArrival: MonotonicInstant,
                edgeSystemNanoseconds: Int64? = nil, edgeSystemErrorNanoseconds: Int64? = nil) {
        self.utcSecond = utcSecond
        self.edge = edge
        self.nmeaArrival = nmeaArrival
        self.edgeSystemNanoseconds = edgeSystemNanoseconds
        self.edgeSystemErrorNanoseconds = edgeSystemErrorNanoseconds
    }
}

/// What the PPS line says about time quality.
public enum PPSStatus: Sendable, Hashable, CustomStringConvertible {
    /// The board has no PPS line: time comes from NMEA alone (about ±100 ms of serial latency).
    case none
    /// Waiting for the first pulse paired with a fix.
    case waiting
    /// Pulses arrive every second and pair with fixes: sub-microsecond edges.
    case locked
    /// No pulse for this many seconds although fixes arrive (line broken, receiver without a fix,
    /// or the line stuck at `level` when it could be read).
    case missing(seconds: Int, level: Bool?)
    /// Pulses arrive, but not once a second (noise on the line, or a wrong line).
    case irregular(intervalMilliseconds: Int)

    public var description: String {
        switch self {
        case .none: return "no PPS line (time from NMEA only)"
        case .waiting: return "waiting for the first pulse"
        case .locked: return "locked"
        case .missing(let s, let level):
            return "no pulse for \(s) s" + (level.map { $0 ? " (line stuck high)" : " (line stuck low)" } ?? "")
        case .irregular(let ms): return "irregular pulses (\(ms) ms apart)"
        }
    }
}

/// Pairs PPS edges with fixes as gpsd does: a pulse marks the start of the UTC second that the
/// next fix with a whole-second time reports, when that fix arrives within a second of the pulse.
public struct PPSTracker: Sendable {
    private var pendingEdge: MonotonicInstant?
    private var pendingSystem: SystemTimeConversion?
    private var lastEdge: MonotonicInstant?
    private var lastInterval: Double?
    private var lastFixAt: MonotonicInstant?
    private var firstFixAt: MonotonicInstant?
    /// The last pairing.
    public private(set) var lastSample: PPSSample?
    /// Pulses seen and pulses paired with a fix.
    public private(set) var pulses = 0, paired = 0

    /// Creates a tracker.
    public init() {}

    /// Records a rising edge; `system` is the edge on the system clock where the platform knows it.
    public mutating func pulse(at edge: MonotonicInstant, system: SystemTimeConversion? = nil) {
        if let last = lastEdge { lastInterval = (edge - last).secondsDouble }
        lastEdge = edge
        pendingEdge = edge
        pendingSystem = system
        pulses += 1
    }

    /// Records a fix: its UTC time (seconds since 1970, with fraction) and arrival. Returns the
    /// sample when it completes a pairing.
    public mutating func fix(utc: Double, receivedAt: MonotonicInstant) -> PPSSample? {
        lastFixAt = receivedAt
        if firstFixAt == nil { firstFixAt = receivedAt }
        guard let edge = pendingEdge, utc.isFinite else { return nil }
        let delay = (receivedAt - edge).secondsDouble
        let whole = utc.rounded(.down)
        guard delay >= 0, delay < 1, utc - whole < 0.001 else { return nil }
        pendingEdge = nil
        let sample = PPSSample(utcSecond: Int64(whole), edge: edge, nmeaArrival: receivedAt,
                               edgeSystemNanoseconds: pendingSystem?.systemNanoseconds,
                               edgeSystemErrorNanoseconds: pendingSystem?.errorBoundNanoseconds)
        lastSample = sample
        paired += 1
        return sample
    }

    /// The status at `now`; `level` is the line's level when it can be read.
    public func status(at now: MonotonicInstant, level: Bool?) -> PPSStatus {
        guard let lastEdge else {
            // Fixes for a while and never a pulse: the line is missing or stuck.
            if let first = firstFixAt, let last = lastFixAt, (now - last).secondsDouble < 2.5 {
                let waited = (now - first).secondsDouble
                if waited > 2.5 { return .missing(seconds: Int(waited), level: level) }
            }
            return .waiting
        }
        let silence = (now - lastEdge).secondsDouble
        if silence > 2.5 { return .missing(seconds: Int(silence), level: level) }
        if let interval = lastInterval, Swift.abs(interval - 1) > 0.01 { return .irregular(intervalMilliseconds: Int((interval * 1000).rounded())) }
        return paired > 0 ? .locked : .waiting
    }
}
