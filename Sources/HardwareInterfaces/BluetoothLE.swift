/// A Bluetooth device address: six bytes, most significant first as it is written
/// (`AA:BB:CC:DD:EE:FF`), and whether it is the public or a random address.
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address as one integer: the first written byte in bits 40-47.
    public var rawValue: UInt64
    /// `true` for a random (static or private) address, `false` for the public address.
    public var isRandom: Bool

    /// Creates an address from its 48-bit value (higher bits are dropped).
    public init(rawValue: UInt64, isRandom: Bool = false) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
        self.isRandom = isRandom
    }

    /// Creates an address from the six bytes as HCI sends them: least significant byte first.
    public init(littleEndianBytes bytes: UnsafeRawBufferPointer, isRandom: Bool) {
        var value: UInt64 = 0
        for index in 0..<min(6, bytes.count) { value |= UInt64(bytes[index]) << (8 * UInt64(index)) }
        self.init(rawValue: value, isRandom: isRandom)
    }

    /// `AA:BB:CC:DD:EE:FF`, upper case.
    public var description: String {
        let digits: [Character] = Array("0123456789ABCDEF")
        var text = ""
        for index in stride(from: 5, through: 0, by: -1) {
            let byte = Int((rawValue >> (8 * UInt64(index))) & 0xFF)
            text.append(digits[byte >> 4])
            text.append(digits[byte & 0xF])
            if index > 0 { text.append(":") }
        }
        return text
    }
}

/// One LE advertising report as the controller delivered it: who sent it, how strong it
/// arrived, and its advertising data (the AD structures: length, type, value).
///
/// The report borrows its ``data``: the bytes are valid only during the call that hands the
/// report over (``BluetoothLEScanner/poll(deadline:_:)``), so scanning allocates nothing per
/// advertisement. Copy what must outlive the call.
public struct BluetoothAdvertisingReport {
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// Received signal strength in dBm; `nil` where the controller did not measure it (HCI 127).
    public var rssi: Int?
    /// The advertiser's transmit power in dBm when the controller reports it (extended
    /// advertising); the TX Power AD structure inside ``data`` is separate.
    public var txPower: Int?
    /// `true` for a scan response rather than the advertisement itself.
    public var isScanResponse: Bool
    /// When the report was received, on the scanner's ``BluetoothLEScanner/clock``.
    public var timestamp: MonotonicInstant
    /// The advertising data, borrowed for the duration of the handler call.
    public var data: UnsafeRawBufferPointer

    /// Creates a report.
    public init(
        address: BluetoothAddress, rssi: Int?, txPower: Int? = nil, isScanResponse: Bool = false,
        timestamp: MonotonicInstant, data: UnsafeRawBufferPointer
    ) {
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.isScanResponse = isScanResponse
        self.timestamp = timestamp
        self.data = data
    }
}

/// How a scan runs: passive or active, and its duty cycle.
///
/// The controller listens for ``window`` out of every ``interval``; a window equal to the
/// interval listens all the time. Both are whole multiples of 0.625 ms between 2.5 ms and
/// 10.24 s, as the HCI LE Set Scan Parameters command takes them.
public struct BluetoothScanParameters: Hashable, Sendable {
    /// Time between the starts of two listening windows.
    public var interval: Duration
    /// How long each listening window lasts (at most ``interval``).
    public var window: Duration
    /// `true` sends scan requests (to get scan responses); ranging needs only passive scanning.
    public var active: Bool

    /// Creates scan parameters; the window is clamped to the interval.
    public init(interval: Duration = .milliseconds(100), window: Duration = .milliseconds(100), active: Bool = false) {
        self.interval = interval
        self.window = min(window, interval)
        self.active = active
    }

    /// The fraction of time the radio listens, 0...1.
    public var dutyCycle: Double {
        let total = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let listening = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        return total > 0 ? min(1, listening / total) : 1
    }
}

/// A Bluetooth LE radio that scans for advertisements: the kernel's HCI sockets or BlueZ over
/// D-Bus on Linux, a simulated radio in tests and on the sim board.
///
/// Duplicate reports are never filtered: ranging needs every advertisement. The one primitive for
/// input is ``poll(deadline:_:)``; every call that can block takes a deadline on ``clock``.
public protocol BluetoothLEScanner: AnyObject, Sendable {
    /// The adapter's name, for messages (`hci0`).
    var name: String { get }
    /// The clock of the deadlines and of the reports' timestamps.
    var clock: any MonotonicClock { get }
    /// Whether a scan is running.
    var isScanning: Bool { get }

    /// Starts scanning (or changes the parameters of a running scan).
    func startScanning(_ parameters: BluetoothScanParameters) throws(HardwareError)

    /// Stops scanning; harmless when no scan runs.
    func stopScanning() throws(HardwareError)

    /// Waits until at least one advertising report arrives or `deadline` passes, then hands every
    /// report received so far to `handler`, one call each, in arrival order. Returns how many
    /// reports were handled: 0 means the deadline passed with none. A vanished adapter throws
    /// ``HardwareError/Kind/deviceGone``.
    func poll(
        deadline: MonotonicInstant, _ handler: (borrowing BluetoothAdvertisingReport) -> Void
    ) throws(HardwareError) -> Int

    /// Stops any scan and releases the adapter; later calls throw ``HardwareError/Kind/closed``.
    func close()

    /// Whether the radio runs a duty cycle (``BluetoothScanParameters/window`` shorter than its
    /// ``BluetoothScanParameters/interval``) itself, as an HCI controller does. `false` for a
    /// stack that takes no scan timing (BlueZ's D-Bus API): its user switches the scan on and off
    /// instead. The default is `true`.
    var runsDutyCycle: Bool { get }
}

extension BluetoothLEScanner {
    /// The radio runs the duty cycle itself (an HCI controller, the simulated radio).
    public var runsDutyCycle: Bool { true }
}
