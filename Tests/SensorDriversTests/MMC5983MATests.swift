import HardwareInterfaces
import SensorDrivers
import Testing

/// MMC5983MA registers, re-declared from the MEMSIC datasheet.
private enum MMC {
    static let address: UInt8 = 0x30
    static let xOut0: UInt8 = 0x00
    static let tOut: UInt8 = 0x07
    static let status: UInt8 = 0x08
    static let control0: UInt8 = 0x09, control1: UInt8 = 0x0A, control2: UInt8 = 0x0B
    static let productID: UInt8 = 0x2F
}

/// The 7 output bytes for 18-bit counts: bits 17:10, bits 9:2, and the low two bits of X, Y, Z
/// in bits 7:6, 5:4, 3:2 of XYZout2.
private func outputBytes(_ x: Int, _ y: Int, _ z: Int) -> [UInt8] {
    func high(_ v: Int) -> [UInt8] { [UInt8(v >> 10 & 0xFF), UInt8(v >> 2 & 0xFF)] }
    return high(x) + high(y) + high(z) + [UInt8((x & 3) << 6 | (y & 3) << 4 | (z & 3) << 2)]
}

@Suite("MMC5983MA")
struct MMC5983MATests {
    func open(_ bus: ScriptedI2CBus, _ clock: FakeClock = FakeClock()) throws -> MMC5983MA {
        bus.read(MMC.address, MMC.productID, 0x30)
        return try MMC5983MA(bus: bus, address: address(MMC.address), clock: clock)
    }

    func configureSingleShot(_ bus: ScriptedI2CBus, _ driver: inout MMC5983MA, temperature: Bool = true) throws {
        bus.write(MMC.address, MMC.control1, 0x00)  // 100 Hz bandwidth
        bus.write(MMC.address, MMC.control2, 0x00)  // continuous off
        bus.write(MMC.address, MMC.control0, 0x20)  // Auto_SR_en
        try driver.configure(.init(temperature: temperature))
    }

    @Test func identityMismatchIsNamed() throws {
        let bus = ScriptedI2CBus()
        bus.read(MMC.address, MMC.productID, 0x00)
        let a = try address(MMC.address)
        let error = sensorError { () throws(SensorError) in try MMC5983MA(bus: bus, address: a, clock: FakeClock()) }
        #expect(error == .unexpectedDevice(chip: .mmc5983ma, device: "MMC5983MA at scripted@0x30", register: 0x2F,
                                           expected: 0x30, found: 0x00))
        bus.finish()
    }

    @Test func singleShotDecodesEighteenBitsAndTemperature() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configureSingleShot(bus, &driver)
        bus.write(MMC.address, MMC.control0, 0x21)  // TM_M + Auto_SR_en
        bus.read(MMC.address, MMC.status, 0x00)
        bus.read(MMC.address, MMC.status, 0x01)
        // X = 131072 + 16405: 0x90 0x05, low bits 01; Y = 131072 - 8192: 0x78 0x00, low 00;
        // Z = 131072 + 3: 0x80 0x00, low 11. XYZout2 = 01 00 11 00 = 0x4C.
        bus.block(MMC.address, MMC.xOut0, [0x90, 0x05, 0x78, 0x00, 0x80, 0x00, 0x4C])
        bus.write(MMC.address, MMC.control0, 0x22)  // TM_T + Auto_SR_en
        bus.read(MMC.address, MMC.status, 0x02)
        bus.read(MMC.address, MMC.tOut, 125)        // 0.8 * 125 - 75 = 25 °C
        let sample = try driver.read()
        // 16384 counts per gauss: 16405 -> 100.128173828125 µT, -8192 -> -50 µT, 3 -> 0.0183 µT.
        #expect(close(sample.field, 100.128173828125, -50, 0.018310546875))
        #expect(close(sample.temperature ?? 0, 25))
        #expect(clock.elapsed == .milliseconds(1))
        bus.finish()
    }

    @Test func singleShotTimesOut() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configureSingleShot(bus, &driver, temperature: false)
        bus.write(MMC.address, MMC.control0, 0x21)
        for _ in 0..<20 { bus.read(MMC.address, MMC.status, 0x10) }  // OTP read done only
        let error = sensorError { () throws(SensorError) in try driver.read() }
        #expect(error == .dataNotReady(chip: .mmc5983ma, device: "MMC5983MA at scripted@0x30",
                                       after: ReadyPolling(attempts: 20, interval: .milliseconds(1))))
        #expect(clock.elapsed == .milliseconds(19))
        bus.finish()
    }

    @Test func setResetRemovesTheBridgeOffset() throws {
        let bus = ScriptedI2CBus()
        let clock = FakeClock()
        var driver = try open(bus, clock)
        try configureSingleShot(bus, &driver, temperature: false)
        // Field H = (1000, -500, 0) counts, bridge offset O = (200, -40, 64) counts:
        // after SET the output is 131072 + H + O, after RESET 131072 - H + O.
        bus.write(MMC.address, MMC.control0, 0x08)  // SET pulse, Auto_SR_en off
        bus.write(MMC.address, MMC.control0, 0x01)  // TM_M
        bus.read(MMC.address, MMC.status, 0x01)
        bus.block(MMC.address, MMC.xOut0, outputBytes(131_072 + 1200, 131_072 - 540, 131_072 + 64))
        bus.write(MMC.address, MMC.control0, 0x10)  // RESET pulse
        bus.write(MMC.address, MMC.control0, 0x01)
        bus.read(MMC.address, MMC.status, 0x01)
        bus.block(MMC.address, MMC.xOut0, outputBytes(131_072 - 800, 131_072 + 460, 131_072 + 64))
        let (sample, offset) = try driver.readWithOffsetRemoval()
        #expect(close(sample.field, 6.103515625, -3.0517578125, 0))
        #expect(close(offset, 1.220703125, -0.244140625, 0.390625))
        #expect(clock.elapsed == .microseconds(1000))
        bus.finish()
    }

    @Test func continuousModeRegisters() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(MMC.address, MMC.control1, 0x01)  // 200 Hz bandwidth
        bus.write(MMC.address, MMC.control2, 0x0D)  // Cmm_en + 100 Hz
        bus.write(MMC.address, MMC.control0, 0x20)
        try driver.configure(.init(mode: .continuous(.hz100), bandwidth: .hz200))
        bus.block(MMC.address, MMC.xOut0, outputBytes(131_072, 131_072 + 16384, 131_072 - 16384))
        #expect(close(try driver.read().field, 0, 100, -100))
        // 1000 Hz needs 800 Hz bandwidth: refused before any write.
        let error = sensorError { () throws(SensorError) in try driver.configure(.init(mode: .continuous(.hz1000))) }
        guard case .unsupported(.mmc5983ma, _)? = error else {
            Issue.record("expected unsupported, got \(String(describing: error))")
            return
        }
        bus.write(MMC.address, MMC.control2, 0x00)
        try driver.powerDown()
        bus.finish()
    }

    @Test func busErrorNamesTheDevice() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        try configureSingleShot(bus, &driver, temperature: false)
        bus.write(MMC.address, MMC.control0, 0x21)
        bus.read(MMC.address, MMC.status, 0x01)
        bus.expect(MMC.address, .readBlock(register: MMC.xOut0, count: 7),
                   fails: HardwareError(.bus, device: "scripted", operation: "read", detail: "errno 5"))
        let error = sensorError { () throws(SensorError) in try driver.read() }
        expectBusError(error, kind: .bus, device: "MMC5983MA at scripted@0x30")
        bus.finish()
    }
}
