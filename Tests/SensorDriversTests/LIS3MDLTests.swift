import HardwareInterfaces
import SensorDrivers
import Testing

/// LIS3MDL registers, re-declared from the datasheet (DocID024204) so a wrong address in the
/// driver fails here.
private enum LIS {
    static let address: UInt8 = 0x1C
    static let whoAmI: UInt8 = 0x0F
    static let ctrl1: UInt8 = 0x20, ctrl2: UInt8 = 0x21, ctrl3: UInt8 = 0x22, ctrl4: UInt8 = 0x23, ctrl5: UInt8 = 0x24
    static let status: UInt8 = 0x27
    /// OUT_X_L 0x28 with the auto-increment bit: what the wire (and the i2c-stub preload) sees.
    static let outBurst: UInt8 = 0xA8
    /// TEMP_OUT_L 0x2E with the auto-increment bit.
    static let tempBurst: UInt8 = 0xAE
}

private enum DSOX {
    static let address: UInt8 = 0x6A
    static let whoAmI: UInt8 = 0x0F
    static let ctrl1XL: UInt8 = 0x10, ctrl2G: UInt8 = 0x11, ctrl3C: UInt8 = 0x12
    static let status: UInt8 = 0x1E
    static let outTemp: UInt8 = 0x20
    static let outX: UInt8 = 0x28
}

@Suite("LIS3MDL")
struct LIS3MDLTests {
    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> LIS3MDL {
        bus.read(LIS.address, LIS.whoAmI, 0x3D)
        return try LIS3MDL(bus: bus, address: address(LIS.address), clock: clock)
    }

    @Test func identityMatches() throws {
        let bus = ScriptedI2CBus()
        let driver = try open(bus)
        #expect(driver.device == "LIS3MDL at scripted@0x1c")
        bus.finish()
    }

    @Test func identityMismatchIsNamed() throws {
        let bus = ScriptedI2CBus()
        bus.read(LIS.address, LIS.whoAmI, 0x33)  // an LSM303 accelerometer answers here
        let a = try address(LIS.address)
        let error = sensorError { () throws(SensorError) in try LIS3MDL(bus: bus, address: a, clock: FakeClock()) }
        #expect(error == .unexpectedDevice(chip: .lis3mdl, device: "LIS3MDL at scripted@0x1c", register: 0x0F,
                                           expected: 0x3D, found: 0x33))
        bus.finish()
    }

    @Test func configureWritesTheDatasheetSetup() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(LIS.address, LIS.ctrl1, 0xF0)  // TEMP_EN, UHP, 10 Hz
        bus.write(LIS.address, LIS.ctrl2, 0x00)  // ±4 G
        bus.write(LIS.address, LIS.ctrl4, 0x0C)  // Z UHP
        bus.write(LIS.address, LIS.ctrl5, 0x40)  // BDU
        bus.write(LIS.address, LIS.ctrl3, 0x00)  // continuous, last
        try driver.configure(.init())
        #expect(driver.ctrl == [0xF0, 0x00, 0x00, 0x0C, 0x40])
        // One field, one write, from the shadow copy.
        bus.write(LIS.address, LIS.ctrl2, 0x60)
        try driver.setRange(.gauss16)
        bus.write(LIS.address, LIS.ctrl1, 0xE2)  // FAST_ODR keeps TEMP_EN and OM
        try driver.setDataRate(.fast)
        bus.finish()
    }

    @Test func continuousReadDecodesMicrotesla() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        for (r, v) in [(LIS.ctrl1, 0xF0), (LIS.ctrl2, 0x00), (LIS.ctrl4, 0x0C), (LIS.ctrl5, 0x40), (LIS.ctrl3, 0x00)] as [(UInt8, UInt8)] {
            bus.write(LIS.address, r, v)
        }
        try driver.configure(.init())
        // X 0x0100 = 256 counts = 256/6842 G = 3.7416 µT; Y -256; Z 6842 = 1 G = 100 µT; T 16/8 + 25 = 27 °C.
        bus.block(LIS.address, LIS.outBurst, [0x00, 0x01, 0x00, 0xFF, 0xBA, 0x1A])
        bus.block(LIS.address, LIS.tempBurst, [0x10, 0x00])
        let sample = try driver.read()
        #expect(close(sample.field, 3.741596024554224, -3.741596024554224, 100.0))
        #expect(sample.temperature == 27)
        bus.finish()
    }

    @Test func rangeScalesAreTheDatasheetTable() {
        #expect(LIS3MDL.Range.allCases.map(\.countsPerGauss) == [6842, 3421, 2281, 1711])
        #expect(close(LIS3MDL.Range.gauss8.scale.microtesla(3421), 100))
    }

    func configureSingleShot(_ bus: ScriptedI2CBus, _ driver: inout LIS3MDL) throws {
        bus.write(LIS.address, LIS.ctrl1, 0x10)  // low-power X/Y, 10 Hz, no temperature
        bus.write(LIS.address, LIS.ctrl2, 0x20)  // ±8 G
        bus.write(LIS.address, LIS.ctrl4, 0x00)
        bus.write(LIS.address, LIS.ctrl5, 0x40)
        bus.write(LIS.address, LIS.ctrl3, 0x03)  // idle until read
        try driver.configure(.init(mode: .singleShot, range: .gauss8, performance: .lowPower, temperature: false))
    }

    @Test func singleShotPollsDataReady() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configureSingleShot(bus, &driver)
        bus.write(LIS.address, LIS.ctrl3, 0x01)
        bus.read(LIS.address, LIS.status, 0x00)
        bus.read(LIS.address, LIS.status, 0x00)
        bus.read(LIS.address, LIS.status, 0x0F)
        bus.block(LIS.address, LIS.outBurst, le(3421, 0, -3421))
        let sample = try driver.read()
        #expect(close(sample.field, 100, 0, -100))
        #expect(sample.temperature == nil)
        #expect(clock.elapsed == .milliseconds(4))
        bus.finish()
    }

    @Test func singleShotTimesOutAfterBoundedAttempts() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configureSingleShot(bus, &driver)
        driver.polling = ReadyPolling(attempts: 5, interval: .milliseconds(3))
        bus.write(LIS.address, LIS.ctrl3, 0x01)
        for _ in 0..<5 { bus.read(LIS.address, LIS.status, 0x00) }
        let error = sensorError { () throws(SensorError) in try driver.read() }
        #expect(error == .dataNotReady(chip: .lis3mdl, device: "LIS3MDL at scripted@0x1c",
                                       after: ReadyPolling(attempts: 5, interval: .milliseconds(3))))
        #expect(clock.elapsed == .milliseconds(12))
        bus.finish()
    }

    @Test func busErrorNamesTheDevice() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        for (r, v) in [(LIS.ctrl1, 0xF0), (LIS.ctrl2, 0x00), (LIS.ctrl4, 0x0C), (LIS.ctrl5, 0x40), (LIS.ctrl3, 0x00)] as [(UInt8, UInt8)] {
            bus.write(LIS.address, r, v)
        }
        try driver.configure(.init())
        bus.expect(LIS.address, .readBlock(register: LIS.outBurst, count: 6),
                   fails: HardwareError(.noAcknowledgeData, device: "scripted", operation: "read"))
        let error = sensorError { () throws(SensorError) in try driver.read() }
        expectBusError(error, kind: .noAcknowledgeData, device: "LIS3MDL at scripted@0x1c")
        bus.finish()
    }

    /// Scripts ST's self-test with the given raw outputs (ST off, ST on), all ZYXDA at once.
    func scriptSelfTest(_ bus: ScriptedI2CBus, off: [UInt8], on: [UInt8]) {
        bus.write(LIS.address, LIS.ctrl1, 0x1C)  // LP, 80 Hz
        bus.write(LIS.address, LIS.ctrl2, 0x40)  // ±12 G
        bus.write(LIS.address, LIS.ctrl4, 0x00)
        bus.write(LIS.address, LIS.ctrl5, 0x40)
        bus.write(LIS.address, LIS.ctrl3, 0x00)  // continuous
        for _ in 0..<6 {
            bus.read(LIS.address, LIS.status, 0x08)
            bus.block(LIS.address, LIS.outBurst, off)
        }
        bus.write(LIS.address, LIS.ctrl1, 0x1D)  // ST on
        for _ in 0..<6 {
            bus.read(LIS.address, LIS.status, 0x08)
            bus.block(LIS.address, LIS.outBurst, on)
        }
        bus.write(LIS.address, LIS.ctrl1, 0x1C)  // ST off
        bus.write(LIS.address, LIS.ctrl3, 0x03)  // back to power-down, as before
    }

    @Test func selfTestPassesInsideTheWindow() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        // 2281 LSB/G at ±12 G: +2 G on X, -2 G on Y, +0.5 G on Z (1140.5 -> 1141 counts).
        scriptSelfTest(bus, off: le(100, 100, 100), on: le(100 + 4562, 100 - 4562, 100 + 1141))
        try driver.selfTest()
        #expect(clock.elapsed == .milliseconds(80))
        bus.finish()
    }

    @Test func selfTestFailsOutsideTheWindow() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        scriptSelfTest(bus, off: le(100, 100, 100), on: le(100 + 4562, 100 - 4562, 100))  // Z did not move
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .lis3mdl, device: "LIS3MDL at scripted@0x1c",
                                         detail: "Z change 0.0 G outside 0.1...1.0"))
        bus.finish()
    }

    @Test func powerDownWritesModeBits() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(LIS.address, LIS.ctrl3, 0x03)
        try driver.powerDown()
        let error = sensorError { () throws(SensorError) in try driver.read() }
        guard case .unsupported(.lis3mdl, _)? = error else {
            Issue.record("expected unsupported, got \(String(describing: error))")
            return
        }
        bus.finish()
    }
}

@Suite("LSM6DSOX")
struct LSM6DSOXTests {
    func open(_ bus: ScriptedI2CBus) throws -> LSM6DSOX {
        bus.read(DSOX.address, DSOX.whoAmI, 0x6C)
        return try LSM6DSOX(bus: bus, address: address(DSOX.address))
    }

    @Test func identityMismatchIsNamed() throws {
        let bus = ScriptedI2CBus()
        bus.read(DSOX.address, DSOX.whoAmI, 0x69)  // LSM6DS33
        let a = try address(DSOX.address)
        let error = sensorError { () throws(SensorError) in try LSM6DSOX(bus: bus, address: a) }
        #expect(error == .unexpectedDevice(chip: .lsm6dsox, device: "LSM6DSOX at scripted@0x6a", register: 0x0F,
                                           expected: 0x6C, found: 0x69))
        bus.finish()
    }

    @Test func configureAndReadMetresPerSecondSquared() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(DSOX.address, DSOX.ctrl3C, 0x44)   // BDU + IF_INC
        bus.write(DSOX.address, DSOX.ctrl2G, 0x00)   // gyroscope off
        bus.write(DSOX.address, DSOX.ctrl1XL, 0x40)  // 104 Hz, ±2 g
        try driver.configure(.init())
        // 16384 counts * 0.061 mg = 999.424 mg = 9.8010 m/s²; temperature 256/256 + 25 = 26 °C.
        bus.block(DSOX.address, DSOX.outX, le(0, -16384, 16384))
        bus.block(DSOX.address, DSOX.outTemp, le(256))
        let sample = try driver.read()
        #expect(close(sample.acceleration, 0, -9.8010013696, 9.8010013696))
        #expect(sample.temperature == 26)
        bus.finish()
    }

    @Test func rangeCodesFollowTheOddOrder() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(DSOX.address, DSOX.ctrl3C, 0x44)
        bus.write(DSOX.address, DSOX.ctrl2G, 0x00)
        bus.write(DSOX.address, DSOX.ctrl1XL, 0x18)  // 12.5 Hz, FS 10 = ±4 g
        try driver.configure(.init(dataRate: .hz12_5, range: .g4, temperature: false))
        bus.block(DSOX.address, DSOX.outX, le(-8192, 0, 0))  // 8192 * 0.122 mg = 999.424 mg
        #expect(close(try driver.read().acceleration, -9.8010013696, 0, 0))
        bus.write(DSOX.address, DSOX.ctrl1XL, 0x08)  // power-down keeps FS
        try driver.powerDown()
        bus.read(DSOX.address, DSOX.status, 0x01)
        #expect(try driver.isDataReady())
        bus.finish()
    }

    @Test func busErrorOnIdentityNamesTheDevice() throws {
        let bus = ScriptedI2CBus()
        bus.expect(DSOX.address, .readByte(register: DSOX.whoAmI), fails: nack)
        let a = try address(DSOX.address)
        let error = sensorError { () throws(SensorError) in try LSM6DSOX(bus: bus, address: a) }
        expectBusError(error, kind: .noAcknowledgeAddress, device: "LSM6DSOX at scripted@0x6a")
        bus.finish()
    }
}
