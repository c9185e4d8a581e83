/// A pulse's edge as a kernel PPS device (`/dev/ppsN`, RFC 2783) captured it.
public struct PPSAssertEvent: Sendable, Hashable, CustomStringConvertible {
    /// The kernel's count of assert events; a new edge has a new sequence number.
    public var sequence: UInt32
    /// The kernel's timestamp of the edge on the system clock (CLOCK_REALTIME), nanoseconds since 1970.
    public var systemNanoseconds: Int64
    /// The same instant on the monotonic clock (converted by reading both clocks; see
    /// ``SystemTimeConversion``), so the edge can be paired with fixes stamped on that clock.
    public var monotonic: MonotonicInstant
    /// The conversion's error bound, nanoseconds.
    public var conversionErrorNanoseconds: Int64

    /// An assert event.
    public init(sequence: UInt32, systemNanoseconds: Int64, monotonic: MonotonicInstant, conversionErrorNanoseconds: Int64) {
        self.sequence = sequence
        self.systemNanoseconds = systemNanoseconds
        self.monotonic = monotonic
        self.conversionErrorNanoseconds = conversionErrorNanoseconds
    }

    public var description: String {
        let seconds = systemNanoseconds / 1_000_000_000
        var fraction = String(systemNanoseconds % 1_000_000_000)
        while fraction.count < 9 { fraction = "0" + fraction }
        return "assert #\(sequence) at \(seconds).\(fraction)"
    }
}

/// A monotonic instant placed on the system clock (CLOCK_REALTIME): the clocks read in a bracket
/// (monotonic, realtime, monotonic), the tightest of a few kept. The error is half that bracket:
/// the two clocks differ by an offset that only a step of the system clock changes (NTP's and
/// chrony's slewing moves CLOCK_MONOTONIC's rate with CLOCK_REALTIME's), so converting an edge
/// stamped a second ago adds no error unless the clock was stepped in between.
public struct SystemTimeConversion: Sendable, Hashable {
    /// The instant on the system clock, nanoseconds since 1970.
    public var systemNanoseconds: Int64
    /// Half the tightest bracket, nanoseconds: the conversion is within this of the truth.
    public var errorBoundNanoseconds: Int64

    /// A conversion.
    public init(systemNanoseconds: Int64, errorBoundNanoseconds: Int64) {
        self.systemNanoseconds = systemNanoseconds
        self.errorBoundNanoseconds = errorBoundNanoseconds
    }
}

/// A kernel PPS source (RFC 2783): the edges a `pps-gpio`, `pps-ldisc` or `pps_parport` client
/// stamps in its interrupt handler. Every wait has a deadline.
public protocol PPSDevice: AnyObject, Sendable {
    /// The device (`/dev/pps0`) for messages.
    var name: String { get }
    /// The last assert event the kernel holds, without waiting; `nil` before the first edge.
    func latest() throws(HardwareError) -> PPSAssertEvent?
    /// Waits for an assert event with a sequence other than `sequence` until `deadline`; `nil` when
    /// the deadline passes first.
    func waitForAssert(after sequence: UInt32?, deadline: MonotonicInstant) throws(HardwareError) -> PPSAssertEvent?
    /// Closes the device; later calls throw ``HardwareError/Kind/closed``. Closing twice is harmless.
    func close()
}
