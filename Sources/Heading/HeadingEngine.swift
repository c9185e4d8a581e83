import RealModule

/// The field the unit should measure where it is, from the World Magnetic Model: what true
/// heading and the integrity checks need. Evaluate it once per position (WMM changes little
/// within a kilometre or a day) and hand it to ``HeadingEngine/reference``.
public struct ReferenceField: Sendable, Hashable {
    /// Declination, degrees east of true north.
    public var declination: Double
    /// Inclination (dip), degrees below the horizontal.
    public var inclination: Double
    /// Total intensity, µT.
    public var totalIntensity: Double
    /// Horizontal intensity, µT.
    public var horizontalIntensity: Double
    /// 1σ uncertainty of the declination, degrees, from NOAA's WMM2025 error model
    /// `sqrt(0.26² + (5417 / H[nT])²)`.
    public var declinationUncertainty: Double

    /// Creates a reference from WMM elements (nT and degrees, as ``WorldMagneticModel`` gives them).
    public init(_ elements: GeomagneticElements) {
        declination = elements.declination
        inclination = elements.inclination
        totalIntensity = elements.totalIntensity / 1000
        horizontalIntensity = elements.horizontalIntensity / 1000
        let h = max(elements.horizontalIntensity, 1)
        declinationUncertainty = (0.26 * 0.26 + (5417 / h) * (5417 / h)).squareRoot()
    }

    /// Creates a reference from its values (µT and degrees).
    public init(declination: Double, inclination: Double, totalIntensity: Double) {
        self.declination = declination
        self.inclination = inclination
        self.totalIntensity = totalIntensity
        let h = totalIntensity * Double.cos(inclination / degreesPerRadian)
        horizontalIntensity = h
        let hn = max(h * 1000, 1)
        declinationUncertainty = (0.26 * 0.26 + (5417 / hn) * (5417 / hn)).squareRoot()
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
public struct HeadingReading: Sendable, Hashable {
    /// Magnetic heading of the body x axis, degrees in [0, 360); `nil` when unavailable.
    public var magneticHeading: Double?
    /// True heading (magnetic + declination), degrees in [0, 360); `nil` without a reference field.
    public var trueHeading: Double?
    /// 1σ uncertainty of the heading given (true when present, else magnetic), degrees.
    public var accuracy: Double?
    /// Roll, degrees (right side down positive).
    public var roll: Double?
    /// Pitch, degrees (nose up positive).
    public var pitch: Double?
    /// Calibrated field in the body frame, µT.
    public var field: Vector3
    /// Accelerometer in the body frame, g.
    public var acceleration: Vector3
    /// Measured dip, degrees.
    public var inclination: Double?
    /// Quality verdict.
    public var quality: HeadingQuality
    /// The conditions behind the verdict.
    public var flags: HeadingFlags
}

/// Turns raw sensor samples into headings: mount matrices, magnetometer calibration, tilt
/// compensation, declination, accuracy and integrity checks. It does arithmetic only (no
/// allocation) so it can run at the sensor's full rate.
public struct HeadingEngine: Sendable {
    /// Maps accelerometer axes to the body frame (x forward, y right, z down).
    public var accelerometerMount: Matrix3
    /// Maps magnetometer axes to the body frame.
    public var magnetometerMount: Matrix3
    /// Magnetometer calibration in the magnetometer's own axes.
    public var calibration: MagnetometerCalibration
    /// The expected field where the unit is; `nil` until a position is known.
    public var reference: ReferenceField?
    /// Sensor noise of one magnetometer sample, µT (1σ), for the accuracy estimate.
    public var magnetometerNoise: Double
    /// Tilt uncertainty from the accelerometer, degrees (1σ).
    public var tiltUncertainty: Double
    /// Pitch beyond which no heading is given, degrees.
    public var pitchLimit: Double
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
        self.accelerationTolerance = accelerationTolerance
    }

    /// Processes one pair of raw samples: accelerometer in g and magnetometer in µT, each in its
    /// own sensor axes.
    public func process(acceleration rawAcceleration: Vector3, field rawField: Vector3) -> HeadingReading {
        let a = accelerometerMount * rawAcceleration
        let m = magnetometerMount * calibration.apply(rawField)
        return solve(acceleration: a, field: m)
    }

    /// Processes samples already in the body frame and calibrated (g and µT).
    public func solve(acceleration a: Vector3, field m: Vector3) -> HeadingReading {
        var flags: HeadingFlags = []
        if reference == nil { flags.insert(.noReferenceField) }
        if calibration.quality.verdict == .poor { flags.insert(.poorCalibration) }
        let solution: TiltSolution
        switch TiltCompensation.solve(acceleration: a, field: m, pitchLimit: pitchLimit) {
        case .success(let s):
            solution = s
        case .failure(let failure):
            if case .pitchNearVertical = failure { flags.insert(.pitchNearVertical) } else { flags.insert(.invalidSample) }
            return HeadingReading(magneticHeading: nil, trueHeading: nil, accuracy: nil, roll: nil, pitch: nil,
                                  field: m, acceleration: a, inclination: nil, quality: .unavailable, flags: flags)
        }
        if abs(solution.accelerationMagnitude - 1) > accelerationTolerance { flags.insert(.accelerating) }
        // Accuracy: sqrt((σB/H)² + tan²I σtilt² + σD²), widened by the checks that fail.
        let h = max(solution.horizontalField, 1e-6)
        var fieldError = (magnetometerNoise * magnetometerNoise
            + (calibration.quality.residualRMS.isFinite ? calibration.quality.residualRMS * calibration.quality.residualRMS : 25)).squareRoot()
        var tanI = Double.tan(max(-89, min(89, solution.inclination)) / degreesPerRadian)
        var tilt = tiltUncertainty
        if flags.contains(.accelerating) {
            // Each 0.01 g of non-gravity acceleration tilts "down" by about 0.57°.
            tilt += abs(solution.accelerationMagnitude - 1) * 57.3
        }
        var trueHeading: Double? = nil
        var declinationError = 0.0
        if let reference {
            trueHeading = wrap360(solution.magneticHeading + reference.declination)
            declinationError = reference.declinationUncertainty
            tanI = Double.tan(max(-89, min(89, reference.inclination)) / degreesPerRadian)
            let magnitudeError = abs(solution.fieldMagnitude - reference.totalIntensity)
            if magnitudeError > max(3, 0.06 * reference.totalIntensity) {
                flags.insert(.magnitudeMismatch)
                fieldError += magnitudeError
            }
            let dipError = abs(solution.inclination - reference.inclination)
            if dipError > 4 {
                flags.insert(.inclinationMismatch)
                tilt += dipError
            }
            if reference.horizontalIntensity < 6 { flags.insert(.weakHorizontalField) }
        } else if solution.horizontalField < 6 {
            flags.insert(.weakHorizontalField)
        }
        let fieldTerm = fieldError / h * degreesPerRadian
        let tiltTerm = tanI * tilt
        let accuracy = (fieldTerm * fieldTerm + tiltTerm * tiltTerm + declinationError * declinationError).squareRoot()
        let quality: HeadingQuality = flags.isDisjoint(with: .degrading) ? .good : .degraded
        return HeadingReading(magneticHeading: solution.magneticHeading, trueHeading: trueHeading,
                              accuracy: accuracy, roll: solution.roll, pitch: solution.pitch, field: m,
                              acceleration: a, inclination: solution.inclination, quality: quality, flags: flags)
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
