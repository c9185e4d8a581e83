import HardwareInterfaces

/// The LSM303AGR accelerometer die (0x19): WHO_AM_I_A 0x0F = 0x33, left-justified 8/10/12-bit
/// data at 0x28, multi-byte reads only with bit 7 of the sub-address, ZYXDA in STATUS_REG_A
/// cleared by reading the data, relative temperature at 0x0C; and interrupt generator 1 (the
/// motion latch): at every sample, each axis (high-pass filtered when CTRL_REG2_A's HPIS1 is
/// set; the filter reset by a read of REFERENCE_A) is compared with INT1_THS_A, the enabled
/// high and low events of INT1_CFG_A are combined (OR, or AND with AOI) and, once they have
/// lasted INT1_DURATION_A samples, set IA in INT1_SRC_A, held until INT1_SRC_A is read when
/// CTRL_REG5_A's LIR_INT1 is set.
public struct LSM303AGRAccelerometerModel: RegisterChipModel {
    /// Register addresses and identity.
    public enum Register {
        /// STATUS_REG_AUX_A (bit 2 TDA).
        public static let statusAux: UInt8 = 0x07
        /// OUT_TEMP_L_A.
        public static let outTempL: UInt8 = 0x0C
        /// WHO_AM_I_A.
        public static let whoAmI: UInt8 = 0x0F
        /// WHO_AM_I_A value.
        public static let identity: UInt8 = 0x33
        /// TEMP_CFG_REG_A.
        public static let tempCfg: UInt8 = 0x1F
        /// CTRL_REG1_A.
        public static let ctrl1: UInt8 = 0x20
        /// CTRL_REG2_A (HPM, HPCF, FDS, HPCLICK, HPIS2, HPIS1).
        public static let ctrl2: UInt8 = 0x21
        /// CTRL_REG4_A.
        public static let ctrl4: UInt8 = 0x23
        /// CTRL_REG5_A (bit 3 LIR_INT1).
        public static let ctrl5: UInt8 = 0x24
        /// REFERENCE/DATACAPTURE_A.
        public static let reference: UInt8 = 0x26
        /// STATUS_REG_A (bit 3 ZYXDA, bit 7 ZYXOR).
        public static let status: UInt8 = 0x27
        /// OUT_X_L_A.
        public static let outXL: UInt8 = 0x28
        /// INT1_CFG_A.
        public static let int1Cfg: UInt8 = 0x30
        /// INT1_SRC_A.
        public static let int1Src: UInt8 = 0x31
        /// INT1_THS_A.
        public static let int1Ths: UInt8 = 0x32
        /// INT1_DURATION_A.
        public static let int1Duration: UInt8 = 0x33
    }

    /// The register map.
    public static let definitions: [RegisterDefinition] = [
        .init("STATUS_REG_AUX_A", 0x07), .init("OUT_TEMP_L_A", 0x0C), .init("OUT_TEMP_H_A", 0x0D),
        .init("WHO_AM_I_A", 0x0F, reset: 0x33),
        .init("TEMP_CFG_REG_A", 0x1F, writeMask: 0xC0), .init("CTRL_REG1_A", 0x20, reset: 0x07, writeMask: 0xFF),
        .init("CTRL_REG2_A", 0x21, writeMask: 0xFF), .init("CTRL_REG3_A", 0x22, writeMask: 0xFE),
        .init("CTRL_REG4_A", 0x23, writeMask: 0xFF), .init("CTRL_REG5_A", 0x24, writeMask: 0xCF),
        .init("REFERENCE_A", 0x26, writeMask: 0xFF), .init("STATUS_REG_A", 0x27),
        .init("OUT_X_L_A", 0x28), .init("OUT_X_H_A", 0x29), .init("OUT_Y_L_A", 0x2A),
        .init("OUT_Y_H_A", 0x2B), .init("OUT_Z_L_A", 0x2C), .init("OUT_Z_H_A", 0x2D),
        .init("INT1_CFG_A", 0x30, writeMask: 0xFF), .init("INT1_SRC_A", 0x31),
        .init("INT1_THS_A", 0x32, writeMask: 0x7F), .init("INT1_DURATION_A", 0x33, writeMask: 0x7F),
    ]

    /// INT1_THS_A step in mg by full scale (±2, 4, 8, 16 g).
    public static let thresholdMilligPerStep: [Double] = [16, 32, 62, 186]
    /// The most samples the interrupt generator catches up on in one step (an hour at 10 Hz):
    /// a host that looks again after longer has the last hour evaluated.
    public static let interruptCatchUpLimit = 36_000

    /// `LSM303AGR accelerometer`.
    public static let chipName = "LSM303AGR accelerometer"
    /// The registers.
    public var registers = RegisterMap(definitions)
    /// Bit 7 of the sub-address.
    public let autoIncrement = AutoIncrementRule.subAddressBit7
    /// The acceleration in the chip's axes, m/s².
    public var acceleration: PhysicalSource
    /// The die temperature, °C.
    public var temperature: Double
    /// The sample timer.
    public private(set) var timer = SampleTimer()
    /// The high-pass filter of interrupt generator 1: its last input and output, g (`nil` after a reset).
    private var highPass: (input: SIMD3<Double>, output: SIMD3<Double>)?
    /// Consecutive samples with the interrupt condition true (against INT1_DURATION_A).
    private var eventSamples = 0

    /// Creates the die with `acceleration` (default 1 g up the z axis) at `temperature`.
    public init(acceleration: PhysicalSource = .level, temperature: Double = 25) {
        self.acceleration = acceleration
        self.temperature = temperature
    }

    /// 0 high-resolution, 1 normal, 2 low-power.
    var modeIndex: Int {
        if registers[Register.ctrl1] & 0x08 != 0 { return 2 }
        return registers[Register.ctrl4] & 0x08 != 0 ? 0 : 1
    }

    /// The sample rate in Hz (0 in power-down).
    public var dataRate: Double {
        let odr = Int(registers[Register.ctrl1] >> 4)
        return odr < STChipFacts.lsm303agrAccelerometerRates.count ? STChipFacts.lsm303agrAccelerometerRates[odr] : 0
    }

    /// Whether interrupt generator 1 has any event enabled.
    var interruptEnabled: Bool { registers[Register.int1Cfg] & 0x3F != 0 }

    /// Samples when due: every due sample goes through interrupt generator 1 while it has an
    /// event enabled; the output registers hold the latest.
    public mutating func advance(to now: MonotonicInstant) {
        let rate = dataRate
        if rate > 0 { timer.start(every: RawCounts.period(hertz: rate), at: now) } else { timer.stop() }
        guard let (instant, count) = timer.take(upTo: now) else { return }
        var latest: SIMD3<Double>?
        if interruptEnabled, let interval = timer.interval {
            let evaluated = min(count, Self.interruptCatchUpLimit)
            for k in stride(from: evaluated - 1, through: 0, by: -1) {
                let at = MonotonicInstant(nanoseconds: instant.nanoseconds - UInt64(k) * UInt64(max(0, interval.nanosecondsClamped)))
                let a = acceleration.value(at: at)
                evaluateInterrupt(a / PhysicalSource.standardGravity, rate: rate)
                if k == 0 { latest = a }
            }
        }
        store(latest ?? acceleration.value(at: instant), overrun: count > 1)
    }

    /// Stores one sample in the output registers and sets the status bits.
    private mutating func store(_ a: SIMD3<Double>, overrun missed: Bool) {
        let fs = Int(registers[Register.ctrl4] >> 4 & 0x03)
        let mode = modeIndex
        let scale = STChipFacts.lsm303agrAccelerometerMilligPerDigit[mode][fs] * PhysicalSource.standardGravity / 1000
        let bits = STChipFacts.lsm303agrAccelerometerBits[mode]
        let limit = 1 << (bits - 1)
        let raw = [a.x, a.y, a.z].map { RawCounts.counts($0, unitsPerCount: scale, range: -limit...(limit - 1)).value << (16 - bits) }
        RawCounts.store(raw, at: Register.outXL, bigEndian: registers[Register.ctrl4] & 0x40 != 0, in: &registers)
        let overrun = missed || registers[Register.status] & 0x08 != 0
        registers.set(0x08, in: Register.status)
        registers.set(0x80, in: Register.status, to: overrun)
        if registers[Register.tempCfg] & 0xC0 == 0xC0 {
            // Left-justified, 1 digit per °C in the high byte; zero near 25 °C (a relative reading).
            RawCounts.store(Int(((temperature - 25) * 256).rounded()), at: Register.outTempL,
                            bigEndian: registers[Register.ctrl4] & 0x40 != 0, in: &registers)
            registers.set(0x04, in: Register.statusAux)
        }
    }

    /// One sample (g, chip axes) through interrupt generator 1. The high-pass filter is a first
    /// order one with the cut-off CTRL_REG2_A's HPCF selects (ODR/50, /100, /200, /400); events
    /// compare the absolute value of each axis with the threshold.
    mutating func evaluateInterrupt(_ a: SIMD3<Double>, rate: Double) {
        var value = a
        if registers[Register.ctrl2] & 0x01 != 0 {
            let cutoff = rate / (50 * Double(1 << Int(registers[Register.ctrl2] >> 4 & 0x03)))
            let alpha = 1 / (1 + 2 * Double.pi * cutoff / rate)
            let previous = highPass ?? (input: a, output: .zero)
            value = alpha * (previous.output + a - previous.input)
            highPass = (a, value)
        }
        let config = registers[Register.int1Cfg]
        let fs = Int(registers[Register.ctrl4] >> 4 & 0x03)
        let threshold = Double(registers[Register.int1Ths] & 0x7F) * Self.thresholdMilligPerStep[fs] / 1000
        var source: UInt8 = 0
        for (axis, v) in [value.x, value.y, value.z].enumerated() {
            if abs(v) > threshold { source |= 0x02 << (2 * axis) } else { source |= 0x01 << (2 * axis) }
        }
        let enabled = config & 0x3F
        let active = config & 0x80 != 0 ? (source & enabled == enabled) : (source & enabled != 0)
        eventSamples = active ? eventSamples + 1 : 0
        let fired = active && eventSamples > Int(registers[Register.int1Duration] & 0x7F)
        let latched = registers[Register.ctrl5] & 0x08 != 0
        let reported = fired ? (0x40 | source & enabled) : 0
        if latched {
            if registers[Register.int1Src] & 0x40 == 0 { registers[Register.int1Src] = reported }
        } else {
            registers[Register.int1Src] = reported
        }
    }

    /// Reading the data clears ZYXDA and ZYXOR; reading the temperature clears TDA; reading
    /// REFERENCE_A resets the high-pass filter; reading INT1_SRC_A clears a latched event.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 {
        let value = registers[register]
        if (0x28...0x2D).contains(register) { registers.set(0x88, in: Register.status, to: false) }
        if register == 0x0C || register == 0x0D { registers.set(0x04, in: Register.statusAux, to: false) }
        if register == Register.reference { highPass = nil }
        if register == Register.int1Src && registers[Register.ctrl5] & 0x08 != 0 { registers[Register.int1Src] = 0 }
        return value
    }
}
