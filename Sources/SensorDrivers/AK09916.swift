import Devices
import HardwareInterfaces

/// AKM AK09916, the ICM-20948's magnetometer, at 0x0C once ``ICM20948`` has set BYPASS_EN.
///
/// A read is ST1 (DRDY), then HXL...HZH, the dummy TMPS and ST2 in one 8-byte burst from
/// 0x11: reading ST2 ends the read and releases the data lock. ST2's HOFL bit marks a
/// saturated sample, thrown as ``SensorError/overflow(chip:device:)``. Mode changes go
/// through power-down with a 100 µs pause, as the datasheet asks. No temperature output.
public struct AK09916: Magnetometer {
    /// Register addresses and values from the datasheet.
    public enum Register {
        /// The fixed address (through the ICM-20948's bypass).
        public static let address: UInt8 = 0x0C
        /// WIA1 (company ID).
        public static let wia1: UInt8 = 0x00
        /// The value WIA1 reads (AKM).
        public static let wia1Value: UInt8 = 0x48
        /// WIA2 (device ID).
        public static let wia2: UInt8 = 0x01
        /// The value WIA2 reads (AK09916).
        public static let wia2Value: UInt8 = 0x09
        /// ST1: bit 0 DRDY, bit 1 DOR.
        public static let st1: UInt8 = 0x10
        /// HXL; X, Y, Z little-endian, TMPS (0x17) and ST2 (0x18) follow.
        public static let hxl: UInt8 = 0x11
        /// ST2: bit 3 HOFL.
        public static let st2: UInt8 = 0x18
        /// CNTL2: MODE.
        public static let cntl2: UInt8 = 0x31
        /// CNTL3: bit 0 SRST.
        public static let cntl3: UInt8 = 0x32
    }

    /// 0.15 µT/LSB = 150 nT/LSB.
    public static let scale = Scale(nanoUnits: 150, perCounts: 1)

    /// The self-test window from the datasheet, in counts: X and Y within ±200, Z within -1000...-200.
    public static let selfTestLimits: (x: ClosedRange<Int>, y: ClosedRange<Int>, z: ClosedRange<Int>) =
        (-200...200, -200...200, -1000...(-200))

    /// Modes (CNTL2 MODE values).
    public enum Mode: UInt8, Sendable, CaseIterable {
        /// Power-down.
        case powerDown = 0x00
        /// One measurement per ``AK09916/read()``.
        case singleShot = 0x01
        /// Continuous, 10 Hz.
        case continuous10Hz = 0x02
        /// Continuous, 20 Hz.
        case continuous20Hz = 0x04
        /// Continuous, 50 Hz.
        case continuous50Hz = 0x06
        /// Continuous, 100 Hz.
        case continuous100Hz = 0x08
    }

    /// The CNTL2 value for self-test mode.
    static let selfTestMode: UInt8 = 0x10

    let io: RegisterIO
    let clock: any MonotonicClock
    /// The wait for DRDY (a measurement takes about 8 ms).
    public var polling = ReadyPolling(attempts: 20, interval: .milliseconds(2))
    /// Shadow copy of CNTL2 (power-on default: power-down).
    public private(set) var mode: Mode = .powerDown

    /// The chip.
    public var chip: SensorChip { .ak09916 }
    /// `AK09916 at /dev/i2c-1@0x0c`.
    public var device: String { io.device }

    /// Opens the chip at `address` (0x0C) and checks WIA1 and WIA2 first.
    public init(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) {
        io = RegisterIO(bus: bus, address: address, chip: .ak09916)
        self.clock = clock
        try identify()
    }

    /// Checks WIA1 (0x00) = 0x48 and WIA2 (0x01) = 0x09 (an AK8963 or AK0991x differs in WIA2).
    public func identify() throws(SensorError) {
        try io.expectIdentity()
    }

    /// Goes through power-down (with the 100 µs pause), then writes `mode` to CNTL2.
    /// Single-shot mode is started per ``read()``, so configuring it leaves the chip powered down.
    public mutating func configure(_ mode: Mode) throws(SensorError) {
        try enter(.powerDown)
        if mode != .powerDown && mode != .singleShot {
            clock.sleep(for: .microseconds(100))
            try enter(mode)
        }
        self.mode = mode
    }

    private func enter(_ mode: Mode) throws(SensorError) {
        try io.write(Register.cntl2, mode.rawValue)
    }

    /// Reads one sample: in single-shot mode writes MODE = single first; then waits for DRDY
    /// (bounded by ``polling``) and reads the 8 bytes from HXL through ST2.
    public mutating func read() throws(SensorError) -> MagnetometerSample {
        switch mode {
        case .powerDown:
            throw .unsupported(chip: chip, feature: "reading while powered down (configure a mode first)")
        case .singleShot:
            try enter(.singleShot)
        default:
            break
        }
        return try measure()
    }

    private func measure() throws(SensorError) -> MagnetometerSample {
        try io.waitFor(0x01, in: Register.st1, polling: polling, clock: clock)
        let raw = try readRaw()
        let s = Self.scale
        return MagnetometerSample(field: SensorVector(x: s.microtesla(raw.x), y: s.microtesla(raw.y), z: s.microtesla(raw.z)))
    }

    private func readRaw() throws(SensorError) -> (x: Int, y: Int, z: Int) {
        let bytes = try io.readBlock(Register.hxl, count: 8)
        if bytes[7] & 0x08 != 0 { throw .overflow(chip: chip, device: device) }
        return (int16LE(bytes, 0), int16LE(bytes, 2), int16LE(bytes, 4))
    }

    /// Whether ST1 reports DRDY.
    public func isDataReady() throws(SensorError) -> Bool {
        try io.read(Register.st1) & 0x01 != 0
    }

    /// Writes MODE = power-down.
    public mutating func powerDown() throws(SensorError) {
        try enter(.powerDown)
        mode = .powerDown
    }

    /// The datasheet's self-test: power-down, self-test mode (the internal coil), wait for DRDY,
    /// read, and compare with ``selfTestLimits``. The chip returns to power-down by itself; the
    /// mode configured before is restored.
    public mutating func selfTest() throws(SensorError) {
        let previous = mode
        try enter(.powerDown)
        clock.sleep(for: .microseconds(100))
        try io.write(Register.cntl2, Self.selfTestMode)
        try io.waitFor(0x01, in: Register.st1, polling: polling, clock: clock)
        let raw = try readRaw()
        mode = .powerDown
        let limits = Self.selfTestLimits
        var failures: [String] = []
        if !limits.x.contains(raw.x) { failures.append("X \(raw.x) outside \(limits.x)") }
        if !limits.y.contains(raw.y) { failures.append("Y \(raw.y) outside \(limits.y)") }
        if !limits.z.contains(raw.z) { failures.append("Z \(raw.z) outside \(limits.z)") }
        if previous != .powerDown { try configure(previous) }
        guard failures.isEmpty else {
            throw .selfTestFailed(chip: chip, device: device, detail: failures.joined(separator: ", ") + " counts")
        }
    }
}
