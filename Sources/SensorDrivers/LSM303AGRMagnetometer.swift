import Devices
import HardwareInterfaces

/// The magnetometer die of the ST LSM303AGR (the LIS2MDL core), at 0x1E.
///
/// This die increments the register pointer by itself in a multi-byte read (the kernel's
/// st_magn driver has no multi-read bit for it), so reads start at 0x68 without bit 7.
/// Its temperature is read through the accelerometer die.
public struct LSM303AGRMagnetometer: Magnetometer {
    /// Register addresses from the datasheet.
    public enum Register {
        /// The fixed address.
        public static let address: UInt8 = 0x1E
        /// OFFSET_X_REG_L_M: hard-iron offsets X, Y, Z (little-endian, same LSB as the output).
        public static let offsetXL: UInt8 = 0x45
        /// WHO_AM_I_M.
        public static let whoAmI: UInt8 = 0x4F
        /// The value WHO_AM_I_M reads.
        public static let identity: UInt8 = 0x40
        /// CFG_REG_A_M: COMP_TEMP_EN, REBOOT, SOFT_RST, LP, ODR, MD.
        public static let cfgA: UInt8 = 0x60
        /// CFG_REG_B_M: OFF_CANC_ONE_SHOT, INT_on_DataOFF, Set_FREQ, OFF_CANC, LPF.
        public static let cfgB: UInt8 = 0x61
        /// CFG_REG_C_M: INT_MAG_PIN, I2C_DIS, BDU, BLE, Self_test, INT_MAG.
        public static let cfgC: UInt8 = 0x62
        /// STATUS_REG_M (bit 3 ZYXDA).
        public static let status: UInt8 = 0x67
        /// OUTX_L_REG_M; X, Y, Z little-endian follow.
        public static let outXL: UInt8 = 0x68
        /// CFG_REG_C_M bit 1: Self_test.
        public static let selfTest: UInt8 = 0x02
    }

    /// 1.5 mG/LSB = 150 nT/LSB, ±50 G.
    public static let scale = Scale(nanoUnits: 150, perCounts: 1)

    /// Output data rates (ODR bits of CFG_REG_A_M).
    public enum DataRate: UInt8, Sendable, CaseIterable {
        /// 10 Hz.
        case hz10 = 0
        /// 20 Hz.
        case hz20 = 1
        /// 50 Hz.
        case hz50 = 2
        /// 100 Hz.
        case hz100 = 3
    }

    /// Measurement mode (MD bits).
    public enum Mode: UInt8, Sendable, CaseIterable {
        /// Continuous.
        case continuous = 0
        /// One measurement per ``LSM303AGRMagnetometer/read()``, then idle.
        case singleShot = 1
        /// Idle (the power-on mode).
        case idle = 3
    }

    /// Settings for ``configure(_:)``.
    public struct Configuration: Sendable, Hashable {
        /// Measurement mode.
        public var mode: Mode
        /// Output data rate (continuous mode).
        public var dataRate: DataRate
        /// Low-power mode (LP): less current, more noise.
        public var lowPower: Bool
        /// Offset cancellation by set/reset pulses (OFF_CANC, and OFF_CANC_ONE_SHOT in single-shot mode).
        public var offsetCancellation: Bool
        /// The digital low-pass filter (LPF).
        public var lowPassFilter: Bool

        /// Creates settings (default continuous 10 Hz, offset cancellation on).
        public init(mode: Mode = .continuous, dataRate: DataRate = .hz10, lowPower: Bool = false,
                    offsetCancellation: Bool = true, lowPassFilter: Bool = false) {
            self.mode = mode
            self.dataRate = dataRate
            self.lowPower = lowPower
            self.offsetCancellation = offsetCancellation
            self.lowPassFilter = lowPassFilter
        }
    }

    let io: RegisterIO
    let clock: any MonotonicClock
    /// The wait for a single-shot measurement.
    public var polling = ReadyPolling(attempts: 20, interval: .milliseconds(2))
    /// Shadow copy of CFG_REG_A_M (power-on default: idle).
    public private(set) var cfgA: UInt8 = 0x03
    /// Shadow copy of CFG_REG_B_M.
    public private(set) var cfgB: UInt8 = 0x00
    /// Shadow copy of CFG_REG_C_M.
    public private(set) var cfgC: UInt8 = 0x00
    /// The configuration last written.
    public private(set) var configuration = Configuration(mode: .idle)

    /// The chip.
    public var chip: SensorChip { .lsm303agrMagnetometer }
    /// `LSM303AGR magnetometer at /dev/i2c-1@0x1e`.
    public var device: String { io.device }

    /// Opens the die at `address` (0x1E on every board) and checks WHO_AM_I_M first.
    public init(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) {
        io = RegisterIO(bus: bus, address: address, chip: .lsm303agrMagnetometer)
        self.clock = clock
        try identify()
    }

    /// Checks WHO_AM_I_M (0x4F) = 0x40.
    public func identify() throws(SensorError) {
        try io.expectIdentity()
    }

    /// Writes CFG_REG_C_M (BDU), CFG_REG_B_M and then CFG_REG_A_M (temperature compensation on,
    /// as ST requires). Single-shot leaves the die idle until ``read()``.
    public mutating func configure(_ configuration: Configuration) throws(SensorError) {
        let c: UInt8 = 0x10
        var b: UInt8 = configuration.lowPassFilter ? 0x01 : 0
        if configuration.offsetCancellation {
            b |= 0x02
            if configuration.mode == .singleShot { b |= 0x10 }
        }
        let mode = configuration.mode == .singleShot ? Mode.idle : configuration.mode
        let a = cfgAValue(configuration, mode: mode)
        try io.write(Register.cfgC, c)
        cfgC = c
        try io.write(Register.cfgB, b)
        cfgB = b
        try io.write(Register.cfgA, a)
        cfgA = a
        self.configuration = configuration
    }

    private func cfgAValue(_ configuration: Configuration, mode: Mode) -> UInt8 {
        0x80 | (configuration.lowPower ? 0x10 : 0) | configuration.dataRate.rawValue << 2 | mode.rawValue
    }

    /// Reads X, Y, Z. In single-shot mode it writes MD = 01 and waits for ZYXDA within ``polling``.
    public mutating func read() throws(SensorError) -> MagnetometerSample {
        switch configuration.mode {
        case .idle:
            throw .unsupported(chip: chip, feature: "reading while idle (configure a mode first)")
        case .singleShot:
            let a = cfgAValue(configuration, mode: .singleShot)
            try io.write(Register.cfgA, a)
            cfgA = a
            try io.waitFor(0x08, in: Register.status, polling: polling, clock: clock)
        case .continuous:
            break
        }
        let bytes = try io.readBlock(Register.outXL, count: 6)
        let s = Self.scale
        return MagnetometerSample(field: SensorVector(x: s.microtesla(int16LE(bytes, 0)), y: s.microtesla(int16LE(bytes, 2)),
                                                 z: s.microtesla(int16LE(bytes, 4))))
    }

    /// Whether STATUS_REG_M reports ZYXDA.
    public func isDataReady() throws(SensorError) -> Bool {
        try io.read(Register.status) & 0x08 != 0
    }

    /// Writes MD = 11 (idle) to CFG_REG_A_M from its shadow copy.
    public mutating func powerDown() throws(SensorError) {
        let a = cfgA & ~0x03 | Mode.idle.rawValue
        try io.write(Register.cfgA, a)
        cfgA = a
        configuration.mode = .idle
    }

    /// The self-test window: the change of each axis between self-test off and on, in milligauss
    /// (ST's `lsm303agr_self_test.c`: 15...500 mG, the LIS2MDL core's datasheet window).
    public static let selfTestLimits: ClosedRange<Double> = 15...500

    /// ST's self-test (`lsm303agr_self_test.c`): continuous mode, 100 Hz, temperature
    /// compensation, offset cancellation, BDU; wait 20 ms, discard one sample and average 50 with
    /// Self_test off; set Self_test, wait 60 ms, discard one and average 50; clear Self_test.
    /// Each axis must change by ``selfTestLimits``. Every wait for data is bounded by
    /// ``polling``; CFG_REG_C_M, CFG_REG_B_M and CFG_REG_A_M are written back to their previous
    /// values afterwards, also when a step fails.
    public mutating func selfTest() throws(SensorError) {
        let saved = (a: cfgA, b: cfgB, c: cfgC)
        let c: UInt8 = 0x10  // BDU
        let result: Result<(SensorVector, SensorVector), SensorError>
        do {
            try io.write(Register.cfgC, c)
            try io.write(Register.cfgB, 0x02)  // OFF_CANC every ODR
            try io.write(Register.cfgA, 0x8C)  // COMP_TEMP_EN, 100 Hz, continuous
            clock.sleep(for: .milliseconds(20))
            let off = try averageMilligauss()
            try io.write(Register.cfgC, c | Register.selfTest)
            clock.sleep(for: .milliseconds(60))
            let on = try averageMilligauss()
            try io.write(Register.cfgC, c)
            result = .success((off, on))
        } catch {
            result = .failure(error)
        }
        try io.write(Register.cfgC, saved.c)
        try io.write(Register.cfgB, saved.b)
        try io.write(Register.cfgA, saved.a)
        let (off, on) = try result.get()
        let failures = selfTestFailures(off: off, on: on, limits: Self.selfTestLimits, unit: "mG")
        guard failures.isEmpty else {
            throw .selfTestFailed(chip: chip, device: device, detail: failures.joined(separator: ", "))
        }
    }

    /// Discards one sample, then averages 50, each after ZYXDA; in milligauss (1.5 mG per count).
    private func averageMilligauss() throws(SensorError) -> SensorVector {
        var sum = SensorVector.zero
        for index in 0..<51 {
            try io.waitFor(0x08, in: Register.status, polling: polling, clock: clock)
            let b = try io.readBlock(Register.outXL, count: 6)
            if index == 0 { continue }
            sum.x += Double(int16LE(b, 0))
            sum.y += Double(int16LE(b, 2))
            sum.z += Double(int16LE(b, 4))
        }
        return SensorVector(x: sum.x * 1.5 / 50, y: sum.y * 1.5 / 50, z: sum.z * 1.5 / 50)
    }

    /// Writes hard-iron offsets (in counts of 1.5 mG) that the die subtracts from every output.
    public func setHardIronOffset(x: Int16, y: Int16, z: Int16) throws(SensorError) {
        var bytes: [UInt8] = []
        for v in [x, y, z] {
            let u = UInt16(bitPattern: v)
            bytes += [UInt8(u & 0xFF), UInt8(u >> 8)]
        }
        try io.writeBlock(Register.offsetXL, bytes)
    }
}

/// The axes whose change `|on - off|` falls outside `limits`, one phrase each:
/// `X change 12.0 LSB (10-bit, ±2 g) outside 17.0...360.0`.
func selfTestFailures(off: SensorVector, on: SensorVector, limits: ClosedRange<Double>, unit: String) -> [String] {
    var failures: [String] = []
    for (axis, change) in [("X", abs(on.x - off.x)), ("Y", abs(on.y - off.y)), ("Z", abs(on.z - off.z))]
    where !limits.contains(change) {
        failures.append("\(axis) change \(change) \(unit) outside \(limits)")
    }
    return failures
}
