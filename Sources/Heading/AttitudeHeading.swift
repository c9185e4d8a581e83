/// The attitude filter's state after one sample, as headings carry it.
public struct AttitudeEstimate: Sendable, Hashable {
    /// The attitude: body FRD to magnetic NED.
    public var quaternion: AttitudeQuaternion
    /// Roll, degrees (right side down positive).
    public var roll: Double
    /// Pitch, degrees (nose up positive).
    public var pitch: Double
    /// Yaw: the magnetic heading of the body x axis, degrees in [0, 360).
    public var yaw: Double
    /// The sources the filter believed for this sample.
    public var sources: AttitudeSources
    /// The measured body rates (before the bias is taken off), degrees per second, FRD.
    public var rotationRate: Vector3
    /// The estimated gyroscope bias, degrees per second, FRD.
    public var gyroscopeBias: Vector3
    /// Whether the filter counts the unit as still (it is learning the bias).
    public var isStill: Bool
    /// New field references the filter adopted (a steady field somewhere else), since it started.
    public var recoveries: Int
    /// The GNSS speed over ground (m/s) given to the filter with this sample, when there was one
    /// (a fix under 2 s old in the engine).
    public var groundSpeed: Double?
    /// The GNSS course over ground (degrees from true north) given with this sample, when there was one.
    public var groundCourse: Double?

    /// Creates an estimate from its values.
    public init(quaternion: AttitudeQuaternion, roll: Double, pitch: Double, yaw: Double, sources: AttitudeSources,
                rotationRate: Vector3, gyroscopeBias: Vector3, isStill: Bool, recoveries: Int,
                groundSpeed: Double? = nil, groundCourse: Double? = nil) {
        self.quaternion = quaternion
        self.roll = roll
        self.pitch = pitch
        self.yaw = yaw
        self.sources = sources
        self.rotationRate = rotationRate
        self.gyroscopeBias = gyroscopeBias
        self.isStill = isStill
        self.recoveries = recoveries
        self.groundSpeed = groundSpeed
        self.groundCourse = groundCourse
    }
}

extension HeadingFlags {
    /// The conditions the attitude filter rejects by itself (it does not believe the
    /// accelerometer or the field while they hold): reported on a fused reading, but they do not
    /// degrade it.
    public static let handledByAttitudeFilter: HeadingFlags = [.accelerating, .magnitudeMismatch, .inclinationMismatch,
                                                               .invalidSample]
}

extension HeadingEngine {
    /// Processes one burst of raw samples through `filter`: accelerometer (g) and gyroscope
    /// (degrees per second) in the accelerometer's axes (one die), magnetometer (µT) in its own
    /// axes, `deltaTime` seconds after the previous burst.
    ///
    /// The reading's headings are the filter's (magnetic yaw, plus the reference's declination),
    /// with ``HeadingReading/attitude`` set; its field, acceleration and flags are those of
    /// today's tilt compensation of the same samples (``process(acceleration:field:)``), so a
    /// disturbance is still reported, but the conditions in
    /// ``HeadingFlags/handledByAttitudeFilter`` do not degrade it. The accuracy is the tilt
    /// compensation's estimate for the filter's gravity instead of the measured one. Until the
    /// filter has an attitude the reading is the tilt compensation's.
    ///
    /// The filter follows this engine's ``reference`` (declination, and the prior of its learnt
    /// field reference); the fix's speed also takes a vehicle's centripetal and longitudinal
    /// acceleration off the accelerometer (see ``AttitudeFilter/centripetalSpeed``). A
    /// raw field of exactly zero (a magnetometer before its first conversion) is not given to it.
    public func fuse(into filter: inout AttitudeFilter, acceleration rawAcceleration: Vector3, field rawField: Vector3,
                     rotationRate rawRate: Vector3, deltaTime: Double, speed: Double? = nil,
                     course: Double? = nil) -> HeadingReading {
        // A magnetometer reads exactly zero on every axis only before its first conversion: the
        // reading then has no field (an invalid sample, and nothing for the filter to believe or
        // start from), where the calibration offset would turn the zeros into a field pointing anywhere.
        var reading = rawField == .zero
            ? solve(acceleration: accelerometerMount * rawAcceleration, field: .zero)
            : process(acceleration: rawAcceleration, field: rawField)
        if filter.reference != reference { filter.setReference(reference) }
        let rate = accelerometerMount * rawRate
        let sources = filter.update(gyroscope: rate, acceleration: reading.acceleration, field: reading.field,
                                    deltaTime: deltaTime, speed: speed, course: course)
        guard filter.isInitialised else { return reading }
        let q = filter.quaternion
        let yaw = q.yaw
        reading.magneticHeading = yaw
        reading.trueHeading = reference.map { wrap360(yaw + $0.declination) }
        let estimated = solve(acceleration: q.downInBody * -1, field: reading.field)
        reading.accuracy = estimated.accuracy ?? reading.accuracy
        let remaining = reading.flags.subtracting(.handledByAttitudeFilter)
        reading.quality = remaining.isDisjoint(with: HeadingFlags.degrading.union(.disqualifying)) ? .good : .degraded
        reading.attitude = AttitudeEstimate(quaternion: q, roll: q.roll, pitch: q.pitch, yaw: yaw, sources: sources,
                                            rotationRate: rate, gyroscopeBias: filter.gyroscopeBias,
                                            isStill: filter.isStill, recoveries: filter.recoveries,
                                            groundSpeed: speed, groundCourse: course)
        return reading
    }
}
