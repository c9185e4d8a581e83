/// One time sample for a time daemon (chrony, ntpd): at system time ``systemNanoseconds`` the true
/// time was ``referenceNanoseconds``.
///
/// A serial sample pairs the UTC second an epoch names with the system time its sentences started
/// arriving (less the receiver's configured delay); a PPS sample pairs a pulse's edge with the
/// second it starts.
public struct TimeReferenceSample: Sendable, Hashable {
    /// The system clock (CLOCK_REALTIME) when the sample was taken, nanoseconds since 1970.
    public var systemNanoseconds: Int64
    /// The true time at that moment, nanoseconds since 1970 (UTC).
    public var referenceNanoseconds: Int64
    /// A PPS edge (`true`) or a serial-time sample.
    public var isPulse: Bool
    /// A leap second announced for the end of this UTC day.
    public var leap: Leap
    /// log2 of the sample's precision in seconds (-1 for serial time, -20 for a kernel-stamped PPS edge).
    public var precision: Int32
    /// The error bound of ``systemNanoseconds`` from placing the edge on the system clock
    /// (half the tightest clock bracket; 0 for a `/dev/ppsN` stamp taken on the system clock), if known.
    public var systemErrorNanoseconds: Int64?

    /// A leap-second announcement, as NTP's leap indicator.
    public enum Leap: Int32, Sendable, Hashable {
        /// No leap second pending.
        case none = 0
        /// 23:59:60 will be inserted at the end of the day.
        case insert = 1
        /// 23:59:59 will be skipped.
        case delete = 2
    }

    /// Creates a sample.
    public init(systemNanoseconds: Int64, referenceNanoseconds: Int64, isPulse: Bool, leap: Leap = .none, precision: Int32 = -1,
                systemErrorNanoseconds: Int64? = nil) {
        self.systemErrorNanoseconds = systemErrorNanoseconds
        self.systemNanoseconds = systemNanoseconds
        self.referenceNanoseconds = referenceNanoseconds
        self.isPulse = isPulse
        self.leap = leap
        self.precision = precision
    }

    /// True time minus system time, seconds (chrony's `offset`).
    public var offsetSeconds: Double { Double(referenceNanoseconds - systemNanoseconds) / 1e9 }
}

/// Somewhere time samples go: a chrony SOCK socket, an NTP shared-memory segment. One primitive.
public protocol TimeReferenceSink: AnyObject, Sendable {
    /// What the sink is, for logs: `chrony SOCK /run/chrony.ttyAMA0.sock`, `NTP SHM unit 0`.
    var name: String { get }
    /// Hands one sample to the time daemon. Throws when the daemon cannot take it now (its socket
    /// is missing: chronyd not started yet); the next sample tries again.
    func submit(_ sample: TimeReferenceSample) throws(HardwareError)
}
