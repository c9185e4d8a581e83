// gnss-two-receivers: the engine (LocationEngine and a LocationManager on the Linux platform, as a
// field unit runs them) with two [[receiver]]s: the UART receiver on /dev/ttyS1 and a USB receiver
// found by its USB identity in sysfs, plugged in late, unplugged and plugged back by the host.
#if canImport(Glibc)
import Glibc
#endif
import BoardConfig
import EnginePlatforms
import FieldLocation
import HardwareInterfaces
import HILChecks
import LocationAPI
import LocationServices
import Synchronization

/// The delivered locations, as the manager's delegate hears them.
final class DeliveredLocations: LocationManagerDelegate {
    private let all = Mutex<[Location]>([])
    var locations: [Location] { all.withLock { $0 } }
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) { all.withLock { $0 += locations } }
}

enum ReceiverSourcesCheck {
    /// Both simulators' fix rate during the check: 2 Hz, so a receiver's epoch is 500 ms and the
    /// rule's liveness window 750 ms, far above a loaded TCG guest's scheduling delays.
    static let rate = 2
    /// The slack allowed on the docs' failover bound for the guest's scheduling and the 5 ms polling.
    static let schedulingSlack = Duration.milliseconds(250)

    /// The QEMU adapter's identity as the guest's sysfs shows it (`FIELDLOC_HIL_USB_ID`,
    /// `VENDOR:PRODUCT:SERIAL`; QEMU's usb-serial is an FTDI FT232, 0403:6001).
    static func identity() -> USBSerialMatch {
        let text = getenv("FIELDLOC_HIL_USB_ID").map { String(cString: $0) } ?? "0403:6001:FLSIM-USB1"
        let parts = text.split(separator: ":").map(String.init)
        return USBSerialMatch(vendor: parts.first ?? "0403", product: parts.count > 1 ? parts[1] : "6001",
                              serial: parts.count > 2 && !parts[2].isEmpty ? parts[2] : nil)
    }

    /// The board a field unit would have: its file's text, read by the board loader.
    static func boardText(uart: String, usb: USBSerialMatch) -> String {
        """
        name = "hil-two-receivers"
        title = "QEMU guest with a UART and a USB receiver"
        simulated = false

        [[receiver]]
        name = "uart"
        uart = "\(uart)"
        baud = 9600
        family = "generic-nmea"

        [[receiver]]
        name = "usb"
        usb_vendor = "\(usb.vendor)"
        usb_product = "\(usb.product)"
        \(usb.serial.map { "usb_serial = \"\($0)\"" } ?? "")
        baud = 9600
        family = "generic-nmea"
        """
    }

    /// What sysfs says of the USB device behind `node` (`/dev/ttyUSB0`): `0403:6001 serial ... (driver ftdi_sio)`.
    static func sysfsIdentity(of node: String) -> String {
        let name = node.split(separator: "/").last.map(String.init) ?? node
        var folder = "/sys/class/tty/\(name)/device"
        for _ in 0..<4 {
            if let vendor = read(folder + "/idVendor"), let product = read(folder + "/idProduct") {
                let serial = read(folder + "/serial") ?? "none"
                let maker = read(folder + "/manufacturer") ?? "?"
                let model = read(folder + "/product") ?? "?"
                return "\(vendor):\(product) serial \(serial) (\(maker), \(model))"
            }
            folder += "/.."
        }
        return "no USB identity in sysfs"
    }

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, 256, file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.trimmed
    }

    /// Writes `$PFLSIM,<body>` on a second descriptor of `tty` while the engine holds the port
    /// (root passes TIOCEXCL; the engine's flock is advisory): the check's word to the host simulator.
    static func sideChannel(_ tty: String, _ body: String) throws(HILFailure) {
        let fd = open(tty, O_WRONLY | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw HILFailure("open \(tty) for the simulator's command: errno \(errno)") }
        defer { close(fd) }
        let bytes = Array(GNSSFixture.simulatorCommand(body).utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw HILFailure("write $PFLSIM,\(body) to \(tty): \(written) of \(bytes.count) bytes, errno \(errno)") }
    }

    /// Sends `$PFLSIM,<body>` commands on the UART through the port (no engine running), each
    /// acknowledged as `ack`.
    static func command(_ context: HILContext, _ bodies: [String], ack: String) throws(HILFailure) {
        let c = context.configuration
        let port = try hardwareCall("open \(c.gnssTTY)") { try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate) }
        defer { port.close() }
        try USBSimulator.send(bodies, on: port, named: c.gnssTTY, clock: context.clock, acknowledged: ack)
    }

    static func hardwareCall<T, E: Error>(_ what: String, _ body: () throws(E) -> T) throws(HILFailure) -> T {
        do { return try body() } catch { throw HILFailure("\(what): \(error)") }
    }

    static func ms(_ d: Duration) -> String { "\(d.nanosecondsClamped / 1_000_000) ms" }

    static let twoReceivers = HILCheck(
        name: "gnss-two-receivers",
        proves: "LocationEngine and a LocationManager on the Linux platform with two [[receiver]]s (ttyS1, and a USB one found by its USB identity in sysfs): the USB receiver, absent at the start, is found when plugged in and chosen for its better fix (RTK fixed); unplugged (device_del), the engine delivers ttyS1's next fix within one of its epochs plus the 20 ms read slice; plugged back (device_add), it is found again by identity and chosen again; every delivered fix names its device"
    ) { context throws(HILFailure) in
        let c = context.configuration
        guard c.gnssFixture, let expected = c.usbTTY else {
            return .skipped(reason: "needs both host simulators and the USB adapter (FIELDLOC_HIL_GNSS_FIXTURE=1, FIELDLOC_HIL_USB_TTY; QEMU guest)")
        }
        let usb = ReceiverSourcesCheck.identity()
        let clock = context.clock
        // The USB receiver is absent at the start: the guest boots without it; were it plugged
        // in (another order of checks), it is pulled out first.
        let pluggedAtStart = USBSerialDevices.node(matching: usb) != nil
        if pluggedAtStart {
            try USBSimulator.relay(["PULL"], context: context)
            _ = clock.poll(attempts: 200, interval: .milliseconds(50)) { USBSerialDevices.node(matching: usb) == nil ? true : nil }
            try require(USBSerialDevices.node(matching: usb) == nil, "the USB receiver \(usb) did not go away on $PFLSIM,USB,PULL")
        }
        try ReceiverSourcesCheck.command(context, ["RATE,\(ReceiverSourcesCheck.rate)"], ack: "RATE")
        try ReceiverSourcesCheck.command(context, ["USB,RATE,\(ReceiverSourcesCheck.rate)", "USB,FIX,4,0.020"], ack: "USB")
        defer {
            // Both simulators as the other checks expect them: 10 Hz, autonomous fixes.
            try? ReceiverSourcesCheck.command(context, ["RATE,10"], ack: "RATE")
            try? ReceiverSourcesCheck.command(context, ["USB,RATE,10", "USB,FIX,1,0"], ack: "USB")
        }
        let board: BoardDescription
        do {
            board = try BoardLoader.load(text: ReceiverSourcesCheck.boardText(uart: c.gnssTTY, usb: usb), file: "hil-two-receivers.toml")
        } catch {
            throw HILFailure("the board file: \(error)")
        }
        let engine = LocationEngine(board: board, platform: HardwareEnginePlatform(context.platform))
        let manager = LocationManager(engine: engine)
        let delivered = DeliveredLocations()
        manager.delegate = delivered
        manager.startUpdatingLocation()
        engine.runInBackground()
        defer {
            manager.stopUpdatingLocation()
            engine.shutdown()
        }
        let run = Run(engine: engine, delivered: delivered, usb: usb, uart: c.gnssTTY)
        let outcome = try run.scenario(uartTTY: c.gnssTTY, expectedNode: expected)
        guard pluggedAtStart, case .passed(let detail) = outcome else { return outcome }
        return .passed(detail: "the USB receiver was plugged in at the start: pulled out first; " + detail)
    }
}

private extension String {
    /// Without leading and trailing spaces and newlines.
    var trimmed: String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == " " { s.removeLast() }
        while let first = s.first, first == "\n" || first == " " { s.removeFirst() }
        return String(s)
    }
}
