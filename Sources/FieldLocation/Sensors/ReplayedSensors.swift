import BoardConfig
import Devices
import Heading
import HardwareInterfaces
import LocationAPI
import SensorDrivers

extension BoardSensors {
    /// The sensors of a replay board: the board's mounting, heading engine and attitude filter,
    /// with stand-ins for the chips (the sensor subsystem takes the recording's samples in place of
    /// reads). Throws as ``open(_:platform:)`` does when the board names no sensor pair.
    static func replayed(_ board: BoardDescription) throws(SensorError) -> BoardSensors {
        guard let magDescription = board.magnetometer, let accDescription = board.accelerometer else {
            throw .unsupported(chip: .lsm303agrMagnetometer, feature: "heading: the board \(board.name) has no magnetometer and accelerometer pair")
        }
        let (engine, attitude) = processing(magnetometer: magDescription, accelerometer: accDescription)
        return BoardSensors(magnetometer: RecordedChip(chip: magDescription.chip), accelerometer: RecordedChip(chip: accDescription.chip),
                            engine: engine, magnetometerName: magDescription.chip.rawValue, attitude: attitude)
    }
}

/// A chip of a replay board: it names the recorded chip but cannot be read (the sensor subsystem
/// reads the recording instead); every read says so.
struct RecordedChip: Magnetometer, Gyroscope {
    struct Configuration: Sendable {}

    let chip: SensorChip
    var device: String { "\(chip.rawValue) (recorded)" }

    private var notReadable: SensorError { .unsupported(chip: chip, feature: "reads: a replay board's samples come from its recording") }

    func identify() throws(SensorError) {}
    mutating func configure(_ configuration: Configuration) throws(SensorError) {}
    mutating func read() throws(SensorError) -> MagnetometerSample { throw notReadable }
    mutating func read() throws(SensorError) -> AccelerometerSample { throw notReadable }
    mutating func readInertial() throws(SensorError) -> InertialSample { throw notReadable }
    func isDataReady() throws(SensorError) -> Bool { false }
    func isGyroscopeDataReady() throws(SensorError) -> Bool { false }
    mutating func powerDown() throws(SensorError) {}
    mutating func selfTest() throws(SensorError) { throw notReadable }
    mutating func gyroscopeSelfTest() throws(SensorError) { throw notReadable }
}

/// The reads of one sample: from the chips (live), or from the recorded sample due (a replay);
/// either way the burst taken is kept in ``taken`` for recorders, in the heading engine's units
/// (g, degrees per second, µT) and the chips' axes.
struct RawReader {
    /// The recorded sample due, on a replay board.
    let replayed: RawSensorSample?
    /// When the sample is taken.
    let at: MonotonicInstant
    /// What was read.
    private(set) var taken: RawSensorSample?

    init(replayed: RawSensorSample?, at: MonotonicInstant) {
        self.replayed = replayed
        self.at = at
    }

    /// The accelerometer alone (motion detection).
    mutating func acceleration(_ s: inout BoardSensors) throws(SensorError) -> Vector3 {
        let a: Vector3
        if let replayed {
            a = try Self.part(replayed.acceleration, "accelerometer", s.accelerometer.chip)
        } else {
            let raw = try s.accelerometer.read().acceleration
            let g = SensorDrivers.standardGravity
            a = Vector3(raw.x / g, raw.y / g, raw.z / g)
        }
        taken = RawSensorSample(takenAt: at, acceleration: a.simd, rotationRate: nil, field: nil)
        return a
    }

    /// The accelerometer and magnetometer (tilt-compensated heading).
    mutating func pair(_ s: inout BoardSensors) throws(SensorError) -> (Vector3, Vector3) {
        let a: Vector3, m: Vector3
        if let replayed {
            a = try Self.part(replayed.acceleration, "accelerometer", s.accelerometer.chip)
            m = try Self.part(replayed.field, "magnetometer", s.magnetometer.chip)
        } else {
            (a, m) = try s.readRaw()
        }
        taken = RawSensorSample(takenAt: at, acceleration: a.simd, rotationRate: nil, field: m.simd)
        return (a, m)
    }

    /// The accelerometer, gyroscope and magnetometer (the attitude filter).
    mutating func inertial(_ s: inout BoardSensors) throws(SensorError) -> (Vector3, Vector3, Vector3) {
        let a: Vector3, w: Vector3, m: Vector3
        if let replayed {
            a = try Self.part(replayed.acceleration, "accelerometer", s.accelerometer.chip)
            w = try Self.part(replayed.rotationRate, "gyroscope", s.accelerometer.chip)
            m = try Self.part(replayed.field, "magnetometer", s.magnetometer.chip)
        } else {
            (a, w, m) = try s.readInertial()
        }
        taken = RawSensorSample(takenAt: at, acceleration: a.simd, rotationRate: w.simd, field: m.simd)
        return (a, w, m)
    }

    private static func part(_ value: SIMD3<Double>?, _ name: String, _ chip: SensorChip) throws(SensorError) -> Vector3 {
        guard let value else { throw .unsupported(chip: chip, feature: "replay: the recorded sample has no \(name) reading") }
        return Vector3(value.x, value.y, value.z)
    }
}

extension Vector3 {
    /// The vector as a standard-library SIMD vector.
    var simd: SIMD3<Double> { SIMD3(x, y, z) }
}
