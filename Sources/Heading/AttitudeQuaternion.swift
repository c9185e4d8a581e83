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
    @inlinable @inline(__always) public static func * (a: AttitudeQuaternion, o: AttitudeQuaternion) -> AttitudeQuaternion {
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

    /// Rotates a body-frame vector into the earth frame: `v + w t + u × t` with `t = 2 u × v`
    /// (u the vector part), the same rotation as the matrix rows with fewer products.
    @inlinable @inline(__always) public func rotate(_ v: Vector3) -> Vector3 {
        let tx = 2 * (y * v.z - z * v.y), ty = 2 * (z * v.x - x * v.z), tz = 2 * (x * v.y - y * v.x)
        return Vector3(v.x + w * tx + (y * tz - z * ty), v.y + w * ty + (z * tx - x * tz), v.z + w * tz + (x * ty - y * tx))
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

    /// The four parts, for logs.
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

