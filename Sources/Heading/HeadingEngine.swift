import RealModule

/// The field the unit should measure where it is, from the World Magnetic Model: what true
/// heading and the integrity checks need. Evaluate it once per position (WMM changes little
/// within a kilometre or a day) and hand it to ``HeadingEngine/reference``.
public struct ReferenceField: Sendable, Hashable {
    /// Declination, degrees east of true north.
    public let declination: Double
    /// Inclination (dip), degrees below the horizontal.
    public let inclination: Double
    /// Total intensity, µT.
    public let totalIntensity: Double
    /// Horizontal intensity, µT.
    public let horizontalIntensity: Double
    /// 1σ uncertainty of the declination, degrees, from NOAA's WMM2025 error model
    /// `sqrt(0.26² + (5417 / H[nT])²)`.
    public let declinationUncertainty: Double
    /// tan(inclination), for the accuracy estimate (precomputed: the per-sample path does no trigonometry for it).
    public let tanInclination: Double
    /// Sine of inclination − 4°: the lower edge of the window the measured dip must stay in.
    public let sinDipLower: Double
    /// Sine of inclination + 4°: the upper edge of the window.
    public let sinDipUpper: Double

    /// Creates a reference from WMM elements (nT and degrees, as ``WorldMagneticModel`` gives them).
    public init(_ elements: GeomagneticElements) {
        self.init(declination: elements.declination, inclination: elements.inclination,
                  totalIntensity: elements.totalIntensity / 1000, horizontalIntensity: elements.horizontalIntensity / 1000)
    }

    /// Creates a reference from its values (µT and degrees).
    public init(declination: Double, inclination: Double, totalIntensity: Double) {
        self.init(declination: declination, inclination: inclination, totalIntensity: totalIntensity,
                  horizontalIntensity: totalIntensity * Double.cos(inclination / degreesPerRadian))
    }

    init(declination: Double, inclination: Double, totalIntensity: Double, horizontalIntensity: Double) {
        self.declination = declination
        self.inclination = inclination
        self.totalIntensity = totalIntensity
        self.horizontalIntensity = horizontalIntensity
        let hn = max(horizontalIntensity * 1000, 1)
        declinationUncertainty = (0.26 * 0.26 + (5417 / hn) * (5417 / hn)).squareRoot()
        tanInclination = Double.tan(max(-89, min(89, inclination)) / degreesPerRadian)
        sinDipLower = Double.sin(max(-90, inclination - 4) / degreesPerRadian)
        sinDipUpper = Double.sin(min(90, inclination + 4) / degreesPerRadian)
    }
}

/// Conditions that lower a heading's quality.
public struct HeadingFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The x axis is near vertical: no heading.
    public static let pitchNearVertical = HeadingFlags(rawValue: 1 << 0)
    /// The accelerometer reads more or less than gravity: the unit accelerates, tilt is uncertain.
    public static let accelerating = HeadingFlags(rawValue: 1 << 1)
    /// The field magnitude differs from the WMM total intensity: iron or current nearby.
    public static let magnitudeMismatch = HeadingFlags(rawValue: 1 << 2)
    /// The measured dip differs from the WMM inclination: the field is bent.
    public static let inclinationMismatch = HeadingFlags(rawValue: 1 << 3)
    /// The horizontal field is weak (near a magnetic pole): heading is unreliable.
    public static let weakHorizontalField = HeadingFlags(rawValue: 1 << 4)
    /// The calibration is poor or missing.
    public static let poorCalibration = HeadingFlags(rawValue: 1 << 5)
    /// No position yet: only magnetic heading is given.
    public static let noReferenceField = HeadingFlags(rawValue: 1 << 6)
    /// GNSS course over ground disagrees with heading while moving.
    public static let courseMismatch = HeadingFlags(rawValue: 1 << 7)
    /// The sample could not be solved (no gravity, no horizontal field, not finite).
    public static let invalidSample = HeadingFlags(rawValue: 1 << 8)

    /// Flags that make a heading degraded rather than good.
    public static let degrading: HeadingFlags = [.accelerating, .magnitudeMismatch, .inclinationMismatch,
                                                 .weakHorizontalField, .poorCalibration, .courseMismatch]
    /// Flags that make a heading unavailable.
    public static let disqualifying: HeadingFlags = [.pitchNearVertical, .invalidSample]

    /// The flags' names, for JSON and the status readout.
    public var names: [String] {
        let all: [(HeadingFlags, String)] = [
            (.pitchNearVertical, "pitch-near-vertical"), (.accelerating, "accelerating"),
            (.magnitudeMismatch, "field-magnitude-mismatch"), (.inclinationMismatch, "inclination-mismatch"),
            (.weakHorizontalField, "weak-horizontal-field"), (.poorCalibration, "poor-calibration"),
            (.noReferenceField, "no-reference-field"), (.courseMismatch, "course-mismatch"),
            (.invalidSample, "invalid-sample"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}

/// How far a heading can be trusted.
public enum HeadingQuality: String, Sendable, Hashable {
    /// All checks pass.
    case good
    /// A heading is given, with a widened uncertainty; see the flags.
    case degraded
    /// No heading: see the flags.
    case unavailable
}

/// One heading reading: magnetic and (with a reference field) true heading, attitude, accuracy.
///
/// Roll, pitch and dip are computed from the stored body-frame vectors when asked for, so the
/// per-sample path pays for one arctangent only.
public struct HeadingReading: Sendable, Hashable {
    /// Magnetic heading of the body x axis, degrees in [0, 360); `nil` when unavailable.
    public var magneticHeading: Double?
    /// True heading (magnetic + declination), degrees in [0, 360); `nil` without a reference field.
    public var trueHeading: Double?
    /// 1σ uncertainty of the heading given (true when present, else magnetic), degrees.
    public var accuracy: Double?
    /// Calibrated field in the body frame, µT.
    public var field: Vector3
    /// Accelerometer in the body frame, g.
    public var acceleration: Vector3
    /// Quality verdict.
    public var quality: HeadingQuality
    /// The conditions behind the verdict.
    public var flags: HeadingFlags
    /// The attitude filter's state when the heading came from it (boards with a gyroscope),
    /// else `nil` (tilt compensation of one sample pair).
    public var attitude: AttitudeEstimate? = nil

    /// Roll, degrees (right side down positive); `nil` without gravity.
    public var roll: Double? {
        guard acceleration.isFinite, acceleration.length > 1e-9 else { return nil }
        return Double.atan2(y: -acceleration.y, x: -acceleration.z) * degreesPerRadian
    }

    /// Pitch, degrees (nose up positive); `nil` without gravity.
    public var pitch: Double? {
        let g = acceleration.length
        guard acceleration.isFinite, g > 1e-9 else { return nil }
        return Double.asin(max(-1, min(1, acceleration.x / g))) * degreesPerRadian
    }

    /// Measured dip of the field below the horizontal, degrees; `nil` without gravity or field.
    public var inclination: Double? {
        let g = acceleration.length, f = field.length
        guard acceleration.isFinite, field.isFinite, g > 1e-9, f > 0 else { return nil }
        return Double.asin(max(-1, min(1, field.dot(acceleration * (-1 / g)) / f))) * degreesPerRadian
    }
}

/// Turns raw sensor samples into headings: mount matrices, magnetometer calibration, tilt
/// compensation, declination, accuracy and integrity checks. It does arithmetic only (no
/// allocation) so it can run at the sensor's full rate.
public struct HeadingEngine: Sendable {
    /// Maps accelerometer axes to the body frame (x forward, y right, z down).
    public var accelerometerMount: Matrix3
    /// Maps magnetometer axes to the body frame.
    public var magnetometerMount: Matrix3 {
        didSet { calibrationChanged() }
    }
    /// Magnetometer calibration in the magnetometer's own axes.
    public var calibration: MagnetometerCalibration {
        didSet { calibrationChanged() }
    }
    /// The expected field where the unit is; `nil` until a position is known.
    public var reference: ReferenceField?
    /// Sensor noise of one magnetometer sample, µT (1σ), for the accuracy estimate.
    public var magnetometerNoise: Double {
        didSet { calibrationChanged() }
    }
    /// Cached per calibration: whether it is poor, and the field error it implies (µT).
    private var calibrationIsPoor = true
    private var calibrationFieldError = 5.0
    /// magnetometerMount × softIron, so a sample costs one matrix product.
    private var magnetometerToBody = Matrix3.identity

    private mutating func calibrationChanged() {
        calibrationIsPoor = calibration.quality.verdict == .poor
        magnetometerToBody = magnetometerMount * calibration.softIron
        let residual = calibration.quality.residualRMS
        calibrationFieldError = (magnetometerNoise * magnetometerNoise + (residual.isFinite ? residual * residual : 25)).squareRoot()
    }
    /// Tilt uncertainty from the accelerometer, degrees (1σ).
    public var tiltUncertainty: Double
    /// Pitch beyond which no heading is given, degrees.
    public var pitchLimit: Double {
        didSet { sinPitchLimit = Double.sin(pitchLimit / degreesPerRadian) }
    }
    private var sinPitchLimit: Double
    /// Accepted deviation of |a| from 1 g before the unit counts as accelerating, g.
    public var accelerationTolerance: Double

    /// Creates an engine.
    public init(accelerometerMount: Matrix3 = .identity, magnetometerMount: Matrix3 = .identity,
                calibration: MagnetometerCalibration = .identity, reference: ReferenceField? = nil,
                magnetometerNoise: Double = 0.2, tiltUncertainty: Double = 0.3,
                pitchLimit: Double = TiltCompensation.defaultPitchLimit, accelerationTolerance: Double = 0.05) {
        self.accelerometerMount = accelerometerMount
        self.magnetometerMount = magnetometerMount
        self.calibration = calibration
        self.reference = reference
        self.magnetometerNoise = magnetometerNoise
        self.tiltUncertainty = tiltUncertainty
        self.pitchLimit = pitchLimit
        self.sinPitchLimit = Double.sin(pitchLimit / degreesPerRadian)
        self.accelerationTolerance = accelerationTolerance
        calibrationChanged()
    }

    /// Processes one pair of raw samples: accelerometer in g and magnetometer in µT, each in its
    /// own sensor axes.
    public func process(acceleration rawAcceleration: Vector3, field rawField: Vector3) -> HeadingReading {
        let a = accelerometerMount * rawAcceleration
        let m = magnetometerToBody * (rawField - calibration.offset)
        return solve(acceleration: a, field: m)
    }

    /// Processes samples already in the body frame and calibrated (g and µT).
    ///
    /// The vector method of ``TiltCompensation`` with its checks done without trigonometry (the
    /// pitch limit and the dip window are compared as sines), leaving one arctangent per sample.
    public func solve(acceleration a: Vector3, field m: Vector3) -> HeadingReading {
        var flags: HeadingFlags = []
        if reference == nil { flags.insert(.noReferenceField) }
        if calibrationIsPoor { flags.insert(.poorCalibration) }
        let g = a.length
        let fieldMagnitude = m.length
        guard a.isFinite, m.isFinite, g > 1e-9, fieldMagnitude > 0 else {
            flags.insert(.invalidSample)
            return HeadingReading(magneticHeading: nil, trueHeading: nil, accuracy: nil, field: m, acceleration: a,
                                  quality: .unavailable, flags: flags)
        }
        let d = a * (-1 / g)
        // sin(pitch) = -d.x; beyond the limit the x axis is too close to vertical.
        if abs(d.x) > sinPitchLimit {
            flags.insert(.pitchNearVertical)
            return HeadingReading(magneticHeading: nil, trueHeading: nil, accuracy: nil, field: m, acceleration: a,
                                  quality: .unavailable, flags: flags)
        }
        let east = d.cross(m)
        let eastLength = east.length
        guard eastLength > 1e-9 * fieldMagnitude else {
            flags.insert(.invalidSample)
            return HeadingReading(magneticHeading: nil, trueHeading: nil, accuracy: nil, field: m, acceleration: a,
                                  quality: .unavailable, flags: flags)
        }
        let e = east / eastLength
        let n = e.cross(d)
        var magnetic = Double.atan2(y: e.x, x: n.x) * degreesPerRadian
        if magnetic < 0 { magnetic += 360 }
        if magnetic >= 360 { magnetic -= 360 }
        let down = m.dot(d)
        let horizontal = max(abs(m.dot(n)), 1e-6)
        if abs(g - 1) > accelerationTolerance { flags.insert(.accelerating) }
        // Accuracy: sqrt((σB/H)² + tan²I σtilt² + σD²), widened by the checks that fail.
        var fieldError = calibrationFieldError
        var tanI = down / horizontal
        var tilt = tiltUncertainty
        if flags.contains(.accelerating) {
            // Each 0.01 g of non-gravity acceleration tilts "down" by about 0.57°.
            tilt += abs(g - 1) * 57.3
        }
        var trueHeading: Double? = nil
        var declinationError = 0.0
        if let reference {
            var t = magnetic + reference.declination
            if t < 0 { t += 360 }
            if t >= 360 { t -= 360 }
            trueHeading = t
            declinationError = reference.declinationUncertainty
            tanI = reference.tanInclination
            let magnitudeError = abs(fieldMagnitude - reference.totalIntensity)
            if magnitudeError > max(3, 0.06 * reference.totalIntensity) {
                flags.insert(.magnitudeMismatch)
                fieldError += magnitudeError
            }
            // Dip window of ±4° compared as sines (asin is monotonic).
            let sinDip = down / fieldMagnitude
            if sinDip < reference.sinDipLower || sinDip > reference.sinDipUpper {
                flags.insert(.inclinationMismatch)
                tilt += 4
            }
            if reference.horizontalIntensity < 6 { flags.insert(.weakHorizontalField) }
        } else if horizontal < 6 {
            flags.insert(.weakHorizontalField)
        }
        let fieldTerm = fieldError / horizontal * degreesPerRadian
        let tiltTerm = tanI * tilt
        let accuracy = (fieldTerm * fieldTerm + tiltTerm * tiltTerm + declinationError * declinationError).squareRoot()
        let quality: HeadingQuality = flags.isDisjoint(with: .degrading) ? .good : .degraded
        return HeadingReading(magneticHeading: magnetic, trueHeading: trueHeading, accuracy: accuracy, field: m,
                              acceleration: a, quality: quality, flags: flags)
    }

    /// Cross-checks a heading against the GNSS course over ground while moving faster than
    /// `minimumSpeed` (m/s). Valid where the body x axis points along the direction of travel
    /// (a vehicle or a carried unit held forward). Adds ``HeadingFlags/courseMismatch`` when they
    /// differ by more than `tolerance` degrees; returns the difference in (-180, 180].
    @discardableResult
    public static func crossCheck(_ reading: inout HeadingReading, course: Double, speed: Double,
                                  minimumSpeed: Double = 2, tolerance: Double = 30) -> Double? {
        guard speed >= minimumSpeed, course.isFinite, let heading = reading.trueHeading ?? reading.magneticHeading else {
            return nil
        }
        let difference = wrap180(course - heading)
        if abs(difference) > tolerance {
            reading.flags.insert(.courseMismatch)
            if reading.quality == .good { reading.quality = .degraded }
        }
        return difference
    }
}
