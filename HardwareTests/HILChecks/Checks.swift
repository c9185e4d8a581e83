import HardwareInterfaces
import LocationServices
import NMEA
import SensorDrivers

/// The hardware-in-the-loop checks, in the order they run.
///
/// Each check opens its own devices through the context's platform and releases them before it
/// returns, so a failure in one does not leave a line or port held for the next.
public enum HILChecks {
    /// Every check: I2C, GPIO, UART and their error paths, then every other sensor driver on i2c-stub.
    public static let all: [HILCheck] = [
        i2cIdentity, i2cConfiguration, magnetometerData, accelerometerData,
        i2cMissingAddress, i2cMissingBus,
        gpioEnableOutput, gpioLineBusy, gpioMissingLine, gpioEdgeDeadline, gpioPPSTimestamps, gpioPPSStuck, ppsDevice,
        gpioPrivacySwitch,
        gnssNMEAAndCommand, gnssLineNoise, gnssSilence, gnssUSBUnplug, serialBusy,
        driverLIS3MDL, driverLSM6DSOX, driverLSM6DSOXGyroscope, driverQMC5883L, driverICM20948, driverAK09916,
        driverICM20948Gyroscope, driverMMC5983MA,
    ]

    /// The check called `name`, if any.
    public static func named(_ name: String) -> HILCheck? { all.first { $0.name == name } }

    // MARK: I2C

    /// WHO_AM_I of both LSM303AGR dies through the Linux bus and through the drivers.
    public static let i2cIdentity = HILCheck(
        name: "i2c-identity",
        proves: "LinuxI2CBus reads the LSM303AGR identity registers (0x19:0x0f = 0x33, 0x1e:0x4f = 0x40) and the SensorDrivers identify both dies"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        let accel = try hardware("read WHO_AM_I_A") { try bus.readRegister(0x0F, at: c.accelerometerAddress) }
        try require(accel == 0x33, "\(bus.deviceName(c.accelerometerAddress)) register 0x0f reads \(hex(accel)), expected 0x33")
        let mag = try hardware("read WHO_AM_I_M") { try bus.readRegister(0x4F, at: c.magnetometerAddress) }
        try require(mag == 0x40, "\(bus.deviceName(c.magnetometerAddress)) register 0x4f reads \(hex(mag)), expected 0x40")
        _ = try sensor { () throws(SensorError) in try LSM303AGRAccelerometer(bus: bus, address: c.accelerometerAddress) }
        _ = try sensor { () throws(SensorError) in
            try LSM303AGRMagnetometer(bus: bus, address: c.magnetometerAddress, clock: context.clock)
        }
        return .passed(detail: "\(bus.name): 0x33 at \(c.accelerometerAddress), 0x40 at \(c.magnetometerAddress)")
    }

    /// Configuration written by the drivers lands in the device's registers.
    public static let i2cConfiguration = HILCheck(
        name: "i2c-configuration-writes",
        proves: "register writes made by the LSM303AGR drivers through LinuxI2CBus land in the device (read back through the bus; the guest also reads them with i2cget)"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        var accel = try sensor { () throws(SensorError) in try LSM303AGRAccelerometer(bus: bus, address: c.accelerometerAddress) }
        try sensor { () throws(SensorError) in try accel.configure(.init(dataRate: .hz100, range: .g2, resolution: .highResolution)) }
        var mag = try sensor { () throws(SensorError) in
            try LSM303AGRMagnetometer(bus: bus, address: c.magnetometerAddress, clock: context.clock)
        }
        try sensor { () throws(SensorError) in try mag.configure(.init(mode: .continuous, dataRate: .hz10)) }
        for expected in StubFixture.configuration {
            let address = expected.address == StubFixture.accelerometer ? c.accelerometerAddress : c.magnetometerAddress
            let found = try hardware("read back register \(hex(expected.register))") {
                try bus.readRegister(expected.register, at: address)
            }
            try require(found == expected.value,
                        "\(bus.deviceName(address)) register \(hex(expected.register)) reads \(hex(found)) after configure, expected \(hex(expected.value))")
        }
        return .passed(detail: "\(StubFixture.configuration.count) registers read back")
    }

    /// Magnetometer data registers decode to microtesla.
    public static let magnetometerData = HILCheck(
        name: "magnetometer-data",
        proves: "LSM303AGR magnetometer data registers 0x68..0x6d read through LinuxI2CBus decode to the right field (0.15 µT per count); on a board, a field of Earth's size"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        var mag = try sensor { () throws(SensorError) in
            try LSM303AGRMagnetometer(bus: bus, address: c.magnetometerAddress, clock: context.clock)
        }
        try sensor { () throws(SensorError) in try mag.configure(.init(mode: .continuous, dataRate: .hz10)) }
        if !c.stubFixture { context.clock.sleep(for: .milliseconds(250)) }  // first sample at 10 Hz
        let sample = try sensor { () throws(SensorError) in try mag.read() }
        let f = sample.field
        if c.stubFixture {
            let e = StubFixture.magneticField
            try require(close(f.x, e.x) && close(f.y, e.y) && close(f.z, e.z),
                        "read \(f) µT, expected (\(e.x), \(e.y), \(e.z)) µT from the preloaded counts")
        } else {
            let magnitude = (f.x * f.x + f.y * f.y + f.z * f.z).squareRoot()
            try require((15...100).contains(magnitude), "field \(f) µT has magnitude \(magnitude) µT, outside Earth's 15...100 µT")
        }
        return .passed(detail: "\(f) µT")
    }

    /// Accelerometer data and temperature registers decode to m/s² and °C.
    public static let accelerometerData = HILCheck(
        name: "accelerometer-data",
        proves: "LSM303AGR accelerometer output (burst read from 0x28|0x80) and temperature decode to m/s² and °C; on a still board, about 1 g"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        var accel = try sensor { () throws(SensorError) in try LSM303AGRAccelerometer(bus: bus, address: c.accelerometerAddress) }
        try sensor { () throws(SensorError) in try accel.configure(.init(dataRate: .hz100, range: .g2, resolution: .highResolution)) }
        if !c.stubFixture { context.clock.sleep(for: .milliseconds(50)) }
        let sample = try sensor { () throws(SensorError) in try accel.read() }
        let a = sample.acceleration
        if c.stubFixture {
            let e = StubFixture.acceleration
            try require(close(a.x, e.x) && close(a.y, e.y) && close(a.z, e.z),
                        "read \(a) m/s², expected (\(e.x), \(e.y), \(e.z)) m/s² from the preloaded counts")
            try require(sample.temperature.map { close($0, StubFixture.temperature) } ?? false,
                        "temperature \(sample.temperature.map { "\($0)" } ?? "missing") °C, expected \(StubFixture.temperature) °C")
        } else if c.still {
            let magnitude = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
            try require((8.8...10.8).contains(magnitude), "acceleration \(a) m/s² has magnitude \(magnitude), expected about 9.81 on a still board")
        }
        return .passed(detail: "\(a) m/s², \(sample.temperature.map { "\($0)" } ?? "-") °C")
    }

    /// An address nobody answers gives `.noAcknowledge`.
    public static let i2cMissingAddress = HILCheck(
        name: "i2c-missing-address",
        proves: "a read from an address no device answers fails with HardwareError.noAcknowledge, and probe() tells present from absent"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        let error = try expectHardwareError("read register 0x0f of \(bus.deviceName(c.absentAddress))", kinds: [.noAcknowledge]) {
            try bus.readRegister(0x0F, at: c.absentAddress)
        }
        let absent = try hardware("probe \(c.absentAddress)") { try bus.probe(c.absentAddress) }
        try require(!absent, "probe(\(c.absentAddress)) says present")
        let present = try hardware("probe \(c.magnetometerAddress)") { try bus.probe(c.magnetometerAddress) }
        try require(present, "probe(\(c.magnetometerAddress)) says absent")
        return .passed(detail: "\(error)")
    }

    /// A bus that does not exist gives `.notFound`.
    public static let i2cMissingBus = HILCheck(
        name: "i2c-missing-bus",
        proves: "opening a /dev/i2c-N that does not exist fails with HardwareError.notFound"
    ) { context throws(HILFailure) in
        let n = context.configuration.missingBus
        let error = try expectHardwareError("open I2C bus \(n)", kinds: [.notFound]) {
            try context.platform.openI2CBus(n)
        }
        return .passed(detail: "\(error)")
    }
}
