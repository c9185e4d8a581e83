import RealModule

// The attitude filter's read-outs, its sensor solution, and its per-step arithmetic:
// renormalisation, the small-angle series, the gyroscope's rotation, and the low-pass
// coefficients of one step length.
extension AttitudeFilter {
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

    /// The attitude from one accelerometer direction (down, body) and one field sample: the
    /// tilt-compensated sensor solution. `nil` when the field has no horizontal part.
    public static func sensorSolution(down d: Vector3, field m: Vector3) -> AttitudeQuaternion? {
        let east = d.cross(m)
        let length = east.length
        guard length > 1e-9 * m.length, length.isFinite else { return nil }
        let e = east / length
        return AttitudeQuaternion(north: e.cross(d), east: e, down: d).normalized
    }

    /// A quaternion within rounding of unit norm brought back to it by one Newton step of
    /// 1/sqrt (no square root, no division); one far from it by the full normalisation.
    @inline(__always)
    static func renormalised(_ q: AttitudeQuaternion) -> AttitudeQuaternion {
        let n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z
        guard abs(n2 - 1) < 1e-3 else { return q.normalized }
        let k = 1.5 - 0.5 * n2
        return AttitudeQuaternion(w: q.w * k, x: q.x * k, y: q.y * k, z: q.z * k)
    }

    /// atan2(y, x), from its series while |y| < 0.2 x (within 2e-6 rad; most samples).
    @inline(__always)
    static func angle(y: Double, x: Double) -> Double {
        if x > 0, abs(y) < 0.2 * x {
            let t = y / x, t2 = t * t
            return t * (1 - t2 * (1.0 / 3 - t2 * (0.2 - t2 / 7)))
        }
        return Double.atan2(y: y, x: x)
    }

    /// `c ⊗ q` for a `c` whose z part is zero (a rotation about a horizontal axis).
    @inline(__always)
    static func product(_ c: AttitudeQuaternion, _ q: AttitudeQuaternion) -> AttitudeQuaternion {
        AttitudeQuaternion(w: c.w * q.w - c.x * q.x - c.y * q.y, x: c.w * q.x + c.x * q.w + c.y * q.z,
                           y: c.w * q.y - c.x * q.z + c.y * q.w, z: c.w * q.z + c.x * q.y - c.y * q.x)
    }

    /// The rotation by `omega` (rad/s) over `dt` seconds, from the series of cos and sin (within
    /// 4e-7 of exact up to 0.5 rad a step, 2,900 °/s at 100 Hz; normalised after).
    @inline(__always)
    static func rotation(_ omega: Vector3, over dt: Double) -> AttitudeQuaternion {
        let h = omega * (0.5 * dt)
        let t = h.dot(h)
        let c = 1 - t / 2 + t * t / 24
        let s = 1 - t / 6 + t * t / 120
        return AttitudeQuaternion(w: c, x: s * h.x, y: s * h.y, z: s * h.z)
    }
}

/// The low-pass coefficients `dt / (τ + dt)` of one step length, so that a steady sample rate
/// pays for the divisions once.
struct StepCoefficients: Sendable {
    var dt: Double
    var short: Double, rest: Double, acceleration: Double, field: Double, reference: Double, candidate: Double
    /// Degrees per radian over the motion bias time constant plus the step.
    var bias: Double

    init(dt: Double, gains: AttitudeFilterGains) {
        self.dt = dt
        short = dt / (AttitudeFilter.stillAverageTime + dt)
        rest = dt / (gains.biasTimeConstant + dt)
        acceleration = dt / (gains.accelerationTimeConstant + dt)
        field = dt / (gains.fieldTimeConstant + dt)
        reference = dt / (gains.referenceTimeConstant + dt)
        candidate = dt / (1 + dt)
        bias = degreesPerRadian / (gains.motionBiasTimeConstant + dt)
    }
}
