import HardwareInterfaces

/// Chip facts of the QST, TDK/AKM and MEMSIC parts, as data (QMC5883L datasheet, ICM-20948
/// DS-000189, AK09916 datasheet, MMC5983MA Rev A).
public enum OtherChipFacts {
    /// QMC5883L: LSB per gauss by RNG (±2 G, ±8 G).
    public static let qmc5883lLSBPerGauss: [Double] = [12000, 3000]
    /// QMC5883L: output data rates by ODR bits.
    public static let qmc5883lRates: [Double] = [10, 50, 100, 200]
    /// QMC5883L: temperature LSB per °C (relative, zero at 25 °C here).
    public static let qmc5883lTemperatureLSBPerDegree = 100.0
    /// ICM-20948: accelerometer LSB per g by ACCEL_FS_SEL (±2, 4, 8, 16 g).
    public static let icm20948AccelerometerLSBPerG: [Double] = [16384, 8192, 4096, 2048]
    /// ICM-20948: gyroscope LSB per dps by GYRO_FS_SEL (250, 500, 1000, 2000 dps).
    public static let icm20948GyroLSBPerDPS: [Double] = [131, 65.5, 32.8, 16.4]
    /// ICM-20948: the accelerometer's base rate, Hz (ODR = 1125 / (1 + ACCEL_SMPLRT_DIV)).
    public static let icm20948AccelerometerBaseRate = 1125.0
    /// ICM-20948: temperature LSB per °C and the temperature at zero counts (room offset 0).
    public static let icm20948Temperature = (lsbPerDegree: 333.87, zeroAt: 21.0)
    /// AK09916: µT per LSB.
    public static let ak09916MicroteslaPerLSB = 0.15
    /// AK09916: continuous rates in Hz by CNTL2 MODE.
    public static let ak09916Rates: [UInt8: Double] = [0x02: 10, 0x04: 20, 0x06: 50, 0x08: 100]
    /// AK09916: time of one single or self-test measurement.
    public static let ak09916MeasurementTime = Duration.microseconds(8_200)
    /// AK09916: the self-test field in counts (inside the datasheet's pass window).
    public static let ak09916SelfTestCounts = [60, -60, -500]
    /// MMC5983MA: counts per gauss of the 18-bit output, and the null (zero-field) value.
    public static let mmc5983maCountsPerGauss = 16384.0
    /// MMC5983MA: the 18-bit value that means zero field.
    public static let mmc5983maNull = 131_072
    /// MMC5983MA: measurement time by BW bits (100, 200, 400, 800 Hz bandwidth).
    public static let mmc5983maMeasurementTime: [Duration] = [.milliseconds(8), .milliseconds(4), .milliseconds(2), .microseconds(500)]
    /// MMC5983MA: continuous rates by Cm_freq (0 = off).
    public static let mmc5983maRates: [Double] = [0, 1, 10, 20, 50, 100, 200, 1000]
    /// MMC5983MA: temperature: °C = offset + scale * Tout.
    public static let mmc5983maTemperature = (offset: -75.0, degreesPerLSB: 0.8)
}

/// The QMC5883L magnetometer (0x0D): no identity register (0x0D reads 0xFF), little-endian data
/// at 0x00, standby and continuous modes only, DRDY/OVL/DOR at 0x06 cleared by reading the
/// data, relative temperature at 0x07, and the pointer rolling from 0x06 back to 0x00 when
/// ROL_PNT is set.
public struct QMC5883LModel: RegisterChipModel {
    /// Register addresses.
    public enum Register {
        /// Data output X LSB.
        public static let dataXL: UInt8 = 0x00
        /// Status (bit 0 DRDY, bit 1 OVL, bit 2 DOR).
        public static let status: UInt8 = 0x06
        /// Temperature LSB.
        public static let temperatureL: UInt8 = 0x07
        /// Control 1 (OSR, RNG, ODR, MODE).
        public static let control1: UInt8 = 0x09
        /// Control 2 (bit 7 SOFT_RST, bit 6 ROL_PNT, bit 0 INT_ENB).
        public static let control2: UInt8 = 0x0A
        /// SET/RESET period.
        public static let setResetPeriod: UInt8 = 0x0B
        /// The chip-ID-like register.
        public static let chipID: UInt8 = 0x0D
        /// What it reads.
        public static let chipIDValue: UInt8 = 0xFF
    }

    /// The register map.
    public static let definitions: [RegisterDefinition] = [
        .init("XOUT_L", 0x00), .init("XOUT_H", 0x01), .init("YOUT_L", 0x02), .init("YOUT_H", 0x03),
        .init("ZOUT_L", 0x04), .init("ZOUT_H", 0x05), .init("STATUS", 0x06), .init("TOUT_L", 0x07), .init("TOUT_H", 0x08),
        .init("CONTROL1", 0x09, writeMask: 0xFF), .init("CONTROL2", 0x0A, writeMask: 0x41),
        .init("SET_RESET_PERIOD", 0x0B, writeMask: 0xFF), .init("RESERVED", 0x0C, reset: 0x01),
        .init("CHIP_ID", 0x0D, reset: 0xFF),
    ]

    /// `QMC5883L`.
    public static let chipName = "QMC5883L"
    /// The registers.
    public var registers = RegisterMap(definitions)
    /// Roll-over from 0x06 to 0x00 with ROL_PNT.
    public let autoIncrement = AutoIncrementRule.rollOver(first: 0x00, last: 0x06, register: 0x0A, mask: 0x40)
    /// The field in the chip's axes, µT.
    public var field: PhysicalSource
    /// The die temperature, °C.
    public var temperature: Double
    /// The sample timer.
    public private(set) var timer = SampleTimer()

    /// Creates the chip with `field` at `temperature`.
    public init(field: PhysicalSource = .zero, temperature: Double = 25) {
        self.field = field
        self.temperature = temperature
    }

    /// Whether MODE is continuous.
    public var isContinuous: Bool { registers[Register.control1] & 0x03 == 0x01 }

    /// Samples while continuous.
    public mutating func advance(to now: MonotonicInstant) {
        let c1 = registers[Register.control1]
        if isContinuous {
            timer.start(every: RawCounts.period(hertz: OtherChipFacts.qmc5883lRates[Int(c1 >> 2 & 0x03)]), at: now)
        } else {
            timer.stop()
        }
        guard let (instant, count) = timer.take(upTo: now) else { return }
        let range = Int(c1 >> 4 & 0x03)
        let lsbPerGauss = OtherChipFacts.qmc5883lLSBPerGauss[range < 2 ? range : 1]
        let b = field.value(at: instant)
        let converted = [b.x, b.y, b.z].map { RawCounts.counts($0, unitsPerCount: 100 / lsbPerGauss) }
        RawCounts.store(converted.map(\.value), at: Register.dataXL, bigEndian: false, in: &registers)
        let t = RawCounts.counts(temperature - 25, unitsPerCount: 1 / OtherChipFacts.qmc5883lTemperatureLSBPerDegree).value
        RawCounts.store(t, at: Register.temperatureL, bigEndian: false, in: &registers)
        let skipped = count > 1 || registers[Register.status] & 0x01 != 0
        registers[Register.status] = 0x01 | (converted.contains { $0.clamped } ? 0x02 : 0) | (skipped ? 0x04 : 0)
    }

    /// Reading any data register clears DRDY and DOR.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 {
        let value = registers[register]
        if register <= 0x05 { registers.set(0x05, in: Register.status, to: false) }
        return value
    }

    /// SOFT_RST restores the registers.
    public mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant) {
        if register == Register.control2 && value & 0x80 != 0 {
            registers.reset()
            timer.stop()
            return
        }
        registers.hostWrite(register, value)
    }
}

/// The AK09916 magnetometer inside the ICM-20948 (0x0C on the host's bus only while the ICM's
/// bypass is open): WIA1/WIA2 = 0x48/0x09, 0.15 µT/LSB little-endian from 0x11, DRDY in ST1 set
/// per sample and cleared by reading the data or ST2, single measurement back to power-down,
/// HOFL in ST2 on overflow, self-test mode.
public struct AK09916Model: RegisterChipModel {
    /// Register addresses and identity.
    public enum Register {
        /// WIA1 (company ID).
        public static let wia1: UInt8 = 0x00
        /// WIA1 value.
        public static let wia1Value: UInt8 = 0x48
        /// WIA2 (device ID).
        public static let wia2: UInt8 = 0x01
        /// WIA2 value.
        public static let wia2Value: UInt8 = 0x09
        /// ST1 (bit 0 DRDY, bit 1 DOR).
        public static let st1: UInt8 = 0x10
        /// HXL.
        public static let hxl: UInt8 = 0x11
        /// ST2 (bit 3 HOFL).
        public static let st2: UInt8 = 0x18
        /// CNTL2 (MODE).
        public static let cntl2: UInt8 = 0x31
        /// CNTL3 (bit 0 SRST).
        public static let cntl3: UInt8 = 0x32
    }

    /// The register map.
    public static let definitions: [RegisterDefinition] = [
        .init("WIA1", 0x00, reset: 0x48), .init("WIA2", 0x01, reset: 0x09), .init("RSV1", 0x02), .init("RSV2", 0x03),
        .init("ST1", 0x10), .init("HXL", 0x11), .init("HXH", 0x12), .init("HYL", 0x13), .init("HYH", 0x14),
        .init("HZL", 0x15), .init("HZH", 0x16), .init("TMPS", 0x17), .init("ST2", 0x18),
        .init("CNTL2", 0x31, writeMask: 0x1F), .init("CNTL3", 0x32, writeMask: 0x01),
    ]

    /// `AK09916`.
    public static let chipName = "AK09916"
    /// The registers.
    public var registers = RegisterMap(definitions)
    /// Always.
    public let autoIncrement = AutoIncrementRule.always
    /// The field in the chip's axes, µT.
    public var field: PhysicalSource
    /// The sample timer.
    public private(set) var timer = SampleTimer()

    /// Creates the chip with `field`.
    public init(field: PhysicalSource = .zero) { self.field = field }

    /// CNTL2 MODE.
    public var mode: UInt8 { registers[Register.cntl2] }

    /// Samples when due; single and self-test measurements return to power-down.
    public mutating func advance(to now: MonotonicInstant) {
        if let rate = OtherChipFacts.ak09916Rates[mode] { timer.start(every: RawCounts.period(hertz: rate), at: now) }
        guard let (instant, count) = timer.take(upTo: now) else { return }
        var counts: [Int]
        var overflow = false
        if mode == 0x10 {
            counts = OtherChipFacts.ak09916SelfTestCounts
        } else {
            let b = field.value(at: instant)
            let converted = [b.x, b.y, b.z].map { RawCounts.counts($0, unitsPerCount: OtherChipFacts.ak09916MicroteslaPerLSB, range: -32752...32752) }
            counts = converted.map(\.value)
            overflow = converted.contains { $0.clamped }
        }
        RawCounts.store(counts, at: Register.hxl, bigEndian: false, in: &registers)
        registers[Register.st2] = overflow ? 0x08 : 0
        let missed = count > 1 || registers[Register.st1] & 0x01 != 0
        registers[Register.st1] = 0x01 | (missed ? 0x02 : 0)
        if mode == 0x01 || mode == 0x10 { registers[Register.cntl2] = 0 }
    }

    /// Reading the data or ST2 clears DRDY; reading ST2 also clears DOR.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 {
        let value = registers[register]
        if (0x11...0x17).contains(register) { registers.set(0x01, in: Register.st1, to: false) }
        if register == Register.st2 { registers[Register.st1] = 0 }
        return value
    }

    /// MODE writes start measurements; SRST restores the registers.
    public mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant) {
        if register == Register.cntl3 && value & 0x01 != 0 {
            registers.reset()
            timer.stop()
            return
        }
        registers.hostWrite(register, value)
        guard register == Register.cntl2 else { return }
        switch mode {
        case 0x01, 0x10: timer.once(after: OtherChipFacts.ak09916MeasurementTime, at: now)
        case let m where OtherChipFacts.ak09916Rates[m] != nil: timer.stop(); advance(to: now)
        default: timer.stop()
        }
    }
}

/// The MMC5983MA magnetometer (0x30): Product ID 0x2F = 0x30, 18-bit offset-binary data from
/// 0x00 (null 131072, 16384 counts/G), write-only control registers (they read 0), TM_M and
/// TM_T measurements with Meas_M_Done/Meas_T_Done, continuous mode, and SET/RESET: after SET the
/// output is null + field + bridge offset, after RESET null − field + bridge offset, so
/// `(set − reset) / 2` is the field and `(set + reset) / 2 − null` the offset.
public struct MMC5983MAModel: RegisterChipModel {
    /// Register addresses and identity.
    public enum Register {
        /// Xout0.
        public static let xOut0: UInt8 = 0x00
        /// XYZout2.
        public static let xyzOut2: UInt8 = 0x06
        /// Tout.
        public static let tOut: UInt8 = 0x07
        /// Status (bit 0 Meas_M_Done, bit 1 Meas_T_Done, bit 4 OTP_Rd_Done).
        public static let status: UInt8 = 0x08
        /// Internal Control 0.
        public static let control0: UInt8 = 0x09
        /// Internal Control 1.
        public static let control1: UInt8 = 0x0A
        /// Internal Control 2.
        public static let control2: UInt8 = 0x0B
        /// Internal Control 3.
        public static let control3: UInt8 = 0x0C
        /// Product ID.
        public static let productID: UInt8 = 0x2F
        /// Product ID value.
        public static let identity: UInt8 = 0x30
    }

    /// The register map (control registers are write-only and kept in ``control``).
    public static let definitions: [RegisterDefinition] = [
        .init("Xout0", 0x00), .init("Xout1", 0x01), .init("Yout0", 0x02), .init("Yout1", 0x03),
        .init("Zout0", 0x04), .init("Zout1", 0x05), .init("XYZout2", 0x06), .init("Tout", 0x07),
        .init("Status", 0x08, reset: 0x10), .init("Internal Control 0", 0x09), .init("Internal Control 1", 0x0A),
        .init("Internal Control 2", 0x0B), .init("Internal Control 3", 0x0C), .init("Product ID", 0x2F, reset: 0x30),
    ]

    /// `MMC5983MA`.
    public static let chipName = "MMC5983MA"
    /// The registers.
    public var registers = RegisterMap(definitions)
    /// Always.
    public let autoIncrement = AutoIncrementRule.always
    /// The field in the chip's axes, µT.
    public var field: PhysicalSource
    /// The bridge offset, µT, added whatever the SET/RESET state.
    public var bridgeOffset: SIMD3<Double>
    /// The die temperature, °C.
    public var temperature: Double
    /// The last values written to Internal Control 0-3 (the chip's registers read 0).
    public private(set) var control: [UInt8] = [0, 0, 0, 0]
    /// +1 after a SET pulse, −1 after a RESET pulse.
    public private(set) var polarity = 1.0
    /// The field measurement timer.
    public private(set) var timer = SampleTimer()
    /// The temperature measurement timer.
    public private(set) var temperatureTimer = SampleTimer()

    /// Creates the chip.
    public init(field: PhysicalSource = .zero, bridgeOffset: SIMD3<Double> = SIMD3(0, 0, 0), temperature: Double = 25) {
        self.field = field
        self.bridgeOffset = bridgeOffset
        self.temperature = temperature
    }

    var measurementTime: Duration { OtherChipFacts.mmc5983maMeasurementTime[Int(control[1] & 0x03)] }

    /// The continuous rate, Hz, or `nil` when continuous mode is off.
    public var continuousRate: Double? {
        guard control[2] & 0x08 != 0 else { return nil }
        let rate = OtherChipFacts.mmc5983maRates[Int(control[2] & 0x07)]
        return rate > 0 ? rate : nil
    }

    /// Finishes measurements that fell due.
    public mutating func advance(to now: MonotonicInstant) {
        if let rate = continuousRate { timer.start(every: RawCounts.period(hertz: rate), at: now) }
        if let (instant, _) = timer.take(upTo: now) {
            if control[0] & 0x20 != 0 { polarity = 1 }
            let b = field.value(at: instant)
            let values = [0, 1, 2].map { axis -> Int in
                let microtesla = polarity * b[axis] + bridgeOffset[axis]
                return RawCounts.counts(microtesla, unitsPerCount: 100 / OtherChipFacts.mmc5983maCountsPerGauss,
                                        range: -OtherChipFacts.mmc5983maNull...(OtherChipFacts.mmc5983maNull - 1)).value
                    + OtherChipFacts.mmc5983maNull
            }
            var low: UInt8 = 0
            for (axis, v) in values.enumerated() {
                registers[UInt8(2 * axis)] = UInt8(v >> 10 & 0xFF)
                registers[UInt8(2 * axis + 1)] = UInt8(v >> 2 & 0xFF)
                low |= UInt8(v & 0x03) << (6 - 2 * axis)
            }
            registers[Register.xyzOut2] = low
            registers.set(0x01, in: Register.status)
        }
        if temperatureTimer.take(upTo: now) != nil {
            let t = OtherChipFacts.mmc5983maTemperature
            registers[Register.tOut] = UInt8(RawCounts.counts(temperature - t.offset, unitsPerCount: t.degreesPerLSB, range: 0...255).value)
            registers.set(0x02, in: Register.status)
        }
    }

    /// Control registers read 0.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 {
        (Register.control0...Register.control3).contains(register) ? 0 : registers[register]
    }

    /// Control writes start measurements, fire SET/RESET, set the bandwidth and continuous mode;
    /// writing 1 to a Status done bit clears it.
    public mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant) {
        switch register {
        case Register.status:
            registers.set(value & 0x03, in: Register.status, to: false)
        case Register.control0:
            control[0] = value & 0x24   // TM_M, TM_T, SET, RESET and OTP_Read clear themselves
            if value & 0x08 != 0 { polarity = 1 }
            if value & 0x10 != 0 { polarity = -1 }
            if value & 0x01 != 0 {
                registers.set(0x01, in: Register.status, to: false)
                timer.once(after: measurementTime, at: now)
            }
            if value & 0x02 != 0 {
                registers.set(0x02, in: Register.status, to: false)
                temperatureTimer.once(after: .milliseconds(2), at: now)
            }
        case Register.control1:
            if value & 0x80 != 0 {
                registers.reset()
                control = [0, 0, 0, 0]
                polarity = 1
                timer.stop()
                temperatureTimer.stop()
                return
            }
            control[1] = value
        case Register.control2:
            control[2] = value
            if continuousRate == nil { timer.stop() }
        case Register.control3:
            control[3] = value
        default:
            registers.hostWrite(register, value)
        }
    }
}
