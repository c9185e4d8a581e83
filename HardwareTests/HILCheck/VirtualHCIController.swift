#if canImport(Glibc)
import Glibc
#endif
import BluetoothHCI
import HardwareInterfaces
import Synchronization

/// A Bluetooth LE controller played on `/dev/vhci` (the kernel's hci_vhci driver): it creates the
/// kernel's `hciN`, answers every command the kernel and the scanner send with a Command Complete
/// (status 0 and plausible parameters), records the scan commands, and while a scan is enabled
/// sends a round of advertising report events every 100 ms (``replaceRound(_:)`` changes it).
final class VirtualHCIController: @unchecked Sendable {
    struct Record {
        var stop = false
        var commands: [UInt16] = []
        var scanParameters: [[UInt8]] = []
        var scanEnables: [[UInt8]] = []
        var scanning = false
        var roundsSent = 0
        var writeErrors = 0
        /// The event packets (indicator first) sent in each round while scanning.
        var round: [[UInt8]] = []
    }

    let fd: Int32
    /// The kernel's index of the controller (`hciN`).
    let index: UInt16
    let record = Mutex(Record())
    private var thread: pthread_t?

    /// Opens `path` and creates the controller (vendor packet 0xFF 0x00: a primary controller);
    /// the kernel answers with 0xFF 0x00 and the new index, little endian.
    init(path: String, round: [[UInt8]]) throws(HILError) {
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw HILError("open \(path): errno \(errno)") }
        let create: [UInt8] = [HCI.PacketType.vendor.rawValue, 0x00]
        guard create.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == 2 else {
            Glibc.close(fd)
            throw HILError("\(path): creating the controller (write 0xff 0x00) failed: errno \(errno)")
        }
        var answer = [UInt8](repeating: 0, count: 16)
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let got = Glibc.poll(&descriptor, 1, 5_000) > 0 ? answer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } : -1
        guard got == 4, answer[0] == 0xFF, answer[1] == 0x00 else {
            Glibc.close(fd)
            throw HILError("\(path): no creation answer (read \(got) bytes: \(answer.prefix(max(0, got))))")
        }
        self.fd = fd
        self.index = UInt16(answer[2]) | UInt16(answer[3]) << 8
        record.withLock { $0.round = round }
    }

    /// Sends `round` from the next round on.
    func replaceRound(_ round: [[UInt8]]) {
        record.withLock { $0.round = round }
    }

    /// Starts answering on a thread of its own.
    func start() throws(HILError) {
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(&handle, nil, { argument in
            guard let argument else { return nil }
            let controller = Unmanaged<VirtualHCIController>.fromOpaque(argument).takeRetainedValue()
            controller.serve()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<VirtualHCIController>.fromOpaque(context).release()
            throw HILError("pthread_create: \(result)")
        }
        thread = handle
    }

    /// Stops the thread; `closeDevice` closes `/dev/vhci`, which unregisters `hciN`.
    /// With `closeDevice`, the device is closed while the thread still answers, as a radio that is
    /// unplugged does not first fall silent: a command the kernel sent just before stays answered.
    func stop(closeDevice: Bool) {
        if closeDevice { Glibc.close(fd) }
        record.withLock { $0.stop = true }
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var lastRound: UInt64 = 0
        while !record.withLock({ $0.stop }) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = Glibc.poll(&descriptor, 1, 20)
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer.withUnsafeBytes { raw in
                        if let command = HCICommandPacket(packet: UnsafeRawBufferPointer(rebasing: raw[0..<count])) { answer(command) }
                    }
                }
            }
            let now = monotonicMilliseconds()
            if record.withLock({ $0.scanning }), now >= lastRound + 100 {
                lastRound = now
                for event in record.withLock({ $0.round }) { send(event) }
                record.withLock { $0.roundsSent += 1 }
            }
        }
    }

    private func answer(_ command: HCICommandPacket) {
        record.withLock { r in
            r.commands.append(command.opcode)
            if command.opcode == HCI.Opcode.leSetScanParameters { r.scanParameters.append(command.parameters) }
            if command.opcode == HCI.Opcode.leSetScanEnable {
                r.scanEnables.append(command.parameters)
                r.scanning = command.parameters.first == 1
            }
        }
        send(HCIEventEncoder.commandComplete(opcode: command.opcode, status: 0, returnParameters: Self.returnParameters(command.opcode)))
    }

    private func send(_ packet: [UInt8]) {
        let written = packet.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written != packet.count { record.withLock { $0.writeErrors += 1 } }
    }

    /// Return parameters after the status byte, as an LE-only Bluetooth 4.0 controller answers
    /// (Core Vol 4, Part E, 7.4 and 7.8); 64 zero bytes for anything else that returns data
    /// (Linux only warns about a longer answer, and refuses a shorter one).
    static func returnParameters(_ opcode: UInt16) -> [UInt8] {
        switch opcode {
        case HCI.Opcode.readLocalVersion: return [0x06, 0x00, 0x00, 0x06, 0xF1, 0x05, 0x00, 0x00]  // HCI 4.0, LMP 4.0, Linux Foundation
        case HCI.Opcode.readLocalCommands: return [UInt8](repeating: 0, count: 64)
        case HCI.Opcode.readLocalFeatures: return [0, 0, 0, 0, 0x60, 0, 0, 0]  // LE supported, BR/EDR not supported
        case HCI.Opcode.readBufferSize: return [0xFD, 0x03, 0x00, 0x08, 0x00, 0x00, 0x00]
        case HCI.Opcode.readBDAddress: return HCIEventEncoder.addressBytes(controllerAddress)
        case HCI.Opcode.leReadBufferSize: return [0xFB, 0x00, 0x08]
        case HCI.Opcode.leReadLocalFeatures, HCI.Opcode.leReadSupportedStates: return [0, 0, 0, 0, 0, 0, 0, 0]
        case 0x200F: return [0x08]  // LE Read Filter Accept List Size
        case 0x2007: return [0x00]  // LE Read Advertising Physical Channel Tx Power
        case HCI.Opcode.reset, HCI.Opcode.setEventMask, HCI.Opcode.leSetEventMask, HCI.Opcode.leSetScanParameters,
             HCI.Opcode.leSetScanEnable, 0x0C6D, 0x0C63, 0x2010, 0x2005, 0x080F, 0x0C12, 0x0C56, 0x202D, 0x2029, 0x2031, 0x2024:
            return []
        default: return [UInt8](repeating: 0, count: 64)
        }
    }

    static let controllerAddress = BluetoothAddress(rawValue: 0x00DE_AD00_0019)
}

/// A failure of the Bluetooth check's own set-up.
struct HILError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func monotonicMilliseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1000 + UInt64(time.tv_nsec) / 1_000_000
}
