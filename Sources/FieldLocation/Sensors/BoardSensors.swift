import BoardConfig
import HardwareInterfaces
import Heading
import SensorDrivers

/// A board's magnetometer and accelerometer, opened, with the heading engine for their mounting;
/// and, when the board turns the accelerometer chip's gyroscope on (`gyro` in its `[[sensor]]`),
/// the attitude filter that fuses all three.
public struct BoardSensors {
    /// The magnetometer driver.
    public var magnetometer: any Magnetometer
    /// The accelerometer driver.
    public var accelerometer: any Accelerometer
    /// Heading for these sensors' mounting.
    public var engine: HeadingEngine
    /// The board's magnetometer chip name (for stored calibrations).
    public var magnetometerName: String
    /// The attitude filter when the accelerometer's gyroscope is on, else `nil` (tilt
    /// compensation alone, as before gyroscopes were read).
    public var attitude: AttitudeFilter?

    /// Whether the board reads a gyroscope with its accelerometer.
    public var hasGyroscope: Bool { attitude != nil }

    /// Opens both sensors of `board` on `platform` (identity checks first, then configuration).
    public static func open(_ board: BoardDescription, platform: any HardwarePlatform) throws(SensorError) -> BoardSensors {
        guard let magDescription = board.magnetometer, let accDescription = board.accelerometer else {
            throw .unsupported(chip: .lsm303agrMagnetometer, feature: "heading: the board \(board.name) has no magnetometer and accelerometer pair")
        }
        let bus: any I2CBus
        do { bus = try platform.openI2CBus(board.i2cBus ?? 1) } catch { throw .bus(error) }
        // An ICM-20948's bypass must be on before its AK09916 answers: open accelerometers first.
        let accKind = accDescription.chip, magKind = magDescription.chip
        let accelerometer = try SensorFactory.openAccelerometer(accKind, bus: bus, address: accDescription.address, clock: platform.clock,
                                                                gyroscopeRange: accDescription.gyroscopeRange)
        let magnetometer = try SensorFactory.openMagnetometer(magKind, bus: bus, address: magDescription.address, clock: platform.clock)
        let (engine, attitude) = processing(magnetometer: magDescription, accelerometer: accDescription)
        return BoardSensors(magnetometer: magnetometer, accelerometer: accelerometer, engine: engine,
                            magnetometerName: magDescription.chip.rawValue, attitude: attitude)
    }

    /// The heading engine for the two sensors' mounting, and the attitude filter when the
    /// accelerometer's gyroscope is on.
    static func processing(magnetometer: SensorDescription, accelerometer: SensorDescription) -> (HeadingEngine, AttitudeFilter?) {
        let engine = HeadingEngine(accelerometerMount: Heading.Matrix3(rows: accelerometer.orientation),
                                   magnetometerMount: Heading.Matrix3(rows: magnetometer.orientation))
        let attitude = accelerometer.gyroscopeRange.map { _ in
            AttitudeFilter(gains: AttitudeFilterGains(gnssCourseAid: accelerometer.gnssCourseAid))
        }
        return (engine, attitude)
    }

    /// Reads one pair and returns the raw values in the heading engine's units (g and µT, chip axes).
    public mutating func readRaw() throws(SensorError) -> (acceleration: Vector3, field: Vector3) {
        let a = try accelerometer.read().acceleration
        let m = try magnetometer.read().field
        return (Vector3(a.x, a.y, a.z) / SensorDrivers.standardGravity, Vector3(m.x, m.y, m.z))
    }

    /// Reads the accelerometer and gyroscope in one burst, then the magnetometer, in the heading
    /// engine's units and the chips' axes: g, degrees per second and µT. Throws
    /// ``SensorError/unsupported(chip:feature:)`` when the accelerometer has no gyroscope on.
    public mutating func readInertial() throws(SensorError) -> (acceleration: Vector3, rotationRate: Vector3, field: Vector3) {
        guard var gyroscope = accelerometer as? any Gyroscope, hasGyroscope else {
            throw .unsupported(chip: accelerometer.chip, feature: "gyroscope (turn it on with gyro = true)")
        }
        let sample = try gyroscope.readInertial()
        accelerometer = gyroscope
        let m = try magnetometer.read().field
        let a = sample.acceleration, w = sample.rotationRate
        return (Vector3(a.x, a.y, a.z) / SensorDrivers.standardGravity, Vector3(w.x, w.y, w.z), Vector3(m.x, m.y, m.z))
    }

    /// Reads one pair and computes the heading.
    public mutating func heading() throws(SensorError) -> HeadingReading {
        let (a, m) = try readRaw()
        return engine.process(acceleration: a, field: m)
    }
}

extension Heading.Matrix3 {
    /// The board file's orientation matrix.
    package init(rows m: MountMatrix) {
        let r = m.rows
        if r.count == 3, r.allSatisfy({ $0.count == 3 }) {
            self.init(rows: Vector3(r[0][0], r[0][1], r[0][2]), Vector3(r[1][0], r[1][1], r[1][2]), Vector3(r[2][0], r[2][1], r[2][2]))
        } else {
            self = .identity
        }
    }
}
