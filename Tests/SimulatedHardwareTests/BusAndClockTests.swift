import HardwareInterfaces
import SimulatedHardware
import Synchronization
import Testing

@Suite("ManualClock and SimulatedI2CBus: time, log, faults")
struct BusAndClockTests {
    @Test("sleep advances at once; advance never goes back; observers see every step")
    func clock() {
        let clock = ManualClock()
        let seen = Mutex<[(UInt64, UInt64)]>([])
        let id = clock.addObserver { from, to in seen.withLock { $0.append((from.nanoseconds, to.nanoseconds)) } }
        clock.sleep(for: .seconds(3600))
        #expect(clock.now() == MonotonicInstant(nanoseconds: 3_600_000_000_000))
        clock.advance(to: .zero)
        clock.advance(by: .seconds(-5))
        #expect(clock.now().seconds == 3600)
        clock.advance(by: .milliseconds(250))
        #expect(clock.sleepCount == 1)
        clock.removeObserver(id)
        clock.advance(by: .seconds(1))
        let steps = seen.withLock { $0 }
        #expect(steps.count == 2)
        #expect(steps.last?.0 == 3_600_000_000_000 && steps.last?.1 == 3_600_250_000_000)
        // A driver's bounded poll on the manual clock finishes without real waiting.
        var calls = 0
        let result: Int? = clock.poll(attempts: 150, interval: .milliseconds(20)) { () -> Int? in
            calls += 1
            return nil
        }
        #expect(result == nil && calls == 150)
    }

    @Test("the log records every call with its address, operation, result and time")
    func log() throws {
        let (clock, bus, a) = try rig(SimulatedRegisterDevice(LIS3MDLModel()), at: 0x1C)
        _ = try bus.readRegister(0x0F, at: a)
        clock.advance(by: .milliseconds(5))
        let missing = try #require(I2CAddress(UInt8(0x50)))
        _ = kind { () throws(HardwareError) in try bus.readRegister(0x00, at: missing) }
        let log = bus.log
        #expect(log.count == 2)
        #expect(log[0].address == a && log[0].operation == .readByte(register: 0x0F) && log[0].result == .success([0x3D]))
        #expect(log[1].timestamp == MonotonicInstant(nanoseconds: 5_000_000) && !log[1].succeeded)
        #expect(log[1].description.contains("0x50"))
        bus.clearLog()
        #expect(bus.log.isEmpty)
    }

    @Test("the log is bounded by its capacity: the newest calls are kept, and a capacity of 0 keeps none")
    func logCapacity() throws {
        let clock = ManualClock()
        let a = try #require(I2CAddress(UInt8(0x1C)))
        let small = SimulatedI2CBus(clock: clock, logCapacity: 8)
        let none = SimulatedI2CBus(clock: clock, logCapacity: 0)
        for bus in [small, none] { bus.attach(SimulatedRegisterDevice(LIS3MDLModel()), at: a) }
        for step in 0..<20 {
            clock.advance(by: .milliseconds(1))
            _ = try small.readRegister(0x0F, at: a)
            _ = try none.readRegister(0x0F, at: a)
            #expect(small.log.count <= 8, "after \(step + 1) calls")
        }
        #expect(small.log.last?.timestamp == MonotonicInstant(nanoseconds: 20_000_000))
        #expect(none.log.isEmpty)
        #expect(SimulatedI2CBus(clock: clock).logCapacity == SimulatedI2CBus.defaultLogCapacity)
    }

    @Test("no acknowledge: Linux reports ENXIO for both kinds; precise reporting tells them apart")
    func noAcknowledge() throws {
        for (reporting, address, data) in [(NoAcknowledgeReporting.linux, HardwareError.Kind.noAcknowledge, HardwareError.Kind.noAcknowledge),
                                           (.precise, .noAcknowledgeAddress, .noAcknowledgeData)] {
            let (_, bus, a) = try rig(SimulatedRegisterDevice(LIS3MDLModel()), at: 0x1C, reporting: reporting)
            let absent = try #require(I2CAddress(UInt8(0x1E)))
            #expect(kind { () throws(HardwareError) in try bus.readRegister(0x0F, at: absent) } == address)
            #expect(try bus.probe(absent) == false)
            bus.inject(.noAcknowledgeAddress, at: a)
            #expect(kind { () throws(HardwareError) in try bus.readRegister(0x0F, at: a) } == address)
            #expect(try bus.probe(a) == false)
            bus.inject(.noAcknowledgeData, at: a)
            #expect(kind { () throws(HardwareError) in try bus.writeRegister(0x20, 0x70, at: a) } == data)
            bus.clearFaults(at: a)
            #expect(try bus.readRegister(0x0F, at: a) == 0x3D)
        }
    }

    @Test("bus error, stuck bus, short read, invalid block; for N calls or until cleared; bus-wide or per address")
    func faults() throws {
        let (_, bus, a) = try rig(SimulatedRegisterDevice(LIS3MDLModel()), at: 0x1C)
        let other = try #require(I2CAddress(UInt8(0x6A)))
        bus.attach(SimulatedRegisterDevice(LSM6DSOXModel()), at: other)

        bus.inject(.busError, at: a, for: .calls(2))
        #expect(kind { () throws(HardwareError) in try bus.readRegister(0x0F, at: a) } == .bus)
        #expect(try bus.readRegister(0x0F, at: other) == 0x6C, "a per-address fault leaves others alone")
        #expect(kind { () throws(HardwareError) in try bus.readRegister(0x0F, at: a) } == .bus)
        #expect(try bus.readRegister(0x0F, at: a) == 0x3D, "cleared after two calls")

        bus.inject(.stuckBus)
        for address in [a, other] {
            #expect(kind { () throws(HardwareError) in try bus.readRegister(0x0F, at: address) } == .timeout)
        }
        #expect(kind { () throws(HardwareError) in try bus.probe(a) } == .timeout, "probe passes non-NACK errors on")
        bus.clearFaults()
        #expect(try bus.readRegister(0x0F, at: other) == 0x6C)

        bus.inject(.shortRead(bytes: 4), at: a, for: .calls(1))
        let error = kind { () throws(HardwareError) in try bus.readRegisters(0xA8, count: 6, at: a) }
        #expect(error == .bus, "the helper reports a short read as an error, never pads")
        #expect(try bus.transfer(.readBlock(register: 0xA8, count: 6), at: a).count == 6)
        bus.inject(.shortRead(bytes: 1), at: a)
        #expect(try bus.transfer(.readBlock(register: 0xA8, count: 6), at: a).count == 1)
        #expect(kind { () throws(HardwareError) in try bus.readWord(0x28, at: a) } == .bus)
        #expect(try bus.readRegister(0x0F, at: a) == 0x3D, "single-byte reads are whole")
        bus.clearAllFaults()

        #expect(kind { () throws(HardwareError) in try bus.transfer(.readBlock(register: 0x28, count: 33), at: a) } == .invalidArgument)
        #expect(kind { () throws(HardwareError) in try bus.transfer(.writeBlock(register: 0x20, bytes: []), at: a) } == .invalidArgument)
    }

    @Test("unplug and replug: the device vanishes from the bus and comes back with its registers")
    func unplug() throws {
        let (_, bus, a) = try rig(SimulatedRegisterDevice(LIS3MDLModel()), at: 0x1E)
        try bus.writeRegister(0x21, 0x60, at: a)
        bus.unplug(at: a)
        #expect(try bus.probe(a) == false)
        #expect(kind { () throws(HardwareError) in try bus.readRegister(0x0F, at: a) } == .noAcknowledge)
        #expect(bus.addresses.isEmpty)
        bus.replug(at: a)
        #expect(try bus.probe(a))
        #expect(try bus.readRegister(0x21, at: a) == 0x60)
        #expect(bus.addresses == [a])
    }
}
