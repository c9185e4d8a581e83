import HardwareInterfaces
import SimulatedHardware
import Testing

// Chip constants are re-declared here, as a driver would declare them, so a wrong table in
// the simulator is caught.
private let g = 9.80665

@Suite("Register-map chips: identity, counts, auto-increment, modes, data-ready")
struct ChipTests {
    @Test("every chip answers its identity register")
    func identities() throws {
        let cases: [(any SimulatedI2CDevice, UInt8, UInt8, UInt8)] = [
            (SimulatedRegisterDevice(LSM303AGRAccelerometerModel()), 0x19, 0x0F, 0x33),
            (SimulatedRegisterDevice(LSM303AGRMagnetometerModel()), 0x1E, 0x4F, 0x40),
            (SimulatedRegisterDevice(LIS3MDLModel()), 0x1C, 0x0F, 0x3D),
            (SimulatedRegisterDevice(LSM6DSOXModel()), 0x6A, 0x0F, 0x6C),
            (SimulatedRegisterDevice(QMC5883LModel()), 0x0D, 0x0D, 0xFF),
            (SimulatedRegisterDevice(ICM20948Model()), 0x69, 0x00, 0xEA),
            (SimulatedRegisterDevice(AK09916Model()), 0x0C, 0x00, 0x48),
            (SimulatedRegisterDevice(AK09916Model()), 0x0C, 0x01, 0x09),
            (SimulatedRegisterDevice(MMC5983MAModel()), 0x30, 0x2F, 0x30),
        ]
        for (device, address, register, expected) in cases {
            let (_, bus, a) = try rig(device, at: address)
            #expect(try bus.readRegister(register, at: a) == expected, "\(device.chipName) register \(hex(register))")
        }
        // Identity registers are read-only.
        let (_, bus, a) = try rig(SimulatedRegisterDevice(LIS3MDLModel()), at: 0x1E)
        try bus.writeRegister(0x0F, 0x00, at: a)
        #expect(try bus.readRegister(0x0F, at: a) == 0x3D)
    }

    @Test("LSM303AGR accelerometer: m/s² to left-justified counts and back within one LSB in every mode and range")
    func lsm303agrAccelerometer() throws {
        let truth = SIMD3(0.52, -1.23, 9.71)
        let device = SimulatedRegisterDevice(LSM303AGRAccelerometerModel(acceleration: .constant(truth)))
        let (clock, bus, a) = try rig(device, at: 0x19)
        // (CTRL_REG1_A, CTRL_REG4_A, shift, mg/digit)
        let modes: [(UInt8, UInt8, Int, Double)] = [(0x57, 0x88, 4, 0.98), (0x57, 0x80, 6, 3.9), (0x5F, 0x80, 8, 15.63),
                                                   (0x57, 0xB8, 4, 11.72), (0x57, 0x90, 6, 7.82)]
        for (c1, c4, shift, mg) in modes {
            try bus.writeRegister(0x20, c1, at: a)
            try bus.writeRegister(0x23, c4, at: a)
            clock.sleep(for: .milliseconds(20))
            #expect(try bus.readRegister(0x27, at: a) & 0x08 != 0)
            let raw = axesLE(try bus.readRegisters(0xA8, count: 6, at: a)).map { $0 >> shift }
            let decoded = raw.map { Double($0) * mg / 1000 * g }
            for axis in 0..<3 {
                #expect(abs(decoded[axis] - truth[axis]) <= mg / 1000 * g, "mode \(hex(c1))/\(hex(c4)) axis \(axis)")
            }
        }
    }

    @Test("LSM303AGR magnetometer: µT round trip, hard-iron offset registers subtracted, big-endian with BLE")
    func lsm303agrMagnetometer() throws {
        let truth = SIMD3(21.7, -4.35, -43.2)
        let device = SimulatedRegisterDevice(LSM303AGRMagnetometerModel(field: .constant(truth)))
        let (clock, bus, a) = try rig(device, at: 0x1E)
        try bus.writeRegister(0x60, 0x8C, at: a)  // temperature compensation, 100 Hz, continuous
        clock.sleep(for: .milliseconds(10))
        let counts = axesLE(try bus.readRegisters(0x68, count: 6, at: a))
        for axis in 0..<3 { #expect(abs(Double(counts[axis]) * 0.15 - truth[axis]) <= 0.15) }
        // Offset of 100 counts on X is subtracted by the chip.
        try bus.writeRegisters(0x45, [100, 0], at: a)
        clock.sleep(for: .milliseconds(10))
        let shifted = axesLE(try bus.readRegisters(0x68, count: 6, at: a))
        #expect(shifted[0] == counts[0] - 100)
        try bus.writeRegister(0x62, 0x08, at: a)  // BLE
        clock.sleep(for: .milliseconds(10))
        #expect(axesBE(try bus.readRegisters(0x68, count: 6, at: a)) == shifted)
    }

    @Test("LIS3MDL: µT round trip within one LSB in all four ranges; temperature at 8 LSB/°C")
    func lis3mdl() throws {
        let truth = SIMD3(25.3, -12.7, 43.1)
        let device = SimulatedRegisterDevice(LIS3MDLModel(field: .constant(truth), temperature: 31.5))
        let (clock, bus, a) = try rig(device, at: 0x1C)
        try bus.writeRegister(0x20, 0xF0, at: a)  // TEMP_EN, UHP, 10 Hz
        try bus.writeRegister(0x22, 0x00, at: a)  // continuous
        for (fs, lsbPerGauss) in [(UInt8(0x00), 6842.0), (0x20, 3421), (0x40, 2281), (0x60, 1711)] {
            try bus.writeRegister(0x21, fs, at: a)
            clock.sleep(for: .milliseconds(100))
            let counts = axesLE(try bus.readRegisters(0xA8, count: 6, at: a))
            for axis in 0..<3 {
                #expect(abs(Double(counts[axis]) / lsbPerGauss * 100 - truth[axis]) <= 100 / lsbPerGauss, "FS \(hex(fs))")
            }
        }
        let t = try bus.readRegisters(0xAE, count: 2, at: a)
        #expect(int16(t[0], t[1]) == 52)  // (31.5 - 25) * 8
    }

    @Test("LSM6DSOX: acceleration, angular rate and temperature round trip")
    func lsm6dsox() throws {
        let accel = SIMD3(-0.31, 0.27, 9.79), rate = SIMD3(12.5, -3.25, 100.0)
        let device = SimulatedRegisterDevice(LSM6DSOXModel(acceleration: .constant(accel), angularRate: .constant(rate), temperature: 30))
        let (clock, bus, a) = try rig(device, at: 0x6A)
        for (ctrl1, mg) in [(UInt8(0x40), 0.061), (0x44, 0.488), (0x48, 0.122), (0x4C, 0.244)] {
            try bus.writeRegister(0x10, ctrl1, at: a)
            try bus.writeRegister(0x11, 0x4C, at: a)  // 104 Hz, 2000 dps
            clock.sleep(for: .milliseconds(10))
            #expect(try bus.readRegister(0x1E, at: a) & 0x07 == 0x07)
            let bytes = try bus.readRegisters(0x20, count: 14, at: a)
            #expect(int16(bytes[0], bytes[1]) == 1280)  // (30 - 25) * 256
            let gyro = axesLE(Array(bytes[2..<8])), acc = axesLE(Array(bytes[8..<14]))
            for axis in 0..<3 {
                #expect(abs(Double(acc[axis]) * mg / 1000 * g - accel[axis]) <= mg / 1000 * g, "accelerometer FS \(hex(ctrl1))")
                #expect(abs(Double(gyro[axis]) * 0.070 - rate[axis]) <= 0.070)
            }
            #expect(try bus.readRegister(0x1E, at: a) & 0x07 == 0)
        }
    }

    @Test("QMC5883L: µT round trip in both ranges, overflow flag when saturated")
    func qmc5883l() throws {
        let truth = SIMD3(18.2, -30.4, 41.9)
        let device = SimulatedRegisterDevice(QMC5883LModel(field: .constant(truth)))
        let (clock, bus, a) = try rig(device, at: 0x0D)
        try bus.writeRegister(0x0B, 0x01, at: a)
        for (control, lsbPerGauss) in [(UInt8(0x1D), 3000.0), (0x0D, 12000)] {
            try bus.writeRegister(0x09, control, at: a)
            clock.sleep(for: .milliseconds(5))
            #expect(try bus.readRegister(0x06, at: a) & 0x01 != 0)
            let counts = axesLE(try bus.readRegisters(0x00, count: 6, at: a))
            for axis in 0..<3 { #expect(abs(Double(counts[axis]) / lsbPerGauss * 100 - truth[axis]) <= 100 / lsbPerGauss) }
        }
        device.withModel { $0.field = .constant(SIMD3(300, 0, 0)) }  // beyond ±2 G
        clock.sleep(for: .milliseconds(5))
        #expect(try bus.readRegister(0x06, at: a) & 0x02 != 0)
    }

    @Test("ICM-20948: big-endian accelerometer in bank 0 with the range from bank 2; temperature")
    func icm20948() throws {
        let truth = SIMD3(1.1, -0.4, 9.6)
        let (icm, _) = makeICM20948(ICM20948Model(acceleration: .constant(truth), temperature: 31))
        let (clock, bus, a) = try rig(icm, at: 0x69)
        clock.sleep(for: .milliseconds(10))
        #expect(try bus.readRegister(0x1A, at: a) == 0, "asleep after reset: no samples")
        try bus.writeRegister(0x06, 0x01, at: a)
        try bus.writeRegister(0x07, 0x07, at: a)
        for (fs, lsbPerG) in [(UInt8(0), 16384.0), (1, 8192), (2, 4096), (3, 2048)] {
            try bus.writeRegister(0x7F, 0x20, at: a)
            try bus.writeRegister(0x14, fs << 1 | 0x01, at: a)
            try bus.writeRegister(0x7F, 0x00, at: a)
            clock.sleep(for: .milliseconds(2))
            #expect(try bus.readRegister(0x1A, at: a) & 0x01 != 0)
            #expect(try bus.readRegister(0x1A, at: a) == 0, "INT_STATUS_1 clears on read")
            let counts = axesBE(try bus.readRegisters(0x2D, count: 6, at: a))
            for axis in 0..<3 { #expect(abs(Double(counts[axis]) / lsbPerG * g - truth[axis]) <= g / lsbPerG) }
        }
        let t = try bus.readRegisters(0x39, count: 2, at: a)
        #expect(abs(Double(int16(t[1], t[0])) / 333.87 + 21 - 31) <= 1 / 333.87)
    }

    @Test("AK09916: hidden until the ICM-20948 bypass opens; µT round trip; single-shot back to power-down")
    func ak09916() throws {
        let truth = SIMD3(-17.4, 22.05, -38.9)
        let (icm, ak) = makeICM20948(magnetometer: AK09916Model(field: .constant(truth)))
        let (clock, bus, icmAddress) = try rig(icm, at: 0x68)
        let akAddress = try #require(I2CAddress(UInt8(0x0C)))
        bus.attach(ak, at: akAddress)
        #expect(try bus.probe(akAddress) == false)
        #expect(kind { () throws(HardwareError) in try bus.readRegister(0x00, at: akAddress) } == .noAcknowledge)
        try bus.writeRegister(0x06, 0x01, at: icmAddress)
        try bus.writeRegister(0x03, 0x00, at: icmAddress)
        try bus.writeRegister(0x0F, 0x02, at: icmAddress)
        #expect(try bus.probe(akAddress))
        #expect(try bus.readRegisters(0x00, count: 2, at: akAddress) == [0x48, 0x09])
        // I2C master on again hides it.
        try bus.writeRegister(0x03, 0x20, at: icmAddress)
        #expect(try bus.probe(akAddress) == false)
        try bus.writeRegister(0x03, 0x00, at: icmAddress)

        try bus.writeRegister(0x31, 0x01, at: akAddress)
        #expect(try bus.readRegister(0x10, at: akAddress) & 0x01 == 0)
        clock.sleep(for: .milliseconds(9))
        #expect(try bus.readRegister(0x10, at: akAddress) & 0x01 != 0)
        #expect(try bus.readRegister(0x31, at: akAddress) == 0x00, "single measurement returns to power-down")
        let bytes = try bus.readRegisters(0x11, count: 8, at: akAddress)
        let counts = axesLE(bytes)
        for axis in 0..<3 { #expect(abs(Double(counts[axis]) * 0.15 - truth[axis]) <= 0.15) }
        #expect(bytes[7] & 0x08 == 0)
        #expect(try bus.readRegister(0x10, at: akAddress) & 0x01 == 0, "DRDY clears after data and ST2")
        clock.sleep(for: .seconds(1))
        #expect(try bus.readRegister(0x10, at: akAddress) & 0x01 == 0, "no more samples in power-down")
    }

    @Test("MMC5983MA: 18-bit round trip, SET/RESET separates field and bridge offset, write-only controls")
    func mmc5983ma() throws {
        let truth = SIMD3(20.0, -35.5, 41.3), offset = SIMD3(3.0, -2.5, 6.25)
        let device = SimulatedRegisterDevice(MMC5983MAModel(field: .constant(truth), bridgeOffset: offset, temperature: 27))
        let (clock, bus, a) = try rig(device, at: 0x30)
        func measure() throws -> [Int] {
            try bus.writeRegister(0x09, 0x01, at: a)
            #expect(try bus.readRegister(0x08, at: a) & 0x01 == 0)
            clock.sleep(for: .milliseconds(8))
            #expect(try bus.readRegister(0x08, at: a) & 0x01 != 0)
            let b = try bus.readRegisters(0x00, count: 7, at: a)
            return [Int(b[0]) << 10 | Int(b[1]) << 2 | Int(b[6] >> 6 & 3),
                    Int(b[2]) << 10 | Int(b[3]) << 2 | Int(b[6] >> 4 & 3),
                    Int(b[4]) << 10 | Int(b[5]) << 2 | Int(b[6] >> 2 & 3)]
        }
        let microteslaPerCount = 100.0 / 16384
        try bus.writeRegister(0x09, 0x08, at: a)  // SET
        let set = try measure()
        try bus.writeRegister(0x09, 0x10, at: a)  // RESET
        let reset = try measure()
        for axis in 0..<3 {
            let field = Double(set[axis] - reset[axis]) / 2 * microteslaPerCount
            let bridge = (Double(set[axis] + reset[axis]) / 2 - 131_072) * microteslaPerCount
            #expect(abs(field - truth[axis]) <= microteslaPerCount, "axis \(axis)")
            #expect(abs(bridge - offset[axis]) <= microteslaPerCount, "axis \(axis)")
            #expect(set[axis] != reset[axis])
        }
        #expect(try bus.readRegister(0x09, at: a) == 0, "control registers are write-only")
        try bus.writeRegister(0x09, 0x02, at: a)  // TM_T
        clock.sleep(for: .milliseconds(3))
        #expect(try bus.readRegister(0x08, at: a) & 0x02 != 0)
        #expect(abs(Double(try bus.readRegister(0x07, at: a)) * 0.8 - 75 - 27) <= 0.8)
    }

    @Test("ST multi-read bit: without bit 7 a burst repeats one register, with it the burst walks")
    func stAutoIncrement() throws {
        for (model, address): (any SimulatedI2CDevice, UInt8) in [
            (SimulatedRegisterDevice(LIS3MDLModel(field: .constant(SIMD3(25.3, -12.7, 43.1)))), 0x1C),
        ] {
            let (clock, bus, a) = try rig(model, at: address)
            try bus.writeRegister(0x22, 0x00, at: a)
            clock.sleep(for: .milliseconds(100))
            let single = try (0x28...0x2D).map { (r: UInt8) throws(HardwareError) -> UInt8 in try bus.readRegister(r, at: a) }
            #expect(Set(single).count > 1, "the test needs distinct bytes")
            #expect(try bus.readRegisters(0x28, count: 6, at: a) == [UInt8](repeating: single[0], count: 6))
            #expect(try bus.readRegisters(0xA8, count: 6, at: a) == single)
            #expect(try bus.readWord(0x28, at: a) == UInt16(single[0]) * 0x101)
        }
        let accel = SimulatedRegisterDevice(LSM303AGRAccelerometerModel(acceleration: .constant(SIMD3(1.5, -2.5, 9.0))))
        let (clock, bus, a) = try rig(accel, at: 0x19)
        try bus.writeRegister(0x20, 0x57, at: a)
        try bus.writeRegister(0x23, 0x08, at: a)
        clock.sleep(for: .milliseconds(10))
        let walked = try bus.readRegisters(0xA8, count: 6, at: a)
        #expect(try bus.readRegisters(0x29, count: 3, at: a) == [UInt8](repeating: walked[1], count: 3))
        // Writing with bit 7 walks too: CTRL_REG1_A and CTRL_REG2_A in one burst.
        try bus.writeRegisters(0xA0, [0x47, 0x00], at: a)
        #expect(try bus.readRegister(0x20, at: a) == 0x47)
    }

    @Test("LSM303AGR magnetometer walks without bit 7; LSM6DSOX walks only with IF_INC")
    func otherIncrementRules() throws {
        let mag = SimulatedRegisterDevice(LSM303AGRMagnetometerModel(field: .constant(SIMD3(21.7, -4.35, -43.2))))
        let (clock, bus, a) = try rig(mag, at: 0x1E)
        try bus.writeRegister(0x60, 0x8C, at: a)
        clock.sleep(for: .milliseconds(10))
        let single = try (0x68...0x6D).map { (r: UInt8) throws(HardwareError) -> UInt8 in try bus.readRegister(r, at: a) }
        #expect(try bus.readRegisters(0x68, count: 6, at: a) == single)

        let imu = SimulatedRegisterDevice(LSM6DSOXModel(acceleration: .constant(SIMD3(0.5, -0.7, 9.7))))
        let (clock2, bus2, b) = try rig(imu, at: 0x6B)
        try bus2.writeRegister(0x10, 0x40, at: b)
        clock2.sleep(for: .milliseconds(10))
        let bytes = try bus2.readRegisters(0x28, count: 6, at: b)
        #expect(Set(bytes).count > 1)
        try bus2.writeRegister(0x12, 0x00, at: b)  // IF_INC off
        #expect(try bus2.readRegisters(0x28, count: 6, at: b) == [UInt8](repeating: bytes[0], count: 6))
        try bus2.writeRegister(0x12, 0x04, at: b)
        #expect(try bus2.readRegisters(0x28, count: 6, at: b) == bytes)
    }

    @Test("QMC5883L pointer rolls from 0x06 to 0x00 only with ROL_PNT")
    func qmcRollOver() throws {
        let device = SimulatedRegisterDevice(QMC5883LModel(field: .constant(SIMD3(18.2, -30.4, 41.9))))
        let (clock, bus, a) = try rig(device, at: 0x0D)
        try bus.writeRegister(0x09, 0x1D, at: a)
        clock.sleep(for: .milliseconds(5))
        _ = try bus.readRegister(0x0D, at: a)  // brings the chip up to date before peeking
        let all = (0...8).map { device.peek(UInt8($0)) }
        // Reading 0x05 clears DRDY before the status byte goes out.
        #expect(try bus.readRegisters(0x05, count: 4, at: a) == [all[5], all[6] & ~0x05, all[7], all[8]])
        try bus.writeRegister(0x0A, 0x40, at: a)
        clock.sleep(for: .milliseconds(5))
        _ = try bus.readRegister(0x0D, at: a)
        let again = (0...8).map { device.peek(UInt8($0)) }
        #expect(try bus.readRegisters(0x05, count: 4, at: a) == [again[5], again[6] & ~0x05, again[0], again[1]])
    }

    @Test("ICM-20948 banks: REG_BANK_SEL switches the map, and every bank has it")
    func icmBanks() throws {
        let (icm, _) = makeICM20948()
        let (_, bus, a) = try rig(icm, at: 0x69)
        #expect(try bus.readRegister(0x00, at: a) == 0xEA)
        try bus.writeRegister(0x7F, 0x20, at: a)
        #expect(try bus.readRegister(0x7F, at: a) == 0x20)
        #expect(try bus.readRegister(0x00, at: a) == 0x00, "bank 2 register 0 is GYRO_SMPLRT_DIV")
        #expect(try bus.readRegister(0x14, at: a) == 0x01, "ACCEL_CONFIG reset value")
        try bus.writeRegister(0x14, 0x04, at: a)
        try bus.writeRegister(0x7F, 0x00, at: a)
        #expect(try bus.readRegister(0x00, at: a) == 0xEA)
        #expect(try bus.readRegister(0x14, at: a) == 0x00)
        #expect(icm.peek(0x14, bank: 2) == 0x04)
    }

    @Test("single-shot measurements return to idle after one sample (LSM303AGR, LIS3MDL)")
    func singleShot() throws {
        let mag = SimulatedRegisterDevice(LSM303AGRMagnetometerModel(field: .constant(SIMD3(10, 20, 30))))
        let (clock, bus, a) = try rig(mag, at: 0x1E)
        #expect(try bus.readRegister(0x60, at: a) & 0x03 == 0x03, "idle after reset")
        try bus.writeRegister(0x60, 0x81, at: a)
        #expect(try bus.readRegister(0x67, at: a) & 0x08 == 0)
        clock.sleep(for: .milliseconds(100))
        #expect(try bus.readRegister(0x67, at: a) & 0x08 != 0)
        #expect(try bus.readRegister(0x60, at: a) & 0x03 == 0x03, "back to idle")
        clock.sleep(for: .seconds(2))
        #expect(mag.withModel { $0.samples } == 1)

        let lis = SimulatedRegisterDevice(LIS3MDLModel(field: .constant(SIMD3(10, 20, 30))))
        let (clock2, bus2, b) = try rig(lis, at: 0x1E)
        try bus2.writeRegister(0x22, 0x01, at: b)
        clock2.sleep(for: .milliseconds(100))
        #expect(try bus2.readRegister(0x27, at: b) & 0x08 != 0)
        #expect(try bus2.readRegister(0x22, at: b) & 0x03 == 0x03, "power-down after the conversion")
        clock2.sleep(for: .seconds(2))
        #expect(lis.withModel { $0.samples } == 1)
    }

    @Test("data-ready: set when a sample is due, cleared by reading the data, overrun when samples are missed")
    func dataReady() throws {
        let lis = SimulatedRegisterDevice(LIS3MDLModel(field: .constant(SIMD3(10, 20, 30))))
        let (clock, bus, a) = try rig(lis, at: 0x1C)
        try bus.writeRegister(0x20, 0x10, at: a)  // 10 Hz
        try bus.writeRegister(0x22, 0x00, at: a)
        clock.sleep(for: .milliseconds(99))
        #expect(try bus.readRegister(0x27, at: a) & 0x08 == 0)
        clock.sleep(for: .milliseconds(1))
        #expect(try bus.readRegister(0x27, at: a) == 0x08)
        _ = try bus.readRegisters(0xA8, count: 6, at: a)
        #expect(try bus.readRegister(0x27, at: a) == 0x00)
        clock.sleep(for: .milliseconds(300))
        #expect(try bus.readRegister(0x27, at: a) == 0x88, "ZYXOR after missed samples")
        try bus.writeRegister(0x22, 0x03, at: a)  // power-down
        _ = try bus.readRegisters(0xA8, count: 6, at: a)
        clock.sleep(for: .seconds(1))
        #expect(try bus.readRegister(0x27, at: a) == 0x00, "no data in power-down")

        let qmc = SimulatedRegisterDevice(QMC5883LModel(field: .constant(SIMD3(10, 20, 30))))
        let (clock2, bus2, b) = try rig(qmc, at: 0x0D)
        try bus2.writeRegister(0x09, 0x11, at: b)  // 10 Hz continuous
        clock2.sleep(for: .milliseconds(100))
        #expect(try bus2.readRegister(0x06, at: b) & 0x01 != 0)
        _ = try bus2.readRegisters(0x00, count: 6, at: b)
        #expect(try bus2.readRegister(0x06, at: b) & 0x01 == 0)
        try bus2.writeRegister(0x09, 0x10, at: b)  // standby
        clock2.sleep(for: .seconds(1))
        #expect(try bus2.readRegister(0x06, at: b) & 0x01 == 0)
    }

    @Test("a physical source that varies with time is sampled at the sample instant")
    func timeVaryingSource() throws {
        let device = SimulatedRegisterDevice(QMC5883LModel(field: .function { t in SIMD3(t.seconds * 10, 0, 0) }))
        let (clock, bus, a) = try rig(device, at: 0x0D)
        try bus.writeRegister(0x09, 0x11, at: a)  // ±8 G, 10 Hz
        clock.sleep(for: .seconds(2))
        let x = axesLE(try bus.readRegisters(0x00, count: 6, at: a))[0]
        #expect(abs(Double(x) / 3000 * 100 - 20) <= 100.0 / 3000)
    }
}
