import RealModule

/// Roll, pitch and magnetic heading of the body frame (x forward, y right, z down) from one
/// accelerometer and one magnetometer sample, both already in the body frame.
public struct TiltSolution: Sendable, Hashable {
    /// Heading of the body x axis clockwise from magnetic north, degrees in [0, 360).
    public var magneticHeading: Double
    /// Roll (right side down positive), degrees.
    public var roll: Double
    /// Pitch (nose up positive), degrees in [-90, 90].
    public var pitch: Double
    /// Inclination (dip) of the measured field below the horizontal, degrees.
    public var inclination: Double
    /// Horizontal component of the measured field (the same unit as the field given).
    public var horizontalField: Double
    /// Magnitude of the measured field.
    public var fieldMagnitude: Double
    /// Magnitude of the accelerometer sample (1 for a still unit when given in g).
    public var accelerationMagnitude: Double

    @usableFromInline
    init(magneticHeading: Double, roll: Double, pitch: Double, inclination: Double, horizontalField: Double,
         fieldMagnitude: Double, accelerationMagnitude: Double) {
        self.magneticHeading = magneticHeading
        self.roll = roll
        self.pitch = pitch
        self.inclination = inclination
        self.horizontalField = horizontalField
        self.fieldMagnitude = fieldMagnitude
        self.accelerationMagnitude = accelerationMagnitude
    }
}

/// Why no heading could be computed from a sample.
public enum TiltFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body x axis is within `limit` degrees of vertical: heading of that axis is undefined.
    case pitchNearVertical(pitch: Double, limit: Double)
    /// The accelerometer read (near) zero: no "down" to level against (free fall, or no data).
    case noGravity
    /// The field is (near) parallel to gravity or zero: no horizontal direction to point to.
    case noHorizontalField
    /// A sample held NaN or infinity.
    case notFinite

    public var description: String {
        switch self {
        case .pitchNearVertical(let pitch, let limit):
            return "pitch \(Int(pitch.rounded()))° is within \(Int((90 - limit).rounded()))° of vertical: the heading of the x axis is undefined there"
        case .noGravity: return "the accelerometer reads no gravity (free fall, or no data)"
        case .noHorizontalField: return "the magnetic field has no horizontal component"
        case .notFinite: return "a sample is not a finite number"
        }
    }
}

/// Tilt compensation by the vector method: down `d = -a/|a|`, east `e = d × m` normalised, north
/// `n = e × d`, heading `atan2(e_x, n_x)`. It is the same number as the Euler-angle form without
/// ever dividing by cos(pitch), and it gives the measured dip directly.
public enum TiltCompensation {
    /// Beyond this pitch (degrees) the reading is refused as near vertical.
    public static let defaultPitchLimit = 80.0

    /// Solves one sample. `acceleration` is the specific force in the body frame (a level, still
    /// unit reads (0, 0, -1 g)), any unit; `field` is the calibrated field in the body frame.
    @inlinable
    public static func solve(acceleration a: Vector3, field m: Vector3, pitchLimit: Double = defaultPitchLimit)
        -> Result<TiltSolution, TiltFailure>
    {
        guard a.isFinite, m.isFinite else { return .failure(.notFinite) }
        let g = a.length
        guard g > 1e-9 else { return .failure(.noGravity) }
        let d = a * (-1 / g)
        let pitch = Double.asin(max(-1, min(1, -d.x))) * degreesPerRadian
        guard abs(pitch) <= pitchLimit else { return .failure(.pitchNearVertical(pitch: pitch, limit: pitchLimit)) }
        let east = d.cross(m)
        let eastLength = east.length
        let fieldLength = m.length
        guard fieldLength > 0, eastLength > 1e-9 * fieldLength else { return .failure(.noHorizontalField) }
        let e = east / eastLength
        let n = e.cross(d)
        var heading = Double.atan2(y: e.x, x: n.x) * degreesPerRadian
        if heading < 0 { heading += 360 }
        if heading >= 360 { heading -= 360 }
        let roll = Double.atan2(y: -a.y, x: -a.z) * degreesPerRadian
        let down = m.dot(d), north = m.dot(n)
        let inclination = Double.atan2(y: down, x: north) * degreesPerRadian
        return .success(TiltSolution(magneticHeading: heading, roll: roll, pitch: pitch, inclination: inclination,
                                     horizontalField: abs(north), fieldMagnitude: fieldLength,
                                     accelerationMagnitude: g))
    }
}
