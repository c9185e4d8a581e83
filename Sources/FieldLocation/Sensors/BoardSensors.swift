import BoardConfig
import HardwareInterfaces
import Heading
import SensorDrivers

/// A board's magnetometer and accelerometer, opened, with the heading engine for their mounting.
public struct BoardSensors {
    /// The magnetometer driver.
    public var magnetometer: any Magnetometer
    /// The accelerometer driver.
    public var accelerometer: any Accelerometer
    /// Heading for these sensors' mounting.
    public var engine: HeadingEngine
    /// The board's magnetometer chip name (for stored calibrations).
    public var magnetometerName: String

    /// Opens both sensors of `board` on `platform` (identity checks first, then configuration).
    public static func open(_ board: BoardDescription, platform: any HardwarePlatform) throws(SensorError) -> BoardSensors {
        guard let magDescription = board.magnetometer, let accDescription = board.accelerometer else {
            throw .unsupported(chip: .lsm303agrMagnetometer, feature: "heading: the board \(board.name) has no magnetometer and accelerometer pair")
        }
        let bus: any I2CBus
        do { bus = try platform.openI2CBus(board.i2cBus ?? 1) } catch { throw .bus(error) }
        // An ICM-20948's bypass must be on before its AK09916 answers: open accelerometers first.
        let accKind = accDescription.chip, magKind = magDescription.chip
        let accelerometer = try SensorFactory.openAccelerometer(accKind, bus: bus, address: accDescription.address, clock: platform.clock)
        let magnetometer = try SensorFactory.openMagnetometer(magKind, bus: bus, address: magDescription.address, clock: platform.clock)
        let engine = HeadingEngine(accelerometerMount: Heading.Matrix3(rows: accDescription.orientation),
                                   magnetometerMount: Heading.Matrix3(rows: magDescription.orientation))
        return BoardSensors(magnetometer: magnetometer, accelerometer: accelerometer, engine: engine,
                            magnetometerName: magDescription.chip.rawValue)
    }

    /// Reads one pair and returns the raw values in the heading engine's units (g and µT, chip axes).
    public mutating func readRaw() throws(SensorError) -> (acceleration: Vector3, field: Vector3) {
        let a = try accelerometer.read().acceleration
        let m = try magnetometer.read().field
        return (Vector3(a.x, a.y, a.z) / SensorDrivers.standardGravity, Vector3(m.x, m.y, m.z))
    }

    /// Reads one pair and computes the heading.
    public mutating func heading() throws(SensorError) -> HeadingReading {
        let (a, m) = try readRaw()
        return engine.process(acceleration: a, field: m)
    }
}
