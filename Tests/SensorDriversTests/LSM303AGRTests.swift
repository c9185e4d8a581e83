import HardwareInterfaces
import SensorDrivers
import Testing

/// LSM303AGR registers, re-declared from the datasheet (DocID027765).
private enum Acc {
    static let address: UInt8 = 0x19
    static let whoAmI: UInt8 = 0x0F
    static let tempCfg: UInt8 = 0x1F
    static let ctrl1: UInt8 = 0x20
    static let ctrl4: UInt8 = 0x23
    static let status: UInt8 = 0x27
    /// OUT_X_L_A 0x28 | 0x80.
    static let outBurst: UInt8 = 0xA8
    /// OUT_TEMP_L_A 0x0C | 0x80.
    static let tempBurst: UInt8 = 0x8C
}

private enum Mag {
    static let address: UInt8 = 0x1E
    static let whoAmI: UInt8 = 0x4F
    static let offsetX: UInt8 = 0x45
    static let cfgA: UInt8 = 0x60, cfgB: UInt8 = 0x61, cfgC: UInt8 = 0x62
    static let status: UInt8 = 0x67
    /// OUTX_L_REG_M; this die auto-increments without bit 7.
    static let out: UInt8 = 0x68
}

@Suite("LSM303AGR accelerometer")
struct LSM303AGRAccelerometerTests {
    func open(_ bus: ScriptedI2CBus) throws -> LSM303AGRAccelerometer {
        bus.read(Acc.address, Acc.whoAmI, 0x33)
        return try LSM303AGRAccelerometer(bus: bus, address: address(Acc.address))
    }

    @Test func identityMismatchIsNamed() throws {
        let bus = ScriptedI2CBus()
        bus.read(Acc.address, Acc.whoAmI, 0xFF)
        let a = try address(Acc.address)
        let error = sensorError { () throws(SensorError) in try LSM303AGRAccelerometer(bus: bus, address: a) }
        #expect(error == .unexpectedDevice(chip: .lsm303agrAccelerometer, device: "LSM303AGR accelerometer at scripted@0x19",
                                           register: 0x0F, expected: 0x33, found: 0xFF))
        bus.finish()
    }

    @Test func highResolutionReadDecodesLeftJustifiedData() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(Acc.address, Acc.tempCfg, 0xC0)
        bus.write(Acc.address, Acc.ctrl4, 0x88)  // BDU, ±2 g, HR
        bus.write(Acc.address, Acc.ctrl1, 0x57)  // 100 Hz, XYZ
        try driver.configure(.init())
        // 12-bit left-justified: 1000 counts << 4 = 0x3E80 -> 1000 * 0.98 mg; -1 count = 0xFFF0.
        // Temperature: 10 bits left-justified, 8 << 6 -> 8 / 4 + 25 = 27 °C.
        bus.block(Acc.address, Acc.outBurst, [0xF0, 0xFF, 0x00, 0x00, 0x80, 0x3E])
        bus.block(Acc.address, Acc.tempBurst, [0x00, 0x02])
        let sample = try driver.read()
        #expect(close(sample.acceleration, -0.009610517, 0, 9.610517))
        #expect(sample.temperature == 27)
        bus.finish()
    }

    @Test func lowPowerUsesEightBits() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        #expect(sensorError { () throws(SensorError) in
            try driver.configure(.init(dataRate: .hz1620LowPower, resolution: .normal, temperature: false))
        } == .unsupported(chip: .lsm303agrAccelerometer, feature: "1.62 kHz outside low-power mode"))
        bus.finish()  // the rejected configuration wrote nothing


        let bus2 = ScriptedI2CBus()
        var driver2 = try open(bus2)
        bus2.write(Acc.address, Acc.tempCfg, 0x00)
        bus2.write(Acc.address, Acc.ctrl4, 0x80)
        bus2.write(Acc.address, Acc.ctrl1, 0x8F)  // 1.62 kHz, LPen, XYZ
        try driver2.configure(.init(dataRate: .hz1620LowPower, resolution: .lowPower, temperature: false))
        bus2.block(Acc.address, Acc.outBurst, [0x00, 0x40, 0x00, 0x00, 0x00, 0xC0])  // 64 and -64 counts of 15.63 mg
        let sample = try driver2.read()
        #expect(close(sample.acceleration, 9.809788128, 0, -9.809788128))
        bus2.write(Acc.address, Acc.ctrl1, 0x0F)
        try driver2.powerDown()
        bus2.finish()
    }

    @Test func busErrorNamesTheDevice() throws {
        let bus = ScriptedI2CBus()
        bus.expect(Acc.address, .readByte(register: Acc.whoAmI), fails: nack)
        let a = try address(Acc.address)
        let error = sensorError { () throws(SensorError) in try LSM303AGRAccelerometer(bus: bus, address: a) }
        expectBusError(error, kind: .noAcknowledgeAddress, device: "LSM303AGR accelerometer at scripted@0x19")
        bus.finish()
    }
}

@Suite("LSM303AGR magnetometer")
struct LSM303AGRMagnetometerTests {
    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> LSM303AGRMagnetometer {
        bus.read(Mag.address, Mag.whoAmI, 0x40)
        return try LSM303AGRMagnetometer(bus: bus, address: address(Mag.address), clock: clock)
    }

    @Test func identityMismatchIsNamed() throws {
        let bus = ScriptedI2CBus()
        bus.read(Mag.address, Mag.whoAmI, 0x3D)
        let a = try address(Mag.address)
        let error = sensorError { () throws(SensorError) in try LSM303AGRMagnetometer(bus: bus, address: a, clock: FakeClock()) }
        #expect(error == .unexpectedDevice(chip: .lsm303agrMagnetometer, device: "LSM303AGR magnetometer at scripted@0x1e",
                                           register: 0x4F, expected: 0x40, found: 0x3D))
        bus.finish()
    }

    @Test func continuousConfigureAndRead() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(Mag.address, Mag.cfgC, 0x10)  // BDU
        bus.write(Mag.address, Mag.cfgB, 0x03)  // OFF_CANC + LPF
        bus.write(Mag.address, Mag.cfgA, 0x8C)  // temperature compensation, 100 Hz, continuous
        try driver.configure(.init(dataRate: .hz100, lowPassFilter: true))
        // 1.5 mG = 0.15 µT per count: 200 -> 30 µT, -100 -> -15 µT, 400 -> 60 µT.
        bus.block(Mag.address, Mag.out, le(200, -100, 400))
        let sample = try driver.read()
        #expect(close(sample.field, 30, -15, 60))
        bus.finish()
    }

    func configureSingleShot(_ bus: ScriptedI2CBus, _ driver: inout LSM303AGRMagnetometer) throws {
        bus.write(Mag.address, Mag.cfgC, 0x10)
        bus.write(Mag.address, Mag.cfgB, 0x12)  // OFF_CANC + OFF_CANC_ONE_SHOT
        bus.write(Mag.address, Mag.cfgA, 0x93)  // temp comp, LP, 10 Hz, idle until read
        try driver.configure(.init(mode: .singleShot, lowPower: true))
    }

    @Test func singleShotPollsDataReady() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configureSingleShot(bus, &driver)
        bus.write(Mag.address, Mag.cfgA, 0x91)  // MD = 01
        bus.read(Mag.address, Mag.status, 0x00)
        bus.read(Mag.address, Mag.status, 0x08)
        bus.block(Mag.address, Mag.out, le(-1, 1, 0))
        let sample = try driver.read()
        #expect(close(sample.field, -0.15, 0.15, 0))
        #expect(clock.elapsed == .milliseconds(2))
        bus.finish()
    }

    @Test func singleShotTimesOut() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configureSingleShot(bus, &driver)
        bus.write(Mag.address, Mag.cfgA, 0x91)
        for _ in 0..<20 { bus.read(Mag.address, Mag.status, 0x07) }  // X/Y/Z new, not ZYXDA
        let error = sensorError { () throws(SensorError) in try driver.read() }
        #expect(error == .dataNotReady(chip: .lsm303agrMagnetometer, device: "LSM303AGR magnetometer at scripted@0x1e",
                                       after: ReadyPolling(attempts: 20, interval: .milliseconds(2))))
        #expect(clock.elapsed == .milliseconds(38))
        bus.finish()
    }

    @Test func hardIronOffsetAndPowerDown() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.expect(Mag.address, .writeBlock(register: Mag.offsetX, bytes: [0x10, 0x00, 0xF0, 0xFF, 0x00, 0x01]))
        try driver.setHardIronOffset(x: 16, y: -16, z: 256)
        bus.write(Mag.address, Mag.cfgA, 0x03)
        try driver.powerDown()
        bus.finish()
    }

    @Test func busErrorNamesTheDevice() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.expect(Mag.address, .writeByte(register: Mag.cfgC, value: 0x10), fails: nack)
        let error = sensorError { () throws(SensorError) in try driver.configure(.init()) }
        expectBusError(error, kind: .noAcknowledgeAddress, device: "LSM303AGR magnetometer at scripted@0x1e")
        bus.finish()
    }
}
