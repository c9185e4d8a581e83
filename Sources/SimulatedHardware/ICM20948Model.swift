import HardwareInterfaces

/// The ICM-20948 (0x68/0x69): four register banks selected by REG_BANK_SEL (0x7F), bank 0
/// WHO_AM_I 0x00 = 0xEA, big-endian accelerometer, gyroscope and temperature from 0x2D, sleeping
/// after reset (PWR_MGMT_1 = 0x41), RAW_DATA_0_RDY in INT_STATUS_1 cleared by reading it, and the
/// I2C bypass (INT_PIN_CFG BYPASS_EN with USER_CTRL I2C_MST_EN clear) that exposes the AK09916,
/// and the wake-on-motion interrupt (``evaluateWakeOnMotion(upTo:count:)``).
public struct ICM20948Model: RegisterChipModel {
    /// Register addresses and identity (bank 0 unless named).
    public enum Register {
        /// WHO_AM_I.
        public static let whoAmI: UInt8 = 0x00
        /// WHO_AM_I value.
        public static let identity: UInt8 = 0xEA
        /// USER_CTRL (bit 5 I2C_MST_EN).
        public static let userCtrl: UInt8 = 0x03
        /// PWR_MGMT_1 (bit 7 DEVICE_RESET, bit 6 SLEEP).
        public static let pwrMgmt1: UInt8 = 0x06
        /// PWR_MGMT_2 (bits 5:3 disable accelerometer axes, bits 2:0 gyroscope axes).
        public static let pwrMgmt2: UInt8 = 0x07
        /// INT_PIN_CFG (bit 1 BYPASS_EN).
        public static let intPinCfg: UInt8 = 0x0F
        /// INT_STATUS_1 (bit 0 RAW_DATA_0_RDY_INT).
        public static let intStatus1: UInt8 = 0x1A
        /// ACCEL_XOUT_H.
        public static let accelXOutH: UInt8 = 0x2D
        /// GYRO_XOUT_H.
        public static let gyroXOutH: UInt8 = 0x33
        /// TEMP_OUT_H.
        public static let tempOutH: UInt8 = 0x39
        /// REG_BANK_SEL (every bank).
        public static let bankSelect: UInt8 = 0x7F
        /// Bank 2 GYRO_SMPLRT_DIV.
        public static let gyroSampleRateDiv: UInt8 = 0x00
        /// Bank 2 GYRO_CONFIG_1.
        public static let gyroConfig1: UInt8 = 0x01
        /// Bank 2 GYRO_CONFIG_2 (bits 5:3 X/Y/ZGYRO_CTEN self-test).
        public static let gyroConfig2: UInt8 = 0x02
        /// Bank 1 SELF_TEST_X_GYRO; Y and Z follow.
        public static let selfTestXGyro: UInt8 = 0x02
        /// Bank 2 ACCEL_SMPLRT_DIV_1 (bits 11:8), then _2 (bits 7:0).
        public static let accelSampleRateDiv1: UInt8 = 0x10
        /// Bank 2 ACCEL_CONFIG.
        public static let accelConfig: UInt8 = 0x14
    }

    /// The register map.
    public static let definitions: [RegisterDefinition] = {
        var d: [RegisterDefinition] = [
            .init("WHO_AM_I", 0x00, reset: 0xEA), .init("USER_CTRL", 0x03, writeMask: 0xFE),
            .init("LP_CONFIG", 0x05, reset: 0x40, writeMask: 0x70), .init("PWR_MGMT_1", 0x06, reset: 0x41, writeMask: 0x7F),
            .init("PWR_MGMT_2", 0x07, writeMask: 0x3F), .init("INT_PIN_CFG", 0x0F, writeMask: 0xFE),
            .init("INT_ENABLE", 0x10, writeMask: 0x8F), .init("INT_ENABLE_1", 0x11, writeMask: 0x01),
            .init("INT_STATUS", 0x19), .init("INT_STATUS_1", 0x1A),
            .init("SELF_TEST_X_GYRO", 0x02, reset: factoryGyroscopeCodes[0], writeMask: 0xFF, bank: 1),
            .init("SELF_TEST_Y_GYRO", 0x03, reset: factoryGyroscopeCodes[1], writeMask: 0xFF, bank: 1),
            .init("SELF_TEST_Z_GYRO", 0x04, reset: factoryGyroscopeCodes[2], writeMask: 0xFF, bank: 1),
            .init("GYRO_SMPLRT_DIV", 0x00, writeMask: 0xFF, bank: 2), .init("GYRO_CONFIG_1", 0x01, reset: 0x01, writeMask: 0x3F, bank: 2),
            .init("GYRO_CONFIG_2", 0x02, writeMask: 0x3F, bank: 2),
            .init("ACCEL_SMPLRT_DIV_1", 0x10, writeMask: 0x0F, bank: 2), .init("ACCEL_SMPLRT_DIV_2", 0x11, writeMask: 0xFF, bank: 2),
            .init("ACCEL_INTEL_CTRL", 0x12, writeMask: 0x03, bank: 2), .init("ACCEL_WOM_THR", 0x13, writeMask: 0xFF, bank: 2),
            .init("ACCEL_CONFIG", 0x14, reset: 0x01, writeMask: 0x3F, bank: 2),
        ]
        for r in UInt8(0x2D)...0x3A { d.append(.init("OUT_\(hex(r))", r)) }
        return d
    }()

    /// The factory self-test codes this simulated part carries in bank 1 (SELF_TEST_X/Y/Z_GYRO).
    public static let factoryGyroscopeCodes: [UInt8] = [0x2A, 0x31, 0x27]

    /// The self-test response of a gyroscope axis for its factory `code`, dps: InvenSense's
    /// `2620 · 1.01^(code − 1)` counts at ±250 dps (131 LSB/dps); 0 for code 0.
    public static func gyroscopeSelfTestResponse(code: UInt8) -> Double {
        guard code != 0 else { return 0 }
        var counts = 2620.0
        for _ in 1..<Int(code) { counts *= 1.01 }
        return counts.rounded(.down) / 131
    }

    /// `ICM-20948`.
    public static let chipName = "ICM-20948"
    /// The registers, four banks.
    public var registers = RegisterMap(definitions, bankCount: 4,
                                       bankSelect: .init(register: 0x7F, shift: 4, mask: 0x03))
    /// Always.
    public let autoIncrement = AutoIncrementRule.always
    /// The acceleration in the chip's axes, m/s².
    public var acceleration: PhysicalSource
    /// The angular rate in the chip's axes, degrees per second.
    public var angularRate: PhysicalSource
    /// What the gyroscope adds to the rate (bias and its temperature drift, noise, scale error).
    public var gyroscopeErrors = GyroscopeErrors.ideal
    /// The die temperature, °C.
    public var temperature: Double
    /// The sample timer.
    public private(set) var timer = SampleTimer()
    /// The sample the wake-on-motion compares the next one with (`nil` while it is off).
    var wakeOnMotionReference: SIMD3<Double>?

    /// Creates the chip (default 1 g up the z axis, no rotation, 25 °C).
    public init(acceleration: PhysicalSource = .level,
                angularRate: PhysicalSource = .zero, temperature: Double = 25) {
        self.acceleration = acceleration
        self.angularRate = angularRate
        self.temperature = temperature
    }

    /// Whether the AK09916 is reachable on the host's bus.
    public var bypassEnabled: Bool {
        registers[bank: 0, register: Register.intPinCfg] & 0x02 != 0
            && registers[bank: 0, register: Register.userCtrl] & 0x20 == 0
    }

    /// Whether the chip is awake with the accelerometer on.
    public var isMeasuring: Bool {
        registers[bank: 0, register: Register.pwrMgmt1] & 0x40 == 0
            && registers[bank: 0, register: Register.pwrMgmt2] & 0x38 != 0x38
    }

    /// The accelerometer's output data rate, Hz.
    public var dataRate: Double {
        let div = Int(registers[bank: 2, register: Register.accelSampleRateDiv1] & 0x0F) << 8
            | Int(registers[bank: 2, register: Register.accelSampleRateDiv1 + 1])
        return OtherChipFacts.icm20948AccelerometerBaseRate / Double(1 + div)
    }

    /// Samples while awake.
    public mutating func advance(to now: MonotonicInstant) {
        if isMeasuring { timer.start(every: RawCounts.period(hertz: dataRate), at: now) } else { timer.stop() }
        guard let (instant, count) = timer.take(upTo: now) else { return }
        if wakeOnMotionEnabled { evaluateWakeOnMotion(upTo: instant, count: count) } else { wakeOnMotionReference = nil }
        let aScale = OtherChipFacts.icm20948AccelerometerLSBPerG[Int(registers[bank: 2, register: Register.accelConfig] >> 1 & 0x03)]
        let gScale = OtherChipFacts.icm20948GyroLSBPerDPS[Int(registers[bank: 2, register: Register.gyroConfig1] >> 1 & 0x03)]
        let a = acceleration.value(at: instant)
        // X/Y/ZGYRO_CTEN actuate each axis's factory self-test response (through the chip's scale).
        var actuated = angularRate.value(at: instant)
        let selfTest = registers[bank: 2, register: Register.gyroConfig2]
        for (axis, bit) in [(0, UInt8(0x20)), (1, 0x10), (2, 0x08)] where selfTest & bit != 0 {
            actuated[axis] += Self.gyroscopeSelfTestResponse(code: registers[bank: 1, register: Register.selfTestXGyro + UInt8(axis)])
        }
        let w = gyroscopeErrors.apply(actuated, temperature: temperature, dataRate: dataRate)
        let accel = [a.x, a.y, a.z].map { RawCounts.counts($0, unitsPerCount: PhysicalSource.standardGravity / aScale).value }
        let gyro = [w.x, w.y, w.z].map { RawCounts.counts($0, unitsPerCount: 1 / gScale).value }
        let t = RawCounts.counts(temperature - OtherChipFacts.icm20948Temperature.zeroAt,
                                 unitsPerCount: 1 / OtherChipFacts.icm20948Temperature.lsbPerDegree).value
        var bank0 = registers
        bank0.hostWrite(Register.bankSelect, 0)
        RawCounts.store(accel + gyro + [t], at: Register.accelXOutH, bigEndian: true, in: &bank0)
        bank0[Register.intStatus1] |= 0x01
        let selected = registers.bank
        registers = bank0
        registers.hostWrite(Register.bankSelect, UInt8(selected) << 4)
    }

    /// Reading INT_STATUS or INT_STATUS_1 clears it.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 {
        let value = registers[register]
        if registers.bank == 0 && (register == Register.intStatus1 || register == Self.intStatusRegister) { registers[register] = 0 }
        return value
    }

    /// DEVICE_RESET restores every bank.
    public mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant) {
        if registers.bank == 0 && register == Register.pwrMgmt1 && value & 0x80 != 0 {
            registers.reset()
            timer.stop()
            return
        }
        registers.hostWrite(register, value)
    }
}
