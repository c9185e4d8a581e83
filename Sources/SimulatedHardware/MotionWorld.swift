import Heading
import RealModule

/// Linear acceleration of the unit (besides gravity), in north-east-down and g, as a function
/// of time and the unit's attitude: what the accelerometer reads on top of gravity.
public enum LinearMotion: Sendable {
    /// None: the unit moves at constant velocity or stands.
    case none
    /// A walker's gait: vertical bounce and fore-aft surge at the step frequency, lateral sway
    /// at half of it (one sway per stride), amplitudes in g; fore-aft and sway follow the yaw.
    case gait(stepFrequency: Double = 2, vertical: Double = 0.3, forward: Double = 0.15, lateral: Double = 0.08)
    /// A vehicle: longitudinal acceleration (braking negative) and lateral, centripetal
    /// acceleration (right positive) in g over time, along and across the yaw; plus engine and
    /// road vibration of `vibration` g (12 Hz vertical, 17 Hz lateral).
    case vehicle(longitudinal: @Sendable (Double) -> Double, lateral: @Sendable (Double) -> Double, vibration: Double)
    /// Any acceleration (north-east-down, g) from time and attitude.
    case custom(@Sendable (Double, BodyAttitude) -> Vector3)

    /// The acceleration `seconds` after the start, north-east-down, g.
    public func acceleration(at seconds: Double, attitude: BodyAttitude) -> Vector3 {
        let psi = attitude.yaw * Double.pi / 180
        let (c, s) = (Double.cos(psi), Double.sin(psi))
        switch self {
        case .none:
            return .zero
        case .gait(let f, let vertical, let forward, let lateral):
            let phase = 2 * Double.pi * f * seconds
            let along = forward * Double.sin(phase + 0.5), across = lateral * Double.sin(phase / 2)
            return Vector3(along * c - across * s, along * s + across * c, vertical * Double.sin(phase))
        case .vehicle(let longitudinal, let lateral, let vibration):
            let along = longitudinal(seconds)
            let across = lateral(seconds) + vibration * Double.sin(2 * Double.pi * 17 * seconds)
            return Vector3(along * c - across * s, along * s + across * c, vibration * Double.sin(2 * Double.pi * 12 * seconds))
        case .custom(let f):
            return f(seconds, attitude)
        }
    }
}

/// A magnet or a mass of steel passing the unit: a field added to the Earth's, rising and
/// falling smoothly over `edge` seconds at each end.
public struct MagneticDisturbance: Sendable, Hashable {
    /// The added field at full strength, north-east-down, µT.
    public var field: Vector3
    /// When it starts to rise, seconds.
    public var start: Double
    /// How long it lasts, edges included, seconds.
    public var duration: Double
    /// Rise and fall time, seconds.
    public var edge: Double

    /// Creates a disturbance.
    public init(field: Vector3, start: Double, duration: Double, edge: Double = 1) {
        self.field = field
        self.start = start
        self.duration = duration
        self.edge = max(0, min(edge, duration / 2))
    }

    /// The added field `seconds` after the start of the run, north-east-down, µT.
    public func field(at seconds: Double) -> Vector3 {
        field * (ramp(seconds - start) - ramp(seconds - start - duration + edge))
    }

    private func ramp(_ t: Double) -> Double {
        if t <= 0 { return 0 }
        if t >= edge { return 1 }
        return 0.5 - 0.5 * Double.cos(Double.pi * t / edge)
    }
}

/// One sample set of a world with a gyroscope: accelerometer (g), magnetometer (µT) and
/// angular rate (dps) in each chip's axes (the gyroscope shares the accelerometer's die and axes).
public struct InertialWorldSample: Sendable {
    /// Specific force in the accelerometer's axes, g.
    public var acceleration: Vector3
    /// Field in the magnetometer's axes, µT (with distortion, drift, disturbance and noise).
    public var field: Vector3
    /// True angular rate in the accelerometer's axes, degrees per second (the chip models add
    /// their own errors).
    public var rotationRate: Vector3
    /// Temperature, °C.
    public var temperature: Double
    /// The true attitude.
    public var attitude: BodyAttitude
}

extension SensorWorld {
    /// The body's angular rate `seconds` after the start, body frame (FRD), degrees per second:
    /// the relative rotation between the attitudes 1 ms before and after.
    public func bodyRate(at seconds: Double) -> Vector3 {
        let h = 0.001
        let before = motion.attitude(at: seconds - h), after = motion.attitude(at: seconds + h)
        let q1 = AttitudeQuaternion(roll: before.roll, pitch: before.pitch, yaw: before.yaw)
        let q2 = AttitudeQuaternion(roll: after.roll, pitch: after.pitch, yaw: after.yaw)
        var d = q1.conjugate * q2
        if d.w < 0 { d = AttitudeQuaternion(w: -d.w, x: -d.x, y: -d.y, z: -d.z) }
        let v = Vector3(d.x, d.y, d.z)
        let n = v.length
        guard n > 1e-15 else { return .zero }
        return v * (2 * Double.atan2(y: n, x: d.w) / n / (2 * h) * 180 / Double.pi)
    }

    /// What the sensors read `seconds` after the start, with the angular rate for a gyroscope.
    public mutating func inertialSample(at seconds: Double) -> InertialWorldSample {
        let s = sample(at: seconds)
        let rate = accelerometerMount.transposed * bodyRate(at: seconds)
        return InertialWorldSample(acceleration: s.acceleration, field: s.field, rotationRate: rate,
                                   temperature: s.temperature, attitude: s.attitude)
    }
}
