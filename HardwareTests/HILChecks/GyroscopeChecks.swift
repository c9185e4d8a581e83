import Devices
import HardwareInterfaces
import SensorDrivers

/// The gyroscopes of the two inertial chips, like the other driver checks: the real driver
/// identifies the chip and configures its accelerometer and gyroscope through LinuxI2CBus on the
/// guest's i2c-stub, the configuration is read back through the bus, the gyroscope's data-ready
/// flag is decoded, and one burst (``Gyroscope/readInertial()``) decodes the preloaded rates to the
/// datasheet scale, with the accelerometer and temperature of the same burst. Each runs after its
/// chip's accelerometer check, which left the gyroscope off, so every gyroscope register the
/// check expects had another value before. They need the stub's fixture (`FIELDLOC_HIL_STUB_FIXTURE=1`).
extension HILChecks {
    /// ST LSM6DSOX gyroscope at 0x6a.
    public static let driverLSM6DSOXGyroscope = HILCheck(
        name: "driver-lsm6dsox-gyroscope",
        proves: "the LSM6DSOX driver's configure with a gyroscope (208 Hz, ±2000 dps, LPF1 FTYPE 3) writes CTRL2_G 0x5c, CTRL4_C 0x02 and CTRL6_C 0x03 beside CTRL1_XL/CTRL3_C (read back), STATUS GDA gives isGyroscopeDataReady, and the 14-byte burst from OUT_TEMP_L decodes OUTX_L_G.. to dps (70 mdps/LSB), OUTX_L_A.. to m/s² and OUT_TEMP to °C"
    ) { context throws(HILFailure) in
        guard context.configuration.stubFixture else { return skipWithoutStub }
        let bus = try openBus(context)
        let address = try stubAddress(LSM6DSOXFixture.address)
        var driver = try sensor { () throws(SensorError) in try LSM6DSOX(bus: bus, address: address, clock: context.clock) }
        try sensor { () throws(SensorError) in
            try driver.configure(.init(dataRate: .hz104, range: .g4, temperature: true,
                                       gyroscope: .init(dataRate: .hz208, range: .dps2000, lowPassFilter: 3)))
        }
        try readBack(LSM6DSOXFixture.gyroscopeConfigured, on: bus)
        try requireGyroscopeReady(driver.chip) { () throws(SensorError) in try driver.isGyroscopeDataReady() }
        let sample = try sensor { () throws(SensorError) in try driver.readInertial() }
        try requireVector(sample.rotationRate, LSM6DSOXFixture.rotationRate, unit: "dps", driver.chip)
        try requireVector(sample.acceleration, LSM6DSOXFixture.acceleration, unit: "m/s²", driver.chip)
        try requireTemperature(sample.temperature, LSM6DSOXFixture.temperature, driver.chip)
        return .passed(detail: "\(sample.rotationRate) dps, \(sample.acceleration) m/s²")
    }

    /// TDK ICM-20948 gyroscope at 0x68, with its bank-2 registers in the stub's banks.
    public static let driverICM20948Gyroscope = HILCheck(
        name: "driver-icm20948-gyroscope",
        proves: "the ICM-20948 driver's configure with a gyroscope (±2000 dps, divider 0x15, DLPF 5) turns every axis on (PWR_MGMT_2 0x00) and writes bank 2's GYRO_SMPLRT_DIV 0x15 and GYRO_CONFIG_1 0x2f (read back in bank 2 of the banked stub, while bank 0's WHO_AM_I at the same address 0x00 keeps 0xea), RAW_DATA_0_RDY gives isGyroscopeDataReady, and the 14-byte burst from 0x2d decodes GYRO_XOUT_H.. to dps (16.4 LSB/dps) beside m/s² and °C"
    ) { context throws(HILFailure) in
        guard context.configuration.stubFixture else { return skipWithoutStub }
        let bus = try openBus(context)
        let address = try stubAddress(ICM20948Fixture.address)
        var driver = try sensor { () throws(SensorError) in try ICM20948(bus: bus, address: address, clock: context.clock) }
        try sensor { () throws(SensorError) in
            try driver.configure(.init(
                range: .g4, sampleRateDivider: ICM20948Fixture.sampleRateDivider, lowPassFilter: 3, temperature: true,
                gyroscope: .init(range: .dps2000, sampleRateDivider: ICM20948Fixture.gyroscopeSampleRateDivider, lowPassFilter: 5)
            ))
        }
        try readBack(ICM20948Fixture.gyroscopeConfigured.readback, on: bus)
        try requireGyroscopeReady(driver.chip) { () throws(SensorError) in try driver.isGyroscopeDataReady() }
        let sample = try sensor { () throws(SensorError) in try driver.readInertial() }
        try requireVector(sample.rotationRate, ICM20948Fixture.rotationRate, unit: "dps", driver.chip)
        try requireVector(sample.acceleration, ICM20948Fixture.acceleration, unit: "m/s²", driver.chip)
        try requireTemperature(sample.temperature, ICM20948Fixture.temperature, driver.chip)
        return .passed(detail: "\(sample.rotationRate) dps, \(sample.acceleration) m/s²")
    }
}

/// Requires the driver's gyroscope data-ready test to say yes (the status register was preloaded ready).
private func requireGyroscopeReady(_ chip: SensorChip, _ body: () throws(SensorError) -> Bool) throws(HILFailure) {
    let ready = try sensor(body)
    try require(ready, "\(chip) isGyroscopeDataReady() is false, but its status register was preloaded with the gyroscope's ready bit")
}
