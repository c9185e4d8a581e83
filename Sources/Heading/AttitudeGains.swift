/// The attitude filter's time constants and thresholds. The defaults are those of
/// docs/ATTITUDE.md, chosen on real recordings with optical truth and on simulated motion.
public struct AttitudeFilterGains: Sendable, Hashable {
    /// Time constant of the low-pass filter on the specific force in the gyroscope's
    /// (quasi-inertial) frame, seconds. Accelerations of bounded velocity average out over it;
    /// gravity does not. Longer rejects more motion, shorter follows gyroscope drift faster.
    public var accelerationTimeConstant: Double
    /// Angle between the measured specific force and the estimated gravity at which a sample
    /// counts half in that low-pass filter, degrees: a sustained acceleration (a car's braking or
    /// corner) slows the filter down instead of tilting the attitude, while the swings of fast
    /// motion still average out.
    public var accelerationDisagreement: Double
    /// Time constant of the heading correction from an undisturbed field, seconds.
    public var fieldTimeConstant: Double
    /// Heading error at which the field correction is twice as fast, degrees: a large error
    /// (after a saturated gyroscope, or a wrong start) is removed within seconds, a small one
    /// over ``fieldTimeConstant``.
    public var fieldRecoveryAngle: Double
    /// Time constant of the gyroscope bias learnt from the corrections while moving, seconds.
    public var motionBiasTimeConstant: Double
    /// Average rotation rate (the root mean square over ``fieldTimeConstant``) at which a heading
    /// correction feeds the bias at half weight, degrees per second. The gyroscope's scale and
    /// cross-axis errors grow with the angle turned, so after a fast rotation the heading error
    /// is mostly theirs, a step rather than the ramp of a bias, and it is corrected without
    /// moving the bias; while the unit turns slowly the field sees the bias.
    public var headingBiasRate: Double
    /// Time constant of the gyroscope bias learnt from the rates while still, seconds.
    public var biasTimeConstant: Double
    /// Largest bias the filter will estimate on any axis, degrees per second.
    public var biasLimit: Double
    /// Rates (after the bias estimate) below which the unit may be still, degrees per second.
    public var stillRateThreshold: Double
    /// Largest deviation of the specific force from its short average while still, g.
    public var stillAccelerationThreshold: Double
    /// Largest turn of the field's direction in the body during a still period, degrees: a slow
    /// turn below the rate threshold is not mistaken for bias.
    public var stillFieldThreshold: Double
    /// How long the unit must look still before the bias is learnt from its rates, seconds.
    public var stillTime: Double
    /// Largest deviation of |B| from the learnt reference before the field counts as disturbed,
    /// as a fraction of it.
    public var fieldMagnitudeTolerance: Double
    /// Largest deviation of the dip from the learnt reference before the field counts as
    /// disturbed, degrees.
    public var dipTolerance: Double
    /// How long the field must agree with the reference without a break before it corrects the
    /// heading (and the reference follows it), seconds: amid a disturbance that sweeps through
    /// every norm and dip, single samples pass both tests by chance and point anywhere.
    public var fieldSettleTime: Double
    /// Heading error above which a field that comes back in norm and dip after a disturbance is
    /// held off, degrees: the gyroscope carried north through the disturbance, so the earth's
    /// field returns close to it, while a disturbance that happens to match the norm and dip
    /// (steel, still) points anywhere.
    public var fieldReturnAngle: Double
    /// How long such a field must agree, pointing steadily (within ``fieldReturnAngle`` / 3 of
    /// its 1 s average), before it corrects the heading anyway (a gyroscope that lost track during
    /// the disturbance), seconds.
    public var fieldReturnTime: Double
    /// Time constant with which the reference norm and dip follow an undisturbed field, seconds.
    public var referenceTimeConstant: Double
    /// How long a different but steady field must be seen, while turning, before it becomes the
    /// new reference, seconds.
    public var newFieldTime: Double
    /// The same before the first reference is confirmed (a first field that the World Magnetic
    /// Model's does not match, until a field agrees with it), seconds; no turning needed.
    public var newFieldFirstTime: Double
    /// Largest angle between a new reference's horizontal direction and the estimated north,
    /// degrees: a steady field that would turn the heading further is a disturbance.
    public var newFieldAngle: Double
    /// Rate above which time counts toward a new reference, degrees per second: a field that
    /// stays steady while the unit turns is the earth's, one that only stays steady while the
    /// unit is still may be a magnet beside it.
    public var newFieldRate: Double
    /// Whether the GNSS course over ground aids heading (a board option: right for vehicles,
    /// wrong for a walker whose body can face away from the course).
    public var gnssCourseAid: Bool
    /// Speed above which the course aids heading, m/s.
    public var courseAidMinimumSpeed: Double
    /// Feedback gain of the course, per second (fraction of the heading error removed a second).
    public var courseGain: Double

    /// Creates gains; every argument has the documented default.
    public init(accelerationTimeConstant: Double = 1.5, accelerationDisagreement: Double = 40, fieldTimeConstant: Double = 3,
                fieldRecoveryAngle: Double = 20, motionBiasTimeConstant: Double = 10, headingBiasRate: Double = 30,
                biasTimeConstant: Double = 3, biasLimit: Double = 5, stillRateThreshold: Double = 2,
                stillAccelerationThreshold: Double = 0.04, stillFieldThreshold: Double = 1, stillTime: Double = 1.5,
                fieldMagnitudeTolerance: Double = 0.1, dipTolerance: Double = 10, fieldSettleTime: Double = 0.5,
                fieldReturnAngle: Double = 30, fieldReturnTime: Double = 5, referenceTimeConstant: Double = 20,
                newFieldTime: Double = 20, newFieldFirstTime: Double = 5, newFieldAngle: Double = 15, newFieldRate: Double = 20,
                gnssCourseAid: Bool = false, courseAidMinimumSpeed: Double = 5, courseGain: Double = 0.1) {
        self.accelerationTimeConstant = accelerationTimeConstant
        self.accelerationDisagreement = accelerationDisagreement
        self.fieldTimeConstant = fieldTimeConstant
        self.fieldRecoveryAngle = fieldRecoveryAngle
        self.motionBiasTimeConstant = motionBiasTimeConstant
        self.headingBiasRate = headingBiasRate
        self.biasTimeConstant = biasTimeConstant
        self.biasLimit = biasLimit
        self.stillRateThreshold = stillRateThreshold
        self.stillAccelerationThreshold = stillAccelerationThreshold
        self.stillFieldThreshold = stillFieldThreshold
        self.stillTime = stillTime
        self.fieldMagnitudeTolerance = fieldMagnitudeTolerance
        self.dipTolerance = dipTolerance
        self.fieldSettleTime = fieldSettleTime
        self.fieldReturnAngle = fieldReturnAngle
        self.fieldReturnTime = fieldReturnTime
        self.referenceTimeConstant = referenceTimeConstant
        self.newFieldTime = newFieldTime
        self.newFieldFirstTime = newFieldFirstTime
        self.newFieldAngle = newFieldAngle
        self.newFieldRate = newFieldRate
        self.gnssCourseAid = gnssCourseAid
        self.courseAidMinimumSpeed = courseAidMinimumSpeed
        self.courseGain = courseGain
    }
}
