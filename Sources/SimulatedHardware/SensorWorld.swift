import Heading
import RealModule

/// The attitude of the unit's body frame (x forward, y right, z down): yaw clockwise from true
/// north, pitch nose up, roll right side down, degrees.
public struct BodyAttitude: Sendable, Hashable {
    /// Yaw (true heading of the x axis), degrees.
    public var yaw: Double
    /// Pitch, degrees.
    public var pitch: Double
    /// Roll, degrees.
    public var roll: Double

    /// Creates an attitude.
    public init(yaw: Double, pitch: Double = 0, roll: Double = 0) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }

    /// The rotation from body to north-east-down, `Rz(yaw) Ry(pitch) Rx(roll)`.
    public var bodyToNED: Matrix3 {
        let k = Double.pi / 180
        let (cy, sy) = (Double.cos(yaw * k), Double.sin(yaw * k))
        let (cp, sp) = (Double.cos(pitch * k), Double.sin(pitch * k))
        let (cr, sr) = (Double.cos(roll * k), Double.sin(roll * k))
        return Matrix3(rows: Vector3(cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr),
                       Vector3(sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr),
                       Vector3(-sp, cp * sr, cp * cr))
    }
}

/// How the simulated unit moves over time.
public enum MotionScript: Sendable {
    /// Still at one attitude.
    case still(BodyAttitude)
    /// Turning about the vertical at `yawRate` degrees per second, at a fixed pitch and roll.
    case turning(yawRate: Double, pitch: Double, roll: Double)
    /// A calibration dance that covers every orientation: yaw turns fast, pitch sweeps through
    /// ±`maximumTilt` and roll through ±180° (or ±`maximumTilt` when that is below 90) at
    /// incommensurate rates, so a few minutes fill the sphere.
    case calibrationDance(maximumTilt: Double)
    /// Any attitude as a function of seconds since the start.
    case custom(@Sendable (Double) -> BodyAttitude)

    /// The attitude `seconds` after the start.
    public func attitude(at seconds: Double) -> BodyAttitude {
        switch self {
        case .still(let a):
            return a
        case .turning(let rate, let pitch, let roll):
            return BodyAttitude(yaw: wrap360(rate * seconds), pitch: pitch, roll: roll)
        case .calibrationDance(let tilt):
            let pitch = tilt * Double.sin(2 * Double.pi * seconds / 23.0)
            let rollAmplitude = tilt >= 90 ? 180.0 : tilt
            let roll = rollAmplitude * Double.sin(2 * Double.pi * seconds / 37.0 + 1.0)
            return BodyAttitude(yaw: wrap360(360 * seconds / 7.0), pitch: max(-89.9, min(89.9, pitch)), roll: roll)
        case .custom(let f):
            return f(seconds)
        }
    }
}

/// Hard- and soft-iron distortion of a magnetometer on its board: `measured = softIron · true + hardIron`.
public struct IronDistortion: Sendable, Hashable {
    /// Constant offset from magnetised parts and the sensor's own offset, µT.
    public var hardIron: Vector3
    /// Field-dependent distortion from soft iron and scale errors.
    public var softIron: Matrix3

    /// Creates a distortion.
    public init(hardIron: Vector3, softIron: Matrix3) {
        self.hardIron = hardIron
        self.softIron = softIron
    }

    /// No distortion.
    public static let none = IronDistortion(hardIron: .zero, softIron: .identity)

    /// A realistic breakout near a Pi: tens of µT of offset, a few per cent of soft iron.
    public static let typical = IronDistortion(
        hardIron: Vector3(12, -7, 25),
        softIron: Matrix3(rows: Vector3(1.06, 0.04, -0.02), Vector3(0.04, 0.95, 0.03), Vector3(-0.02, 0.03, 1.01)))
}

/// A simulated accelerometer and magnetometer pair in the Earth's field: the unit's motion gives
/// the body attitude, the World Magnetic Model at the unit's position gives the field, and the
/// mount matrices, iron distortion, noise and temperature drift turn them into what each chip
/// would measure in its own axes. Deterministic for a given seed.
public struct SensorWorld: Sendable {
    /// How the unit moves.
    public var motion: MotionScript
    /// The Earth's field at the unit in north-east-down, µT.
    public private(set) var fieldNED: Vector3
    /// WMM elements at the unit (nT and degrees), for checks.
    public private(set) var elements: GeomagneticElements
    /// Maps magnetometer axes to the body frame (the board's orientation matrix).
    public var magnetometerMount: Matrix3
    /// Maps accelerometer axes to the body frame.
    public var accelerometerMount: Matrix3
    /// Iron distortion in magnetometer axes.
    public var distortion: IronDistortion
    /// Magnetometer noise, µT (1σ per axis).
    public var magnetometerNoise: Double
    /// Accelerometer noise, g (1σ per axis).
    public var accelerometerNoise: Double
    /// Offset drift of the magnetometer per °C away from 25 °C, µT per axis.
    public var temperatureDrift: Vector3
    /// Temperature over time, °C.
    public var temperature: @Sendable (Double) -> Double
    /// Amplitude of the body's vibration over time, g (walking bounce, road vibration): added to
    /// the accelerometer as two incommensurate sinusoids (1.9 Hz vertical, 3.1 Hz along x). Zero
    /// when still, so a motion detector sees the difference.
    public var vibration: @Sendable (Double) -> Double = { _ in 0 }
    /// Linear acceleration of the unit (gait, braking, cornering), added to gravity.
    public var linearMotion: LinearMotion = .none
    /// Objects passing the unit, whose fields add to the Earth's.
    public var disturbances: [MagneticDisturbance] = []
    private var random: SplitMix64

    /// Creates a world at a position (degrees, km above the ellipsoid) and date (decimal year).
    public init(latitude: Double, longitude: Double, heightKm: Double = 0, decimalYear: Double = 2026.5,
                motion: MotionScript, magnetometerMount: Matrix3 = .identity, accelerometerMount: Matrix3 = .identity,
                distortion: IronDistortion = .typical, magnetometerNoise: Double = 0.1, accelerometerNoise: Double = 0.002,
                temperatureDrift: Vector3 = Vector3(0.02, -0.015, 0.03),
                temperature: @escaping @Sendable (Double) -> Double = { _ in 25 }, seed: UInt64 = 1) {
        let e = WorldMagneticModel.wmm2025.evaluate(latitude: latitude, longitude: longitude, heightKm: heightKm,
                                                    decimalYear: decimalYear)
        elements = e
        fieldNED = Vector3(e.x, e.y, e.z) / 1000
        self.motion = motion
        self.magnetometerMount = magnetometerMount
        self.accelerometerMount = accelerometerMount
        self.distortion = distortion
        self.magnetometerNoise = magnetometerNoise
        self.accelerometerNoise = accelerometerNoise
        self.temperatureDrift = temperatureDrift
        self.temperature = temperature
        random = SplitMix64(seed: seed)
    }

    /// What the sensors read `seconds` after the start: accelerometer (g) and magnetometer (µT)
    /// in their own axes, the temperature, and the true attitude.
    public mutating func sample(at seconds: Double)
        -> (acceleration: Vector3, field: Vector3, temperature: Double, attitude: BodyAttitude)
    {
        let attitude = motion.attitude(at: seconds)
        let nedToBody = attitude.bodyToNED.transposed
        var accelBody = nedToBody * Vector3(0, 0, -1)
        if case .none = linearMotion {} else {
            accelBody = nedToBody * (linearMotion.acceleration(at: seconds, attitude: attitude) - Vector3(0, 0, 1))
        }
        var fieldBody = nedToBody * fieldNED
        if !disturbances.isEmpty {
            fieldBody = nedToBody * disturbances.reduce(fieldNED) { $0 + $1.field(at: seconds) }
        }
        let celsius = temperature(seconds)
        let shake = vibration(seconds)
        let bounce = shake > 0
            ? Vector3(0.5 * shake * Double.sin(2 * Double.pi * 3.1 * seconds), 0, shake * Double.sin(2 * Double.pi * 1.9 * seconds))
            : .zero
        let accel = accelerometerMount.transposed * (accelBody + bounce) + noise(accelerometerNoise)
        let trueField = magnetometerMount.transposed * fieldBody
        let drift = temperatureDrift * (celsius - 25)
        let field = distortion.softIron * trueField + distortion.hardIron + drift + noise(magnetometerNoise)
        return (accel, field, celsius, attitude)
    }

    /// A Gaussian vector with standard deviation `sigma` per axis (Box-Muller on SplitMix64).
    mutating func noise(_ sigma: Double) -> Vector3 {
        guard sigma > 0 else { return .zero }
        return Vector3(gaussian() * sigma, gaussian() * sigma, gaussian() * sigma)
    }

    mutating func gaussian() -> Double { random.gaussian() }
}
