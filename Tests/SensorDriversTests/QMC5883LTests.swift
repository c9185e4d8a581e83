import HardwareInterfaces
import SensorDrivers
import Testing

/// QMC5883L registers, re-declared from the QST datasheet.
private enum QMC {
    static let address: UInt8 = 0x0D
    static let data: UInt8 = 0x00
    static let status: UInt8 = 0x06
    static let control1: UInt8 = 0x09
    static let control2: UInt8 = 0x0A
    static let setReset: UInt8 = 0x0B
    static let chipID: UInt8 = 0x0D
}

@Suite("QMC5883L")
struct QMC5883LTests {
    /// The detection sequence a genuine QMC5883L passes.
    func scriptDetection(_ bus: ScriptedI2CBus) {
        bus.read(QMC.address, QMC.chipID, 0xFF)
        bus.write(QMC.address, QMC.control2, 0x80)  // soft reset
        bus.read(QMC.address, QMC.control1, 0x00)   // documented default after reset
        bus.write(QMC.address, QMC.setReset, 0x01)  // as the datasheet asks
        bus.read(QMC.address, QMC.setReset, 0x01)   // and it keeps it
    }

    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> QMC5883L {
        scriptDetection(bus)
        return try QMC5883L(bus: bus, address: address(QMC.address), clock: clock)
    }

    @Test func detectionByBehaviour() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        _ = try open(bus, clock)
        #expect(clock.elapsed == .milliseconds(1))  // pause after the soft reset
        bus.finish()
    }

    @Test func wrongChipIDIsRejected() throws {
        let bus = ScriptedI2CBus()
        bus.read(QMC.address, QMC.chipID, 0x00)
        let a = try address(QMC.address)
        let error = sensorError { () throws(SensorError) in try QMC5883L(bus: bus, address: a, clock: FakeClock()) }
        #expect(error == .unexpectedDevice(chip: .qmc5883l, device: "QMC5883L at scripted@0x0d", register: 0x0D,
                                           expected: 0xFF, found: 0x00))
        bus.finish()
    }

    @Test func aDeviceReadingFFEverywhereIsRejected() throws {
        // Something at 0x0D whose registers all read 0xFF (no real register file) passes the weak
        // ID check but not the reset behaviour.
        let bus = ScriptedI2CBus()
        bus.read(QMC.address, QMC.chipID, 0xFF)
        bus.write(QMC.address, QMC.control2, 0x80)
        bus.read(QMC.address, QMC.control1, 0xFF)
        let a = try address(QMC.address)
        let error = sensorError { () throws(SensorError) in try QMC5883L(bus: bus, address: a, clock: FakeClock()) }
        #expect(error == .unexpectedDevice(chip: .qmc5883l, device: "QMC5883L at scripted@0x0d", register: 0x09,
                                           expected: 0x00, found: 0xFF))
        bus.finish()
    }

    @Test func aDeviceThatDoesNotKeepTheSetResetPeriodIsRejected() throws {
        let bus = ScriptedI2CBus()
        bus.read(QMC.address, QMC.chipID, 0xFF)
        bus.write(QMC.address, QMC.control2, 0x80)
        bus.read(QMC.address, QMC.control1, 0x00)
        bus.write(QMC.address, QMC.setReset, 0x01)
        bus.read(QMC.address, QMC.setReset, 0x00)
        let a = try address(QMC.address)
        let error = sensorError { () throws(SensorError) in try QMC5883L(bus: bus, address: a, clock: FakeClock()) }
        #expect(error == .unexpectedDevice(chip: .qmc5883l, device: "QMC5883L at scripted@0x0d", register: 0x0B,
                                           expected: 0x01, found: 0x00))
        bus.finish()
    }

    func configure(_ bus: ScriptedI2CBus, _ driver: inout QMC5883L) throws {
        bus.write(QMC.address, QMC.setReset, 0x01)
        bus.write(QMC.address, QMC.control1, 0x11)  // OSR 512, ±8 G, 10 Hz, continuous
        try driver.configure(.init())
    }

    @Test func readWaitsForDataReadyAndDecodes() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configure(bus, &driver)
        bus.read(QMC.address, QMC.status, 0x00)
        bus.read(QMC.address, QMC.status, 0x04)  // DOR only
        bus.read(QMC.address, QMC.status, 0x01)
        // 3000 LSB/G at ±8 G: 3000 -> 100 µT, -300 -> -10 µT, 1500 -> 50 µT.
        bus.block(QMC.address, QMC.data, le(3000, -300, 1500) + [0x01])
        let sample = try driver.read()
        #expect(close(sample.field, 100, -10, 50))
        #expect(clock.elapsed == .milliseconds(1 + 10))
        bus.finish()
    }

    @Test func twoGaussRangeScale() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(QMC.address, QMC.setReset, 0x01)
        bus.write(QMC.address, QMC.control1, 0xCD)  // OSR 64, ±2 G, 200 Hz, continuous
        try driver.configure(.init(dataRate: .hz200, range: .gauss2, oversampling: .x64))
        bus.read(QMC.address, QMC.status, 0x01)
        bus.block(QMC.address, QMC.data, le(12000, 0, -6000) + [0x01])
        #expect(close(try driver.read().field, 100, 0, -50))
        bus.write(QMC.address, QMC.control1, 0xCC)  // standby keeps the rest
        try driver.powerDown()
        bus.finish()
    }

    @Test func overflowIsAnError() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        try configure(bus, &driver)
        bus.read(QMC.address, QMC.status, 0x01)
        bus.block(QMC.address, QMC.data, le(32767, 0, 0) + [0x03])
        let error = sensorError { () throws(SensorError) in try driver.read() }
        #expect(error == .overflow(chip: .qmc5883l, device: "QMC5883L at scripted@0x0d"))
        bus.finish()
    }

    @Test func dataReadyTimesOut() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configure(bus, &driver)
        for _ in 0..<30 { bus.read(QMC.address, QMC.status, 0x00) }
        let error = sensorError { () throws(SensorError) in try driver.read() }
        #expect(error == .dataNotReady(chip: .qmc5883l, device: "QMC5883L at scripted@0x0d",
                                       after: ReadyPolling(attempts: 30, interval: .milliseconds(5))))
        #expect(clock.elapsed == .milliseconds(1 + 29 * 5))
        bus.finish()
    }

    @Test func busErrorNamesTheDevice() throws {
        let bus = ScriptedI2CBus()
        bus.expect(QMC.address, .readByte(register: QMC.chipID), fails: nack)
        let a = try address(QMC.address)
        let error = sensorError { () throws(SensorError) in try QMC5883L(bus: bus, address: a, clock: FakeClock()) }
        expectBusError(error, kind: .noAcknowledgeAddress, device: "QMC5883L at scripted@0x0d")
        bus.finish()
    }
}
