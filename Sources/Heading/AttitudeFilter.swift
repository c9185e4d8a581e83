import RealModule

/// A unit quaternion that rotates body-frame (FRD) vectors into the earth frame (magnetic NED):
/// `v_earth = q ⊗ v_body ⊗ q*`.
public struct AttitudeQuaternion: Sendable, Hashable, CustomStringConvertible {
    /// Scalar part.
    public var w: Double
    /// Vector part, x.
    public var x: Double
    /// Vector part, y.
    public var y: Double
    /// Vector part, z.
    public var z: Double

    /// Creates a quaternion from its four parts (not normalised).
    @inlinable public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// No rotation: body axes along north, east, down.
    public static let identity = AttitudeQuaternion(w: 1, x: 0, y: 0, z: 0)

    /// The rotation R = Rz(yaw)·Ry(pitch)·Rx(roll) (aerospace order), angles in degrees.
    public init(roll: Double, pitch: Double, yaw: Double) {
        let hr = roll / degreesPerRadian / 2, hp = pitch / degreesPerRadian / 2, hy = yaw / degreesPerRadian / 2
        let cr = Double.cos(hr), sr = Double.sin(hr)
        let cp = Double.cos(hp), sp = Double.sin(hp)
        let cy = Double.cos(hy), sy = Double.sin(hy)
        self.init(w: cr * cp * cy + sr * sp * sy,
                  x: sr * cp * cy - cr * sp * sy,
                  y: cr * sp * cy + sr * cp * sy,
                  z: cr * cp * sy - sr * sp * cy)
    }

    /// The rotation whose matrix has the given rows: the earth axes (north, east, down) written
    /// in body coordinates. The rows must be orthonormal and right-handed.
    @inlinable public init(north n: Vector3, east e: Vector3, down d: Vector3) {
        // Shepperd's method on R = [n; e; d].
        let trace = n.x + e.y + d.z
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(w: 0.25 * s, x: (d.y - e.z) / s, y: (n.z - d.x) / s, z: (e.x - n.y) / s)
        } else if n.x > e.y && n.x > d.z {
            let s = (1 + n.x - e.y - d.z).squareRoot() * 2
            self.init(w: (d.y - e.z) / s, x: 0.25 * s, y: (n.y + e.x) / s, z: (n.z + d.x) / s)
        } else if e.y > d.z {
            let s = (1 + e.y - n.x - d.z).squareRoot() * 2
            self.init(w: (n.z - d.x) / s, x: (n.y + e.x) / s, y: 0.25 * s, z: (e.z + d.y) / s)
        } else {
            let s = (1 + d.z - n.x - e.y).squareRoot() * 2
            self.init(w: (e.x - n.y) / s, x: (n.z + d.x) / s, y: (e.z + d.y) / s, z: 0.25 * s)
        }
    }

    /// Hamilton product `self ⊗ o`.
    @inlinable public static func * (a: AttitudeQuaternion, o: AttitudeQuaternion) -> AttitudeQuaternion {
        AttitudeQuaternion(w: a.w * o.w - a.x * o.x - a.y * o.y - a.z * o.z,
                           x: a.w * o.x + a.x * o.w + a.y * o.z - a.z * o.y,
                           y: a.w * o.y - a.x * o.z + a.y * o.w + a.z * o.x,
                           z: a.w * o.z + a.x * o.y - a.y * o.x + a.z * o.w)
    }

    /// The attitude after turning at body rate `omega` (rad/s) for `dt` seconds: one step of
    /// q̇ = ½ q ⊗ (0, ω), normalised.
    @inlinable public func integrated(_ omega: Vector3, over dt: Double) -> AttitudeQuaternion {
        advanced(omega, over: dt).normalized
    }

    /// One step of q̇ = ½ q ⊗ (0, ω) without normalising: its norm grows by |ω dt / 2|²
    /// (2.5e-4 at 180 °/s and 100 Hz), so it serves for one comparison before the next step.
    @inlinable public func advanced(_ omega: Vector3, over dt: Double) -> AttitudeQuaternion {
        let h = omega * (0.5 * dt)
        return AttitudeQuaternion(w: w - x * h.x - y * h.y - z * h.z,
                                  x: x + w * h.x + y * h.z - z * h.y,
                                  y: y - x * h.z + w * h.y + z * h.x,
                                  z: z + x * h.y - y * h.x + w * h.z)
    }

    /// The inverse rotation (the conjugate of a unit quaternion).
    @inlinable public var conjugate: AttitudeQuaternion { AttitudeQuaternion(w: w, x: -x, y: -y, z: -z) }

    /// The same rotation with norm 1 (identity when the norm is zero or not finite).
    @inlinable public var normalized: AttitudeQuaternion {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        guard n > 0, n.isFinite else { return .identity }
        let k = 1 / n
        return AttitudeQuaternion(w: w * k, x: x * k, y: y * k, z: z * k)
    }

    /// Earth north written in body coordinates (first row of the rotation matrix).
    @inlinable public var northInBody: Vector3 {
        Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y))
    }

    /// Earth east written in body coordinates (second row of the rotation matrix).
    @inlinable public var eastInBody: Vector3 {
        Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x))
    }

    /// Earth down (gravity's direction) written in body coordinates (third row).
    @inlinable public var downInBody: Vector3 {
        Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
    }

    /// Rotates a body-frame vector into the earth frame.
    @inlinable public func rotate(_ v: Vector3) -> Vector3 {
        Vector3(northInBody.dot(v), eastInBody.dot(v), downInBody.dot(v))
    }

    /// Roll (right side down positive), degrees.
    public var roll: Double {
        Double.atan2(y: 2 * (y * z + w * x), x: 1 - 2 * (x * x + y * y)) * degreesPerRadian
    }

    /// Pitch (nose up positive), degrees in [-90, 90].
    public var pitch: Double {
        Double.asin(max(-1, min(1, -2 * (x * z - w * y)))) * degreesPerRadian
    }

    /// Heading of the body x axis clockwise from the frame's north, degrees in [0, 360).
    public var yaw: Double {
        wrap360(Double.atan2(y: 2 * (x * y + w * z), x: 1 - 2 * (y * y + z * z)) * degreesPerRadian)
    }

    /// The angle of the rotation from `self` to `other`, degrees in [0, 180].
    public func angle(to other: AttitudeQuaternion) -> Double {
        let d = abs(w * other.w + x * other.x + y * other.y + z * other.z)
        return 2 * Double.acos(min(1, d)) * degreesPerRadian
    }

    public var description: String { "(w: \(w), x: \(x), y: \(y), z: \(z))" }
}

/// Which sources an attitude update believed.
public struct AttitudeSources: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    /// Creates a set from its bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The gyroscope propagated the attitude.
    public static let gyroscope = AttitudeSources(rawValue: 1 << 0)
    /// The accelerometer corrected roll and pitch.
    public static let accelerometer = AttitudeSources(rawValue: 1 << 1)
    /// The magnetometer corrected heading.
    public static let magnetometer = AttitudeSources(rawValue: 1 << 2)
    /// The GNSS course over ground corrected heading.
    public static let gnssCourse = AttitudeSources(rawValue: 1 << 3)

    /// The sources' names, for JSON and the status readout.
    public var names: [String] {
        let all: [(AttitudeSources, String)] = [
            (.gyroscope, "gyroscope"), (.accelerometer, "accelerometer"), (.magnetometer, "magnetometer"),
            (.gnssCourse, "gnss-course"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}

/// The attitude filter's gains and thresholds. The defaults are those of docs/ATTITUDE.md.
public struct AttitudeFilterGains: Sendable, Hashable {
    /// Feedback gain of gravity and field errors, rad/s per unit error (Fusion's 0.5: a time
    /// constant of about 2 s, long enough to average a 2 Hz gait, short enough to pull a few
    /// degrees of gyroscope drift back within seconds).
    public var gain: Double
    /// Largest accepted deviation of |a| from 1 g, g.
    public var accelerationMagnitudeTolerance: Double
    /// Largest accepted angle between measured and estimated gravity, degrees.
    public var accelerationRejection: Double
    /// Largest accepted deviation of |B| from the reference total intensity, as a fraction of it.
    public var fieldMagnitudeTolerance: Double
    /// Largest accepted deviation of the measured dip from the reference inclination, degrees.
    public var dipTolerance: Double
    /// Largest accepted angle between measured and estimated magnetic east, degrees.
    public var magneticRejection: Double
    /// How long a source may disagree with the estimate (while agreeing with the reference)
    /// before the filter resets to the sensor's own solution, seconds.
    public var recoveryPeriod: Double
    /// Rates (after the bias estimate) below which the unit may be still, degrees per second.
    public var stillRateThreshold: Double
    /// How long rates must stay below the threshold before the bias is learnt, seconds.
    public var stillTime: Double
    /// Time constant of the bias low-pass filter, seconds.
    public var biasTimeConstant: Double
    /// Integral gain of the feedback into the gyroscope bias while moving (Mahony's Ki), per
    /// second: the bias follows what gravity and the field keep correcting, with a time constant
    /// of ``gain`` / ``integralGain`` seconds. Zero turns it off.
    public var integralGain: Double
    /// Whether the GNSS course over ground aids heading (a board option: right for vehicles,
    /// wrong for a walker whose body can face away from the course).
    public var gnssCourseAid: Bool
    /// Speed above which the course aids heading, m/s.
    public var courseAidMinimumSpeed: Double
    /// Feedback gain of the course, rad/s per radian of heading error.
    public var courseGain: Double

    /// Creates gains; every argument has the documented default.
    public init(gain: Double = 0.5, accelerationMagnitudeTolerance: Double = 0.1, accelerationRejection: Double = 10,
                fieldMagnitudeTolerance: Double = 0.1, dipTolerance: Double = 5, magneticRejection: Double = 10,
                recoveryPeriod: Double = 5, stillRateThreshold: Double = 3, stillTime: Double = 1,
                biasTimeConstant: Double = 5, integralGain: Double = 0.05, gnssCourseAid: Bool = false, courseAidMinimumSpeed: Double = 5,
                courseGain: Double = 0.1) {
        self.gain = gain
        self.accelerationMagnitudeTolerance = accelerationMagnitudeTolerance
        self.accelerationRejection = accelerationRejection
        self.fieldMagnitudeTolerance = fieldMagnitudeTolerance
        self.dipTolerance = dipTolerance
        self.magneticRejection = magneticRejection
        self.recoveryPeriod = recoveryPeriod
        self.stillRateThreshold = stillRateThreshold
        self.stillTime = stillTime
        self.biasTimeConstant = biasTimeConstant
        self.integralGain = integralGain
        self.gnssCourseAid = gnssCourseAid
        self.courseAidMinimumSpeed = courseAidMinimumSpeed
        self.courseGain = courseGain
    }
}

/// A complementary quaternion filter in the style of Madgwick/Mahony and x-io's Fusion AHRS:
/// the gyroscope propagates the attitude, gravity and the calibrated field pull it back with
/// a fixed gain, each only while it is believable.
///
/// - The accelerometer is not believed while |a| is more than
///   ``AttitudeFilterGains/accelerationMagnitudeTolerance`` from 1 g, or its direction is more than
///   ``AttitudeFilterGains/accelerationRejection`` from the estimated gravity.
/// - The magnetometer is not believed while |B| or the dip disagree with the reference field
///   (World Magnetic Model), or its east is more than ``AttitudeFilterGains/magneticRejection``
///   from the estimated east.
/// - A disagreement with the estimate alone that lasts ``AttitudeFilterGains/recoveryPeriod``
///   means the estimate is wrong: the filter resets that part of the attitude to the sensor.
/// - While the bias-corrected rates stay small for ``AttitudeFilterGains/stillTime`` (and no
///   GNSS speed says otherwise), the gyroscope bias is low-pass filtered from the raw rates.
///
/// Inputs are body frame FRD: rates in degrees per second, specific force in g (level and still
/// reads z = -1), field in µT. The filter is a value type that allocates nothing.
public struct AttitudeFilter: Sendable {
    /// The gains in use.
    public private(set) var gains: AttitudeFilterGains
    /// The attitude: body FRD to magnetic NED.
    public private(set) var quaternion: AttitudeQuaternion = .identity
    /// The estimated gyroscope bias, degrees per second (subtracted from every rate).
    public private(set) var gyroscopeBias: Vector3
    /// The sources the last update believed.
    public private(set) var sources: AttitudeSources = []
    /// Whether the filter has an attitude (after the first sample with gravity and field).
    public private(set) var isInitialised = false
    /// Whether the unit counts as still (the bias is being learnt).
    public var isStill: Bool { stillTimer >= gains.stillTime }
    /// Number of resets to the sensor solution after a long rejection.
    public private(set) var recoveries = 0
    /// The reference field; `nil` skips the magnitude and dip checks and gives no true heading.
    public private(set) var reference: ReferenceField?

    // Precomputed thresholds (no trigonometry per sample).
    private var cosAccelerationRejection = 0.0
    private var cosMagneticRejection = 0.0
    private var fieldLower = 0.0, fieldUpper = Double.infinity
    private var sinDipLower = -1.0, sinDipUpper = 1.0
    private var courseAidSpeedSquared = 0.0
    // Timers (seconds).
    private var accelerationTrigger = 0.0
    private var magneticTrigger = 0.0
    private var stillTimer = 0.0

    /// Creates a filter; `initialBias` is a bias known beforehand (degrees per second).
    public init(gains: AttitudeFilterGains = AttitudeFilterGains(), reference: ReferenceField? = nil,
                initialBias: Vector3 = .zero) {
        self.gains = gains
        self.gyroscopeBias = initialBias
        self.reference = reference
        setGains(gains)
    }

    /// Replaces the gains (keeps the attitude and the bias).
    public mutating func setGains(_ newGains: AttitudeFilterGains) {
        gains = newGains
        cosAccelerationRejection = Double.cos(newGains.accelerationRejection / degreesPerRadian)
        cosMagneticRejection = Double.cos(newGains.magneticRejection / degreesPerRadian)
        courseAidSpeedSquared = newGains.courseAidMinimumSpeed * newGains.courseAidMinimumSpeed
        setReference(reference)
    }

    /// Replaces the reference field (after a position fix, or when the unit has moved far).
    public mutating func setReference(_ newReference: ReferenceField?) {
        reference = newReference
        if let r = newReference {
            fieldLower = r.totalIntensity * (1 - gains.fieldMagnitudeTolerance)
            fieldUpper = r.totalIntensity * (1 + gains.fieldMagnitudeTolerance)
            sinDipLower = Double.sin(max(-90, r.inclination - gains.dipTolerance) / degreesPerRadian)
            sinDipUpper = Double.sin(min(90, r.inclination + gains.dipTolerance) / degreesPerRadian)
        } else {
            fieldLower = 0
            fieldUpper = .infinity
            sinDipLower = -1
            sinDipUpper = 1
        }
    }

    /// Forgets the attitude (the next sample initialises it again); the bias is kept.
    public mutating func reset() {
        isInitialised = false
        quaternion = .identity
        accelerationTrigger = 0
        magneticTrigger = 0
        stillTimer = 0
        sources = []
    }

    /// Magnetic heading of the body x axis, degrees in [0, 360); `nil` before initialisation.
    public var magneticHeading: Double? { isInitialised ? quaternion.yaw : nil }

    /// True heading (magnetic + declination), degrees in [0, 360); `nil` without a reference.
    public var trueHeading: Double? {
        guard isInitialised, let reference else { return nil }
        return wrap360(quaternion.yaw + reference.declination)
    }

    /// Roll, degrees; `nil` before initialisation.
    public var roll: Double? { isInitialised ? quaternion.roll : nil }
    /// Pitch, degrees; `nil` before initialisation.
    public var pitch: Double? { isInitialised ? quaternion.pitch : nil }
}

extension AttitudeFilter {
    /// Above this GNSS speed (m/s) the unit is not still whatever its gyroscope says.
    public static let stillSpeedLimit = 0.5
    /// A gap between samples longer than this (seconds) re-initialises the attitude from the
    /// sensors instead of integrating the gyroscope across it.
    public static let maximumStep = 1.0

    /// Processes one sample set taken at the same time.
    ///
    /// - Parameters:
    ///   - gyroscope: body rates, degrees per second, FRD.
    ///   - acceleration: specific force, g, FRD (level and still reads (0, 0, -1)).
    ///   - field: calibrated field, µT, FRD.
    ///   - deltaTime: seconds since the previous sample.
    ///   - speed: GNSS speed over ground, m/s, when known (stops bias learning while moving;
    ///     enables the course aid).
    ///   - course: GNSS course over ground, degrees clockwise from true north, when known.
    /// - Returns: the sources believed (also kept in ``sources``).
    @discardableResult
    public mutating func update(gyroscope g: Vector3, acceleration a: Vector3, field m: Vector3, deltaTime dt: Double,
                                speed: Double? = nil, course: Double? = nil) -> AttitudeSources {
        let aLength = a.length, mLength = m.length
        let accelerationUsable = a.isFinite && aLength > 1e-6
        let fieldUsable = m.isFinite && mLength > 1e-9
        if isInitialised, !(dt.isFinite && dt > 0 && dt <= Self.maximumStep) { reset() }
        guard isInitialised else {
            guard accelerationUsable, fieldUsable,
                  let q = Self.sensorSolution(down: a * (-1 / aLength), field: m) else {
                sources = []
                return []
            }
            quaternion = q
            isInitialised = true
            sources = [.accelerometer, .magnetometer]
            return sources
        }
        guard g.isFinite else {
            sources = []
            return []
        }

        // Gyroscope bias, learnt while the bias-corrected rates stay small.
        var rate = g - gyroscopeBias
        let threshold = gains.stillRateThreshold
        let moving = (speed ?? 0) > Self.stillSpeedLimit
        if !moving, abs(rate.x) < threshold, abs(rate.y) < threshold, abs(rate.z) < threshold {
            stillTimer += dt
            if stillTimer >= gains.stillTime {
                let k = dt / (gains.biasTimeConstant + dt)
                gyroscopeBias = gyroscopeBias + (g - gyroscopeBias) * k
                rate = g - gyroscopeBias
            }
        } else {
            stillTimer = 0
        }

        // Propagate with the gyroscope first, so the sensors are compared with the attitude
        // of their own time (normalised once, after the correction).
        quaternion = quaternion.advanced(rate * (1 / degreesPerRadian), over: dt)
        var believed: AttitudeSources = [.gyroscope]
        var feedback = Vector3.zero

        // Gravity.
        if accelerationUsable, abs(aLength - 1) <= gains.accelerationMagnitudeTolerance {
            let measured = a * (-1 / aLength)
            let estimated = quaternion.downInBody
            if measured.dot(estimated) >= cosAccelerationRejection {
                believed.insert(.accelerometer)
                feedback = feedback + Self.error(measured, estimated)
                accelerationTrigger = max(0, accelerationTrigger - 9 * dt)
            } else {
                accelerationTrigger += dt
                if accelerationTrigger >= gains.recoveryPeriod,
                   let q = Self.solution(down: measured, eastHint: quaternion.eastInBody) {
                    quaternion = q
                    accelerationTrigger = 0
                    recoveries += 1
                    believed.insert(.accelerometer)
                }
            }
        }

        // Field, against the reference and then against the estimate.
        let down = quaternion.downInBody
        if fieldUsable, mLength >= fieldLower, mLength <= fieldUpper {
            let downComponent = m.dot(down)  // sin(dip) · |B|
            let eastRaw = down.cross(m)
            let eastLength = eastRaw.length
            if downComponent >= sinDipLower * mLength, downComponent <= sinDipUpper * mLength,
               eastLength > 1e-9 * mLength {
                let measured = eastRaw * (1 / eastLength)
                let estimated = quaternion.eastInBody
                if measured.dot(estimated) >= cosMagneticRejection {
                    believed.insert(.magnetometer)
                    feedback = feedback + Self.error(measured, estimated)
                    magneticTrigger = max(0, magneticTrigger - 9 * dt)
                } else {
                    magneticTrigger += dt
                    if magneticTrigger >= gains.recoveryPeriod {
                        quaternion = AttitudeQuaternion(north: measured.cross(down), east: measured, down: down).normalized
                        magneticTrigger = 0
                        recoveries += 1
                        believed.insert(.magnetometer)
                    }
                }
            }
        }

        var omega = feedback * gains.gain
        if gains.integralGain > 0, stillTimer < gains.stillTime {
            gyroscopeBias = gyroscopeBias - feedback * (gains.integralGain * dt * degreesPerRadian)
        }

        // GNSS course (vehicles): a yaw correction about the earth's down axis.
        if gains.gnssCourseAid, let speed, let course, course.isFinite, speed.isFinite,
           speed * speed >= courseAidSpeedSquared {
            let magneticCourse = course - (reference?.declination ?? 0)
            let error = wrap180(magneticCourse - quaternion.yaw) / degreesPerRadian
            omega = omega + quaternion.downInBody * (gains.courseGain * error)
            believed.insert(.gnssCourse)
        }
        quaternion = quaternion.integrated(omega, over: dt)
        sources = believed
        return believed
    }

    /// The rate (per unit gain) that turns `estimated` toward `measured`: their cross product,
    /// at full length once they are more than 90° apart (as Fusion does).
    @inline(__always)
    static func error(_ measured: Vector3, _ estimated: Vector3) -> Vector3 {
        let c = measured.cross(estimated)
        return measured.dot(estimated) < 0 ? c.normalized : c
    }

    /// The attitude from one accelerometer direction (down, body) and one field sample: the
    /// tilt-compensated sensor solution. `nil` when the field has no horizontal part.
    public static func sensorSolution(down d: Vector3, field m: Vector3) -> AttitudeQuaternion? {
        let east = d.cross(m)
        let length = east.length
        guard length > 1e-9 * m.length, length.isFinite else { return nil }
        let e = east / length
        return AttitudeQuaternion(north: e.cross(d), east: e, down: d).normalized
    }

    /// The attitude with the given down and the heading of `eastHint` (made orthogonal to it).
    static func solution(down d: Vector3, eastHint: Vector3) -> AttitudeQuaternion? {
        let east = eastHint - d * eastHint.dot(d)
        let length = east.length
        guard length > 1e-6, length.isFinite else { return nil }
        let e = east / length
        return AttitudeQuaternion(north: e.cross(d), east: e, down: d).normalized
    }
}
