import Devices
import HardwareInterfaces

extension ICM20948: MotionLatch {
    /// The wake-on-motion registers (DS-000189: ACCEL_INTEL_CTRL, ACCEL_WOM_THR, INT_ENABLE,
    /// INT_STATUS, INT_PIN_CFG, LP_CONFIG).
    public enum LatchRegister {
        /// LP_CONFIG (bank 0): bit 6 I2C_MST_CYCLE, bit 5 ACCEL_CYCLE, bit 4 GYRO_CYCLE.
        public static let lpConfig: UInt8 = 0x05
        /// INT_ENABLE (bank 0): bit 3 WOM_INT_EN.
        public static let intEnable: UInt8 = 0x10
        /// INT_STATUS (bank 0): bit 3 WOM_INT; reading it clears it.
        public static let intStatus: UInt8 = 0x19
        /// ACCEL_INTEL_CTRL (bank 2): bit 1 ACCEL_INTEL_EN, bit 0 ACCEL_INTEL_MODE_INT (1: each
        /// sample is compared with the previous one, 0: with the first after enabling).
        public static let accelIntelCtrl: UInt8 = 0x12
        /// ACCEL_WOM_THR (bank 2): the threshold, 4 mg per step, 0 to 1020 mg.
        public static let accelWomThreshold: UInt8 = 0x13
        /// LP_CONFIG value while armed: ACCEL_CYCLE (the accelerometer duty-cycled at its
        /// divider's rate) with the reset's I2C_MST_CYCLE.
        public static let accelerometerCycling: UInt8 = 0x60
        /// LP_CONFIG's reset value: I2C_MST_CYCLE.
        public static let lpConfigReset: UInt8 = 0x40
        /// INT_ENABLE value: WOM_INT_EN.
        public static let wakeOnMotion: UInt8 = 0x08
        /// ACCEL_INTEL_CTRL value: ACCEL_INTEL_EN and ACCEL_INTEL_MODE_INT (compare with the previous sample).
        public static let compareWithPrevious: UInt8 = 0x03
        /// INT_PIN_CFG value while armed: INT1_LATCH__EN (bit 5: the INT pin held until the
        /// status is read) with BYPASS_EN, so the AK09916 stays on the host's bus.
        public static let latchedBypass: UInt8 = 0x22
        /// INT_STATUS WOM_INT bit.
        public static let wakeOnMotionInterrupt: UInt8 = 0x08
    }

    /// The threshold step of ACCEL_WOM_THR, g (4 mg).
    public static let latchThresholdStep = 0.004

    /// The armed configuration: ±2 g, divider 127 (1125 / 128 = 8.8 Hz), DLPF 5 (11.5 Hz
    /// bandwidth: the noise between two samples stays a few mg), no temperature, gyroscope off.
    ///
    /// The chip compares each sample with the previous one, a first difference, whose gain at
    /// frequency f and rate fs is 2·sin(π f / fs): at 8.8 Hz a motion at a walk's step rate
    /// (2 Hz) passes at 1.3 times its size, so the requested threshold holds for it at least as
    /// strictly as on the chips that high-pass filter (at 26 Hz it would pass at 0.48: half the
    /// sensitivity). A slow tilt changes little between two samples and is not motion.
    public static let latchConfiguration = Configuration(range: .g2, sampleRateDivider: 127, lowPassFilter: 5, temperature: false,
                                                         gyroscope: nil)

    /// 8.8 Hz.
    public var motionLatchRate: Double { Self.latchConfiguration.dataRate }

    /// Whether the latch is armed.
    public var motionLatchArmed: Bool { configurationBeforeLatch != nil }

    /// Writes ``latchConfiguration`` (``configure(_:)``), then in bank 2 ACCEL_WOM_THR and
    /// ACCEL_INTEL_CTRL = 0x03, in bank 0 INT_PIN_CFG = 0x22, INT_ENABLE = 0x08 and LP_CONFIG =
    /// 0x60, and reads INT_STATUS once to clear an older event. The threshold, a difference
    /// between two samples, is rounded down to 4 mg steps (1 to 255). Arming again re-arms with
    /// the new threshold and keeps the configuration to go back to.
    @discardableResult
    public mutating func armMotionLatch(threshold: Double) throws(SensorError) -> Double {
        let steps = try motionLatchSteps(for: threshold, step: Self.latchThresholdStep, maximum: 255)
        let saved = configurationBeforeLatch ?? configuration
        try configure(Self.latchConfiguration)
        configurationBeforeLatch = .some(saved)
        try io.write(Register.bankSelect, 2 << 4)
        try io.write(LatchRegister.accelWomThreshold, steps)
        try io.write(LatchRegister.accelIntelCtrl, LatchRegister.compareWithPrevious)
        try io.write(Register.bankSelect, 0 << 4)
        try io.write(Register.intPinCfg, LatchRegister.latchedBypass)
        try io.write(LatchRegister.intEnable, LatchRegister.wakeOnMotion)
        try io.write(LatchRegister.lpConfig, LatchRegister.accelerometerCycling)
        _ = try io.read(LatchRegister.intStatus)
        return Double(steps) * Self.latchThresholdStep
    }

    /// One read of INT_STATUS (bank 0): WOM_INT set means motion; the read clears it.
    public mutating func takeMotionLatch() throws(SensorError) -> Bool {
        guard motionLatchArmed else { throw .unsupported(chip: chip, feature: "reading a motion latch that is not armed") }
        return try io.read(LatchRegister.intStatus) & LatchRegister.wakeOnMotionInterrupt != 0
    }

    /// Writes INT_ENABLE = 0 and LP_CONFIG = 0x40 in bank 0, ACCEL_INTEL_CTRL = 0 and
    /// ACCEL_WOM_THR = 0 in bank 2, then the configuration from before arming (which sets
    /// INT_PIN_CFG back to BYPASS_EN alone), or sleep if the chip was asleep then.
    public mutating func disarmMotionLatch() throws(SensorError) {
        guard let saved = configurationBeforeLatch else { return }
        try io.write(LatchRegister.intEnable, 0)
        try io.write(LatchRegister.lpConfig, LatchRegister.lpConfigReset)
        try io.write(Register.bankSelect, 2 << 4)
        try io.write(LatchRegister.accelIntelCtrl, 0)
        try io.write(LatchRegister.accelWomThreshold, 0)
        try io.write(Register.bankSelect, 0 << 4)
        configurationBeforeLatch = nil
        if let saved {
            try configure(saved)
        } else {
            try io.write(Register.intPinCfg, Register.bypass)
            try powerDown()
        }
    }
}
