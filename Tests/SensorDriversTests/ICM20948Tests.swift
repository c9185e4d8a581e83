import HardwareInterfaces
import SensorDrivers
import Testing

/// ICM-20948 registers, re-declared from DS-000189.
private enum ICM {
    static let address: UInt8 = 0x69
    static let bankSelect: UInt8 = 0x7F
    static let whoAmI: UInt8 = 0x00
    static let userCtrl: UInt8 = 0x03
    static let pwrMgmt1: UInt8 = 0x06, pwrMgmt2: UInt8 = 0x07
    static let intPinCfg: UInt8 = 0x0F
    static let intStatus1: UInt8 = 0x1A
    static let accelXOutH: UInt8 = 0x2D
    static let accelDiv1: UInt8 = 0x10, accelDiv2: UInt8 = 0x11, accelConfig: UInt8 = 0x14  // bank 2
}

/// AK09916 registers, re-declared from the AKM datasheet.
private enum AK {
    static let address: UInt8 = 0x0C
    static let wia1: UInt8 = 0x00, wia2: UInt8 = 0x01
    static let st1: UInt8 = 0x10
    static let hxl: UInt8 = 0x11
    static let cntl2: UInt8 = 0x31
}

@Suite("ICM-20948")
struct ICM20948Tests {
    func open(_ bus: ScriptedI2CBus) throws -> ICM20948 {
        bus.write(ICM.address, ICM.bankSelect, 0x00)
        bus.read(ICM.address, ICM.whoAmI, 0xEA)
        return try ICM20948(bus: bus, address: address(ICM.address))
    }

    @Test func identityMismatchIsNamed() throws {
        let bus = ScriptedI2CBus()
        bus.write(ICM.address, ICM.bankSelect, 0x00)
        bus.read(ICM.address, ICM.whoAmI, 0x71)  // an MPU-9250
        let a = try address(ICM.address)
        let error = sensorError { () throws(SensorError) in try ICM20948(bus: bus, address: a) }
        #expect(error == .unexpectedDevice(chip: .icm20948, device: "ICM-20948 at scripted@0x69", register: 0x00,
                                           expected: 0xEA, found: 0x71))
        bus.finish()
    }

    @Test func configureWakesSetsBypassAndBank2Registers() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(ICM.address, ICM.pwrMgmt1, 0x01)   // wake, auto clock
        bus.write(ICM.address, ICM.pwrMgmt2, 0x07)   // gyroscope off
        bus.write(ICM.address, ICM.userCtrl, 0x00)   // I2C master off
        bus.write(ICM.address, ICM.intPinCfg, 0x02)  // BYPASS_EN
        bus.write(ICM.address, ICM.bankSelect, 0x20)
        bus.write(ICM.address, ICM.accelDiv1, 0x00)
        bus.write(ICM.address, ICM.accelDiv2, 0x0A)
        bus.write(ICM.address, ICM.accelConfig, 0x0B)  // DLPF 1, ±4 g, FCHOICE
        bus.write(ICM.address, ICM.bankSelect, 0x00)
        try driver.configure(.init(range: .g4))
        bus.write(ICM.address, ICM.pwrMgmt1, 0x41)
        try driver.powerDown()
        bus.finish()
    }

    @Test func readDecodesBigEndianAndTemperature() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        for (r, v) in [(ICM.pwrMgmt1, 0x01), (ICM.pwrMgmt2, 0x07), (ICM.userCtrl, 0x00), (ICM.intPinCfg, 0x02),
                       (ICM.bankSelect, 0x20), (ICM.accelDiv1, 0x01), (ICM.accelDiv2, 0x00), (ICM.accelConfig, 0x00),
                       (ICM.bankSelect, 0x00)] as [(UInt8, UInt8)] {
            bus.write(ICM.address, r, v)
        }
        try driver.configure(.init(range: .g2, sampleRateDivider: 256, lowPassFilter: nil))
        // 16384 LSB/g: 16384 -> 1 g, -8192 -> -0.5 g; temperature 3339 / 333.87 + 21.
        bus.block(ICM.address, ICM.accelXOutH, be(16384, -8192, 0, 0, 0, 0, 3339))
        let sample = try driver.read()
        #expect(close(sample.acceleration, 9.80665, -4.903325, 0))
        #expect(close(sample.temperature ?? 0, 31.00089855332914))
        bus.read(ICM.address, ICM.intStatus1, 0x00)
        #expect(try driver.isDataReady() == false)
        bus.finish()
    }

    @Test func badDividerIsRefusedBeforeAnyWrite() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        let error = sensorError { () throws(SensorError) in try driver.configure(.init(sampleRateDivider: 4096)) }
        guard case .unsupported(.icm20948, _)? = error else {
            Issue.record("expected unsupported, got \(String(describing: error))")
            return
        }
        bus.finish()
    }

    @Test func busErrorNamesTheDevice() throws {
        let bus = ScriptedI2CBus()
        bus.expect(ICM.address, .writeByte(register: ICM.bankSelect, value: 0x00), fails: nack)
        let a = try address(ICM.address)
        let error = sensorError { () throws(SensorError) in try ICM20948(bus: bus, address: a) }
        expectBusError(error, kind: .noAcknowledgeAddress, device: "ICM-20948 at scripted@0x69")
        bus.finish()
    }
}

@Suite("AK09916")
struct AK09916Tests {
    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> AK09916 {
        bus.read(AK.address, AK.wia1, 0x48)
        bus.read(AK.address, AK.wia2, 0x09)
        return try AK09916(bus: bus, address: address(AK.address), clock: clock)
    }

    @Test func identityMismatchIsNamed() throws {
        let bus = ScriptedI2CBus()
        bus.read(AK.address, AK.wia1, 0x48)
        bus.read(AK.address, AK.wia2, 0x05)  // AK09911
        let a = try address(AK.address)
        let error = sensorError { () throws(SensorError) in try AK09916(bus: bus, address: a, clock: FakeClock()) }
        #expect(error == .unexpectedDevice(chip: .ak09916, device: "AK09916 at scripted@0x0c", register: 0x01,
                                           expected: 0x09, found: 0x05))
        bus.finish()
    }

    @Test func continuousModeGoesThroughPowerDown() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        bus.write(AK.address, AK.cntl2, 0x00)
        bus.write(AK.address, AK.cntl2, 0x08)  // 100 Hz
        try driver.configure(.continuous100Hz)
        #expect(clock.elapsed == .microseconds(100))
        bus.read(AK.address, AK.st1, 0x01)
        bus.block(AK.address, AK.hxl, le(200, -200, 1000) + [0x00, 0x10])  // TMPS, ST2 (BITM only)
        let sample = try driver.read()
        #expect(close(sample.field, 30, -30, 150))
        #expect(sample.temperature == nil)
        bus.finish()
    }

    @Test func singleShotPollsDataReady() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        bus.write(AK.address, AK.cntl2, 0x00)
        try driver.configure(.singleShot)
        bus.write(AK.address, AK.cntl2, 0x01)
        for _ in 0..<4 { bus.read(AK.address, AK.st1, 0x00) }
        bus.read(AK.address, AK.st1, 0x01)
        bus.block(AK.address, AK.hxl, le(1, 2, 3) + [0x00, 0x00])
        #expect(close(try driver.read().field, 0.15, 0.30, 0.45))
        #expect(clock.elapsed == .milliseconds(8))
        bus.finish()
    }

    @Test func singleShotTimesOut() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        bus.write(AK.address, AK.cntl2, 0x00)
        try driver.configure(.singleShot)
        bus.write(AK.address, AK.cntl2, 0x01)
        for _ in 0..<20 { bus.read(AK.address, AK.st1, 0x02) }  // DOR without DRDY
        let error = sensorError { () throws(SensorError) in try driver.read() }
        #expect(error == .dataNotReady(chip: .ak09916, device: "AK09916 at scripted@0x0c",
                                       after: ReadyPolling(attempts: 20, interval: .milliseconds(2))))
        #expect(clock.elapsed == .milliseconds(38))
        bus.finish()
    }

    @Test func overflowIsAnError() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(AK.address, AK.cntl2, 0x00)
        bus.write(AK.address, AK.cntl2, 0x02)
        try driver.configure(.continuous10Hz)
        bus.read(AK.address, AK.st1, 0x01)
        bus.block(AK.address, AK.hxl, le(32000, 0, 0) + [0x00, 0x08])  // ST2 HOFL
        let error = sensorError { () throws(SensorError) in try driver.read() }
        #expect(error == .overflow(chip: .ak09916, device: "AK09916 at scripted@0x0c"))
        bus.finish()
    }

    @Test func selfTestPassesInsideTheWindowAndRestoresTheMode() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(AK.address, AK.cntl2, 0x00)
        bus.write(AK.address, AK.cntl2, 0x02)
        try driver.configure(.continuous10Hz)
        bus.write(AK.address, AK.cntl2, 0x00)
        bus.write(AK.address, AK.cntl2, 0x10)  // self-test mode
        bus.read(AK.address, AK.st1, 0x01)
        bus.block(AK.address, AK.hxl, le(150, -200, -500) + [0x00, 0x00])
        bus.write(AK.address, AK.cntl2, 0x00)  // back to 10 Hz through power-down
        bus.write(AK.address, AK.cntl2, 0x02)
        try driver.selfTest()
        #expect(driver.mode == .continuous10Hz)
        bus.finish()
    }

    @Test func selfTestFailsOutsideTheWindow() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(AK.address, AK.cntl2, 0x00)
        bus.write(AK.address, AK.cntl2, 0x10)
        bus.read(AK.address, AK.st1, 0x01)
        bus.block(AK.address, AK.hxl, le(0, 0, -100) + [0x00, 0x00])  // Z too weak
        let error = sensorError { () throws(SensorError) in try driver.selfTest() }
        #expect(error == .selfTestFailed(chip: .ak09916, device: "AK09916 at scripted@0x0c",
                                         detail: "Z -100 outside -1000...-200 counts"))
        bus.finish()
    }

    @Test func busErrorNamesTheDevice() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.expect(AK.address, .writeByte(register: AK.cntl2, value: 0x00), fails: nack)
        let error = sensorError { () throws(SensorError) in try driver.configure(.continuous20Hz) }
        expectBusError(error, kind: .noAcknowledgeAddress, device: "AK09916 at scripted@0x0c")
        bus.finish()
    }
}
