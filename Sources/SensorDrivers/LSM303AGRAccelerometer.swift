import Devices
import HardwareInterfaces

/// The accelerometer die of the ST LSM303AGR (DocID027765), at 0x19.
///
/// Multi-byte reads set bit 7 of the sub-address (`0x28 | 0x80`). Data are left-justified:
/// 12 bits in high-resolution mode, 10 in normal, 8 in low-power. The die also holds the
/// chip's temperature sensor (TEMP_CFG_REG_A).
public struct LSM303AGRAccelerometer: Accelerometer {
    /// Register addresses and values from the datasheet.
    public enum Register {
        /// The fixed address.
        public static let address: UInt8 = 0x19
        /// WHO_AM_I_A.
        public static let whoAmI: UInt8 = 0x0F
        /// The value WHO_AM_I_A reads.
        public static let identity: UInt8 = 0x33
        /// OUT_TEMP_L_A (left-justified, 0 at 25 °C).
        public static let outTempL: UInt8 = 0x0C
        /// TEMP_CFG_REG_A (0xC0 enables the temperature sensor).
        public static let tempCfg: UInt8 = 0x1F
        /// CTRL_REG1_A: ODR, LPen, Z/Y/X enable.
        public static let ctrl1: UInt8 = 0x20
        /// CTRL_REG4_A: BDU, BLE, FS, HR, self-test.
        public static let ctrl4: UInt8 = 0x23
        /// STATUS_REG_A (bit 3 ZYXDA).
        public static let status: UInt8 = 0x27
        /// OUT_X_L_A; X, Y, Z little-endian follow.
        public static let outXL: UInt8 = 0x28
        /// Sub-address bit 7: auto-increment in a multi-byte read.
        public static let autoIncrement: UInt8 = 0x80
        /// CTRL_REG4_A ST bits (2:1) = 01: positive self-test.
        public static let selfTestPositive: UInt8 = 0x02
    }

    /// Resolution mode (LPen in CTRL_REG1_A, HR in CTRL_REG4_A).
    public enum Resolution: Sendable, CaseIterable {
        /// High-resolution, 12 bits.
        case highResolution
        /// Normal, 10 bits.
        case normal
        /// Low-power, 8 bits.
        case lowPower

        /// Significant bits of the left-justified output.
        public var bits: Int {
            switch self {
            case .highResolution: return 12
            case .normal: return 10
            case .lowPower: return 8
            }
        }
    }

    /// Full-scale range.
    public enum Range: UInt8, Sendable, CaseIterable {
        /// ±2 g.
        case g2 = 0
        /// ±4 g.
        case g4 = 1
        /// ±8 g.
        case g8 = 2
        /// ±16 g.
        case g16 = 3
    }

    /// Output data rates (ODR bits of CTRL_REG1_A).
    public enum DataRate: UInt8, Sendable, CaseIterable {
        /// 1 Hz.
        case hz1 = 1
        /// 10 Hz.
        case hz10 = 2
        /// 25 Hz.
        case hz25 = 3
        /// 50 Hz.
        case hz50 = 4
        /// 100 Hz.
        case hz100 = 5
        /// 200 Hz.
        case hz200 = 6
        /// 400 Hz.
        case hz400 = 7
        /// 1.620 kHz, low-power mode only.
        case hz1620LowPower = 8
        /// 1.344 kHz in high-resolution and normal mode (5.376 kHz in low-power).
        case hz1344 = 9
    }

    /// The sensitivity per count of the right-justified value, in micro-g (datasheet table 3):
    /// the exact scale for each resolution and range.
    public static func scale(_ resolution: Resolution, _ range: Range) -> Scale {
        let microG: (Int64, Int64, Int64, Int64)
        switch resolution {
        case .highResolution: microG = (980, 1950, 3900, 11720)
        case .normal: microG = (3900, 7820, 15630, 46900)
        case .lowPower: microG = (15630, 31260, 62520, 187580)
        }
        let perCount: Int64
        switch range {
        case .g2: perCount = microG.0
        case .g4: perCount = microG.1
        case .g8: perCount = microG.2
        case .g16: perCount = microG.3
        }
        return Scale(nanoUnits: perCount * 1000, perCounts: 1)
    }

    /// Settings for ``configure(_:)``.
    public struct Configuration: Sendable, Hashable {
        /// The output data rate, or `nil` for power-down.
        public var dataRate: DataRate?
        /// Full-scale range.
        public var range: Range
        /// Resolution mode.
        public var resolution: Resolution
        /// Whether the temperature sensor runs and ``LSM303AGRAccelerometer/read()`` reads it.
        public var temperature: Bool

        /// Creates settings (default 100 Hz, ±2 g, high-resolution, with temperature).
        public init(dataRate: DataRate? = .hz100, range: Range = .g2, resolution: Resolution = .highResolution,
                    temperature: Bool = true) {
            self.dataRate = dataRate
            self.range = range
            self.resolution = resolution
            self.temperature = temperature
        }
    }

    let io: RegisterIO
    /// The clock the self-test waits on; `nil` when the driver was opened without one.
    let clock: (any MonotonicClock)?
    /// The wait for each sample during ``selfTest()`` (one sample every 10 ms at 100 Hz).
    public var polling = ReadyPolling(attempts: 20, interval: .milliseconds(2))
    /// Shadow copies of TEMP_CFG_REG_A, CTRL_REG1_A and CTRL_REG4_A (power-on defaults at first).
    public private(set) var tempCfg: UInt8 = 0x00
    /// Shadow copy of CTRL_REG1_A.
    public private(set) var ctrl1: UInt8 = 0x07
    /// Shadow copy of CTRL_REG4_A.
    public private(set) var ctrl4: UInt8 = 0x00
    /// The configuration last written.
    public private(set) var configuration = Configuration(dataRate: nil)
    /// The configuration to go back to when the motion latch is disarmed; `nil` while it is not armed.
    var configurationBeforeLatch: Configuration?

    /// The chip.
    public var chip: SensorChip { .lsm303agrAccelerometer }
    /// `LSM303AGR accelerometer at /dev/i2c-1@0x19`.
    public var device: String { io.device }

    /// Opens the die at `address` (0x19 on every board) and checks WHO_AM_I_A first.
    /// ``selfTest()`` needs `clock` for its settling pauses and bounded waits.
    public init(bus: any I2CBus, address: I2CAddress, clock: (any MonotonicClock)? = nil) throws(SensorError) {
        io = RegisterIO(bus: bus, address: address, chip: .lsm303agrAccelerometer)
        self.clock = clock
        try identify()
    }

    /// Checks WHO_AM_I_A (0x0F) = 0x33.
    public func identify() throws(SensorError) {
        try io.expectIdentity()
    }

    /// Writes TEMP_CFG_REG_A, CTRL_REG4_A (BDU on) and then CTRL_REG1_A (all axes on).
    /// The 1.62 kHz rate exists only in low-power mode.
    public mutating func configure(_ configuration: Configuration) throws(SensorError) {
        if configuration.dataRate == .hz1620LowPower && configuration.resolution != .lowPower {
            throw .unsupported(chip: chip, feature: "1.62 kHz outside low-power mode")
        }
        let newTemp: UInt8 = configuration.temperature ? 0xC0 : 0x00
        let newCtrl4 = 0x80 | configuration.range.rawValue << 4 | (configuration.resolution == .highResolution ? 0x08 : 0)
        let newCtrl1 = (configuration.dataRate?.rawValue ?? 0) << 4
            | (configuration.resolution == .lowPower ? 0x08 : 0) | 0x07
        try io.write(Register.tempCfg, newTemp)
        tempCfg = newTemp
        try io.write(Register.ctrl4, newCtrl4)
        ctrl4 = newCtrl4
        try io.write(Register.ctrl1, newCtrl1)
        ctrl1 = newCtrl1
        self.configuration = configuration
    }

    /// Reads the latest acceleration (from `0xA8`) and, when enabled, the temperature (from `0x8C`).
    public mutating func read() throws(SensorError) -> AccelerometerSample {
        guard configuration.dataRate != nil else {
            throw .unsupported(chip: chip, feature: "reading while powered down (configure a data rate first)")
        }
        let bytes = try io.readBlock(Register.outXL | Register.autoIncrement, count: 6)
        let shift = 16 - configuration.resolution.bits
        let scale = Self.scale(configuration.resolution, configuration.range)
        let a = SensorVector(x: scale.metresPerSecondSquared(int16LE(bytes, 0) >> shift),
                        y: scale.metresPerSecondSquared(int16LE(bytes, 2) >> shift),
                        z: scale.metresPerSecondSquared(int16LE(bytes, 4) >> shift))
        var temperature: Double?
        if configuration.temperature {
            let t = try io.readBlock(Register.outTempL | Register.autoIncrement, count: 2)
            // 10 bits (4 LSB/°C) in normal and high-resolution mode, 8 bits (1 LSB/°C) in low-power.
            let raw = int16LE(t, 0)
            temperature = configuration.resolution == .lowPower ? 25 + Double(raw >> 8) : 25 + Double(raw >> 6) / 4
        }
        return AccelerometerSample(acceleration: a, temperature: temperature)
    }

    /// Whether STATUS_REG_A reports ZYXDA.
    public func isDataReady() throws(SensorError) -> Bool {
        try io.read(Register.status) & 0x08 != 0
    }

    /// Writes ODR = 0000 (power-down) to CTRL_REG1_A from its shadow copy.
    public mutating func powerDown() throws(SensorError) {
        let value = ctrl1 & 0x0F
        try io.write(Register.ctrl1, value)
        ctrl1 = value
        configuration.dataRate = nil
    }

    /// The self-test window: the change of each axis between self-test off and on, in counts of
    /// the 10-bit normal mode at ±2 g (3.9 mg per count). The datasheet gives 17...360 LSB; ST's
    /// `lsm303agr_self_test.c` example uses the same window in milli-g, 68...1440 mg.
    public static let selfTestLimits: ClosedRange<Double> = 17...360

    /// ST's self-test (datasheet and `lsm303agr_self_test.c`): normal mode, ±2 g, 100 Hz, BDU;
    /// wait 90 ms, discard one sample and average five with ST off; set ST = 01 (positive),
    /// wait 90 ms, discard one and average five; clear ST. Each axis must change by
    /// ``selfTestLimits``. Every wait for data is bounded by ``polling``; CTRL_REG4_A and
    /// CTRL_REG1_A are written back to their previous values afterwards, also when a step fails.
    /// Throws ``SensorError/unsupported(chip:feature:)`` when the driver has no clock.
    public mutating func selfTest() throws(SensorError) {
        guard let clock else {
            throw .unsupported(chip: chip, feature: "self-test without a clock (open it with init(bus:address:clock:))")
        }
        let saved = (ctrl1: ctrl1, ctrl4: ctrl4)
        let base: UInt8 = 0x80  // BDU, ±2 g, HR off (normal mode)
        let result: Result<(SensorVector, SensorVector), SensorError>
        do {
            try io.write(Register.ctrl4, base)
            try io.write(Register.ctrl1, 0x57)  // 100 Hz, LPen off, X/Y/Z on
            clock.sleep(for: .milliseconds(90))
            let off = try averageNormalCounts(clock)
            try io.write(Register.ctrl4, base | Register.selfTestPositive)
            clock.sleep(for: .milliseconds(90))
            let on = try averageNormalCounts(clock)
            try io.write(Register.ctrl4, base)
            result = .success((off, on))
        } catch {
            result = .failure(error)
        }
        try io.write(Register.ctrl4, saved.ctrl4)
        try io.write(Register.ctrl1, saved.ctrl1)
        let (off, on) = try result.get()
        let failures = selfTestFailures(off: off, on: on, limits: Self.selfTestLimits, unit: "LSB (10-bit, ±2 g)")
        guard failures.isEmpty else {
            throw .selfTestFailed(chip: chip, device: device, detail: failures.joined(separator: ", "))
        }
    }

    /// Discards one sample, then averages five, each after ZYXDA; in 10-bit counts.
    private func averageNormalCounts(_ clock: any MonotonicClock) throws(SensorError) -> SensorVector {
        var sum = SensorVector.zero
        for index in 0..<6 {
            try io.waitFor(0x08, in: Register.status, polling: polling, clock: clock)
            let b = try io.readBlock(Register.outXL | Register.autoIncrement, count: 6)
            if index == 0 { continue }
            sum.x += Double(int16LE(b, 0) >> 6)
            sum.y += Double(int16LE(b, 2) >> 6)
            sum.z += Double(int16LE(b, 4) >> 6)
        }
        return SensorVector(x: sum.x / 5, y: sum.y / 5, z: sum.z / 5)
    }
}
