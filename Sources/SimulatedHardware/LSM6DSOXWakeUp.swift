import HardwareInterfaces

/// The LSM6DSOX's wake-up interrupt (DS12814; AN5272): with INTERRUPTS_ENABLE in TAP_CFG2 and a
/// threshold in WAKE_UP_THS, every accelerometer sample is filtered (high-pass with the cut-off
/// of CTRL8_XL's HPCF_XL when TAP_CFG0's SLOPE_FDS is set, else the slope filter, half the
/// difference of two samples) and compared on each axis with the threshold (FS_XL / 64 per
/// step, FS_XL / 256 with WAKE_UP_DUR's WAKE_THS_W); an event that lasts WAKE_DUR + 1 samples
/// sets WU_IA and the axis bits in WAKE_UP_SRC, held until WAKE_UP_SRC is read when TAP_CFG0's
/// LIR is set.
extension LSM6DSOXModel {
    /// WAKE_UP_SRC.
    static let wakeUpSourceRegister: UInt8 = 0x1B
    /// HPCF_XL's cut-off divisors of the output data rate.
    public static let highPassDivisors: [Double] = [4, 10, 20, 45, 100, 200, 400, 800]
    /// The most samples the wake-up catches up on in one step (an hour at 26 Hz).
    public static let wakeUpCatchUpLimit = 93_600

    /// Whether the wake-up is enabled (INTERRUPTS_ENABLE and a non-zero threshold).
    var wakeUpEnabled: Bool { registers[0x58] & 0x80 != 0 && registers[0x5B] & 0x3F != 0 }

    /// Evaluates the `count` samples due up to `instant` (the host missed all but the last),
    /// every `1 / rate`; returns the latest acceleration, m/s².
    mutating func evaluateWakeUp(upTo instant: MonotonicInstant, count: Int, rate: Double) -> SIMD3<Double> {
        let step = UInt64(max(0, RawCounts.period(hertz: rate).nanosecondsClamped))
        var latest = SIMD3<Double>.zero
        for k in stride(from: min(count, Self.wakeUpCatchUpLimit) - 1, through: 0, by: -1) {
            let at = MonotonicInstant(nanoseconds: instant.nanoseconds - UInt64(k) * step)
            latest = acceleration.value(at: at)
            wakeUp(latest / PhysicalSource.standardGravity, rate: rate)
        }
        return latest
    }

    /// One sample (g, chip axes) through the wake-up.
    mutating func wakeUp(_ a: SIMD3<Double>, rate: Double) {
        let previous = wakeUpFilter ?? (input: a, output: .zero)
        let filtered: SIMD3<Double>
        if registers[0x56] & 0x10 != 0 {
            let cutoff = rate / Self.highPassDivisors[Int(registers[0x17] >> 5)]
            let alpha = 1 / (1 + 2 * Double.pi * cutoff / rate)
            filtered = alpha * (previous.output + a - previous.input)
        } else {
            filtered = (a - previous.input) / 2
        }
        wakeUpFilter = (a, filtered)
        let fullScale = [2.0, 16, 4, 8][Int(registers[Register.ctrl1XL] >> 2 & 0x03)]
        let threshold = Double(registers[0x5B] & 0x3F) * fullScale / (registers[0x5C] & 0x10 != 0 ? 256 : 64)
        var axes: UInt8 = 0
        if abs(filtered.x) > threshold { axes |= 0x04 }
        if abs(filtered.y) > threshold { axes |= 0x02 }
        if abs(filtered.z) > threshold { axes |= 0x01 }
        wakeUpSamples = axes != 0 ? wakeUpSamples + 1 : 0
        let fired = axes != 0 && wakeUpSamples > Int(registers[0x5C] >> 5 & 0x03)
        let source: UInt8 = fired ? 0x08 | axes : 0
        if registers[0x56] & 0x01 != 0 {
            if registers[Self.wakeUpSourceRegister] & 0x08 == 0 { registers[Self.wakeUpSourceRegister] = source }
        } else {
            registers[Self.wakeUpSourceRegister] = source
        }
    }
}
