import Devices
import HardwareInterfaces
import SensorDrivers

/// One check per sensor driver besides the LSM303AGR's: each opens the driver through
/// LinuxI2CBus on the guest's i2c-stub (identity), configures it, reads the configuration back
/// through the bus, checks the status decoding and decodes a sample to the physical values the
/// preloaded counts mean (``DriverFixtures``). They need the stub's fixture: a board carries
/// only some of these chips, at addresses of its own, so without `FIELDLOC_HIL_STUB_FIXTURE=1`
/// they are skipped.
extension HILChecks {
    /// ST LIS3MDL magnetometer at 0x1c.
    public static let driverLIS3MDL = HILCheck(
        name: "driver-lis3mdl",
        proves: "the LIS3MDL driver identifies the chip (0x0f = 0x3d), its configure writes CTRL_REG1..5 (read back), and its bursts from 0x28|0x80 and 0x2e|0x80 decode to µT (±8 G, 3421 LSB/G) and °C"
    ) { context throws(HILFailure) in
        guard context.configuration.stubFixture else { return skipWithoutStub }
        let bus = try openBus(context)
        let address = try stubAddress(LIS3MDLFixture.address)
        var driver = try sensor { () throws(SensorError) in try LIS3MDL(bus: bus, address: address, clock: context.clock) }
        try sensor { () throws(SensorError) in
            try driver.configure(.init(mode: .continuous, dataRate: .hz10, range: .gauss8, performance: .ultraHigh, temperature: true))
        }
        try readBack(LIS3MDLFixture.configured, on: bus)
        try requireReady(driver.chip) { () throws(SensorError) in try driver.isDataReady() }
        let sample = try sensor { () throws(SensorError) in try driver.read() }
        try requireVector(sample.field, LIS3MDLFixture.field, unit: "µT", driver.chip)
        try requireTemperature(sample.temperature, LIS3MDLFixture.temperature, driver.chip)
        return .passed(detail: "\(sample.field) µT, \(sample.temperature.map { "\($0)" } ?? "-") °C")
    }

    /// ST LSM6DSOX accelerometer at 0x6a.
    public static let driverLSM6DSOX = HILCheck(
        name: "driver-lsm6dsox",
        proves: "the LSM6DSOX driver identifies the chip (0x0f = 0x6c), its configure sets CTRL3_C, turns the gyroscope off and sets CTRL1_XL (read back), and OUTX_L_A.. and OUT_TEMP decode to m/s² (±4 g, 0.122 mg/LSB) and °C"
    ) { context throws(HILFailure) in
        guard context.configuration.stubFixture else { return skipWithoutStub }
        let bus = try openBus(context)
        let address = try stubAddress(LSM6DSOXFixture.address)
        var driver = try sensor { () throws(SensorError) in try LSM6DSOX(bus: bus, address: address, clock: context.clock) }
        try sensor { () throws(SensorError) in try driver.configure(.init(dataRate: .hz104, range: .g4, temperature: true)) }
        try readBack(LSM6DSOXFixture.configured, on: bus)
        try requireReady(driver.chip) { () throws(SensorError) in try driver.isDataReady() }
        let sample = try sensor { () throws(SensorError) in try driver.read() }
        try requireVector(sample.acceleration, LSM6DSOXFixture.acceleration, unit: "m/s²", driver.chip)
        try requireTemperature(sample.temperature, LSM6DSOXFixture.temperature, driver.chip)
        return .passed(detail: "\(sample.acceleration) m/s², \(sample.temperature.map { "\($0)" } ?? "-") °C")
    }

    /// QST QMC5883L magnetometer at 0x0d.
    public static let driverQMC5883L = HILCheck(
        name: "driver-qmc5883l",
        proves: "the QMC5883L driver detects the chip by behaviour (0x0d = 0xff, soft reset, Control 1 = 0, 0x0b keeps 0x01), its configure writes Control 1 (read back), and the DRDY-gated 7-byte burst from 0x00 decodes to µT (±2 G, 12000 LSB/G)"
    ) { context throws(HILFailure) in
        guard context.configuration.stubFixture else { return skipWithoutStub }
        let bus = try openBus(context)
        let address = try stubAddress(QMC5883LFixture.address)
        var driver = try sensor { () throws(SensorError) in try QMC5883L(bus: bus, address: address, clock: context.clock) }
        try sensor { () throws(SensorError) in
            try driver.configure(.init(mode: .continuous, dataRate: .hz50, range: .gauss2, oversampling: .x256))
        }
        try readBack(QMC5883LFixture.configured, on: bus)
        try requireReady(driver.chip) { () throws(SensorError) in try driver.isDataReady() }
        let sample = try sensor { () throws(SensorError) in try driver.read() }
        try requireVector(sample.field, QMC5883LFixture.field, unit: "µT", driver.chip)
        try require(sample.temperature == nil, "\(driver.chip) reported a temperature, but its output is uncalibrated and must be nil")
        return .passed(detail: "\(sample.field) µT")
    }

    /// TDK ICM-20948 accelerometer at 0x68.
    public static let driverICM20948 = HILCheck(
        name: "driver-icm20948",
        proves: "the ICM-20948 driver selects bank 0 (bank 2 was left selected) and identifies the chip (0x00 = 0xea), its configure wakes it, turns the gyroscope and I2C master off, sets BYPASS_EN and writes the bank-2 divider and ACCEL_CONFIG (read back in bank 2 of the banked stub), and the 14-byte big-endian burst from 0x2d decodes to m/s² (±4 g, 8192 LSB/g) and °C"
    ) { context throws(HILFailure) in
        guard context.configuration.stubFixture else { return skipWithoutStub }
        let bus = try openBus(context)
        let address = try stubAddress(ICM20948Fixture.address)
        var driver = try sensor { () throws(SensorError) in try ICM20948(bus: bus, address: address, clock: context.clock) }
        try sensor { () throws(SensorError) in
            try driver.configure(.init(range: .g4, sampleRateDivider: ICM20948Fixture.sampleRateDivider, lowPassFilter: 3, temperature: true))
        }
        try readBack(ICM20948Fixture.configured.readback, on: bus)
        try requireReady(driver.chip) { () throws(SensorError) in try driver.isDataReady() }
        let sample = try sensor { () throws(SensorError) in try driver.read() }
        try requireVector(sample.acceleration, ICM20948Fixture.acceleration, unit: "m/s²", driver.chip)
        try requireTemperature(sample.temperature, ICM20948Fixture.temperature, driver.chip)
        return .passed(detail: "\(sample.acceleration) m/s², \(sample.temperature.map { "\($0)" } ?? "-") °C")
    }

    /// AKM AK09916 magnetometer at 0x0c, behind the ICM-20948's bypass.
    public static let driverAK09916 = HILCheck(
        name: "driver-ak09916",
        proves: "after the ICM-20948 sets BYPASS_EN, the AK09916 driver identifies the chip (WIA1 0x48, WIA2 0x09), its configure writes CNTL2 (read back), and the DRDY-gated 8-byte burst HXL..ST2 decodes to µT (0.15 µT/LSB)"
    ) { context throws(HILFailure) in
        guard context.configuration.stubFixture else { return skipWithoutStub }
        let bus = try openBus(context)
        let icmAddress = try stubAddress(ICM20948Fixture.address)
        var icm = try sensor { () throws(SensorError) in try ICM20948(bus: bus, address: icmAddress, clock: context.clock) }
        try sensor { () throws(SensorError) in
            try icm.configure(.init(range: .g4, sampleRateDivider: ICM20948Fixture.sampleRateDivider, lowPassFilter: 3, temperature: true))
        }
        let address = try stubAddress(AK09916Fixture.address)
        var driver = try sensor { () throws(SensorError) in try AK09916(bus: bus, address: address, clock: context.clock) }
        try sensor { () throws(SensorError) in try driver.configure(.continuous100Hz) }
        try readBack(AK09916Fixture.configured, on: bus)
        try requireReady(driver.chip) { () throws(SensorError) in try driver.isDataReady() }
        let sample = try sensor { () throws(SensorError) in try driver.read() }
        try requireVector(sample.field, AK09916Fixture.field, unit: "µT", driver.chip)
        return .passed(detail: "\(sample.field) µT")
    }

    /// MEMSIC MMC5983MA magnetometer at 0x30.
    public static let driverMMC5983MA = HILCheck(
        name: "driver-mmc5983ma",
        proves: "the MMC5983MA driver identifies the chip (0x2f = 0x30), its configure writes Internal Control 0..2 (read back), and a single-shot read (TM_M, then TM_T) decodes the 18-bit offset-binary burst from 0x00 to µT (16384 counts/G) and Tout to °C"
    ) { context throws(HILFailure) in
        guard context.configuration.stubFixture else { return skipWithoutStub }
        let bus = try openBus(context)
        let address = try stubAddress(MMC5983MAFixture.address)
        var driver = try sensor { () throws(SensorError) in try MMC5983MA(bus: bus, address: address, clock: context.clock) }
        try sensor { () throws(SensorError) in
            try driver.configure(.init(mode: .singleShot, bandwidth: .hz200, autoSetReset: true, temperature: true))
        }
        try readBack(MMC5983MAFixture.configured, on: bus)
        try requireReady(driver.chip) { () throws(SensorError) in try driver.isDataReady() }
        let sample = try sensor { () throws(SensorError) in try driver.read() }
        try requireVector(sample.field, MMC5983MAFixture.field, unit: "µT", driver.chip)
        try requireTemperature(sample.temperature, MMC5983MAFixture.temperature, driver.chip)
        // The last trigger of the read (TM_T, keeping Auto_SR_en) is what Internal Control 0 holds now.
        try readBack(MMC5983MAFixture.finalState, on: bus)
        return .passed(detail: "\(sample.field) µT, \(sample.temperature.map { "\($0)" } ?? "-") °C")
    }
}

// MARK: - Helpers

let skipWithoutStub = HILOutcome.skipped(reason: "needs the i2c-stub fixture (FIELDLOC_HIL_STUB_FIXTURE=1)")

/// The fixture's 7-bit address as an `I2CAddress`.
func stubAddress(_ value: UInt8) throws(HILFailure) -> I2CAddress {
    guard let address = I2CAddress(value) else { throw HILFailure("fixture address \(hex(value)) is not a 7-bit I2C address") }
    return address
}

/// Performs `steps` through `bus` in order: a selection is written, an expected register is read
/// and must hold its value. Every step runs even after a mismatch (so a bank selected on the way
/// is deselected again); the first mismatch is thrown at the end.
func readBack(_ steps: [ReadbackStep], on bus: any I2CBus) throws(HILFailure) {
    var firstFailure: HILFailure?
    for step in steps {
        do throws(HILFailure) {
            switch step {
            case .expect(let value): try readBack([value], on: bus)
            case .select(let value):
                let address = try stubAddress(value.address)
                try hardware("select \(bus.deviceName(address)) register \(hex(value.register)) = \(hex(value.value))") {
                    try bus.writeRegister(value.register, value.value, at: address)
                }
            }
        } catch {
            if firstFailure == nil { firstFailure = error }
        }
    }
    if let firstFailure { throw firstFailure }
}

/// Reads every register of `expected` through `bus` and requires its value.
func readBack(_ expected: [RegisterValue], on bus: any I2CBus) throws(HILFailure) {
    for value in expected {
        let address = try stubAddress(value.address)
        let found = try hardware("read back \(bus.deviceName(address)) register \(hex(value.register))") {
            try bus.readRegister(value.register, at: address)
        }
        try require(found == value.value,
                    "\(bus.deviceName(address)) register \(hex(value.register)) reads \(hex(found)) after configure, expected \(hex(value.value))")
    }
}

/// Requires the driver's data-ready test to say yes (the stub's status register is preloaded ready).
func requireReady(_ chip: SensorChip, _ body: () throws(SensorError) -> Bool) throws(HILFailure) {
    let ready = try sensor(body)
    try require(ready, "\(chip) isDataReady() is false, but its status register was preloaded with the ready bit")
}

/// Requires each axis of `found` to equal `expected` (to rounding).
func requireVector(
    _ found: SensorVector, _ expected: (x: Double, y: Double, z: Double), unit: String, _ chip: SensorChip
) throws(HILFailure) {
    try require(close(found.x, expected.x) && close(found.y, expected.y) && close(found.z, expected.z),
                "\(chip) read \(found) \(unit), expected (\(expected.x), \(expected.y), \(expected.z)) \(unit) from the preloaded counts")
}

/// Requires a temperature equal to `expected` (to rounding).
func requireTemperature(_ found: Double?, _ expected: Double, _ chip: SensorChip) throws(HILFailure) {
    try require(found.map { close($0, expected) } ?? false,
                "\(chip) temperature \(found.map { "\($0)" } ?? "missing") °C, expected \(expected) °C")
}
