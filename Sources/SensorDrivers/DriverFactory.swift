import Devices
import HardwareInterfaces

/// How to make a chip's driver from a bus: the driver-factory column of the device catalogue.
///
/// The catalogue (`Devices`) sits below the drivers, so the column lives here, keyed by the
/// catalogue's ``SensorChip``: ``SensorChip/driverFactory`` is one `switch` with a line per chip.
/// Drivers are configured for heading (continuous, about 10-20 Hz, ranges that fit the Earth's
/// field and gravity with margin); the identity check always runs first.
public struct SensorDriverFactory: Sendable {
    /// Opens the chip and checks only its identity (no configuration), for scans.
    public typealias Identify = @Sendable (any I2CBus, I2CAddress, any MonotonicClock) throws(SensorError) -> Void
    /// Opens and configures the chip as a magnetometer.
    public typealias OpenMagnetometer = @Sendable (any I2CBus, I2CAddress, any MonotonicClock) throws(SensorError) -> any Magnetometer
    /// Opens and configures the chip as an accelerometer, its gyroscope on at the range given (± dps) or off.
    public typealias OpenAccelerometer = @Sendable (any I2CBus, I2CAddress, any MonotonicClock, Int?) throws(SensorError) -> any Accelerometer

    /// The identity check.
    public let identify: Identify
    /// The magnetometer driver, for chips that measure the field.
    public let magnetometer: OpenMagnetometer?
    /// The accelerometer driver, for chips that measure acceleration.
    public let accelerometer: OpenAccelerometer?

    /// A factory; a chip has a magnetometer or an accelerometer driver (or both, for a combined part).
    public init(identify: @escaping Identify, magnetometer: OpenMagnetometer? = nil, accelerometer: OpenAccelerometer? = nil) {
        self.identify = identify
        self.magnetometer = magnetometer
        self.accelerometer = accelerometer
    }
}

extension SensorChip {
    /// The functions making this chip's driver from a bus.
    public var driverFactory: SensorDriverFactory {
        switch self {
        case .lsm303agrAccelerometer:
            return SensorDriverFactory(identify: { bus, address, _ throws(SensorError) in _ = try LSM303AGRAccelerometer(bus: bus, address: address) },
                                       accelerometer: Factories.lsm303agrAccelerometer)
        case .lsm303agrMagnetometer:
            return SensorDriverFactory(identify: { bus, address, clock throws(SensorError) in _ = try LSM303AGRMagnetometer(bus: bus, address: address, clock: clock) },
                                       magnetometer: Factories.lsm303agrMagnetometer)
        case .lis3mdl:
            return SensorDriverFactory(identify: { bus, address, clock throws(SensorError) in _ = try LIS3MDL(bus: bus, address: address, clock: clock) },
                                       magnetometer: Factories.lis3mdl)
        case .lsm6dsox:
            return SensorDriverFactory(identify: { bus, address, _ throws(SensorError) in _ = try LSM6DSOX(bus: bus, address: address) },
                                       accelerometer: Factories.lsm6dsox)
        case .qmc5883l:
            return SensorDriverFactory(identify: { bus, address, clock throws(SensorError) in _ = try QMC5883L(bus: bus, address: address, clock: clock) },
                                       magnetometer: Factories.qmc5883l)
        case .icm20948:
            return SensorDriverFactory(identify: { bus, address, _ throws(SensorError) in _ = try ICM20948(bus: bus, address: address) },
                                       accelerometer: Factories.icm20948)
        case .ak09916:
            return SensorDriverFactory(identify: { bus, address, clock throws(SensorError) in _ = try AK09916(bus: bus, address: address, clock: clock) },
                                       magnetometer: Factories.ak09916)
        case .mmc5983ma:
            return SensorDriverFactory(identify: { bus, address, clock throws(SensorError) in _ = try MMC5983MA(bus: bus, address: address, clock: clock) },
                                       magnetometer: Factories.mmc5983ma)
        }
    }
}

/// The configured drivers, one function per chip.
private enum Factories {
    static func lsm303agrAccelerometer(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock, gyroscopeRange: Int?) throws(SensorError) -> any Accelerometer {
        var a = try LSM303AGRAccelerometer(bus: bus, address: address, clock: clock)
        try a.configure(.init())
        return a
    }

    static func lsm303agrMagnetometer(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) -> any Magnetometer {
        var m = try LSM303AGRMagnetometer(bus: bus, address: address, clock: clock)
        try m.configure(.init())
        return m
    }

    static func lis3mdl(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) -> any Magnetometer {
        var m = try LIS3MDL(bus: bus, address: address, clock: clock)
        try m.configure(.init())
        return m
    }

    static func lsm6dsox(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock, gyroscopeRange: Int?) throws(SensorError) -> any Accelerometer {
        var a = try LSM6DSOX(bus: bus, address: address, clock: clock)
        let gyroscope = gyroscopeRange.map { range in
            LSM6DSOX.GyroscopeConfiguration(range: LSM6DSOX.GyroscopeRange.allCases.first { Int($0.fullScale) == range } ?? .dps500)
        }
        try a.configure(.init(gyroscope: gyroscope))
        return a
    }

    static func qmc5883l(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) -> any Magnetometer {
        var m = try QMC5883L(bus: bus, address: address, clock: clock)
        try m.configure(.init())
        return m
    }

    static func icm20948(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock, gyroscopeRange: Int?) throws(SensorError) -> any Accelerometer {
        var a = try ICM20948(bus: bus, address: address, clock: clock)
        let gyroscope = gyroscopeRange.map { range in
            ICM20948.GyroscopeConfiguration(range: ICM20948.GyroscopeRange.allCases.first { Int($0.fullScale) == range } ?? .dps500)
        }
        try a.configure(.init(gyroscope: gyroscope))
        return a
    }

    static func ak09916(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) -> any Magnetometer {
        var m = try AK09916(bus: bus, address: address, clock: clock)
        try m.configure(.continuous20Hz)
        return m
    }

    static func mmc5983ma(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) -> any Magnetometer {
        var m = try MMC5983MA(bus: bus, address: address, clock: clock)
        try m.configure(.init())
        return m
    }
}

/// Opens sensor drivers by chip through ``SensorChip/driverFactory``.
public enum SensorFactory {
    /// Opens and configures a magnetometer; the identity check runs first.
    public static func openMagnetometer(_ chip: SensorChip, bus: any I2CBus, address: I2CAddress,
                                        clock: any MonotonicClock) throws(SensorError) -> any Magnetometer {
        guard let open = chip.driverFactory.magnetometer else { throw .unsupported(chip: chip, feature: "magnetometer") }
        return try open(bus, address, clock)
    }

    /// Opens and configures an accelerometer; the identity check runs first. An ICM-20948 is
    /// left in bypass so its AK09916 answers at 0x0c.
    ///
    /// With `gyroscopeRange` (± degrees per second, one of ``Devices/SensorChip/gyroscopeRanges``)
    /// the chip's gyroscope is turned on as well, at the accelerometer's rate (104 Hz on the
    /// LSM6DSOX, 102.3 Hz on the ICM-20948), and the driver returned is a ``Gyroscope``. Without
    /// it the configuration, and so the bus traffic, is exactly that of an accelerometer alone.
    public static func openAccelerometer(_ chip: SensorChip, bus: any I2CBus, address: I2CAddress,
                                         clock: any MonotonicClock, gyroscopeRange: Int? = nil) throws(SensorError) -> any Accelerometer {
        if let gyroscopeRange, !chip.gyroscopeRanges.contains(gyroscopeRange) {
            throw .unsupported(chip: chip, feature: "a ±\(gyroscopeRange) dps gyroscope")
        }
        guard let open = chip.driverFactory.accelerometer else { throw .unsupported(chip: chip, feature: "accelerometer") }
        return try open(bus, address, clock, gyroscopeRange)
    }

    /// Checks only the chip's identity (no configuration), for scans.
    public static func identify(_ chip: SensorChip, bus: any I2CBus, address: I2CAddress,
                                clock: any MonotonicClock) throws(SensorError) {
        try chip.driverFactory.identify(bus, address, clock)
    }
}
