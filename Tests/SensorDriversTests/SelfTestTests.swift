import HardwareInterfaces
import SensorDrivers
import Testing

// Registers re-declared from the datasheets, so a wrong address or bit in a driver fails here.

/// LSM303AGR accelerometer die (DocID027765).
private enum AccST {
    static let address: UInt8 = 0x19
    static let whoAmI: UInt8 = 0x0F
    static let ctrl1: UInt8 = 0x20, ctrl4: UInt8 = 0x23
    static let status: UInt8 = 0x27
    /// OUT_X_L_A 0x28 | 0x80 (auto-increment).
    static let outBurst: UInt8 = 0xA8
}

/// LSM303AGR magnetometer die.
private enum MagST {
    static let address: UInt8 = 0x1E
    static let whoAmI: UInt8 = 0x4F
    static let cfgA: UInt8 = 0x60, cfgB: UInt8 = 0x61, cfgC: UInt8 = 0x62
    static let status: UInt8 = 0x67
    static let out: UInt8 = 0x68
}

/// LSM6DSOX (DS12814).
private enum DsoxST {
    static let address: UInt8 = 0x6A
    static let whoAmI: UInt8 = 0x0F
    static let ctrl1XL: UInt8 = 0x10, ctrl2G: UInt8 = 0x11, ctrl3C: UInt8 = 0x12, ctrl5C: UInt8 = 0x14
    static let status: UInt8 = 0x1E
    static let outX: UInt8 = 0x28
}

/// ICM-20948 (DS-000189).
private enum IcmST {
    static let address: UInt8 = 0x69
    static let bankSelect: UInt8 = 0x7F
    static let whoAmI: UInt8 = 0x00
    static let userCtrl: UInt8 = 0x03
    static let pwrMgmt1: UInt8 = 0x06, pwrMgmt2: UInt8 = 0x07
    static let intPinCfg: UInt8 = 0x0F
    static let intStatus1: UInt8 = 0x1A
    static let accelXOutH: UInt8 = 0x2D
    /// Bank 1.
    static let selfTestX: UInt8 = 0x0E, selfTestY: UInt8 = 0x0F, selfTestZ: UInt8 = 0x10
    /// Bank 2.
    static let accelDiv1: UInt8 = 0x10, accelDiv2: UInt8 = 0x11, accelConfig: UInt8 = 0x14, accelConfig2: UInt8 = 0x15
}

/// MMC5983MA (MEMSIC Rev A).
private enum MmcST {
    static let address: UInt8 = 0x30
    static let xOut0: UInt8 = 0x00
    static let status: UInt8 = 0x08
    static let control0: UInt8 = 0x09, control1: UInt8 = 0x0A, control2: UInt8 = 0x0B
    static let productID: UInt8 = 0x2F
    static let null = 131_072
}

/// 10-bit normal-mode counts, left-justified as the LSM303AGR sends them.
private func leftJustified10(_ x: Int, _ y: Int, _ z: Int) -> [UInt8] {
    le(Int16(x << 6), Int16(y << 6), Int16(z << 6))
}

@Suite("LSM303AGR accelerometer self-test")
struct LSM303AGRAccelerometerSelfTestTests {
    let device = "LSM303AGR accelerometer at scripted@0x19"

    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock?) throws -> LSM303AGRAccelerometer {
        bus.read(AccST.address, AccST.whoAmI, 0x33)
        return try LSM303AGRAccelerometer(bus: bus, address: address(AccST.address), clock: clock)
    }

    /// ST's procedure with the given 10-bit outputs; restores the power-on CTRL_REG4_A/CTRL_REG1_A.
    func script(_ bus: ScriptedI2CBus, off: [UInt8], on: [UInt8]) {
        bus.write(AccST.address, AccST.ctrl4, 0x80)  // BDU, ±2 g, normal
        bus.write(AccST.address, AccST.ctrl1, 0x57)  // 100 Hz, XYZ
        for _ in 0..<6 {
            bus.read(AccST.address, AccST.status, 0x08)
            bus.block(AccST.address, AccST.outBurst, off)
        }
        bus.write(AccST.address, AccST.ctrl4, 0x82)  // ST = 01
        for _ in 0..<6 {
            bus.read(AccST.address, AccST.status, 0x08)
            bus.block(AccST.address, AccST.outBurst, on)
        }
        bus.write(AccST.address, AccST.ctrl4, 0x80)
        bus.write(AccST.address, AccST.ctrl4, 0x00)  // previous (power-on) values
        bus.write(AccST.address, AccST.ctrl1, 0x07)
    }

    @Test func passesInsideTheWindow() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        script(bus, off: leftJustified10(3, -2, 256), on: leftJustified10(103, 48, 456))
        try driver.selfTest()
        #expect(clock.elapsed == .milliseconds(180))
        #expect(driver.ctrl1 == 0x07 && driver.ctrl4 == 0x00)
        bus.finish()
    }

    @Test func failsNamingTheAxis() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus, FakeClock())
        script(bus, off: leftJustified10(0, 0, 256), on: leftJustified10(10, 100, 456))  // X moved 10 LSB
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .lsm303agrAccelerometer, device: device,
                                         detail: "X change 10.0 LSB (10-bit, ±2 g) outside 17.0...360.0"))
        bus.finish()
    }

    @Test func needsAClock() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus, nil)
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        guard case .unsupported(.lsm303agrAccelerometer, _)? = error else {
            Issue.record("expected unsupported, got \(String(describing: error))")
            return
        }
        bus.finish()  // nothing written
    }
}

@Suite("LSM303AGR magnetometer self-test")
struct LSM303AGRMagnetometerSelfTestTests {
    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> LSM303AGRMagnetometer {
        bus.read(MagST.address, MagST.whoAmI, 0x40)
        return try LSM303AGRMagnetometer(bus: bus, address: address(MagST.address), clock: clock)
    }

    /// ST's procedure (50 samples each way), then the given previous CFG_REG_C/B/A values.
    func script(_ bus: ScriptedI2CBus, off: [UInt8], on: [UInt8], restore: (c: UInt8, b: UInt8, a: UInt8)) {
        bus.write(MagST.address, MagST.cfgC, 0x10)  // BDU
        bus.write(MagST.address, MagST.cfgB, 0x02)  // OFF_CANC
        bus.write(MagST.address, MagST.cfgA, 0x8C)  // temperature compensation, 100 Hz, continuous
        for _ in 0..<51 {
            bus.read(MagST.address, MagST.status, 0x08)
            bus.block(MagST.address, MagST.out, off)
        }
        bus.write(MagST.address, MagST.cfgC, 0x12)  // Self_test
        for _ in 0..<51 {
            bus.read(MagST.address, MagST.status, 0x08)
            bus.block(MagST.address, MagST.out, on)
        }
        bus.write(MagST.address, MagST.cfgC, 0x10)
        bus.write(MagST.address, MagST.cfgC, restore.c)
        bus.write(MagST.address, MagST.cfgB, restore.b)
        bus.write(MagST.address, MagST.cfgA, restore.a)
    }

    @Test func passesAndRestoresTheConfiguration() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        bus.write(MagST.address, MagST.cfgC, 0x10)
        bus.write(MagST.address, MagST.cfgB, 0x02)
        bus.write(MagST.address, MagST.cfgA, 0x80)  // continuous 10 Hz
        try driver.configure(.init())
        // Changes of 40, 100 and 200 counts: 60, 150 and 300 mG.
        script(bus, off: le(100, -50, 300), on: le(140, -150, 500), restore: (0x10, 0x02, 0x80))
        try driver.selfTest()
        #expect(clock.elapsed == .milliseconds(80))
        #expect(driver.cfgA == 0x80 && driver.cfgB == 0x02 && driver.cfgC == 0x10)
        bus.finish()
    }

    @Test func failsNamingTheAxis() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        script(bus, off: le(100, -50, 300), on: le(140, -150, 305), restore: (0x00, 0x00, 0x03))  // Z: 7.5 mG
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .lsm303agrMagnetometer, device: "LSM303AGR magnetometer at scripted@0x1e",
                                         detail: "Z change 7.5 mG outside 15.0...500.0"))
        bus.finish()
    }
}

@Suite("LSM6DSOX self-test")
struct LSM6DSOXSelfTestTests {
    let device = "LSM6DSOX at scripted@0x6a"

    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> LSM6DSOX {
        bus.read(DsoxST.address, DsoxST.whoAmI, 0x6C)
        var driver = try LSM6DSOX(bus: bus, address: address(DsoxST.address), clock: clock)
        bus.write(DsoxST.address, DsoxST.ctrl3C, 0x44)
        bus.write(DsoxST.address, DsoxST.ctrl2G, 0x00)
        bus.write(DsoxST.address, DsoxST.ctrl1XL, 0x40)  // 104 Hz, ±2 g
        try driver.configure(.init())
        return driver
    }

    func script(_ bus: ScriptedI2CBus, off: [UInt8], on: [UInt8]) {
        bus.write(DsoxST.address, DsoxST.ctrl3C, 0x44)
        bus.write(DsoxST.address, DsoxST.ctrl1XL, 0x38)  // 52 Hz, ±4 g
        for _ in 0..<6 {
            bus.read(DsoxST.address, DsoxST.status, 0x01)
            bus.block(DsoxST.address, DsoxST.outX, off)
        }
        bus.write(DsoxST.address, DsoxST.ctrl5C, 0x01)  // ST_XL positive
        for _ in 0..<6 {
            bus.read(DsoxST.address, DsoxST.status, 0x05)  // XLDA with TDA
            bus.block(DsoxST.address, DsoxST.outX, on)
        }
        bus.write(DsoxST.address, DsoxST.ctrl5C, 0x00)
        bus.write(DsoxST.address, DsoxST.ctrl3C, 0x44)  // restored
        bus.write(DsoxST.address, DsoxST.ctrl1XL, 0x40)
    }

    @Test func passesInsideTheWindow() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        // 0.122 mg/count: +122, -244, +366 mg.
        script(bus, off: le(10, -20, 8197), on: le(1010, -2020, 11197))
        try driver.selfTest()
        #expect(clock.elapsed == .milliseconds(200))
        #expect(driver.ctrl == [0x40, 0x00, 0x44])
        bus.finish()
    }

    @Test func failsNamingTheAxis() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        script(bus, off: le(0, 0, 0), on: le(1000, -2000, 100))  // Z: 12.2 mg
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .lsm6dsox, device: device, detail: "Z change 12.2 mg outside 50.0...1700.0"))
        bus.finish()
    }

    @Test func timeoutStillRestoresTheRegisters() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        driver.polling = ReadyPolling(attempts: 3, interval: .milliseconds(5))
        bus.write(DsoxST.address, DsoxST.ctrl3C, 0x44)
        bus.write(DsoxST.address, DsoxST.ctrl1XL, 0x38)
        for _ in 0..<3 { bus.read(DsoxST.address, DsoxST.status, 0x00) }
        bus.write(DsoxST.address, DsoxST.ctrl3C, 0x44)
        bus.write(DsoxST.address, DsoxST.ctrl1XL, 0x40)
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .dataNotReady(chip: .lsm6dsox, device: device, after: ReadyPolling(attempts: 3, interval: .milliseconds(5))))
        #expect(clock.elapsed == .milliseconds(110))
        bus.finish()
    }
}

@Suite("ICM-20948 self-test")
struct ICM20948SelfTestTests {
    let device = "ICM-20948 at scripted@0x69"

    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> ICM20948 {
        bus.write(IcmST.address, IcmST.bankSelect, 0x00)
        bus.read(IcmST.address, IcmST.whoAmI, 0xEA)
        return try ICM20948(bus: bus, address: address(IcmST.address), clock: clock)
    }

    func w(_ bus: ScriptedI2CBus, _ register: UInt8, _ value: UInt8, sourceLocation: SourceLocation = #_sourceLocation) {
        bus.write(IcmST.address, register, value, sourceLocation: sourceLocation)
    }

    /// The configure() sequence for ±2 g, divider 10, DLPF 1.
    func scriptConfigure(_ bus: ScriptedI2CBus) {
        w(bus, IcmST.pwrMgmt1, 0x01); w(bus, IcmST.pwrMgmt2, 0x07); w(bus, IcmST.userCtrl, 0x00)
        w(bus, IcmST.intPinCfg, 0x02); w(bus, IcmST.bankSelect, 0x20); w(bus, IcmST.accelDiv1, 0x00)
        w(bus, IcmST.accelDiv2, 0x0A); w(bus, IcmST.accelConfig, 0x09); w(bus, IcmST.bankSelect, 0x00)
    }

    /// The measurement part: 20 samples off, 20 on, then the factory codes.
    func scriptMeasurement(_ bus: ScriptedI2CBus, off: [UInt8], on: [UInt8], codes: [UInt8]) {
        w(bus, IcmST.pwrMgmt1, 0x01)
        w(bus, IcmST.pwrMgmt2, 0x07)
        w(bus, IcmST.bankSelect, 0x20)
        w(bus, IcmST.accelDiv1, 0x00)
        w(bus, IcmST.accelDiv2, 0x00)
        w(bus, IcmST.accelConfig, 0x11)  // DLPF 2, ±2 g, FCHOICE
        w(bus, IcmST.accelConfig2, 0x00)
        w(bus, IcmST.bankSelect, 0x00)
        for _ in 0..<20 {
            bus.read(IcmST.address, IcmST.intStatus1, 0x01)
            bus.block(IcmST.address, IcmST.accelXOutH, off)
        }
        w(bus, IcmST.bankSelect, 0x20)
        w(bus, IcmST.accelConfig2, 0x1C)  // AX/AY/AZ_ST_EN_REG
        w(bus, IcmST.bankSelect, 0x00)
        for _ in 0..<20 {
            bus.read(IcmST.address, IcmST.intStatus1, 0x01)
            bus.block(IcmST.address, IcmST.accelXOutH, on)
        }
        w(bus, IcmST.bankSelect, 0x20)
        w(bus, IcmST.accelConfig2, 0x00)
        w(bus, IcmST.bankSelect, 0x10)
        bus.read(IcmST.address, IcmST.selfTestX, codes[0])
        bus.read(IcmST.address, IcmST.selfTestY, codes[1])
        bus.read(IcmST.address, IcmST.selfTestZ, codes[2])
        w(bus, IcmST.bankSelect, 0x00)
        w(bus, IcmST.bankSelect, 0x00)  // restore starts in bank 0
    }

    @Test func factoryResponseFollowsInvenSenseTable() {
        // The first entries of InvenSense's sSelfTestEquation table.
        #expect((1...10).map { ICM20948.factoryResponse(code: UInt8($0)) }
                == [2620, 2646, 2672, 2699, 2726, 2753, 2781, 2808, 2837, 2865])
        #expect(ICM20948.factoryResponse(code: 0) == nil)
    }

    @Test func passesAgainstTheFactoryTrimAndSleepsAgain() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        // Responses 2620 (code 1: ratio 1.0), 2000 (code 2: 2646, 0.76), 3000 (code 3: 2672, 1.12).
        scriptMeasurement(bus, off: be(5, -7, 16384), on: be(2625, 1993, 19384), codes: [1, 2, 3])
        w(bus, IcmST.pwrMgmt1, 0x41)  // was never configured: back to sleep
        try driver.selfTest()
        #expect(clock.elapsed == .milliseconds(40))
        #expect(driver.pwrMgmt1 == 0x41 && driver.configuration == nil)
        bus.finish()
    }

    @Test func failsAgainstTheFactoryTrimAndRestoresTheConfiguration() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        scriptConfigure(bus)
        try driver.configure(.init())
        scriptMeasurement(bus, off: be(0, 0, 16384), on: be(2620, 2646, 17384), codes: [1, 2, 3])  // Z moved 1000
        scriptConfigure(bus)
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .icm20948, device: device,
                                         detail: "Z response 1000.0 counts is \(1000.0 / 2672) of the factory 2672.0 (code 3), outside 0.5...1.5"))
        #expect(driver.configuration == .init())
        bus.finish()
    }

    @Test func zeroFactoryCodeUsesTheAbsoluteWindow() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        // 2620 counts = 159.9 mg (too small without trim); 5000 = 305 mg; 8000 = 488 mg.
        scriptMeasurement(bus, off: be(0, 0, 0), on: be(2620, 5000, 8000), codes: [0, 5, 5])
        w(bus, IcmST.pwrMgmt1, 0x41)
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .icm20948, device: device,
                                         detail: "X response \(2620.0 * 1000 / 16384) mg outside 225.0...675.0 (no factory code)"))
        bus.finish()
    }
}

/// The 7 output bytes for 18-bit counts.
private func mmcBytes(_ x: Int, _ y: Int, _ z: Int) -> [UInt8] {
    func high(_ v: Int) -> [UInt8] { [UInt8(v >> 10 & 0xFF), UInt8(v >> 2 & 0xFF)] }
    return high(x) + high(y) + high(z) + [UInt8((x & 3) << 6 | (y & 3) << 4 | (z & 3) << 2)]
}

@Suite("MMC5983MA SET/RESET self-test")
struct MMC5983MASelfTestTests {
    let device = "MMC5983MA at scripted@0x30"

    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> MMC5983MA {
        bus.read(MmcST.address, MmcST.productID, 0x30)
        var driver = try MMC5983MA(bus: bus, address: address(MmcST.address), clock: clock)
        bus.write(MmcST.address, MmcST.control1, 0x00)
        bus.write(MmcST.address, MmcST.control2, 0x00)
        bus.write(MmcST.address, MmcST.control0, 0x20)  // Auto_SR_en
        try driver.configure(.init(temperature: false))
        return driver
    }

    func script(_ bus: ScriptedI2CBus, set: [UInt8], reset: [UInt8]) {
        bus.write(MmcST.address, MmcST.control0, 0x08)  // SET, Auto_SR_en off
        bus.write(MmcST.address, MmcST.control0, 0x01)  // TM_M
        bus.read(MmcST.address, MmcST.status, 0x01)
        bus.block(MmcST.address, MmcST.xOut0, set)
        bus.write(MmcST.address, MmcST.control0, 0x10)  // RESET
        bus.write(MmcST.address, MmcST.control0, 0x01)
        bus.read(MmcST.address, MmcST.status, 0x01)
        bus.block(MmcST.address, MmcST.xOut0, reset)
        bus.write(MmcST.address, MmcST.control0, 0x20)  // Auto_SR_en restored
    }

    @Test func passesWithAFlippingBridge() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        // X field 6554 counts = 40 µT, offsets (100, -30, 12) counts.
        let n = MmcST.null
        script(bus, set: mmcBytes(n + 6654, n - 30, n + 12), reset: mmcBytes(n - 6454, n - 30, n + 12))
        try driver.selfTest()
        #expect(clock.elapsed == .milliseconds(1))
        bus.finish()
    }

    @Test func failsWhenSetAndResetReadTheSame() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        let n = MmcST.null
        script(bus, set: mmcBytes(n + 100, n - 30, n + 12), reset: mmcBytes(n + 100, n - 30, n + 12))
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .mmc5983ma, device: device, detail:
            "field 0.0 µT outside 10.0...200.0 µT (X SET 131172 RESET 131172 offset 100; Y SET 131042 RESET 131042 offset -30; Z SET 131084 RESET 131084 offset 12 counts)"))
        bus.finish()
    }

    @Test func failsOnAClippedReading() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        let n = MmcST.null
        script(bus, set: mmcBytes(262_143, n, n), reset: mmcBytes(n - 6554, n, n))
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .mmc5983ma, device: device,
                                         detail: "X clipped (SET 262143, RESET 124518 counts, allowed 1...262142)"))
        bus.finish()
    }
}
