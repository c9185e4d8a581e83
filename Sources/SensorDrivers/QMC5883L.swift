import Devices
import HardwareInterfaces

/// QST QMC5883L magnetometer (the part on most "GY-271 / HMC5883L" modules), at 0x0D.
///
/// The chip has no real identity register: register 0x0D reads 0xFF, which a floating or
/// absent register could also do. ``identify()`` therefore checks behaviour as well: after a
/// soft reset Control 1 reads its documented default 0x00, and the SET/RESET period register
/// 0x0B keeps the 0x01 the datasheet asks to write there. There is no single-shot mode and no
/// self-test: the modes are continuous and standby.
public struct QMC5883L: Magnetometer {
    /// Register addresses and values from the datasheet.
    public enum Register {
        /// The fixed address.
        public static let address: UInt8 = 0x0D
        /// X LSB; X, Y, Z little-endian, then status, then temperature follow.
        public static let dataXL: UInt8 = 0x00
        /// Status: bit 0 DRDY, bit 1 OVL (overflow), bit 2 DOR (data skipped).
        public static let status: UInt8 = 0x06
        /// Control 1: OSR, RNG, ODR, MODE.
        public static let control1: UInt8 = 0x09
        /// Control 2: SOFT_RST (bit 7), ROL_PNT (bit 6), INT_ENB (bit 0).
        public static let control2: UInt8 = 0x0A
        /// SET/RESET period.
        public static let setResetPeriod: UInt8 = 0x0B
        /// The value the datasheet asks for in the SET/RESET period register.
        public static let setResetPeriodValue: UInt8 = 0x01
        /// "Chip ID" register.
        public static let chipID: UInt8 = 0x0D
        /// The value the chip ID register reads.
        public static let chipIDValue: UInt8 = 0xFF
        /// The soft-reset bit of Control 2.
        public static let softReset: UInt8 = 0x80
    }

    /// Full-scale range.
    public enum Range: UInt8, Sendable, CaseIterable {
        /// ±2 G, 12000 LSB/G.
        case gauss2 = 0
        /// ±8 G, 3000 LSB/G.
        case gauss8 = 1

        /// The exact scale.
        public var scale: Scale { .countsPerGauss(self == .gauss2 ? 12000 : 3000) }
    }

    /// Output data rates (ODR bits of Control 1).
    public enum DataRate: UInt8, Sendable, CaseIterable {
        /// 10 Hz.
        case hz10 = 0
        /// 50 Hz.
        case hz50 = 1
        /// 100 Hz.
        case hz100 = 2
        /// 200 Hz.
        case hz200 = 3
    }

    /// Over-sampling ratio (OSR bits): larger is quieter and slower.
    public enum Oversampling: UInt8, Sendable, CaseIterable {
        /// 512.
        case x512 = 0
        /// 256.
        case x256 = 1
        /// 128.
        case x128 = 2
        /// 64.
        case x64 = 3
    }

    /// Measurement mode: the chip has only these two.
    public enum Mode: UInt8, Sendable, CaseIterable {
        /// Standby (the power-on mode).
        case standby = 0
        /// Continuous.
        case continuous = 1
    }

    /// Settings for ``configure(_:)``.
    public struct Configuration: Sendable, Hashable {
        /// Measurement mode.
        public var mode: Mode
        /// Output data rate.
        public var dataRate: DataRate
        /// Full-scale range.
        public var range: Range
        /// Over-sampling ratio.
        public var oversampling: Oversampling

        /// Creates settings (default continuous, 10 Hz, ±8 G, OSR 512: 0x11).
        public init(mode: Mode = .continuous, dataRate: DataRate = .hz10, range: Range = .gauss8,
                    oversampling: Oversampling = .x512) {
            self.mode = mode
            self.dataRate = dataRate
            self.range = range
            self.oversampling = oversampling
        }

        var control1: UInt8 { oversampling.rawValue << 6 | range.rawValue << 4 | dataRate.rawValue << 2 | mode.rawValue }
    }

    let io: RegisterIO
    let clock: any MonotonicClock
    /// The wait for DRDY in ``read()`` (a 10 Hz sample is 100 ms apart).
    public var polling = ReadyPolling(attempts: 30, interval: .milliseconds(5))
    /// Shadow copy of Control 1 (0x00 after reset).
    public private(set) var control1: UInt8 = 0x00
    /// The configuration last written.
    public private(set) var configuration = Configuration(mode: .standby)

    /// The chip.
    public var chip: SensorChip { .qmc5883l }
    /// `QMC5883L at /dev/i2c-1@0x0d`.
    public var device: String { io.device }

    /// Opens the chip at `address` (0x0D) and detects it by behaviour (see ``identify()``).
    /// The detection soft-resets the chip.
    public init(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) {
        io = RegisterIO(bus: bus, address: address, chip: .qmc5883l)
        self.clock = clock
        try identify()
    }

    /// Detects the chip: 0x0D reads 0xFF; a soft reset (0x0A = 0x80) brings Control 1 (0x09) to
    /// 0x00; 0x0B written 0x01 reads back 0x01. Any other answer is
    /// ``SensorError/unexpectedDevice(chip:device:register:expected:found:)`` naming the register.
    /// The reset leaves the chip in standby; a configuration written before is written again.
    public func identify() throws(SensorError) {
        try io.expectIdentity()
        try io.write(Register.control2, Register.softReset)
        clock.sleep(for: .milliseconds(1))
        try io.expect(Register.control1, is: 0x00)
        try io.write(Register.setResetPeriod, Register.setResetPeriodValue)
        try io.expect(Register.setResetPeriod, is: Register.setResetPeriodValue)
        if control1 != 0 { try io.write(Register.control1, control1) }
    }

    /// Writes the SET/RESET period (0x0B = 0x01) and Control 1.
    public mutating func configure(_ configuration: Configuration) throws(SensorError) {
        try io.write(Register.setResetPeriod, Register.setResetPeriodValue)
        try io.write(Register.control1, configuration.control1)
        control1 = configuration.control1
        self.configuration = configuration
    }

    /// Waits for DRDY (bounded by ``polling``), then reads X, Y, Z and status in one 7-byte burst
    /// from 0x00. An overflow (OVL) throws ``SensorError/overflow(chip:device:)``. The
    /// temperature output is relative (uncalibrated offset), so the sample carries none.
    public mutating func read() throws(SensorError) -> MagnetometerSample {
        guard configuration.mode == .continuous else {
            throw .unsupported(chip: chip, feature: "reading in standby (the QMC5883L has no single-shot mode)")
        }
        try io.waitFor(0x01, in: Register.status, polling: polling, clock: clock)
        let bytes = try io.readBlock(Register.dataXL, count: 7)
        if bytes[6] & 0x02 != 0 { throw .overflow(chip: chip, device: device) }
        let s = configuration.range.scale
        return MagnetometerSample(field: SensorVector(x: s.microtesla(int16LE(bytes, 0)), y: s.microtesla(int16LE(bytes, 2)),
                                                 z: s.microtesla(int16LE(bytes, 4))))
    }

    /// Whether the status register reports DRDY.
    public func isDataReady() throws(SensorError) -> Bool {
        try io.read(Register.status) & 0x01 != 0
    }

    /// Writes MODE = 00 (standby) to Control 1 from its shadow copy.
    public mutating func powerDown() throws(SensorError) {
        let value = control1 & ~0x03
        try io.write(Register.control1, value)
        control1 = value
        configuration.mode = .standby
    }
}
