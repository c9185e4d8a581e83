import HardwareInterfaces

/// One accelerometer and gyroscope reading taken from one burst, so both share a sample time.
public struct InertialSample: Sendable, Hashable {
    /// Specific force in metres per second squared, in the chip's axes.
    public var acceleration: SensorVector
    /// Angular rate in degrees per second, in the chip's axes (right-handed about each axis).
    public var rotationRate: SensorVector
    /// The die temperature in degrees Celsius, when read.
    public var temperature: Double?

    /// Creates a sample.
    public init(acceleration: SensorVector, rotationRate: SensorVector, temperature: Double? = nil) {
        self.acceleration = acceleration
        self.rotationRate = rotationRate
        self.temperature = temperature
    }
}

/// An accelerometer with a gyroscope on the same die: both read in one burst.
public protocol Gyroscope: Accelerometer {
    /// Reads accelerometer, gyroscope (and temperature when enabled) in one burst.
    mutating func readInertial() throws(SensorError) -> InertialSample
    /// Whether the status register reports a new gyroscope sample.
    func isGyroscopeDataReady() throws(SensorError) -> Bool
    /// Runs the gyroscope's self-test as the chip's maker defines it.
    mutating func gyroscopeSelfTest() throws(SensorError)
}

extension Scale {
    /// A gyroscope scale of `micro` micro-degrees per second per count, as ST datasheets give
    /// it in mdps/LSB (4.375 mdps/LSB is `microDegreesPerSecond(4375)`).
    public static func microDegreesPerSecond(_ micro: Int64) -> Scale {
        Scale(nanoUnits: micro * 1000, perCounts: 1)
    }

    /// A gyroscope scale given as tenths of a count per degree per second, as TDK datasheets give
    /// it in LSB/dps (32.8 LSB/dps is `tenthCountsPerDegreePerSecond(328)`).
    public static func tenthCountsPerDegreePerSecond(_ tenths: Int64) -> Scale {
        Scale(nanoUnits: 10_000_000_000, perCounts: tenths)
    }

    /// The value of `raw` counts in degrees per second (for a nano-dps scale).
    public func degreesPerSecond(_ raw: Int) -> Double { value(raw) / 1e9 }
}
