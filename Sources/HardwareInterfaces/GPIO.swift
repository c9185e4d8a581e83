/// Which edges a GPIO input reports.
public enum GPIOEdgeDetection: String, Sendable, Hashable, CaseIterable {
    /// No edge events (level reads only).
    case none
    /// Low-to-high transitions.
    case rising
    /// High-to-low transitions.
    case falling
    /// Both.
    case both
}

/// The bias (pull resistor) of a GPIO input.
public enum GPIOBias: String, Sendable, Hashable, CaseIterable {
    /// Leave the line's bias as it is.
    case asIs = "as-is"
    /// No pull resistor.
    case disabled
    /// Pull up.
    case pullUp = "pull-up"
    /// Pull down.
    case pullDown = "pull-down"
}

/// One edge seen on a GPIO input.
public struct GPIOEvent: Sendable, Hashable, CustomStringConvertible {
    /// Which way the line went.
    public enum Edge: String, Sendable, Hashable {
        /// Low to high.
        case rising
        /// High to low.
        case falling
    }

    /// Which way the line went.
    public var edge: Edge
    /// When the edge happened on the monotonic clock (the kernel's own timestamp on Linux,
    /// taken in the interrupt handler, so a PPS edge is not delayed by scheduling).
    public var timestamp: MonotonicInstant

    /// Creates an event.
    public init(edge: Edge, timestamp: MonotonicInstant) {
        self.edge = edge
        self.timestamp = timestamp
    }

    public var description: String { "\(edge.rawValue) at \(timestamp)" }
}

/// Identifies a line on a GPIO chip: by the name the board or device tree gives it, or by offset.
public enum GPIOLineID: Hashable, Sendable, CustomStringConvertible {
    /// A line name, for example `GPIO4` on a Raspberry Pi or `gnss-pps` on a simulated chip.
    case name(String)
    /// A line offset on its chip.
    case offset(Int)

    public var description: String {
        switch self {
        case .name(let name): return name
        case .offset(let offset): return "line \(offset)"
        }
    }
}

/// A requested GPIO line: an output the process drives or an input it reads and waits on.
///
/// The line is held until ``release()``; a released line falls back to its bias. Every wait has
/// a deadline.
public protocol GPIOLine: AnyObject, Sendable {
    /// `chip/line` for messages.
    var name: String { get }
    /// Whether this process drives the line.
    var isOutput: Bool { get }

    /// Drives an output line high (`true`) or low. Throws ``HardwareError/Kind/unsupported`` on an input.
    func set(_ high: Bool) throws(HardwareError)

    /// Reads the line's level (for an output, the level it is driven to).
    func get() throws(HardwareError) -> Bool

    /// Waits for the next edge the line was requested with, until `deadline`. Returns `nil` when
    /// the deadline passes first. Events that arrived before the call are returned first, in order.
    func waitForEdge(deadline: MonotonicInstant) throws(HardwareError) -> GPIOEvent?

    /// Gives the line back; later calls throw ``HardwareError/Kind/closed``. Releasing twice is harmless.
    func release()
}

extension GPIOLine {
    /// Drives the line to `level` for `width`, then back: a reset or wake pulse.
    public func pulse(_ level: Bool = true, width: Duration, clock: any MonotonicClock) throws(HardwareError) {
        try set(level)
        clock.sleep(for: width)
        try set(!level)
    }

    /// Waits until the line reads `level`, by its edges, until `deadline`. Returns whether it did.
    public func waitForLevel(_ level: Bool, deadline: MonotonicInstant) throws(HardwareError) -> Bool {
        if try get() == level { return true }
        while let event = try waitForEdge(deadline: deadline) {
            if (event.edge == .rising) == level { return true }
        }
        return try get() == level
    }
}

/// The devices of one machine, as a board needs them: I2C buses, serial ports and GPIO lines.
///
/// ``LinuxHardware`` opens real kernel devices; the simulated platform hands out register-map
/// devices, a simulated receiver and driveable lines. Code above this layer (detection, the
/// board bring-up, the manager) sees only this protocol.
public protocol HardwarePlatform: Sendable {
    /// The platform's monotonic clock.
    var clock: any MonotonicClock { get }

    /// Opens I2C bus `number` (`/dev/i2c-N` on Linux).
    func openI2CBus(_ number: Int) throws(HardwareError) -> any I2CBus

    /// Opens a serial port in raw 8N1 mode at `baudRate`, with exclusive access.
    func openSerialPort(_ path: String, baudRate: BaudRate) throws(HardwareError) -> any SerialPort

    /// Requests `line` of `chip` as an output driven to `initial`.
    func requestOutput(chip: String, line: GPIOLineID, initial: Bool) throws(HardwareError) -> any GPIOLine

    /// Requests `line` of `chip` as an input reporting `edges`, with `bias`.
    func requestInput(
        chip: String, line: GPIOLineID, edges: GPIOEdgeDetection, bias: GPIOBias
    ) throws(HardwareError) -> any GPIOLine

    /// The I2C bus numbers present, for scans.
    func availableI2CBuses() -> [Int]

    /// Serial ports worth probing for a receiver, most likely first.
    func candidateSerialPorts() -> [String]

    /// Opens a kernel PPS device (`/dev/ppsN`). Platforms without one throw
    /// ``HardwareError/Kind/unsupported`` (the default).
    func openPPSDevice(_ path: String) throws(HardwareError) -> any PPSDevice

    /// `instant` of ``clock`` on the system clock (CLOCK_REALTIME), with the conversion's error
    /// bound; `nil` where the platform's clock is not the system's (a simulated one, the default).
    func systemTime(at instant: MonotonicInstant) -> SystemTimeConversion?
}

extension HardwarePlatform {
    /// No PPS devices: ``HardwareError/Kind/unsupported``.
    public func openPPSDevice(_ path: String) throws(HardwareError) -> any PPSDevice {
        throw HardwareError(.unsupported, device: path, operation: "open PPS device", detail: "this platform has no kernel PPS devices")
    }

    /// No system clock: `nil`.
    public func systemTime(at instant: MonotonicInstant) -> SystemTimeConversion? { nil }
}
