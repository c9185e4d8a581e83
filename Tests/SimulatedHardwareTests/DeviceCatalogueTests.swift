import Devices
import HardwareInterfaces
import SensorDrivers
import SimulatedHardware
import Testing

/// The device catalogue's driver-factory and simulator columns against each other: the driver a
/// row's factory makes accepts the simulated chip of that row, and only that row's.
@Suite("Device catalogue: drivers against simulated chips")
struct DeviceCatalogueDriverTests {
    /// A bus with `chip`'s simulated model at `raw`.
    func simulated(_ chip: SensorChip, at raw: UInt8) throws -> (ManualClock, SimulatedI2CBus, I2CAddress) {
        let clock = ManualClock()
        let bus = SimulatedI2CBus(name: "test-i2c", clock: clock)
        let address = try #require(I2CAddress(raw))
        chip.attachSimulated(at: address, on: bus)
        return (clock, bus, address)
    }

    /// The error `body` throws, or `nil` when it succeeds.
    func failure(_ body: () throws(SensorError) -> Void) -> SensorError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("every row's factory yields a driver whose identity check accepts the row's simulated chip, at every address the row lists")
    func factoriesAcceptTheirSimulatedChips() throws {
        for chip in SensorChip.allCases {
            let row = chip.entry
            for raw in row.addresses {
                let (clock, bus, address) = try simulated(chip, at: raw)
                for identity in row.identity {
                    #expect(try bus.readRegister(identity.register, at: address) == identity.value,
                            "\(chip) register \(hex(identity.register)) in the catalogue and in the simulator")
                }
                let factory = chip.driverFactory
                #expect(failure { () throws(SensorError) in try factory.identify(bus, address, clock) } == nil, "\(chip) identity at \(hex(raw))")
                #expect((factory.magnetometer != nil) == row.role.measuresMagneticField, "\(chip): a magnetometer driver exactly when the row measures the field")
                #expect((factory.accelerometer != nil) == row.role.measuresAcceleration, "\(chip): an accelerometer driver exactly when the row measures acceleration")
                if let open = factory.magnetometer {
                    let driver = try open(bus, address, clock)
                    #expect(driver.chip == chip)
                    try driver.identify()
                }
                if let open = factory.accelerometer {
                    let driver = try open(bus, address, clock, nil)
                    #expect(driver.chip == chip)
                    try driver.identify()
                    for range in row.gyroscopeRanges {
                        #expect(try open(bus, address, clock, range) is any Gyroscope, "\(chip) ±\(range) dps")
                    }
                }
            }
        }
    }

    @Test("a row's identity check refuses every other row's simulated chip at the same address")
    func factoriesRefuseOtherChips() throws {
        for chip in SensorChip.allCases {
            for other in SensorChip.allCases where other != chip {
                let raw = chip.addresses[0]
                let (clock, bus, address) = try simulated(other, at: raw)
                #expect(failure { () throws(SensorError) in try chip.driverFactory.identify(bus, address, clock) } != nil,
                        "\(chip)'s driver on a simulated \(other)")
            }
        }
    }

    @Test("a chip behind its host's bypass answers once the host's driver is opened")
    func companionsBehindTheirHost() throws {
        for host in SensorChip.allCases where !host.companions.isEmpty {
            let (clock, bus, address) = try simulated(host, at: host.addresses[0])
            for companion in host.companions {
                let hidden = try #require(I2CAddress(companion.addresses[0]))
                #expect(try !bus.probe(hidden), "\(companion) hidden until \(host) opens its bypass")
                let open = try #require(host.driverFactory.accelerometer)
                _ = try open(bus, address, clock, nil)
                #expect(failure { () throws(SensorError) in try companion.driverFactory.identify(bus, hidden, clock) } == nil, "\(companion)")
            }
        }
    }
}
