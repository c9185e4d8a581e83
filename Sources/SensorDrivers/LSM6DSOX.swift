import Devices
import HardwareInterfaces

/// ST LSM6DSOX accelerometer and gyroscope (DS12814) at 0x6A (SA0 low) or 0x6B; the gyroscope
/// stays powered down unless ``Configuration/gyroscope`` is given.
///
/// Multi-byte reads rely on IF_INC (CTRL3_C bit 2), so the sub-address has no bit 7.
public struct LSM6DSOX: Gyroscope {
    /// Register addresses and values from the datasheet.
    public enum Register {
        /// WHO_AM_I.
        public static let whoAmI: UInt8 = 0x0F
        /// The value WHO_AM_I reads (LSM6DSO reads the same).
        public static let identity: UInt8 = 0x6C
        /// CTRL1_XL: ODR_XL, FS_XL, LPF2_XL_EN.
        public static let ctrl1XL: UInt8 = 0x10
        /// CTRL2_G: gyroscope ODR and range (0 = gyroscope off).
        public static let ctrl2G: UInt8 = 0x11
        /// CTRL3_C: BDU (bit 6), IF_INC (bit 2), SW_RESET.
        public static let ctrl3C: UInt8 = 0x12
        /// CTRL4_C: LPF1_SEL_G (bit 1) enables the gyroscope's LPF1.
        public static let ctrl4C: UInt8 = 0x13
        /// CTRL5_C: ST_G (bits 3:2), ST_XL (bits 1:0; 01 positive, 10 negative self-test).
        public static let ctrl5C: UInt8 = 0x14
        /// CTRL6_C: FTYPE (bits 2:0), the gyroscope LPF1 bandwidth.
        public static let ctrl6C: UInt8 = 0x15
        /// STATUS_REG: bit 0 XLDA, bit 1 GDA, bit 2 TDA.
        public static let status: UInt8 = 0x1E
        /// OUT_TEMP_L (256 LSB/°C, 0 at 25 °C); gyroscope and accelerometer follow.
        public static let outTempL: UInt8 = 0x20
        /// OUTX_L_G; gyroscope X, Y, Z little-endian, then the accelerometer.
        public static let outXLG: UInt8 = 0x22
        /// OUTX_L_A; X, Y, Z little-endian follow.
        public static let outXLA: UInt8 = 0x28
    }

    /// The two addresses the SA0 pin selects.
    public static let addresses: [UInt8] = [0x6A, 0x6B]

    /// Full-scale range. The FS_XL codes are not in order: 00 ±2 g, 01 ±16 g, 10 ±4 g, 11 ±8 g.
    public enum Range: Sendable, CaseIterable {
        /// ±2 g, 0.061 mg/LSB.
        case g2
        /// ±4 g, 0.122 mg/LSB.
        case g4
        /// ±8 g, 0.244 mg/LSB.
        case g8
        /// ±16 g, 0.488 mg/LSB.
        case g16

        var bits: UInt8 {
            switch self {
            case .g2: return 0b00 << 2
            case .g16: return 0b01 << 2
            case .g4: return 0b10 << 2
            case .g8: return 0b11 << 2
            }
        }

        /// The exact scale in nano-g per count.
        public var scale: Scale {
            switch self {
            case .g2: return Scale(nanoUnits: 61_000, perCounts: 1)
            case .g4: return Scale(nanoUnits: 122_000, perCounts: 1)
            case .g8: return Scale(nanoUnits: 244_000, perCounts: 1)
            case .g16: return Scale(nanoUnits: 488_000, perCounts: 1)
            }
        }
    }

    /// High-performance output data rates (ODR_XL codes 1...10). The 1.6 Hz low-power rate
    /// needs XL_HM_MODE and is not offered.
    public enum DataRate: UInt8, Sendable, CaseIterable {
        /// 12.5 Hz.
        case hz12_5 = 1
        /// 26 Hz.
        case hz26 = 2
        /// 52 Hz.
        case hz52 = 3
        /// 104 Hz.
        case hz104 = 4
        /// 208 Hz.
        case hz208 = 5
        /// 416 Hz.
        case hz416 = 6
        /// 833 Hz.
        case hz833 = 7
        /// 1.66 kHz.
        case hz1660 = 8
        /// 3.33 kHz.
        case hz3330 = 9
        /// 6.66 kHz.
        case hz6660 = 10
    }

    /// Settings for ``configure(_:)``.
    public struct Configuration: Sendable, Hashable {
        /// The output data rate, or `nil` for power-down.
        public var dataRate: DataRate?
        /// Full-scale range.
        public var range: Range
        /// Whether ``LSM6DSOX/read()`` also reads the temperature.
        public var temperature: Bool
        /// The gyroscope's settings, or `nil` to keep it powered down.
        public var gyroscope: GyroscopeConfiguration?

        /// Creates settings (default 104 Hz, ±2 g, with temperature, gyroscope off).
        public init(dataRate: DataRate? = .hz104, range: Range = .g2, temperature: Bool = true,
                    gyroscope: GyroscopeConfiguration? = nil) {
            self.dataRate = dataRate
            self.range = range
            self.temperature = temperature
            self.gyroscope = gyroscope
        }
    }

    let io: RegisterIO
    /// The clock the self-test waits on; `nil` when the driver was opened without one.
    let clock: (any MonotonicClock)?
    /// The wait for each sample during ``selfTest()`` (one sample every 19 ms at 52 Hz).
    public var polling = ReadyPolling(attempts: 20, interval: .milliseconds(2))
    /// Shadow copies of CTRL1_XL, CTRL2_G and CTRL3_C (power-on defaults at first: IF_INC set).
    public private(set) var ctrl: [UInt8] = [0x00, 0x00, 0x04]
    /// The configuration last written.
    public private(set) var configuration = Configuration(dataRate: nil)
    /// The configuration to go back to when the motion latch is disarmed; `nil` while it is not armed.
    var configurationBeforeLatch: Configuration?

    /// The chip.
    public var chip: SensorChip { .lsm6dsox }
    /// `LSM6DSOX at /dev/i2c-1@0x6a`.
    public var device: String { io.device }

    /// Opens the chip at `address` and checks WHO_AM_I before anything else.
    /// ``selfTest()`` needs `clock` for its settling pauses and bounded waits.
    public init(bus: any I2CBus, address: I2CAddress, clock: (any MonotonicClock)? = nil) throws(SensorError) {
        io = RegisterIO(bus: bus, address: address, chip: .lsm6dsox)
        self.clock = clock
        try identify()
    }

    /// Checks WHO_AM_I (0x0F) = 0x6C.
    public func identify() throws(SensorError) {
        try io.expectIdentity()
    }

    /// Writes CTRL3_C (BDU + IF_INC); with a gyroscope, CTRL4_C (LPF1_SEL_G) and CTRL6_C (FTYPE);
    /// then CTRL2_G (0 = gyroscope off), then CTRL1_XL.
    public mutating func configure(_ configuration: Configuration) throws(SensorError) {
        if let filter = configuration.gyroscope?.lowPassFilter, filter > 7 {
            throw .unsupported(chip: chip, feature: "gyroscope FTYPE \(filter) (0...7)")
        }
        try set(2, 0x44)
        if let gyroscope = configuration.gyroscope {
            try io.write(Register.ctrl4C, gyroscope.lowPassFilter == nil ? 0x00 : 0x02)
            try io.write(Register.ctrl6C, gyroscope.lowPassFilter ?? 0)
        }
        try set(1, configuration.gyroscope?.ctrl2G ?? 0x00)
        try set(0, (configuration.dataRate?.rawValue ?? 0) << 4 | configuration.range.bits)
        self.configuration = configuration
    }

    /// Reads the latest acceleration (and temperature when enabled).
    public mutating func read() throws(SensorError) -> AccelerometerSample {
        guard configuration.dataRate != nil else {
            throw .unsupported(chip: chip, feature: "reading while powered down (configure a data rate first)")
        }
        let bytes = try io.readBlock(Register.outXLA, count: 6)
        let scale = configuration.range.scale
        let a = SensorVector(x: scale.metresPerSecondSquared(int16LE(bytes, 0)),
                        y: scale.metresPerSecondSquared(int16LE(bytes, 2)),
                        z: scale.metresPerSecondSquared(int16LE(bytes, 4)))
        var temperature: Double?
        if configuration.temperature {
            let t = try io.readBlock(Register.outTempL, count: 2)
            temperature = 25 + Double(int16LE(t, 0)) / 256
        }
        return AccelerometerSample(acceleration: a, temperature: temperature)
    }

    /// Whether STATUS_REG reports XLDA.
    public func isDataReady() throws(SensorError) -> Bool {
        try io.read(Register.status) & 0x01 != 0
    }

    /// Writes ODR_XL = 0 (power-down), keeping the range; a running gyroscope gets ODR_G = 0 too.
    public mutating func powerDown() throws(SensorError) {
        try set(0, ctrl[0] & 0x0F)
        configuration.dataRate = nil
        if ctrl[1] & 0xF0 != 0 {
            try set(1, ctrl[1] & 0x0F)
        }
        configuration.gyroscope = nil
    }

    /// The self-test window: the change of each axis between self-test off and on, in milli-g at
    /// ±4 g (datasheet DS12814 table 3 and ST's `lsm6dsox_self_test.c`: 50...1700 mg).
    public static let selfTestLimits: ClosedRange<Double> = 50...1700

    /// ST's accelerometer self-test (`lsm6dsox_self_test.c`): BDU and IF_INC, 52 Hz, ±4 g;
    /// wait 100 ms, discard one sample and average five with ST_XL off; set ST_XL = 01
    /// (positive), wait 100 ms, discard one and average five; clear ST_XL. Each axis must change
    /// by ``selfTestLimits``. Every wait for data is bounded by ``polling``; CTRL3_C and CTRL1_XL
    /// are written back to their previous values afterwards, also when a step fails.
    /// Throws ``SensorError/unsupported(chip:feature:)`` when the driver has no clock.
    public mutating func selfTest() throws(SensorError) {
        try runSelfTest(STSelfTest(control: Register.ctrl1XL, setting: 0x38, savedIndex: 0, enable: 0x01, ready: 0x01,
                                   output: Register.outXLA, thousandthsPerCount: 122, limits: Self.selfTestLimits, label: "", unit: "mg"))
    }

    /// One of ST's two self-tests (`lsm6dsox_self_test.c`), which differ only in their registers,
    /// scale and window: `control` set to `setting` (rate and range) with BDU and IF_INC, 100 ms, one
    /// sample discarded and five averaged with the self-test off; `enable` in CTRL5_C, 100 ms, the
    /// same again; CTRL5_C cleared. CTRL3_C and `control` are written back afterwards, also when a
    /// step fails; each axis must change by `limits`.
    struct STSelfTest {
        var control: UInt8, setting: UInt8, savedIndex: Int, enable: UInt8
        /// The STATUS_REG data-ready bit and the first output register.
        var ready: UInt8, output: UInt8
        /// Output units (mg, dps) per count, in thousandths: 122 for 0.122 mg, 70 for 70 mdps.
        var thousandthsPerCount: Int
        var limits: ClosedRange<Double>
        /// What failure texts name: "" for the accelerometer, "gyroscope " for the gyroscope.
        var label: String, unit: String
    }

    mutating func runSelfTest(_ test: STSelfTest) throws(SensorError) {
        guard let clock else {
            throw .unsupported(chip: chip, feature: "self-test without a clock (open it with init(bus:address:clock:))")
        }
        let saved = ctrl
        let result: Result<(SensorVector, SensorVector), SensorError>
        do {
            try io.write(Register.ctrl3C, 0x44)  // BDU + IF_INC
            try io.write(test.control, test.setting)
            clock.sleep(for: .milliseconds(100))
            let off = try average(test, clock)
            try io.write(Register.ctrl5C, test.enable)
            clock.sleep(for: .milliseconds(100))
            let on = try average(test, clock)
            try io.write(Register.ctrl5C, 0x00)
            result = .success((off, on))
        } catch {
            result = .failure(error)
        }
        try io.write(Register.ctrl3C, saved[2])
        try io.write(test.control, saved[test.savedIndex])
        let (off, on) = try result.get()
        var failures: [String] = []
        for (axis, change) in [("X", abs(on.x - off.x)), ("Y", abs(on.y - off.y)), ("Z", abs(on.z - off.z))]
        where !test.limits.contains(change) {
            failures.append("\(test.label)\(axis) change \(change) \(test.unit) outside \(test.limits)")
        }
        guard failures.isEmpty else {
            throw .selfTestFailed(chip: chip, device: device, detail: failures.joined(separator: ", "))
        }
    }

    /// Discards one sample, then averages five, each after the data-ready bit, in the test's units.
    private func average(_ test: STSelfTest, _ clock: any MonotonicClock) throws(SensorError) -> SensorVector {
        var sum = (x: 0, y: 0, z: 0)
        for index in 0..<6 {
            try io.waitFor(test.ready, in: Register.status, polling: polling, clock: clock)
            let b = try io.readBlock(test.output, count: 6)
            if index == 0 { continue }
            sum.x += int16LE(b, 0)
            sum.y += int16LE(b, 2)
            sum.z += int16LE(b, 4)
        }
        // Exact: the sum of five counts times thousandths, over 5 × 1000.
        let k = test.thousandthsPerCount
        return SensorVector(x: Double(sum.x * k) / 5000, y: Double(sum.y * k) / 5000, z: Double(sum.z * k) / 5000)
    }

    mutating func set(_ index: Int, _ value: UInt8) throws(SensorError) {
        try io.write(Register.ctrl1XL + UInt8(index), value)
        ctrl[index] = value
    }
}
