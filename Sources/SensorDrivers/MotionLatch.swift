import Devices
import HardwareInterfaces

/// An accelerometer that watches for motion by itself and latches it, so that the host reads
/// one status register every few seconds instead of sampling: the wake-on-motion (or
/// "significant motion") of phones.
///
/// While armed the chip samples at ``motionLatchRate``, high-pass filters each axis (the static
/// gravity drops out), and latches an event as soon as any axis's filtered value exceeds the
/// threshold. ``takeMotionLatch()`` reads and clears that latch: `true` means the chip saw
/// motion at some sample since arming or since the previous read, so no motion between two reads
/// is missed, however long they are apart.
public protocol MotionLatch: Accelerometer {
    /// How often the chip compares while armed, Hz.
    var motionLatchRate: Double { get }
    /// Whether the latch is armed.
    var motionLatchArmed: Bool { get }
    /// Arms the latch for a high-pass-filtered deviation of `threshold` g on any axis (rounded
    /// down to the chip's threshold step, at least one step) and clears any event latched
    /// before. Returns the threshold the chip applies, g. ``read()`` still works while armed,
    /// at the latch's rate and resolution.
    @discardableResult
    mutating func armMotionLatch(threshold: Double) throws(SensorError) -> Double
    /// Reads the latch and clears it: whether the chip saw motion since arming or the last read.
    /// Throws ``SensorError/unsupported(chip:feature:)`` while the latch is not armed.
    mutating func takeMotionLatch() throws(SensorError) -> Bool
    /// Stops watching and writes back the configuration from before ``armMotionLatch(threshold:)``.
    /// Does nothing while the latch is not armed.
    mutating func disarmMotionLatch() throws(SensorError)
}

extension MotionLatch {
    /// The threshold register's value for `threshold` g on this chip, whose register counts
    /// steps of `step` g up to `maximum`: rounded down, at least one step. Throws
    /// ``SensorError/unsupported(chip:feature:)`` for a threshold that is not a positive number.
    func motionLatchSteps(for threshold: Double, step: Double, maximum: UInt8) throws(SensorError) -> UInt8 {
        guard threshold.isFinite, threshold > 0 else {
            throw .unsupported(chip: chip, feature: "a motion threshold of \(threshold) g")
        }
        return UInt8(min(Double(maximum), max(1, (threshold / step + 1e-9).rounded(.down))))
    }
}

extension LSM303AGRAccelerometer: MotionLatch {
    /// The interrupt generator 1 registers of the accelerometer die (DocID027765, section 8).
    public enum LatchRegister {
        /// CTRL_REG2_A: HPM (7:6), HPCF (5:4), FDS, HPCLICK, HPIS2, HPIS1 (bit 0: high-pass filter on interrupt 1).
        public static let ctrl2: UInt8 = 0x21
        /// CTRL_REG3_A: bit 6 I1_AOI1 routes interrupt generator 1 to the INT1 pin.
        public static let ctrl3: UInt8 = 0x22
        /// CTRL_REG5_A: bit 3 LIR_INT1 latches interrupt 1 until INT1_SRC_A is read.
        public static let ctrl5: UInt8 = 0x24
        /// REFERENCE/DATACAPTURE_A: a read resets the high-pass filter (normal mode, HPM = 00).
        public static let reference: UInt8 = 0x26
        /// INT1_CFG_A: AOI, 6D, ZHIE, ZLIE, YHIE, YLIE, XHIE, XLIE.
        public static let int1Cfg: UInt8 = 0x30
        /// INT1_SRC_A: bit 6 IA (an event), then ZH, ZL, YH, YL, XH, XL; a read clears a latched event.
        public static let int1Src: UInt8 = 0x31
        /// INT1_THS_A: 7-bit threshold, 16 mg per step at ±2 g.
        public static let int1Ths: UInt8 = 0x32
        /// INT1_DURATION_A: 7-bit minimum event length in samples.
        public static let int1Duration: UInt8 = 0x33
        /// INT1_CFG_A value: OR of the X, Y and Z high events (AOI = 0, 6D = 0).
        public static let anyAxisHigh: UInt8 = 0x2A
        /// CTRL_REG2_A value: normal high-pass mode, HPCF = 00 (cut-off ODR/50, 0.2 Hz at 10 Hz), HPIS1.
        public static let highPassOnInterrupt1: UInt8 = 0x01
        /// CTRL_REG3_A value: I1_AOI1, for a board that wires INT1 to a GPIO.
        public static let interrupt1OnPin: UInt8 = 0x40
        /// CTRL_REG5_A value: LIR_INT1.
        public static let latchInterrupt1: UInt8 = 0x08
        /// INT1_SRC_A IA bit.
        public static let interruptActive: UInt8 = 0x40
    }

    /// The threshold step of INT1_THS_A at ±2 g, g (datasheet: 1 LSB = 16 mg).
    public static let latchThresholdStep = 0.016

    /// The armed configuration: 10 Hz, low-power mode (8 bits, the comparison's own resolution
    /// at ±2 g is one 16 mg step anyway), ±2 g, no temperature.
    public static let latchConfiguration = Configuration(dataRate: .hz10, range: .g2, resolution: .lowPower, temperature: false)

    /// 10 Hz.
    public var motionLatchRate: Double { 10 }

    /// Whether the latch is armed.
    public var motionLatchArmed: Bool { configurationBeforeLatch != nil }

    /// Writes ``latchConfiguration`` (TEMP_CFG_REG_A, CTRL_REG4_A, CTRL_REG1_A), then
    /// CTRL_REG2_A = 0x01, CTRL_REG3_A = 0x40, CTRL_REG5_A = 0x08, INT1_THS_A, INT1_DURATION_A = 0,
    /// reads REFERENCE_A (the filter starts from the present attitude), writes INT1_CFG_A = 0x2A
    /// and reads INT1_SRC_A once to clear an older event. Arming again re-arms with the new
    /// threshold and keeps the configuration to go back to.
    @discardableResult
    public mutating func armMotionLatch(threshold: Double) throws(SensorError) -> Double {
        let steps = try motionLatchSteps(for: threshold, step: Self.latchThresholdStep, maximum: 127)
        let saved = configurationBeforeLatch ?? configuration
        try configure(Self.latchConfiguration)
        configurationBeforeLatch = saved
        try io.write(LatchRegister.ctrl2, LatchRegister.highPassOnInterrupt1)
        try io.write(LatchRegister.ctrl3, LatchRegister.interrupt1OnPin)
        try io.write(LatchRegister.ctrl5, LatchRegister.latchInterrupt1)
        try io.write(LatchRegister.int1Ths, steps)
        try io.write(LatchRegister.int1Duration, 0)
        _ = try io.read(LatchRegister.reference)
        try io.write(LatchRegister.int1Cfg, LatchRegister.anyAxisHigh)
        _ = try io.read(LatchRegister.int1Src)
        return Double(steps) * Self.latchThresholdStep
    }

    /// One read of INT1_SRC_A: IA set means motion; the read clears the latched event.
    public mutating func takeMotionLatch() throws(SensorError) -> Bool {
        guard motionLatchArmed else { throw .unsupported(chip: chip, feature: "reading a motion latch that is not armed") }
        return try io.read(LatchRegister.int1Src) & LatchRegister.interruptActive != 0
    }

    /// Writes INT1_CFG_A = 0, CTRL_REG3_A = 0, CTRL_REG5_A = 0, CTRL_REG2_A = 0, then the
    /// configuration from before arming (or power-down, if the die was powered down then).
    public mutating func disarmMotionLatch() throws(SensorError) {
        guard let saved = configurationBeforeLatch else { return }
        try io.write(LatchRegister.int1Cfg, 0)
        try io.write(LatchRegister.ctrl3, 0)
        try io.write(LatchRegister.ctrl5, 0)
        try io.write(LatchRegister.ctrl2, 0)
        configurationBeforeLatch = nil
        if saved.dataRate == nil {
            try powerDown()
        } else {
            try configure(saved)
        }
    }
}
