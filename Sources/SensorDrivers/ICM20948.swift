import Devices
import HardwareInterfaces

/// The accelerometer and gyroscope of the TDK InvenSense ICM-20948 (DS-000189), at 0x68 (AD0
/// low) or 0x69.
///
/// Registers are in four banks chosen by REG_BANK_SEL (0x7F, bank in bits 5:4). Output
/// registers are big-endian. ``configure(_:)`` wakes the chip, turns the gyroscope off (unless
/// ``Configuration/gyroscope`` is given) and sets BYPASS_EN, so the AK09916 magnetometer answers
/// at 0x0C on the same bus (drive it with ``AK09916``).
public struct ICM20948: Gyroscope {
    /// Register addresses and values from the datasheet.
    public enum Register {
        /// WHO_AM_I (bank 0).
        public static let whoAmI: UInt8 = 0x00
        /// The value WHO_AM_I reads.
        public static let identity: UInt8 = 0xEA
        /// USER_CTRL (bank 0): bit 5 I2C_MST_EN.
        public static let userCtrl: UInt8 = 0x03
        /// PWR_MGMT_1 (bank 0): bit 7 DEVICE_RESET, bit 6 SLEEP, bits 2:0 CLKSEL.
        public static let pwrMgmt1: UInt8 = 0x06
        /// PWR_MGMT_2 (bank 0): bits 5:3 disable accelerometer axes, bits 2:0 gyroscope axes.
        public static let pwrMgmt2: UInt8 = 0x07
        /// INT_PIN_CFG (bank 0): bit 1 BYPASS_EN.
        public static let intPinCfg: UInt8 = 0x0F
        /// INT_STATUS_1 (bank 0): bit 0 RAW_DATA_0_RDY_INT.
        public static let intStatus1: UInt8 = 0x1A
        /// ACCEL_XOUT_H (bank 0): accelerometer, gyroscope and temperature follow, big-endian.
        public static let accelXOutH: UInt8 = 0x2D
        /// GYRO_XOUT_H (bank 0): gyroscope X, Y, Z big-endian.
        public static let gyroXOutH: UInt8 = 0x33
        /// GYRO_SMPLRT_DIV (bank 2): the gyroscope rate is 1125 Hz / (1 + divider).
        public static let gyroSampleRateDiv: UInt8 = 0x00
        /// GYRO_CONFIG_1 (bank 2): GYRO_DLPFCFG bits 5:3, GYRO_FS_SEL bits 2:1, GYRO_FCHOICE bit 0.
        public static let gyroConfig1: UInt8 = 0x01
        /// GYRO_CONFIG_2 (bank 2): XGYRO_CTEN bit 5, Y bit 4, Z bit 3 (self-test), GYRO_AVGCFG bits 2:0.
        public static let gyroConfig2: UInt8 = 0x02
        /// SELF_TEST_X_GYRO (bank 1): the factory self-test code of X; Y and Z follow.
        public static let selfTestXGyro: UInt8 = 0x02
        /// ACCEL_SMPLRT_DIV_1 (bank 2): divider bits 11:8; ACCEL_SMPLRT_DIV_2 follows.
        public static let accelSampleRateDiv1: UInt8 = 0x10
        /// ACCEL_CONFIG (bank 2): DLPFCFG bits 5:3, FS bits 2:1, FCHOICE bit 0.
        public static let accelConfig: UInt8 = 0x14
        /// ACCEL_CONFIG_2 (bank 2): AX_ST_EN_REG bit 4, AY bit 3, AZ bit 2, DEC3_CFG bits 1:0.
        public static let accelConfig2: UInt8 = 0x15
        /// SELF_TEST_X_ACCEL (bank 1): the factory self-test code of X; Y and Z follow.
        public static let selfTestXAccel: UInt8 = 0x0E
        /// REG_BANK_SEL, in every bank.
        public static let bankSelect: UInt8 = 0x7F
        /// PWR_MGMT_1 value: awake, auto clock.
        public static let wake: UInt8 = 0x01
        /// PWR_MGMT_1 value: asleep, auto clock.
        public static let sleep: UInt8 = 0x41
        /// INT_PIN_CFG value: BYPASS_EN.
        public static let bypass: UInt8 = 0x02
    }

    /// The two addresses the AD0 pin selects.
    public static let addresses: [UInt8] = [0x68, 0x69]

    /// Full-scale range (FS bits of ACCEL_CONFIG).
    public enum Range: UInt8, Sendable, CaseIterable {
        /// ±2 g, 16384 LSB/g.
        case g2 = 0
        /// ±4 g, 8192 LSB/g.
        case g4 = 1
        /// ±8 g, 4096 LSB/g.
        case g8 = 2
        /// ±16 g, 2048 LSB/g.
        case g16 = 3

        /// The exact scale.
        public var scale: Scale { .countsPerG(16384 >> Int64(rawValue)) }
    }

    /// Settings for ``configure(_:)``.
    public struct Configuration: Sendable, Hashable {
        /// Full-scale range.
        public var range: Range
        /// The sample-rate divider: the output data rate is 1125 Hz / (1 + divider); 0...4095.
        public var sampleRateDivider: UInt16
        /// The digital low-pass filter setting (DLPFCFG 0...7), or `nil` to bypass it (FCHOICE = 0).
        public var lowPassFilter: UInt8?
        /// Whether ``ICM20948/read()`` also returns the temperature.
        public var temperature: Bool
        /// The gyroscope's settings, or `nil` to keep it powered down (PWR_MGMT_2 = 0x07).
        public var gyroscope: GyroscopeConfiguration?

        /// Creates settings (default ±2 g, divider 10 = 102.3 Hz, DLPF 1, with temperature, gyroscope off).
        public init(range: Range = .g2, sampleRateDivider: UInt16 = 10, lowPassFilter: UInt8? = 1, temperature: Bool = true,
                    gyroscope: GyroscopeConfiguration? = nil) {
            self.range = range
            self.sampleRateDivider = sampleRateDivider
            self.lowPassFilter = lowPassFilter
            self.temperature = temperature
            self.gyroscope = gyroscope
        }

        /// The output data rate in hertz.
        public var dataRate: Double { 1125 / (1 + Double(sampleRateDivider)) }
    }

    let io: RegisterIO
    /// The clock the self-test waits on; `nil` when the driver was opened without one.
    let clock: (any MonotonicClock)?
    /// The wait for each sample during ``selfTest()`` (a sample every 0.9 ms at 1125 Hz).
    public var polling = ReadyPolling(attempts: 20, interval: .milliseconds(1))
    /// Shadow copy of PWR_MGMT_1 (power-on default: asleep).
    public private(set) var pwrMgmt1: UInt8 = 0x41
    /// Shadow copy of ACCEL_CONFIG (bank 2).
    public private(set) var accelConfig: UInt8 = 0x01
    /// The configuration last written, `nil` before ``configure(_:)`` or after ``powerDown()``.
    public private(set) var configuration: Configuration?
    /// The configuration to go back to when the motion latch is disarmed (`nil` while it is not armed).
    var configurationBeforeLatch: Configuration??

    /// The chip.
    public var chip: SensorChip { .icm20948 }
    /// `ICM-20948 at /dev/i2c-1@0x69`.
    public var device: String { io.device }

    /// Opens the chip at `address` and checks WHO_AM_I in bank 0 before anything else.
    /// ``selfTest()`` needs `clock` for its settling pauses and bounded waits.
    public init(bus: any I2CBus, address: I2CAddress, clock: (any MonotonicClock)? = nil) throws(SensorError) {
        io = RegisterIO(bus: bus, address: address, chip: .icm20948)
        self.clock = clock
        try identify()
    }

    /// Selects bank 0 (a previous user may have left another bank selected), then checks
    /// WHO_AM_I (0x00) = 0xEA.
    public func identify() throws(SensorError) {
        try io.write(Register.bankSelect, 0 << 4)
        try io.expectIdentity()
    }

    /// In bank 0: wakes the chip (PWR_MGMT_1 = 0x01), powers the gyroscope down (PWR_MGMT_2 =
    /// 0x07) or, with a gyroscope configuration, every axis up (0x00), clears I2C_MST_EN and sets
    /// BYPASS_EN; in bank 2: writes GYRO_SMPLRT_DIV and GYRO_CONFIG_1 (with a gyroscope), the
    /// accelerometer divider and ACCEL_CONFIG; then returns to bank 0.
    public mutating func configure(_ configuration: Configuration) throws(SensorError) {
        guard configuration.sampleRateDivider <= 0x0FFF else {
            throw .unsupported(chip: chip, feature: "sample-rate divider \(configuration.sampleRateDivider) (0...4095)")
        }
        if let dlpf = configuration.lowPassFilter, dlpf > 7 {
            throw .unsupported(chip: chip, feature: "DLPFCFG \(dlpf) (0...7)")
        }
        if let dlpf = configuration.gyroscope?.lowPassFilter, dlpf > 7 {
            throw .unsupported(chip: chip, feature: "GYRO_DLPFCFG \(dlpf) (0...7)")
        }
        try io.write(Register.pwrMgmt1, Register.wake)
        pwrMgmt1 = Register.wake
        try io.write(Register.pwrMgmt2, configuration.gyroscope == nil ? 0x07 : 0x00)
        try io.write(Register.userCtrl, 0x00)
        try io.write(Register.intPinCfg, Register.bypass)
        try io.write(Register.bankSelect, 2 << 4)
        if let gyroscope = configuration.gyroscope {
            try io.write(Register.gyroSampleRateDiv, gyroscope.sampleRateDivider)
            try io.write(Register.gyroConfig1, gyroscope.config1)
        }
        let divider = configuration.sampleRateDivider
        try io.write(Register.accelSampleRateDiv1, UInt8(divider >> 8))
        try io.write(Register.accelSampleRateDiv1 + 1, UInt8(divider & 0xFF))
        var value = configuration.range.rawValue << 1
        if let dlpf = configuration.lowPassFilter { value |= dlpf << 3 | 0x01 }
        try io.write(Register.accelConfig, value)
        accelConfig = value
        try io.write(Register.bankSelect, 0 << 4)
        self.configuration = configuration
    }

    /// Reads accelerometer, gyroscope and temperature in one 14-byte burst from ACCEL_XOUT_H,
    /// so all values come from one sample; °C = raw / 333.87 + 21.
    public mutating func read() throws(SensorError) -> AccelerometerSample {
        guard let configuration else {
            throw .unsupported(chip: chip, feature: "reading while asleep (configure first)")
        }
        let bytes = try io.readBlock(Register.accelXOutH, count: 14)
        let s = configuration.range.scale
        let a = SensorVector(x: s.metresPerSecondSquared(int16BE(bytes, 0)), y: s.metresPerSecondSquared(int16BE(bytes, 2)),
                        z: s.metresPerSecondSquared(int16BE(bytes, 4)))
        let temperature = configuration.temperature ? Double(int16BE(bytes, 12)) / 333.87 + 21 : nil
        return AccelerometerSample(acceleration: a, temperature: temperature)
    }

    /// Whether INT_STATUS_1 reports RAW_DATA_0_RDY.
    public func isDataReady() throws(SensorError) -> Bool {
        try io.read(Register.intStatus1) & 0x01 != 0
    }

    /// Sets SLEEP in PWR_MGMT_1 (8 µA full-chip sleep).
    public mutating func powerDown() throws(SensorError) {
        try io.write(Register.pwrMgmt1, Register.sleep)
        pwrMgmt1 = Register.sleep
        configuration = nil
    }

    /// Samples averaged with self-test off and again with it on.
    public static let selfTestSamples = 20

    /// The pass window for the ratio of the measured response to the factory response (InvenSense
    /// criterion A: within ±50 % of the trimmed value).
    public static let selfTestRatioLimits: ClosedRange<Double> = 0.5...1.5

    /// The pass window for the response in milli-g when a factory code reads 0 (InvenSense
    /// criterion B, the datasheet's 225...675 mg).
    public static let selfTestAbsoluteLimits: ClosedRange<Double> = 225...675

    /// The factory self-test response at ±2 g in counts for a SELF_TEST_x_ACCEL `code`:
    /// `2620 * 1.01^(code - 1)` (InvenSense's self-test equation table), or `nil` for code 0
    /// (no trim stored).
    public static func factoryResponse(code: UInt8) -> Double? {
        guard code != 0 else { return nil }
        var value = 2620.0
        for _ in 1..<Int(code) { value *= 1.01 }
        return value.rounded(.down)
    }

    /// InvenSense's accelerometer self-test: awake with the gyroscope off, ±2 g, DLPF 2,
    /// divider 0 (1125 Hz); wait 20 ms and average ``selfTestSamples`` samples (each after
    /// RAW_DATA_0_RDY) with self-test off; set AX/AY/AZ_ST_EN_REG in ACCEL_CONFIG_2, wait 20 ms and
    /// average again; clear them; read the factory codes SELF_TEST_X/Y/Z_ACCEL in bank 1. Each
    /// axis's response (on − off) divided by ``factoryResponse(code:)`` must be within
    /// ``selfTestRatioLimits``; if any code is 0, each response must be within
    /// ``selfTestAbsoluteLimits`` instead. Every wait for data is bounded by ``polling``.
    /// Afterwards the configuration in force before is written again (or, if there was none,
    /// the chip is put back to sleep), also when a step fails, and bank 0 is selected.
    /// Throws ``SensorError/unsupported(chip:feature:)`` when the driver has no clock.
    public mutating func selfTest() throws(SensorError) {
        guard let clock else {
            throw .unsupported(chip: chip, feature: "self-test without a clock (open it with init(bus:address:clock:))")
        }
        let saved = configuration
        let result: Result<(off: [Double], on: [Double], codes: [UInt8]), SensorError>
        do {
            result = .success(try measureSelfTest(InvenSenseSelfTest(
                powerManagement2: 0x07,  // gyroscope off
                bank2Setup: [(Register.accelSampleRateDiv1, 0x00), (Register.accelSampleRateDiv1 + 1, 0x00),
                             (Register.accelConfig, 2 << 3 | 0x01)],  // DLPF 2, ±2 g, FCHOICE
                config2: Register.accelConfig2, enable: 0x1C, output: Register.accelXOutH, codes: Register.selfTestXAccel), clock))
        } catch {
            result = .failure(error)
        }
        try io.write(Register.bankSelect, 0 << 4)  // a failed step may have left bank 1 or 2 selected
        if let saved {
            try configure(saved)
        } else {
            try io.write(Register.pwrMgmt1, Register.sleep)
            pwrMgmt1 = Register.sleep
        }
        let (off, on, codes) = try result.get()
        let factory = codes.map(Self.factoryResponse(code:))
        var failures: [String] = []
        for (index, axis) in ["X", "Y", "Z"].enumerated() {
            let response = on[index] - off[index]
            if factory.contains(nil) {
                let milliG = response * 1000 / 16384
                if !Self.selfTestAbsoluteLimits.contains(milliG) {
                    failures.append("\(axis) response \(milliG) mg outside \(Self.selfTestAbsoluteLimits) (no factory code)")
                }
            } else if let expected = factory[index] {
                let ratio = response / expected
                if !Self.selfTestRatioLimits.contains(ratio) {
                    failures.append("\(axis) response \(response) counts is \(ratio) of the factory \(expected) (code \(codes[index])), outside \(Self.selfTestRatioLimits)")
                }
            }
        }
        guard failures.isEmpty else {
            throw .selfTestFailed(chip: chip, device: device, detail: failures.joined(separator: ", "))
        }
    }

    /// What differs between InvenSense's accelerometer and gyroscope self-tests: the second power
    /// register, the bank-2 rate and range set-up, the bank-2 register holding the self-test enable
    /// bits, the first output register, and the bank-1 register of the first factory code.
    struct InvenSenseSelfTest {
        var powerManagement2: UInt8
        var bank2Setup: [(UInt8, UInt8)]
        var config2: UInt8, enable: UInt8, output: UInt8, codes: UInt8
    }

    /// InvenSense's self-test measurement: awake with `powerManagement2`, the bank-2 set-up with
    /// self-test off, 20 ms, ``selfTestSamples`` averaged; the enable bits, 20 ms, averaged again;
    /// enable bits cleared and the three factory codes read from bank 1; bank 0 selected. The
    /// caller restores the configuration and judges the responses.
    mutating func measureSelfTest(_ test: InvenSenseSelfTest, _ clock: any MonotonicClock)
        throws(SensorError) -> (off: [Double], on: [Double], codes: [UInt8])
    {
        try io.write(Register.pwrMgmt1, Register.wake)
        try io.write(Register.pwrMgmt2, test.powerManagement2)
        try io.write(Register.bankSelect, 2 << 4)
        for (register, value) in test.bank2Setup { try io.write(register, value) }
        try io.write(test.config2, 0x00)
        try io.write(Register.bankSelect, 0 << 4)
        clock.sleep(for: .milliseconds(20))
        let off = try averageCounts(test.output, clock)
        try io.write(Register.bankSelect, 2 << 4)
        try io.write(test.config2, test.enable)
        try io.write(Register.bankSelect, 0 << 4)
        clock.sleep(for: .milliseconds(20))
        let on = try averageCounts(test.output, clock)
        try io.write(Register.bankSelect, 2 << 4)
        try io.write(test.config2, 0x00)
        try io.write(Register.bankSelect, 1 << 4)
        var codes: [UInt8] = []
        for offset: UInt8 in 0..<3 { codes.append(try io.read(test.codes + offset)) }
        try io.write(Register.bankSelect, 0 << 4)
        return (off, on, codes)
    }

    /// Averages ``selfTestSamples`` samples from `output` (accelerometer or gyroscope), each after
    /// RAW_DATA_0_RDY; in counts.
    private func averageCounts(_ output: UInt8, _ clock: any MonotonicClock) throws(SensorError) -> [Double] {
        var sum = [0, 0, 0]
        for _ in 0..<Self.selfTestSamples {
            try io.waitFor(0x01, in: Register.intStatus1, polling: polling, clock: clock)
            let b = try io.readBlock(output, count: 6)
            for axis in 0..<3 { sum[axis] += int16BE(b, 2 * axis) }
        }
        return sum.map { Double($0) / Double(Self.selfTestSamples) }
    }
}
