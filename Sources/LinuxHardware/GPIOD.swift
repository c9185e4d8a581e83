// Every libgpiod call of the project is in this file: moving from libgpiod 1.6 (Debian bookworm,
// Raspberry Pi OS) to the 2.x API touches only this file.
import CGPIOD
import Glibc
import HardwareInterfaces
import Synchronization

/// A GPIO line requested through libgpiod v1 with the consumer label `fieldloc`.
public final class LinuxGPIOLine: GPIOLine, @unchecked Sendable {
    /// `chip/line`.
    public let name: String
    /// Whether this process drives the line.
    public let isOutput: Bool
    // libgpiod handles are only touched under the mutex.
    private struct Handles: @unchecked Sendable {
        var chip: OpaquePointer?
        var line: OpaquePointer?
    }
    private let handles: Mutex<Handles>

    /// The consumer label shown by `gpioinfo`.
    public static let consumer = "fieldloc"

    private init(name: String, isOutput: Bool, chip: OpaquePointer, line: OpaquePointer) {
        self.name = name
        self.isOutput = isOutput
        handles = Mutex(Handles(chip: chip, line: line))
    }

    deinit { release() }

    static func openChip(_ chip: String) throws(HardwareError) -> OpaquePointer {
        guard let handle = gpiod_chip_open_lookup(chip) else {
            let e = Glibc.errno
            let hint: String
            switch e {
            case ENOENT, ENODEV:
                hint = "no such GPIO chip; gpiodetect lists them (a Raspberry Pi 3/4/Zero has its header on gpiochip0, a Pi 5 on the RP1 chip: gpiochip4 on older kernels, gpiochip0 on newer ones)"
            case EACCES, EPERM:
                hint = "add the user to the gpio group (sudo usermod -aG gpio $USER) and log in again"
            default:
                hint = "check dmesg for the GPIO driver"
            }
            throw Sys.error(e == 0 ? ENOENT : e, device: chip, operation: "open GPIO chip", hint: hint)
        }
        return handle
    }

    static func findLine(_ chip: OpaquePointer, chipName: String, _ id: GPIOLineID) throws(HardwareError) -> OpaquePointer {
        switch id {
        case .name(let lineName):
            guard let line = gpiod_chip_find_line(chip, lineName) else {
                throw HardwareError(.notFound, device: "\(chipName)/\(lineName)", operation: "find line",
                                    detail: errnoDetail(Glibc.errno == 0 ? ENOENT : Glibc.errno),
                                    hint: "no line of that name on \(chipName); gpioinfo \(chipName) lists the names (a Pi names them GPIO4, GPIO17, ...)")
            }
            return line
        case .offset(let offset):
            guard offset >= 0, offset < Int(gpiod_chip_num_lines(chip)), let line = gpiod_chip_get_line(chip, UInt32(offset)) else {
                throw HardwareError(.notFound, device: "\(chipName)/\(offset)", operation: "get line",
                                    detail: "\(chipName) has \(gpiod_chip_num_lines(chip)) lines")
            }
            return line
        }
    }

    static func requestError(_ e: Int32, device: String) -> HardwareError {
        let hint: String?
        switch e {
        case EBUSY: hint = "another process holds the line (gpioinfo shows its consumer); a kernel driver or overlay may own it"
        case EACCES, EPERM: hint = "add the user to the gpio group"
        default: hint = nil
        }
        return Sys.error(e, device: device, operation: "request line", hint: hint)
    }

    /// Requests `line` of `chip` as an output driven to `initial`.
    public static func output(chip: String, line: GPIOLineID, initial: Bool) throws(HardwareError) -> LinuxGPIOLine {
        let chipHandle = try openChip(chip)
        let device = "\(chip)/\(line)"
        let lineHandle: OpaquePointer
        do { lineHandle = try findLine(chipHandle, chipName: chip, line) } catch {
            gpiod_chip_close(chipHandle)
            throw error
        }
        if gpiod_line_request_output(lineHandle, consumer, initial ? 1 : 0) != 0 {
            let e = Glibc.errno
            gpiod_chip_close(chipHandle)
            throw requestError(e, device: device)
        }
        return LinuxGPIOLine(name: device, isOutput: true, chip: chipHandle, line: lineHandle)
    }

    /// Requests `line` of `chip` as an input reporting `edges`, with `bias`.
    public static func input(chip: String, line: GPIOLineID, edges: GPIOEdgeDetection, bias: GPIOBias) throws(HardwareError) -> LinuxGPIOLine {
        let chipHandle = try openChip(chip)
        let device = "\(chip)/\(line)"
        let lineHandle: OpaquePointer
        do { lineHandle = try findLine(chipHandle, chipName: chip, line) } catch {
            gpiod_chip_close(chipHandle)
            throw error
        }
        var flags: Int32 = 0
        switch bias {
        case .asIs: flags = 0
        case .disabled: flags = Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
        case .pullUp: flags = Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
        case .pullDown: flags = Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
        }
        let type: Int32
        switch edges {
        case .none: type = Int32(GPIOD_LINE_REQUEST_DIRECTION_INPUT)
        case .rising: type = Int32(GPIOD_LINE_REQUEST_EVENT_RISING_EDGE)
        case .falling: type = Int32(GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE)
        case .both: type = Int32(GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES)
        }
        let result = consumer.withCString { label -> Int32 in
            var config = gpiod_line_request_config(consumer: label, request_type: type, flags: flags)
            return gpiod_line_request(lineHandle, &config, 0)
        }
        if result != 0 {
            let e = Glibc.errno
            gpiod_chip_close(chipHandle)
            throw requestError(e, device: device)
        }
        return LinuxGPIOLine(name: device, isOutput: false, chip: chipHandle, line: lineHandle)
    }

    func withLine<T>(_ operation: String, _ body: (OpaquePointer) -> Result<T, HardwareError>) throws(HardwareError) -> T {
        let result: Result<T, HardwareError> = handles.withLock { h in
            guard let line = h.line else { return .failure(HardwareError(.closed, device: name, operation: operation)) }
            return body(line)
        }
        return try result.get()
    }

    /// Drives the output high or low; an input is ``HardwareError/Kind/unsupported``.
    public func set(_ high: Bool) throws(HardwareError) {
        guard isOutput else { throw HardwareError(.unsupported, device: name, operation: "set", detail: "the line is an input") }
        try withLine("set") { line in
            gpiod_line_set_value(line, high ? 1 : 0) == 0 ? .success(()) : .failure(Sys.error(Glibc.errno, device: name, operation: "set"))
        }
    }

    /// Reads the line's level (for an output, the level driven).
    public func get() throws(HardwareError) -> Bool {
        try withLine("get") { line in
            let v = gpiod_line_get_value(line)
            return v < 0 ? .failure(Sys.error(Glibc.errno, device: name, operation: "get")) : .success(v == 1)
        }
    }

    /// Waits for the next requested edge until `deadline` (nil then). The event's time is the
    /// kernel's timestamp, CLOCK_MONOTONIC since Linux 5.7, the clock of ``SystemMonotonicClock``.
    public func waitForEdge(deadline: MonotonicInstant) throws(HardwareError) -> GPIOEvent? {
        guard !isOutput else { throw HardwareError(.unsupported, device: name, operation: "wait for edge", detail: "the line is an output") }
        let clock = SystemMonotonicClock()
        return try withLine("wait for edge") { line -> Result<GPIOEvent?, HardwareError> in
            let (r, e) = Sys.call {
                // Recomputed from the deadline on every call, so a signal does not extend the wait.
                let now = clock.now()
                let remaining = deadline > now ? deadline.nanoseconds - now.nanoseconds : 0
                var timeout = timespec(tv_sec: Int(min(remaining / 1_000_000_000, UInt64(Int32.max))),
                                       tv_nsec: Int(remaining % 1_000_000_000))
                return gpiod_line_event_wait(line, &timeout)
            }
            if r == 0 { return .success(nil) }
            if r < 0 { return .failure(Sys.error(e, device: name, operation: "wait for edge")) }
            var event = gpiod_line_event()
            let (readResult, readError) = Sys.call { gpiod_line_event_read(line, &event) }
            if readResult != 0 { return .failure(Sys.error(readError, device: name, operation: "read edge event")) }
            // Kernels since 5.7 stamp line events with CLOCK_MONOTONIC, the clock deadlines use.
            let ns = UInt64(max(0, event.ts.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, event.ts.tv_nsec))
            let edge: GPIOEvent.Edge = event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE) ? .rising : .falling
            return .success(GPIOEvent(edge: edge, timestamp: MonotonicInstant(nanoseconds: ns)))
        }
    }

    /// Gives the line back to the kernel (idempotent); later calls throw ``HardwareError/Kind/closed``.
    public func release() {
        handles.withLock { h in
            if let line = h.line { gpiod_line_release(line) }
            if let chip = h.chip { gpiod_chip_close(chip) }
            h.line = nil
            h.chip = nil
        }
    }
}
