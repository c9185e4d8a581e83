import HardwareInterfaces
import SensorDrivers
import Testing

// Registers re-declared from the datasheets, so a wrong address or bit in a driver fails here.

/// LSM6DSOX (DS12814).
private enum G6 {
    static let address: UInt8 = 0x6A
    static let whoAmI: UInt8 = 0x0F
    static let ctrl1XL: UInt8 = 0x10, ctrl2G: UInt8 = 0x11, ctrl3C: UInt8 = 0x12, ctrl4C: UInt8 = 0x13
    static let ctrl5C: UInt8 = 0x14, ctrl6C: UInt8 = 0x15
    static let status: UInt8 = 0x1E
    static let outTemp: UInt8 = 0x20, outXG: UInt8 = 0x22
}

/// ICM-20948 (DS-000189).
private enum G9 {
    static let address: UInt8 = 0x69
    static let bankSelect: UInt8 = 0x7F
    static let whoAmI: UInt8 = 0x00
    static let userCtrl: UInt8 = 0x03
    static let pwrMgmt1: UInt8 = 0x06, pwrMgmt2: UInt8 = 0x07
    static let intPinCfg: UInt8 = 0x0F
    static let intStatus1: UInt8 = 0x1A
    static let accelXOutH: UInt8 = 0x2D, gyroXOutH: UInt8 = 0x33
    /// Bank 1.
    static let selfTestXGyro: UInt8 = 0x02, selfTestYGyro: UInt8 = 0x03, selfTestZGyro: UInt8 = 0x04
    /// Bank 2.
    static let gyroDiv: UInt8 = 0x00, gyroConfig1: UInt8 = 0x01, gyroConfig2: UInt8 = 0x02
    static let accelDiv1: UInt8 = 0x10, accelDiv2: UInt8 = 0x11, accelConfig: UInt8 = 0x14
}

@Suite("LSM6DSOX gyroscope")
struct LSM6DSOXGyroscopeTests {
    let device = "LSM6DSOX at scripted@0x6a"

    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock? = nil) throws -> LSM6DSOX {
        bus.read(G6.address, G6.whoAmI, 0x6C)
        return try LSM6DSOX(bus: bus, address: address(G6.address), clock: clock)
    }

    @Test func configureBurstReadsGyroscopeWithAccelerometerAndPowersBothDown() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(G6.address, G6.ctrl3C, 0x44)
        bus.write(G6.address, G6.ctrl4C, 0x02)  // LPF1_SEL_G
        bus.write(G6.address, G6.ctrl6C, 0x03)  // FTYPE 011
        bus.write(G6.address, G6.ctrl2G, 0x48)  // 104 Hz, FS_G 10 = ±1000 dps
        bus.write(G6.address, G6.ctrl1XL, 0x40)  // 104 Hz, ±2 g
        try driver.configure(.init(gyroscope: .init(dataRate: .hz104, range: .dps1000, lowPassFilter: 3)))
        // One 14-byte burst: temperature, gyroscope (35 mdps/LSB), accelerometer (0.061 mg/LSB).
        bus.block(G6.address, G6.outTemp, le(-512, 1000, -2000, 28571, 0, 0, 16384))
        let sample = try driver.readInertial()
        #expect(sample.temperature == 23)
        #expect(close(sample.rotationRate, 35, -70, 999.985))
        #expect(close(sample.acceleration, 0, 0, 9.8010013696))
        bus.read(G6.address, G6.status, 0x02)
        #expect(try driver.isGyroscopeDataReady())
        bus.read(G6.address, G6.status, 0x01)  // XLDA only
        #expect(try driver.isGyroscopeDataReady() == false)
        bus.write(G6.address, G6.ctrl1XL, 0x00)
        bus.write(G6.address, G6.ctrl2G, 0x08)  // ODR_G 0, FS kept
        try driver.powerDown()
        #expect(driver.ctrl == [0x00, 0x08, 0x44])
        bus.finish()
    }

    @Test func everyRangeHasTheDatasheetSensitivity() throws {
        let expected: [(LSM6DSOX.GyroscopeRange, UInt8, Double)] = [
            (.dps125, 0x42, 4.375), (.dps250, 0x40, 8.75), (.dps500, 0x44, 17.5), (.dps1000, 0x48, 35), (.dps2000, 0x4C, 70),
        ]
        for (range, ctrl2G, mdps) in expected {
            let bus = ScriptedI2CBus()
            var driver = try open(bus)
            bus.write(G6.address, G6.ctrl3C, 0x44)
            bus.write(G6.address, G6.ctrl4C, 0x00)
            bus.write(G6.address, G6.ctrl6C, 0x00)
            bus.write(G6.address, G6.ctrl2G, ctrl2G)
            bus.write(G6.address, G6.ctrl1XL, 0x40)
            try driver.configure(.init(temperature: false, gyroscope: .init(range: range)))
            bus.block(G6.address, G6.outXG, le(1000, -1, 32767, 0, 0, 0))
            let rate = try driver.readInertial().rotationRate
            #expect(close(rate, mdps, -mdps / 1000, 32767 * mdps / 1000, 1e-9))
            #expect(range.fullScale * 1000 / mdps < 32768 * 1.0001)
            bus.finish()
        }
    }

    @Test func inertialReadNeedsTheGyroscopeOnAndFilterCodeIsChecked() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        let error = sensorError { () throws(SensorError) in _ = try driver.readInertial() }
        #expect(error == .unsupported(chip: .lsm6dsox, feature: "inertial reads without both the accelerometer and the gyroscope on"))
        let filter = sensorError { () throws(SensorError) in
            try driver.configure(.init(gyroscope: .init(lowPassFilter: 8)))
        }
        #expect(filter == .unsupported(chip: .lsm6dsox, feature: "gyroscope FTYPE 8 (0...7)"))
        bus.finish()
    }

    func scriptSelfTest(_ bus: ScriptedI2CBus, off: [UInt8], on: [UInt8], restore: (UInt8, UInt8)) {
        bus.write(G6.address, G6.ctrl3C, 0x44)
        bus.write(G6.address, G6.ctrl2G, 0x5C)  // 208 Hz, ±2000 dps
        for _ in 0..<6 {
            bus.read(G6.address, G6.status, 0x03)
            bus.block(G6.address, G6.outXG, off)
        }
        bus.write(G6.address, G6.ctrl5C, 0x04)  // ST_G = 01
        for _ in 0..<6 {
            bus.read(G6.address, G6.status, 0x02)
            bus.block(G6.address, G6.outXG, on)
        }
        bus.write(G6.address, G6.ctrl5C, 0x00)
        bus.write(G6.address, G6.ctrl3C, restore.0)
        bus.write(G6.address, G6.ctrl2G, restore.1)
    }

    @Test func selfTestPassesInsideTheWindowAndRestores() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        // 70 mdps/count: changes of 5000 counts = 350 dps, -3000 = 210 dps, 9000 = 630 dps.
        scriptSelfTest(bus, off: le(10, -20, 30), on: le(5010, -3020, 9030), restore: (0x04, 0x00))
        try driver.gyroscopeSelfTest()
        #expect(clock.elapsed == .milliseconds(200))
        bus.finish()
    }

    @Test func selfTestFailsNamingTheAxis() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus, FakeClock())
        scriptSelfTest(bus, off: le(0, 0, 0), on: le(5000, 1000, 12000), restore: (0x04, 0x00))
        let error = sensorError { () throws(SensorError) in try driver.gyroscopeSelfTest() }
        #expect(error == .selfTestFailed(chip: .lsm6dsox, device: device,
                                         detail: "gyroscope Y change 70.0 dps outside 150.0...700.0, gyroscope Z change 840.0 dps outside 150.0...700.0"))
        bus.finish()
    }

    @Test func selfTestTimeoutStillRestores() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        driver.polling = ReadyPolling(attempts: 2, interval: .milliseconds(5))
        bus.write(G6.address, G6.ctrl3C, 0x44)
        bus.write(G6.address, G6.ctrl2G, 0x5C)
        for _ in 0..<2 { bus.read(G6.address, G6.status, 0x01) }  // XLDA, never GDA
        bus.write(G6.address, G6.ctrl3C, 0x04)
        bus.write(G6.address, G6.ctrl2G, 0x00)
        let error = sensorError { () throws(SensorError) in try driver.gyroscopeSelfTest() }
        #expect(error == .dataNotReady(chip: .lsm6dsox, device: device, after: ReadyPolling(attempts: 2, interval: .milliseconds(5))))
        #expect(clock.elapsed == .milliseconds(105))
        bus.finish()
    }
}

@Suite("ICM-20948 gyroscope")
struct ICM20948GyroscopeTests {
    let device = "ICM-20948 at scripted@0x69"

    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock? = nil) throws -> ICM20948 {
        bus.write(G9.address, G9.bankSelect, 0x00)
        bus.read(G9.address, G9.whoAmI, 0xEA)
        return try ICM20948(bus: bus, address: address(G9.address), clock: clock)
    }

    func w(_ bus: ScriptedI2CBus, _ register: UInt8, _ value: UInt8, sourceLocation: SourceLocation = #_sourceLocation) {
        bus.write(G9.address, register, value, sourceLocation: sourceLocation)
    }

    /// configure() with ±2 g, divider 10, DLPF 1 and the given gyroscope registers.
    func scriptConfigure(_ bus: ScriptedI2CBus, gyroDiv: UInt8, gyroConfig1: UInt8) {
        w(bus, G9.pwrMgmt1, 0x01); w(bus, G9.pwrMgmt2, 0x00); w(bus, G9.userCtrl, 0x00); w(bus, G9.intPinCfg, 0x02)
        w(bus, G9.bankSelect, 0x20); w(bus, G9.gyroDiv, gyroDiv); w(bus, G9.gyroConfig1, gyroConfig1)
        w(bus, G9.accelDiv1, 0x00); w(bus, G9.accelDiv2, 0x0A); w(bus, G9.accelConfig, 0x09); w(bus, G9.bankSelect, 0x00)
    }

    @Test func configureTurnsTheGyroscopeOnAndOneBurstReadsBoth() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        scriptConfigure(bus, gyroDiv: 0x0A, gyroConfig1: 0x0D)  // DLPF 1, FS 10 = ±1000 dps, FCHOICE
        let configuration = ICM20948.Configuration(gyroscope: .init(range: .dps1000))
        try driver.configure(configuration)
        // 32.8 LSB/dps: 328 -> 10 dps, -3280 -> -100 dps; accel 16384 LSB/g; 0 raw -> 21 °C.
        bus.block(G9.address, G9.accelXOutH, be(0, 16384, 0, 328, -3280, 1, 0))
        let sample = try driver.readInertial()
        #expect(close(sample.acceleration, 0, 9.80665, 0))
        #expect(close(sample.rotationRate, 10, -100, 1 / 32.8))
        #expect(sample.temperature == 21)
        bus.read(G9.address, G9.intStatus1, 0x01)
        #expect(try driver.isGyroscopeDataReady())
        bus.finish()
    }

    @Test func rangesHaveTheDatasheetSensitivity() {
        let lsbPerDPS: [(ICM20948.GyroscopeRange, Double)] = [(.dps250, 131), (.dps500, 65.5), (.dps1000, 32.8), (.dps2000, 16.4)]
        for (range, lsb) in lsbPerDPS {
            #expect(close(range.scale.degreesPerSecond(Int(lsb * 10)), 10))
            #expect(range.fullScale * lsb < 32768 * 1.01)
        }
        #expect(ICM20948.GyroscopeConfiguration(sampleRateDivider: 0).dataRate == 1125)
    }

    @Test func inertialReadNeedsTheGyroscope() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        let error = sensorError { () throws(SensorError) in _ = try driver.readInertial() }
        #expect(error == .unsupported(chip: .icm20948, feature: "inertial reads with the gyroscope off (configure a gyroscope first)"))
        let filter = sensorError { () throws(SensorError) in
            try driver.configure(.init(gyroscope: .init(lowPassFilter: 9)))
        }
        #expect(filter == .unsupported(chip: .icm20948, feature: "GYRO_DLPFCFG 9 (0...7)"))
        bus.finish()
    }

    func scriptSelfTest(_ bus: ScriptedI2CBus, off: [UInt8], on: [UInt8], codes: [UInt8]) {
        w(bus, G9.pwrMgmt1, 0x01)
        w(bus, G9.pwrMgmt2, 0x00)
        w(bus, G9.bankSelect, 0x20)
        w(bus, G9.gyroDiv, 0x00)
        w(bus, G9.gyroConfig1, 0x11)  // DLPF 2, ±250 dps, FCHOICE
        w(bus, G9.gyroConfig2, 0x00)
        w(bus, G9.bankSelect, 0x00)
        for _ in 0..<20 {
            bus.read(G9.address, G9.intStatus1, 0x01)
            bus.block(G9.address, G9.gyroXOutH, off)
        }
        w(bus, G9.bankSelect, 0x20)
        w(bus, G9.gyroConfig2, 0x38)  // X/Y/ZGYRO_CTEN
        w(bus, G9.bankSelect, 0x00)
        for _ in 0..<20 {
            bus.read(G9.address, G9.intStatus1, 0x01)
            bus.block(G9.address, G9.gyroXOutH, on)
        }
        w(bus, G9.bankSelect, 0x20)
        w(bus, G9.gyroConfig2, 0x00)
        w(bus, G9.bankSelect, 0x10)
        bus.read(G9.address, G9.selfTestXGyro, codes[0])
        bus.read(G9.address, G9.selfTestYGyro, codes[1])
        bus.read(G9.address, G9.selfTestZGyro, codes[2])
        w(bus, G9.bankSelect, 0x00)
        w(bus, G9.bankSelect, 0x00)
    }

    @Test func selfTestPassesAgainstTheFactoryTrimAndRestoresTheConfiguration() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        let configuration = ICM20948.Configuration(gyroscope: .init())
        scriptConfigure(bus, gyroDiv: 0x0A, gyroConfig1: 0x09)
        try driver.configure(configuration)
        // Responses 2620 (code 1: ratio 1.0), 1400 (code 2: 0.53), 5000 (code 3: 1.87; no upper limit).
        scriptSelfTest(bus, off: be(100, -200, 300), on: be(2720, 1200, 5300), codes: [1, 2, 3])
        scriptConfigure(bus, gyroDiv: 0x0A, gyroConfig1: 0x09)
        try driver.gyroscopeSelfTest()
        #expect(clock.elapsed == .milliseconds(40))
        #expect(driver.configuration == configuration)
        bus.finish()
    }

    @Test func selfTestFailsOnWeakResponseAndOffset() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus, FakeClock())
        // X responds 1000 of 2620 (0.38); Z reads 3000 counts = 22.9 dps at rest.
        scriptSelfTest(bus, off: be(0, 0, 3000), on: be(1000, 2646, 5672), codes: [1, 2, 3])
        w(bus, G9.pwrMgmt1, 0x41)  // never configured: back to sleep
        let error = sensorError { () throws(SensorError) in try driver.gyroscopeSelfTest() }
        #expect(error == .selfTestFailed(chip: .icm20948, device: device,
                                         detail: "gyroscope X response 1000.0 counts is \(1000.0 / 2620) of the factory 2620.0 (code 1), not above 0.5, gyroscope Z reads \(3000.0 / 131) dps at rest, above 20.0"))
        #expect(driver.configuration == nil)
        bus.finish()
    }

    @Test func selfTestWithoutFactoryCodeUsesTheAbsoluteMinimum() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus, FakeClock())
        // 131 LSB/dps: 7860 counts = 60 dps (passes), 7000 = 53.4 dps (fails).
        scriptSelfTest(bus, off: be(0, 0, 0), on: be(7860, 7000, 9000), codes: [0, 4, 4])
        w(bus, G9.pwrMgmt1, 0x41)
        let error = sensorError { () throws(SensorError) in try driver.gyroscopeSelfTest() }
        #expect(error == .selfTestFailed(chip: .icm20948, device: device,
                                         detail: "gyroscope Y response \(7000.0 / 131) dps below 60.0 (no factory code)"))
        bus.finish()
    }
}
