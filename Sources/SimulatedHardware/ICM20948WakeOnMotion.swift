import HardwareInterfaces

/// The ICM-20948's wake-on-motion (DS-000189): with ACCEL_INTEL_EN in ACCEL_INTEL_CTRL (bank 2)
/// and WOM_INT_EN in INT_ENABLE (bank 0), every accelerometer sample is compared on each axis
/// with the previous sample (ACCEL_INTEL_MODE_INT = 1) or with the first sample after enabling
/// (0); a difference above ACCEL_WOM_THR (4 mg per step) sets WOM_INT in INT_STATUS, which stays
/// set until INT_STATUS is read.
extension ICM20948Model {
    /// INT_STATUS (bank 0).
    static let intStatusRegister: UInt8 = 0x19
    /// The most samples the comparison catches up on in one step (an hour at 26 Hz).
    public static let wakeOnMotionCatchUpLimit = 94_200

    /// Whether the wake-on-motion compares (ACCEL_INTEL_EN and WOM_INT_EN).
    var wakeOnMotionEnabled: Bool {
        registers[bank: 2, register: 0x12] & 0x02 != 0 && registers[bank: 0, register: 0x10] & 0x08 != 0
    }

    /// Compares the `count` samples due up to `instant` (the host missed all but the last), every
    /// sample period of the accelerometer's rate.
    mutating func evaluateWakeOnMotion(upTo instant: MonotonicInstant, count: Int) {
        let step = UInt64(max(0, RawCounts.period(hertz: dataRate).nanosecondsClamped))
        let threshold = Double(registers[bank: 2, register: 0x13]) * 0.004
        let comparesWithPrevious = registers[bank: 2, register: 0x12] & 0x01 != 0
        var fired = false
        for k in stride(from: min(count, Self.wakeOnMotionCatchUpLimit) - 1, through: 0, by: -1) {
            let at = MonotonicInstant(nanoseconds: instant.nanoseconds - UInt64(k) * step)
            let a = acceleration.value(at: at) / PhysicalSource.standardGravity
            guard let reference = wakeOnMotionReference else {
                wakeOnMotionReference = a
                continue
            }
            let d = a - reference
            if abs(d.x) > threshold || abs(d.y) > threshold || abs(d.z) > threshold { fired = true }
            if comparesWithPrevious { wakeOnMotionReference = a }
        }
        guard fired else { return }
        var bank0 = registers
        let selected = bank0.bank
        bank0.hostWrite(Register.bankSelect, 0)
        bank0[Self.intStatusRegister] |= 0x08
        bank0.hostWrite(Register.bankSelect, UInt8(selected) << 4)
        registers = bank0
    }
}
