import Glibc
import HardwareInterfaces

/// The real devices of a Linux machine: `/dev/i2c-N`, UARTs through termios, GPIO through libgpiod.
public struct LinuxPlatform: HardwarePlatform {
    /// CLOCK_MONOTONIC.
    public let clock: any MonotonicClock = SystemMonotonicClock()

    /// The machine's devices.
    public init() {}

    /// Opens `/dev/i2c-<number>` (see ``LinuxI2CBus/open(bus:)``).
    public func openI2CBus(_ number: Int) throws(HardwareError) -> any I2CBus {
        try LinuxI2CBus.open(bus: number)
    }

    /// Opens a UART in raw 8N1 with exclusive access (see ``LinuxSerialPort/open(_:baudRate:clock:)``).
    public func openSerialPort(_ path: String, baudRate: BaudRate) throws(HardwareError) -> any SerialPort {
        try LinuxSerialPort.open(path, baudRate: baudRate, clock: clock)
    }

    /// Requests a GPIO output through libgpiod, consumer `fieldloc`.
    public func requestOutput(chip: String, line: GPIOLineID, initial: Bool) throws(HardwareError) -> any GPIOLine {
        try LinuxGPIOLine.output(chip: chip, line: line, initial: initial)
    }

    /// Requests a GPIO input with edge events and bias through libgpiod, consumer `fieldloc`.
    public func requestInput(chip: String, line: GPIOLineID, edges: GPIOEdgeDetection, bias: GPIOBias) throws(HardwareError) -> any GPIOLine {
        try LinuxGPIOLine.input(chip: chip, line: line, edges: edges, bias: bias)
    }

    /// Opens a kernel PPS device through the RFC 2783 ioctls (see ``LinuxPPSDevice``).
    public func openPPSDevice(_ path: String) throws(HardwareError) -> any PPSDevice {
        try LinuxPPSDevice(path: path)
    }

    /// `instant` of CLOCK_MONOTONIC on CLOCK_REALTIME, by the tightest of a few clock brackets
    /// (see ``ClockBracket``).
    public func systemTime(at instant: MonotonicInstant) -> SystemTimeConversion? {
        ClockBracket.measure().systemTime(at: instant)
    }

    /// Names in `/dev` with `prefix`, sorted.
    static func devices(_ prefix: String) -> [String] {
        guard let dir = opendir("/dev") else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(prefix) { names.append(name) }
        }
        return names.sorted()
    }

    /// The numbers of the `/dev/i2c-*` nodes, ascending.
    public func availableI2CBuses() -> [Int] {
        Self.devices("i2c-").compactMap { Int($0.dropFirst(4)) }.sorted()
    }

    /// `/dev/serial0`, `/dev/ttyAMA0` and `/dev/ttyS0` that exist (each device once), then
    /// `/dev/ttyUSB*` and `/dev/ttyACM*`.
    public func candidateSerialPorts() -> [String] {
        var ports: [String] = []
        for path in ["/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0"] where access(path, F_OK) == 0 {
            // /dev/serial0 is a link to one of the others: list each device once.
            if !ports.contains(where: { LinuxSerialPort.resolve($0) == LinuxSerialPort.resolve(path) }) { ports.append(path) }
        }
        ports += Self.devices("ttyUSB").map { "/dev/" + $0 }
        ports += Self.devices("ttyACM").map { "/dev/" + $0 }
        return ports
    }
}
