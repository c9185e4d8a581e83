import HardwareInterfaces

/// Chip facts of the ST parts, as data (DocID027765 for the LSM303AGR, DocID024204 for the
/// LIS3MDL, DS12814 for the LSM6DSOX).
public enum STChipFacts {
    /// LSM303AGR accelerometer: mg per digit of the justified value, by mode (high-resolution,
    /// normal, low-power) and full scale (±2, 4, 8, 16 g).
    public static let lsm303agrAccelerometerMilligPerDigit: [[Double]] = [
        [0.98, 1.95, 3.9, 11.72], [3.9, 7.82, 15.63, 46.9], [15.63, 31.26, 62.52, 187.58],
    ]
    /// LSM303AGR accelerometer: significant bits by mode (high-resolution, normal, low-power).
    public static let lsm303agrAccelerometerBits = [12, 10, 8]
    /// LSM303AGR accelerometer output data rates in Hz by CTRL_REG1_A ODR (0 = power-down).
    public static let lsm303agrAccelerometerRates: [Double] = [0, 1, 10, 25, 50, 100, 200, 400, 1620, 1344]
    /// LSM303AGR magnetometer: µT per LSB (1.5 mG).
    public static let lsm303agrMagnetometerMicroteslaPerLSB = 0.15
    /// LSM303AGR magnetometer output data rates by CFG_REG_A_M ODR.
    public static let lsm303agrMagnetometerRates: [Double] = [10, 20, 50, 100]
    /// LIS3MDL: LSB per gauss by CTRL_REG2 FS (±4, 8, 12, 16 G).
    public static let lis3mdlLSBPerGauss: [Double] = [6842, 3421, 2281, 1711]
    /// LIS3MDL: output data rates by CTRL_REG1 DO.
    public static let lis3mdlRates: [Double] = [0.625, 1.25, 2.5, 5, 10, 20, 40, 80]
    /// LIS3MDL: FAST_ODR rates by X/Y operating mode (low-power, medium, high, ultra-high).
    public static let lis3mdlFastRates: [Double] = [1000, 560, 300, 155]
    /// LIS3MDL: temperature LSB per °C, zero at 25 °C.
    public static let lis3mdlTemperatureLSBPerDegree = 8.0
    /// LSM6DSOX: accelerometer mg per LSB by CTRL1_XL FS bits (00 ±2, 01 ±16, 10 ±4, 11 ±8 g).
    public static let lsm6dsoxAccelerometerMilligPerLSB: [Double] = [0.061, 0.488, 0.122, 0.244]
    /// LSM6DSOX: gyroscope mdps per LSB by CTRL2_G FS bits (250, 500, 1000, 2000 dps); 125 dps is 4.375.
    public static let lsm6dsoxGyroMilliDPSPerLSB: [Double] = [8.75, 17.5, 35, 70]
    /// LSM6DSOX: output data rates by ODR bits (0 = power-down, 11 = 1.6 Hz).
    public static let lsm6dsoxRates: [Double] = [0, 12.5, 26, 52, 104, 208, 416, 833, 1660, 3330, 6660, 1.6]
    /// LSM6DSOX: temperature LSB per °C, zero at 25 °C.
    public static let lsm6dsoxTemperatureLSBPerDegree = 256.0
}

/// The LSM303AGR magnetometer die (0x1E, the LIS2MDL core): WHO_AM_I_M 0x4F = 0x40, 0.15 µT/LSB
/// little-endian data at 0x68 (big-endian with BLE), auto-increment always, continuous, single
/// (back to idle after one sample) and idle modes, hard-iron offset registers subtracted.
public struct LSM303AGRMagnetometerModel: RegisterChipModel {
    /// Register addresses and identity.
    public enum Register {
        /// OFFSET_X_REG_L_M.
        public static let offsetXL: UInt8 = 0x45
        /// WHO_AM_I_M.
        public static let whoAmI: UInt8 = 0x4F
        /// WHO_AM_I_M value.
        public static let identity: UInt8 = 0x40
        /// CFG_REG_A_M.
        public static let cfgA: UInt8 = 0x60
        /// CFG_REG_B_M.
        public static let cfgB: UInt8 = 0x61
        /// CFG_REG_C_M.
        public static let cfgC: UInt8 = 0x62
        /// STATUS_REG_M (bit 3 ZYXDA, bit 7 ZYXOR).
        public static let status: UInt8 = 0x67
        /// OUTX_L_REG_M.
        public static let outXL: UInt8 = 0x68
    }

    /// The register map.
    public static let definitions: [RegisterDefinition] = [
        .init("OFFSET_X_REG_L_M", 0x45, writeMask: 0xFF), .init("OFFSET_X_REG_H_M", 0x46, writeMask: 0xFF),
        .init("OFFSET_Y_REG_L_M", 0x47, writeMask: 0xFF), .init("OFFSET_Y_REG_H_M", 0x48, writeMask: 0xFF),
        .init("OFFSET_Z_REG_L_M", 0x49, writeMask: 0xFF), .init("OFFSET_Z_REG_H_M", 0x4A, writeMask: 0xFF),
        .init("WHO_AM_I_M", 0x4F, reset: 0x40),
        .init("CFG_REG_A_M", 0x60, reset: 0x03, writeMask: 0xFF), .init("CFG_REG_B_M", 0x61, writeMask: 0x1F),
        .init("CFG_REG_C_M", 0x62, writeMask: 0x7B), .init("INT_CTRL_REG_M", 0x63, reset: 0xE0, writeMask: 0xE7),
        .init("INT_SOURCE_REG_M", 0x64), .init("INT_THS_L_REG_M", 0x65, writeMask: 0xFF),
        .init("INT_THS_H_REG_M", 0x66, writeMask: 0xFF), .init("STATUS_REG_M", 0x67),
        .init("OUTX_L_REG_M", 0x68), .init("OUTX_H_REG_M", 0x69), .init("OUTY_L_REG_M", 0x6A),
        .init("OUTY_H_REG_M", 0x6B), .init("OUTZ_L_REG_M", 0x6C), .init("OUTZ_H_REG_M", 0x6D),
    ]

    /// `LSM303AGR magnetometer`.
    public static let chipName = "LSM303AGR magnetometer"
    /// The registers.
    public var registers = RegisterMap(definitions)
    /// Always (the LIS2MDL core needs no multi-read bit).
    public let autoIncrement = AutoIncrementRule.always
    /// The field in the chip's axes, µT.
    public var field: PhysicalSource
    /// The sample timer.
    public private(set) var timer = SampleTimer()
    /// Samples taken so far.
    public private(set) var samples = 0

    /// Creates the die with `field`.
    public init(field: PhysicalSource = .zero) { self.field = field }

    /// MD bits: 0 continuous, 1 single, 2 or 3 idle.
    public var mode: UInt8 { registers[Register.cfgA] & 0x03 }

    /// The output data rate, Hz.
    public var dataRate: Double { STChipFacts.lsm303agrMagnetometerRates[Int(registers[Register.cfgA] >> 2 & 0x03)] }

    /// Samples when due; a single measurement returns the die to idle.
    public mutating func advance(to now: MonotonicInstant) {
        if mode == 0 { timer.start(every: RawCounts.period(hertz: dataRate), at: now) }
        guard let (instant, count) = timer.take(upTo: now) else { return }
        let b = field.value(at: instant)
        var raw: [Int] = []
        for (i, v) in [b.x, b.y, b.z].enumerated() {
            let offsetRegister = Register.offsetXL + UInt8(2 * i)
            let offset = Int(Int16(bitPattern: UInt16(registers[offsetRegister]) | UInt16(registers[offsetRegister + 1]) << 8))
            let counts = RawCounts.counts(v, unitsPerCount: STChipFacts.lsm303agrMagnetometerMicroteslaPerLSB).value - offset
            raw.append(min(32767, max(-32768, counts)))
        }
        RawCounts.store(raw, at: Register.outXL, bigEndian: registers[Register.cfgC] & 0x08 != 0, in: &registers)
        let overrun = count > 1 || registers[Register.status] & 0x08 != 0
        registers.set(0x08, in: Register.status)
        registers.set(0x80, in: Register.status, to: overrun)
        samples += 1
        if mode == 1 { registers[Register.cfgA] |= 0x03 }
    }

    /// Reading the data clears ZYXDA and ZYXOR.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 {
        let value = registers[register]
        if (0x68...0x6D).contains(register) { registers.set(0x88, in: Register.status, to: false) }
        return value
    }

    /// Mode writes start or stop sampling; SOFT_RST restores the registers.
    public mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant) {
        if register == Register.cfgA && value & 0x20 != 0 {
            registers.reset()
            timer.stop()
            return
        }
        registers.hostWrite(register, value)
        guard register == Register.cfgA else { return }
        switch mode {
        case 0: timer.start(every: RawCounts.period(hertz: dataRate), at: now)
        case 1: timer.once(after: RawCounts.period(hertz: dataRate), at: now)
        default: timer.stop()
        }
    }
}

/// The LIS3MDL magnetometer (0x1C/0x1E): WHO_AM_I 0x0F = 0x3D, ±4-16 G, little-endian data at
/// 0x28 (BLE swaps), multi-byte reads only with bit 7 of the sub-address, continuous, single
/// (back to power-down) and power-down modes, temperature at 0x2E with TEMP_EN.
public struct LIS3MDLModel: RegisterChipModel {
    /// Register addresses and identity.
    public enum Register {
        /// WHO_AM_I.
        public static let whoAmI: UInt8 = 0x0F
        /// WHO_AM_I value.
        public static let identity: UInt8 = 0x3D
        /// CTRL_REG1.
        public static let ctrl1: UInt8 = 0x20
        /// CTRL_REG2.
        public static let ctrl2: UInt8 = 0x21
        /// CTRL_REG3.
        public static let ctrl3: UInt8 = 0x22
        /// CTRL_REG4.
        public static let ctrl4: UInt8 = 0x23
        /// STATUS_REG (bit 3 ZYXDA, bit 7 ZYXOR).
        public static let status: UInt8 = 0x27
        /// OUT_X_L.
        public static let outXL: UInt8 = 0x28
        /// TEMP_OUT_L.
        public static let tempOutL: UInt8 = 0x2E
    }

    /// The register map.
    public static let definitions: [RegisterDefinition] = [
        .init("WHO_AM_I", 0x0F, reset: 0x3D),
        .init("CTRL_REG1", 0x20, reset: 0x10, writeMask: 0xFF), .init("CTRL_REG2", 0x21, writeMask: 0x6C),
        .init("CTRL_REG3", 0x22, reset: 0x03, writeMask: 0x27), .init("CTRL_REG4", 0x23, writeMask: 0x0E),
        .init("CTRL_REG5", 0x24, writeMask: 0xC0), .init("STATUS_REG", 0x27),
        .init("OUT_X_L", 0x28), .init("OUT_X_H", 0x29), .init("OUT_Y_L", 0x2A), .init("OUT_Y_H", 0x2B),
        .init("OUT_Z_L", 0x2C), .init("OUT_Z_H", 0x2D), .init("TEMP_OUT_L", 0x2E), .init("TEMP_OUT_H", 0x2F),
        .init("INT_CFG", 0x30, reset: 0xE8, writeMask: 0xEF), .init("INT_SRC", 0x31),
        .init("INT_THS_L", 0x32, writeMask: 0xFF), .init("INT_THS_H", 0x33, writeMask: 0x7F),
    ]

    /// `LIS3MDL`.
    public static let chipName = "LIS3MDL"
    /// The registers.
    public var registers = RegisterMap(definitions)
    /// Bit 7 of the sub-address.
    public let autoIncrement = AutoIncrementRule.subAddressBit7
    /// The field in the chip's axes, µT.
    public var field: PhysicalSource
    /// The die temperature, °C.
    public var temperature: Double
    /// The sample timer.
    public private(set) var timer = SampleTimer()
    /// Samples taken so far.
    public private(set) var samples = 0

    /// Creates the chip with `field` at `temperature`.
    public init(field: PhysicalSource = .zero, temperature: Double = 25) {
        self.field = field
        self.temperature = temperature
    }

    /// MD bits: 0 continuous, 1 single, 2 or 3 power-down.
    public var mode: UInt8 { registers[Register.ctrl3] & 0x03 }

    /// The output data rate, Hz (FAST_ODR by operating mode).
    public var dataRate: Double {
        let c1 = registers[Register.ctrl1]
        if c1 & 0x02 != 0 { return STChipFacts.lis3mdlFastRates[Int(c1 >> 5 & 0x03)] }
        return STChipFacts.lis3mdlRates[Int(c1 >> 2 & 0x07)]
    }

    /// Samples when due; a single conversion returns the chip to power-down.
    public mutating func advance(to now: MonotonicInstant) {
        if mode == 0 { timer.start(every: RawCounts.period(hertz: dataRate), at: now) }
        guard let (instant, count) = timer.take(upTo: now) else { return }
        let lsbPerGauss = STChipFacts.lis3mdlLSBPerGauss[Int(registers[Register.ctrl2] >> 5 & 0x03)]
        let b = field.value(at: instant)
        let raw = [b.x, b.y, b.z].map { RawCounts.counts($0, unitsPerCount: 100 / lsbPerGauss).value }
        let bigEndian = registers[Register.ctrl4] & 0x02 != 0
        RawCounts.store(raw, at: Register.outXL, bigEndian: bigEndian, in: &registers)
        if registers[Register.ctrl1] & 0x80 != 0 {
            let t = RawCounts.counts(temperature - 25, unitsPerCount: 1 / STChipFacts.lis3mdlTemperatureLSBPerDegree).value
            RawCounts.store(t, at: Register.tempOutL, bigEndian: bigEndian, in: &registers)
        }
        let overrun = count > 1 || registers[Register.status] & 0x08 != 0
        registers.set(0x08, in: Register.status)
        registers.set(0x80, in: Register.status, to: overrun)
        samples += 1
        if mode == 1 { registers[Register.ctrl3] |= 0x03 }
    }

    /// Reading the data clears ZYXDA and ZYXOR.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 {
        let value = registers[register]
        if (0x28...0x2D).contains(register) { registers.set(0x88, in: Register.status, to: false) }
        return value
    }

    /// Mode writes start or stop sampling; SOFT_RST restores the registers.
    public mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant) {
        if register == Register.ctrl2 && value & 0x04 != 0 {
            registers.reset()
            timer.stop()
            return
        }
        registers.hostWrite(register, value)
        guard register == Register.ctrl3 || register == Register.ctrl1 else { return }
        switch mode {
        case 0: timer.start(every: RawCounts.period(hertz: dataRate), at: now)
        case 1: if register == Register.ctrl3 { timer.once(after: RawCounts.period(hertz: dataRate), at: now) }
        default: timer.stop()
        }
    }
}

/// The LSM6DSOX accelerometer and gyroscope (0x6A/0x6B): WHO_AM_I 0x0F = 0x6C, accelerometer
/// at 0x28 and gyroscope at 0x22 little-endian, temperature at 0x20 (256 LSB/°C, 0 at 25 °C),
/// bursts walk registers only while CTRL3_C IF_INC is set (the default), XLDA/GDA/TDA in
/// STATUS_REG cleared by reading the data; and the wake-up interrupt (the motion latch, in
/// LSM6DSOXWakeUp.swift).
public struct LSM6DSOXModel: RegisterChipModel {
    /// Register addresses and identity.
    public enum Register {
        /// WHO_AM_I.
        public static let whoAmI: UInt8 = 0x0F
        /// WHO_AM_I value.
        public static let identity: UInt8 = 0x6C
        /// CTRL1_XL.
        public static let ctrl1XL: UInt8 = 0x10
        /// CTRL2_G.
        public static let ctrl2G: UInt8 = 0x11
        /// CTRL3_C (bit 2 IF_INC, bit 1 BLE, bit 0 SW_RESET).
        public static let ctrl3C: UInt8 = 0x12
        /// STATUS_REG (bit 0 XLDA, bit 1 GDA, bit 2 TDA).
        public static let status: UInt8 = 0x1E
        /// OUT_TEMP_L.
        public static let outTempL: UInt8 = 0x20
        /// OUTX_L_G.
        public static let outXLG: UInt8 = 0x22
        /// OUTX_L_A.
        public static let outXLA: UInt8 = 0x28
    }

    /// The register map.
    public static let definitions: [RegisterDefinition] = {
        var d: [RegisterDefinition] = [.init("WHO_AM_I", 0x0F, reset: 0x6C),
                                       .init("CTRL1_XL", 0x10, writeMask: 0xFE), .init("CTRL2_G", 0x11, writeMask: 0xFE),
                                       .init("CTRL3_C", 0x12, reset: 0x04, writeMask: 0xFF)]
        for (i, name) in ["CTRL4_C", "CTRL5_C", "CTRL6_C", "CTRL7_G", "CTRL8_XL", "CTRL9_XL", "CTRL10_C"].enumerated() {
            d.append(.init(name, 0x13 + UInt8(i), reset: name == "CTRL9_XL" ? 0xE0 : 0, writeMask: 0xFF))
        }
        d.append(.init("WAKE_UP_SRC", 0x1B))
        d.append(.init("STATUS_REG", 0x1E))
        for r in UInt8(0x20)...0x2D { d.append(.init("OUT_\(hex(r))", r)) }
        for (name, r) in [("TAP_CFG0", 0x56), ("TAP_CFG2", 0x58), ("WAKE_UP_THS", 0x5B), ("WAKE_UP_DUR", 0x5C), ("MD1_CFG", 0x5E)] {
            d.append(.init(name, UInt8(r), writeMask: 0xFF))
        }
        return d
    }()

    /// `LSM6DSOX`.
    public static let chipName = "LSM6DSOX"
    /// The registers.
    public var registers = RegisterMap(definitions)
    /// IF_INC in CTRL3_C.
    public let autoIncrement = AutoIncrementRule.controlBit(register: 0x12, mask: 0x04)
    /// The acceleration in the chip's axes, m/s².
    public var acceleration: PhysicalSource
    /// The angular rate in the chip's axes, degrees per second.
    public var angularRate: PhysicalSource
    /// What the gyroscope adds to the rate (bias and its temperature drift, noise, scale error).
    public var gyroscopeErrors = GyroscopeErrors.ideal
    /// The die temperature, °C.
    public var temperature: Double
    /// The accelerometer's sample timer.
    public private(set) var accelerometerTimer = SampleTimer()
    /// The gyroscope's sample timer.
    public private(set) var gyroTimer = SampleTimer()
    /// The wake-up's high-pass filter: its last input and output, g (`nil` until the first sample).
    var wakeUpFilter: (input: SIMD3<Double>, output: SIMD3<Double>)?
    /// Consecutive samples above the wake-up threshold (against WAKE_DUR).
    var wakeUpSamples = 0

    /// Creates the chip (default 1 g up the z axis, no rotation, 25 °C).
    public init(acceleration: PhysicalSource = .level,
                angularRate: PhysicalSource = .zero, temperature: Double = 25) {
        self.acceleration = acceleration
        self.angularRate = angularRate
        self.temperature = temperature
    }

    static func rate(_ control: UInt8) -> Double {
        let odr = Int(control >> 4)
        return odr < STChipFacts.lsm6dsoxRates.count ? STChipFacts.lsm6dsoxRates[odr] : 0
    }

    /// Samples each sensor when due.
    public mutating func advance(to now: MonotonicInstant) {
        let bigEndian = registers[Register.ctrl3C] & 0x02 != 0
        let xlRate = Self.rate(registers[Register.ctrl1XL])
        if xlRate > 0 { accelerometerTimer.start(every: RawCounts.period(hertz: xlRate), at: now) } else { accelerometerTimer.stop() }
        let gRate = Self.rate(registers[Register.ctrl2G])
        if gRate > 0 { gyroTimer.start(every: RawCounts.period(hertz: gRate), at: now) } else { gyroTimer.stop() }
        var sampled = false
        if !wakeUpEnabled {
            wakeUpFilter = nil
            wakeUpSamples = 0
        }
        if let (instant, count) = accelerometerTimer.take(upTo: now) {
            let mg = STChipFacts.lsm6dsoxAccelerometerMilligPerLSB[Int(registers[Register.ctrl1XL] >> 2 & 0x03)]
            let a = wakeUpEnabled ? evaluateWakeUp(upTo: instant, count: count, rate: xlRate) : acceleration.value(at: instant)
            let raw = [a.x, a.y, a.z].map { RawCounts.counts($0, unitsPerCount: mg * PhysicalSource.standardGravity / 1000).value }
            RawCounts.store(raw, at: Register.outXLA, bigEndian: bigEndian, in: &registers)
            registers.set(0x01, in: Register.status)
            sampled = true
        }
        if let (instant, _) = gyroTimer.take(upTo: now) {
            let c2 = registers[Register.ctrl2G]
            let mdps = c2 & 0x02 != 0 ? 4.375 : STChipFacts.lsm6dsoxGyroMilliDPSPerLSB[Int(c2 >> 2 & 0x03)]
            // ST_G (CTRL5_C bits 3:2): 01 actuates the self-test rate, 10 its opposite; it
            // moves the proof mass, so the chip's scale error applies to it too.
            let fullScale = c2 & 0x02 != 0 ? 125 : 250 * Double(1 << Int(c2 >> 2 & 0x03))
            var actuated = angularRate.value(at: instant)
            switch registers[0x14] >> 2 & 0x03 {
            case 1: actuated += SIMD3(repeating: Self.gyroscopeSelfTestResponse(fullScale: fullScale))
            case 2: actuated -= SIMD3(repeating: Self.gyroscopeSelfTestResponse(fullScale: fullScale))
            default: break
            }
            let w = gyroscopeErrors.apply(actuated, temperature: temperature, dataRate: gRate)
            let raw = [w.x, w.y, w.z].map { RawCounts.counts($0, unitsPerCount: mdps / 1000).value }
            RawCounts.store(raw, at: Register.outXLG, bigEndian: bigEndian, in: &registers)
            registers.set(0x02, in: Register.status)
            sampled = true
        }
        if sampled {
            let t = RawCounts.counts(temperature - 25, unitsPerCount: 1 / STChipFacts.lsm6dsoxTemperatureLSBPerDegree).value
            RawCounts.store(t, at: Register.outTempL, bigEndian: bigEndian, in: &registers)
            registers.set(0x04, in: Register.status)
        }
    }

    /// The gyroscope's self-test rate at a full scale (dps): 17.5 % of it, inside DS12814's
    /// windows (43.75 dps at ±250 dps against 20...80, 350 dps at ±2000 dps against 150...700).
    public static func gyroscopeSelfTestResponse(fullScale: Double) -> Double { 0.175 * fullScale }

    /// Reading a sensor's data clears its data-ready bit.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 {
        let value = registers[register]
        switch register {
        case 0x20...0x21: registers.set(0x04, in: Register.status, to: false)
        case 0x22...0x27: registers.set(0x02, in: Register.status, to: false)
        case 0x28...0x2D: registers.set(0x01, in: Register.status, to: false)
        case Self.wakeUpSourceRegister where registers[0x56] & 0x01 != 0: registers[Self.wakeUpSourceRegister] = 0
        default: break
        }
        return value
    }

    /// SW_RESET restores the registers; other writes store the writable bits.
    public mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant) {
        if register == Register.ctrl3C && value & 0x01 != 0 {
            registers.reset()
            accelerometerTimer.stop()
            gyroTimer.stop()
            return
        }
        registers.hostWrite(register, value)
    }
}
