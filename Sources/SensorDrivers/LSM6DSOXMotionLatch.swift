import Devices
import HardwareInterfaces

extension LSM6DSOX: MotionLatch {
    /// The wake-up registers (DS12814, section 9; AN5272, wake-up interrupt).
    public enum LatchRegister {
        /// WAKE_UP_SRC: bit 3 WU_IA, bits 2:0 X_WU, Y_WU, Z_WU; a read clears a latched event.
        public static let wakeUpSource: UInt8 = 0x1B
        /// CTRL8_XL: HPCF_XL (7:5) sets the high-pass cut-off the wake-up uses with SLOPE_FDS.
        public static let ctrl8XL: UInt8 = 0x17
        /// TAP_CFG0: INT_CLR_ON_READ (6), SLOPE_FDS (4: high-pass instead of slope filter), LIR (0).
        public static let tapCfg0: UInt8 = 0x56
        /// TAP_CFG2: INTERRUPTS_ENABLE (7).
        public static let tapCfg2: UInt8 = 0x58
        /// WAKE_UP_THS: WK_THS (5:0).
        public static let wakeUpThreshold: UInt8 = 0x5B
        /// WAKE_UP_DUR: WAKE_DUR (6:5), WAKE_THS_W (4: FS/256 per threshold step instead of FS/64).
        public static let wakeUpDuration: UInt8 = 0x5C
        /// MD1_CFG: INT1_WU (5) routes the wake-up to the INT1 pin.
        public static let md1Cfg: UInt8 = 0x5E
        /// CTRL8_XL value: HPCF_XL = 100, a cut-off of ODR/100 (0.26 Hz at 26 Hz); the output path is unfiltered.
        public static let highPassODROver100: UInt8 = 0x80
        /// TAP_CFG0 value: INT_CLR_ON_READ, SLOPE_FDS, LIR.
        public static let latchedHighPass: UInt8 = 0x51
        /// WAKE_UP_DUR value: WAKE_THS_W, no duration.
        public static let fineThreshold: UInt8 = 0x10
        /// MD1_CFG value: INT1_WU.
        public static let wakeUpOnPin1: UInt8 = 0x20
        /// TAP_CFG2 value: INTERRUPTS_ENABLE.
        public static let interruptsEnable: UInt8 = 0x80
        /// WAKE_UP_SRC WU_IA bit.
        public static let wakeUpActive: UInt8 = 0x08
    }

    /// The wake-up threshold step at ±2 g with WAKE_THS_W, g (FS_XL / 256).
    public static let latchThresholdStep = 2.0 / 256

    /// The armed configuration: 26 Hz, ±2 g, no temperature, gyroscope off.
    public static let latchConfiguration = Configuration(dataRate: .hz26, range: .g2, temperature: false, gyroscope: nil)

    /// 26 Hz.
    public var motionLatchRate: Double { 26 }

    /// Whether the latch is armed.
    public var motionLatchArmed: Bool { configurationBeforeLatch != nil }

    /// Writes ``latchConfiguration`` (CTRL3_C, CTRL2_G = 0, CTRL1_XL), then CTRL8_XL = 0x80,
    /// TAP_CFG0 = 0x51, WAKE_UP_DUR = 0x10, WAKE_UP_THS, MD1_CFG = 0x20, TAP_CFG2 = 0x80, and
    /// reads WAKE_UP_SRC once to clear an older event.
    @discardableResult
    public mutating func armMotionLatch(threshold: Double) throws(SensorError) -> Double {
        let steps = try motionLatchSteps(for: threshold, step: Self.latchThresholdStep, maximum: 63)
        let saved = configurationBeforeLatch ?? configuration
        try configure(Self.latchConfiguration)
        configurationBeforeLatch = saved
        try io.write(LatchRegister.ctrl8XL, LatchRegister.highPassODROver100)
        try io.write(LatchRegister.tapCfg0, LatchRegister.latchedHighPass)
        try io.write(LatchRegister.wakeUpDuration, LatchRegister.fineThreshold)
        try io.write(LatchRegister.wakeUpThreshold, steps)
        try io.write(LatchRegister.md1Cfg, LatchRegister.wakeUpOnPin1)
        try io.write(LatchRegister.tapCfg2, LatchRegister.interruptsEnable)
        _ = try io.read(LatchRegister.wakeUpSource)
        return Double(steps) * Self.latchThresholdStep
    }

    /// One read of WAKE_UP_SRC: WU_IA set means motion; the read clears the latched event.
    public mutating func takeMotionLatch() throws(SensorError) -> Bool {
        guard motionLatchArmed else { throw .unsupported(chip: chip, feature: "reading a motion latch that is not armed") }
        return try io.read(LatchRegister.wakeUpSource) & LatchRegister.wakeUpActive != 0
    }

    /// Writes TAP_CFG2, MD1_CFG, WAKE_UP_THS, WAKE_UP_DUR, TAP_CFG0 and CTRL8_XL back to 0, then
    /// the configuration from before arming (or power-down, if the chip was powered down then).
    public mutating func disarmMotionLatch() throws(SensorError) {
        guard let saved = configurationBeforeLatch else { return }
        for register in [LatchRegister.tapCfg2, LatchRegister.md1Cfg, LatchRegister.wakeUpThreshold,
                         LatchRegister.wakeUpDuration, LatchRegister.tapCfg0, LatchRegister.ctrl8XL] {
            try io.write(register, 0)
        }
        configurationBeforeLatch = nil
        if saved.dataRate == nil {
            try powerDown()
        } else {
            try configure(saved)
        }
    }
}
