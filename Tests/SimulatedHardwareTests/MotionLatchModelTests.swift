import HardwareInterfaces
import SensorDrivers
import SimulatedHardware
import Testing

/// The simulated chips' motion interrupts driven through the drivers' ``MotionLatch``: the chip
/// evaluates every sample at its own rate between the host's reads, so a short motion between
/// two reads 5 s apart is latched, and a slow tilt (which the high-pass filter, or the
/// ICM-20948's sample-to-sample comparison, removes) or a vibration below the threshold is not.
@Suite("Simulated motion latches")
struct MotionLatchModelTests {
    enum Chip: String, CaseIterable, CustomTestStringConvertible {
        case lsm303agr, lsm6dsox, icm20948
        var testDescription: String { rawValue }
    }

    /// Level, plus `shake(t)` g along x (t in seconds on the manual clock).
    static func source(_ shake: @escaping @Sendable (Double) -> Double) -> PhysicalSource {
        let g = PhysicalSource.standardGravity
        return .function { instant in SIMD3(shake(instant.seconds) * g, 0, g) }
    }

    /// A 2 Hz shake of `amplitude` g from `start` for `length` seconds.
    static func shake(amplitude: Double, start: Double, length: Double) -> @Sendable (Double) -> Double {
        { t in t >= start && t < start + length ? amplitude * Double.sin(2 * Double.pi * 2 * (t - start)) : 0 }
    }

    /// The chip on a simulated bus with the driver armed at the detector's threshold.
    static func armed(_ chip: Chip, _ source: PhysicalSource) throws -> (ManualClock, any MotionLatch, SimulatedI2CBus) {
        let clock = ManualClock()
        let bus = SimulatedI2CBus(name: "test-i2c", clock: clock)
        var latch: any MotionLatch
        switch chip {
        case .lsm303agr:
            let address = try #require(I2CAddress(UInt8(0x19)))
            bus.attach(SimulatedRegisterDevice(LSM303AGRAccelerometerModel(acceleration: source)), at: address)
            var driver = try LSM303AGRAccelerometer(bus: bus, address: address)
            try driver.configure(.init())
            latch = driver
        case .lsm6dsox:
            let address = try #require(I2CAddress(UInt8(0x6A)))
            bus.attach(SimulatedRegisterDevice(LSM6DSOXModel(acceleration: source)), at: address)
            var driver = try LSM6DSOX(bus: bus, address: address)
            try driver.configure(.init())
            latch = driver
        case .icm20948:
            let address = try #require(I2CAddress(UInt8(0x69)))
            bus.attach(SimulatedRegisterDevice(ICM20948Model(acceleration: source)), at: address)
            var driver = try ICM20948(bus: bus, address: address)
            try driver.configure(.init())
            latch = driver
        }
        try latch.armMotionLatch(threshold: 0.015 * 2.0.squareRoot())
        return (clock, latch, bus)
    }

    @Test("a 0.3 s shake of 50 mg between two reads 5 s apart is latched once, and the read clears it", arguments: Chip.allCases)
    func shortShakeIsLatched(_ chip: Chip) throws {
        var (clock, latch, _) = try Self.armed(chip, Self.source(Self.shake(amplitude: 0.05, start: 12, length: 0.3)))
        var verdicts: [Bool] = []
        for _ in 0..<5 {
            clock.advance(by: .seconds(5))
            verdicts.append(try latch.takeMotionLatch())
        }
        #expect(verdicts == [false, false, true, false, false])
        // Samples the host never read went through the comparison: the output registers were not read at all.
        let value = try latch.read().acceleration
        #expect(abs(value.z - PhysicalSource.standardGravity) < 0.2)
    }

    @Test("a still unit, a slow 0.3 g tilt over a minute and a 5 mg vibration latch nothing", arguments: Chip.allCases)
    func stillnessTiltAndFaintVibrationAreNotMotion(_ chip: Chip) throws {
        let sources: [(String, @Sendable (Double) -> Double)] = [
            ("still", { _ in 0 }),
            ("tilt", { t in min(0.3, 0.3 * t / 60) }),
            ("faint", Self.shake(amplitude: 0.005, start: 0, length: 1000)),
        ]
        for (name, shake) in sources {
            var (clock, latch, _) = try Self.armed(chip, Self.source(shake))
            var moved = 0
            for _ in 0..<24 {
                clock.advance(by: .seconds(5))
                if try latch.takeMotionLatch() { moved += 1 }
            }
            #expect(moved == 0, "\(name): \(moved) of 24 reads latched motion")
        }
    }

    @Test("a walk's vibration (64 mg) latches at every read; disarmed, the chip latches nothing", arguments: Chip.allCases)
    func walkingLatchesEveryRead(_ chip: Chip) throws {
        var (clock, latch, bus) = try Self.armed(chip, Self.source(Self.shake(amplitude: 0.064, start: 0, length: 1000)))
        for _ in 0..<6 {
            clock.advance(by: .seconds(5))
            #expect(try latch.takeMotionLatch())
        }
        try latch.disarmMotionLatch()
        clock.advance(by: .seconds(5))
        let (source, address, bit): (UInt8, UInt8, UInt8) = switch chip {
        case .lsm303agr: (0x31, 0x19, 0x40)
        case .lsm6dsox: (0x1B, 0x6A, 0x08)
        case .icm20948: (0x19, 0x69, 0x08)  // INT_STATUS in bank 0, selected after disarming
        }
        #expect(try bus.readRegister(source, at: try #require(I2CAddress(address))) & bit == 0)
    }
}
