import BluetoothHCI
import Glibc
import HardwareInterfaces
import Synchronization

/// A Bluetooth LE scanner on the kernel's raw HCI socket: it sends HCI_LE_Set_Scan_Parameters and
/// HCI_LE_Set_Scan_Enable (duplicate filter off) to the adapter and reads the LE Advertising
/// Report events the controller sends back, legacy and extended.
///
/// This is the path for boards where `bluetoothd` does not run. Where it runs, it may scan the
/// same controller (discovery, or the kernel's background scan for paired devices); the
/// controller then refuses our commands with "Command Disallowed", which ``startScanning(_:)``
/// reports as ``HardwareError/Kind/busy`` (see docs/BEACONS-LINUX.md).
///
/// Sending commands needs `CAP_NET_RAW` (and powering the adapter on `CAP_NET_ADMIN`); reports
/// are read into one buffer on the stack and handed over borrowed, so scanning allocates nothing
/// per advertisement. Every wait has a deadline on ``clock``.
///
/// ```swift
/// let scanner = try LinuxBluetoothScanner(adapter: "hci0")
/// try scanner.startScanning(BluetoothScanParameters())
/// _ = try scanner.poll(deadline: scanner.clock.deadline(after: .seconds(1))) { report in print(report.address, report.rssi ?? 0) }
/// ```
public final class LinuxBluetoothScanner: BluetoothLEScanner, @unchecked Sendable {
    /// The adapter's name, `hci0`.
    public let name: String
    /// The clock of deadlines and report timestamps.
    public let clock: any MonotonicClock
    /// How long a command may wait for the controller's answer.
    public var commandTimeout: Duration { .seconds(2) }

    private let index: UInt16
    private struct State {
        var fd: Int32
        var scanning = false
        var inFlight = 0
        var closing = false
        var statistics = HCIEventStatistics()
    }
    private let state: Mutex<State>

    /// Opens the adapter named `adapter` (`hci0`, as the board file's `bluetooth` key names it).
    ///
    /// - Parameters:
    ///   - adapter: `hci` and the adapter's index.
    ///   - clock: the clock of deadlines and timestamps.
    ///   - powerOn: power the adapter on and keep it on (HCIDEVUP, needs `CAP_NET_ADMIN`);
    ///     otherwise a down adapter is an error that says how to bring it up.
    /// - Throws: ``HardwareError`` naming the adapter: `invalidArgument` for a name that is not
    ///   `hciN`, `unsupported` for a kernel without Bluetooth, `notFound` for a missing adapter,
    ///   `busy` when another program holds it exclusively, `other` when it is down.
    public init(adapter: String = "hci0", clock: any MonotonicClock = SystemMonotonicClock(), powerOn: Bool = false) throws(HardwareError) {
        guard let index = HCISocket.deviceIndex(adapter) else {
            throw HardwareError(.invalidArgument, device: adapter, operation: "open Bluetooth adapter",
                                detail: "not an adapter name", hint: "name the adapter as the kernel does: hci0, hci1, …")
        }
        let fd = try HCISocket.open(adapter: adapter)
        do throws(HardwareError) {
            let up = try HCISocket.isUp(fd: fd, index: index, adapter: adapter)
            if powerOn {
                // Also when up: HCIDEVUP cancels the kernel's auto power-off of an adapter that no
                // one has claimed yet (2 s after it appeared, when no bluetoothd powers it on).
                try HCISocket.powerOn(fd: fd, index: index, adapter: adapter)
            } else if !up {
                throw HardwareError(.other, device: adapter, operation: "open Bluetooth adapter", detail: "the adapter is down",
                                    hint: HCISocket.downHint(adapter))
            }
            try HCISocket.bind(fd: fd, index: index, adapter: adapter)
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.name = adapter
        self.clock = clock
        self.index = index
        state = Mutex(State(fd: fd))
    }

    deinit { close() }

    /// Whether a scan started here is running.
    public var isScanning: Bool { state.withLock { $0.scanning } }

    /// Events seen, reports handed over and malformed events ignored.
    public var statistics: HCIEventStatistics { state.withLock { $0.statistics } }

    /// Starts a scan with `parameters` (a running scan is stopped first, then restarted with them).
    /// The duplicate filter stays off.
    public func startScanning(_ parameters: BluetoothScanParameters) throws(HardwareError) {
        let fd = try acquire("start scanning")
        defer { release() }
        if state.withLock({ $0.scanning }) {
            try exchange(HCICommandPacket.leSetScanEnable(false), fd: fd, name: "LE Set Scan Enable (off)")
            state.withLock { $0.scanning = false }
        }
        try exchange(HCICommandPacket.leSetScanParameters(parameters), fd: fd, name: "LE Set Scan Parameters")
        try exchange(HCICommandPacket.leSetScanEnable(true, filterDuplicates: false), fd: fd, name: "LE Set Scan Enable")
        state.withLock { $0.scanning = true }
    }

    /// Stops the scan; harmless when none runs.
    public func stopScanning() throws(HardwareError) {
        guard state.withLock({ $0.scanning }) else { return }
        let fd = try acquire("stop scanning")
        defer { release() }
        state.withLock { $0.scanning = false }
        try exchange(HCICommandPacket.leSetScanEnable(false), fd: fd, name: "LE Set Scan Enable (off)", tolerated: [0x0C])
    }

    /// Waits until a report arrives or `deadline` passes, then hands over every report already
    /// received. A removed adapter throws ``HardwareError/Kind/deviceGone``.
    public func poll(
        deadline: MonotonicInstant, _ handler: (borrowing BluetoothAdvertisingReport) -> Void
    ) throws(HardwareError) -> Int {
        let fd = try acquire("poll")
        defer { release() }
        var handled = 0
        while true {
            handled += try drain(fd: fd, handler)
            if handled > 0 { return handled }
            let milliseconds = Sys.milliseconds(until: deadline, clock: clock)
            if milliseconds == 0 { return 0 }
            try wait(fd: fd, milliseconds: milliseconds, operation: "poll")
        }
    }

    /// Stops a running scan (best effort, within ``commandTimeout``) and closes the socket.
    public func close() {
        if state.withLock({ $0.scanning && !$0.closing }) { try? stopScanning() }
        state.withLock { s in
            guard !s.closing else { return }
            s.closing = true
            s.scanning = false
            if s.inFlight == 0, s.fd >= 0 {
                Glibc.close(s.fd)
                s.fd = -1
            }
        }
    }

    // MARK: I/O

    /// Reads every packet waiting on the socket; returns how many reports were handed over.
    private func drain(fd: Int32, _ handler: (borrowing BluetoothAdvertisingReport) -> Void) throws(HardwareError) -> Int {
        var handled = 0
        var failure: Int32 = 0
        withUnsafeTemporaryAllocation(byteCount: 1 + 2 + HCI.maximumEventParameters + 1, alignment: 8) { buffer in
            // At most 256 packets per call, so a busy channel cannot keep poll from returning.
            for _ in 0..<256 {
                let (count, code) = Sys.call { Glibc.read(fd, buffer.baseAddress, buffer.count) }
                if count < 0 {
                    if code != EAGAIN && code != EWOULDBLOCK { failure = code }
                    return
                }
                guard count > 1, buffer[0] == HCI.PacketType.event.rawValue else { continue }
                let packet = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[1..<count])
                var parser = HCIEventParser()
                let kind = parser.parse(event: packet, timestamp: clock.now(), handler)
                if case .advertisingReports(let reports) = kind { handled += reports }
                let seen = parser.statistics
                state.withLock { s in
                    s.statistics.events += seen.events
                    s.statistics.reports += seen.reports
                    s.statistics.malformed += seen.malformed
                    s.statistics.fragments += seen.fragments
                    if let problem = seen.lastMalformation { s.statistics.lastMalformation = problem }
                }
            }
        }
        if failure != 0 { throw HCISocket.readError(failure, adapter: name, operation: "read HCI event") }
        return handled
    }

    /// poll(2) for input, up to `milliseconds`.
    private func wait(fd: Int32, milliseconds: Int32, operation: String) throws(HardwareError) {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let (ready, code) = Sys.call { Glibc.poll(&descriptor, 1, milliseconds) }
        if ready < 0 { throw HCISocket.readError(code, adapter: name, operation: operation) }
        if ready > 0, descriptor.revents & Int16(POLLNVAL) != 0 {
            throw HardwareError(.closed, device: name, operation: operation)
        }
        // POLLERR / POLLHUP: the next read reports the socket's error (EPIPE when the adapter is removed).
    }

    /// Sends a command and waits for its Command Complete (or Command Status). Reports that
    /// arrive meanwhile are dropped: a command is sent only while the scan is being changed.
    private func exchange(_ command: HCICommandPacket, fd: Int32, name commandName: String, tolerated: Set<UInt8> = []) throws(HardwareError) {
        let bytes = command.bytes
        let (written, code) = bytes.withUnsafeBytes { raw in Sys.call { Glibc.write(fd, raw.baseAddress, raw.count) } }
        if written < 0 { throw HCISocket.writeError(code, adapter: name, command: commandName) }
        let deadline = clock.now().advanced(by: commandTimeout)
        while true {
            var answer: UInt8?? = nil
            var failure: Int32 = 0
            withUnsafeTemporaryAllocation(byteCount: 1 + 2 + HCI.maximumEventParameters + 1, alignment: 8) { buffer in
                while answer == nil {
                    let (count, readCode) = Sys.call { Glibc.read(fd, buffer.baseAddress, buffer.count) }
                    if count < 0 {
                        if readCode != EAGAIN && readCode != EWOULDBLOCK { failure = readCode }
                        return
                    }
                    guard count > 1, buffer[0] == HCI.PacketType.event.rawValue else { continue }
                    let packet = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[1..<count])
                    switch HCIEventParser.parse(event: packet, timestamp: clock.now(), { _ in }) {
                    case .commandComplete(let opcode, let status) where opcode == command.opcode: answer = .some(status)
                    case .commandStatus(let opcode, let status) where opcode == command.opcode: answer = .some(status)
                    default: continue
                    }
                }
            }
            if failure != 0 { throw HCISocket.readError(failure, adapter: name, operation: "read the answer to \(commandName)") }
            if let status = answer {
                if let status, status != 0, !tolerated.contains(status) {
                    throw HCISocket.statusError(status, adapter: name, command: commandName)
                }
                return
            }
            let milliseconds = Sys.milliseconds(until: deadline, clock: clock)
            if milliseconds == 0 {
                throw HardwareError(.timeout, device: name, operation: commandName,
                                    detail: "the controller did not answer within \(commandTimeout)",
                                    hint: "the controller hangs or its transport (UART, USB) stalled: `dmesg`, `btmgmt info`")
            }
            try wait(fd: fd, milliseconds: milliseconds, operation: "wait for the answer to \(commandName)")
        }
    }

    private func acquire(_ operation: String) throws(HardwareError) -> Int32 {
        let fd: Int32? = state.withLock { s in
            guard !s.closing, s.fd >= 0 else { return nil }
            s.inFlight += 1
            return s.fd
        }
        guard let fd else { throw HardwareError(.closed, device: name, operation: operation) }
        return fd
    }

    private func release() {
        state.withLock { s in
            s.inFlight -= 1
            if s.closing, s.inFlight == 0, s.fd >= 0 {
                Glibc.close(s.fd)
                s.fd = -1
            }
        }
    }
}
