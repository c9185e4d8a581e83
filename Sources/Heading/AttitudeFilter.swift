import RealModule

/// An attitude filter that keeps working through fast rotation, translation and magnetic
/// disturbances (docs/ATTITUDE.md has the design and the measurements behind it).
///
/// The attitude is kept as three factors, `q = heading ⊗ inclination ⊗ strapdown`:
/// - **strapdown**: the bias-corrected gyroscope integrated on its own (body to a
///   quasi-inertial frame that drifts only as slowly as the residual bias);
/// - **inclination**: the specific force, rotated into that quasi-inertial frame and low-pass
///   filtered there over ``AttitudeFilterGains/accelerationTimeConstant`` seconds, is pulled to
///   vertical. Linear and centripetal accelerations of bounded velocity average out in that frame,
///   gravity does not, so there is no gate on |a| that fast motion would keep shut;
/// - **heading**: a rotation about the vertical, pulled toward the field's horizontal direction
///   over ``AttitudeFilterGains/fieldTimeConstant`` seconds, only once the field has agreed with
///   a *learnt* reference norm and dip for ``AttitudeFilterGains/fieldSettleTime`` seconds without
///   a break. The field never tilts the attitude.
///
/// The gyroscope bias is learnt quickly while the unit is still (rates, specific force *and* the
/// field's direction in the body steady, so a slow turn is not taken for bias) and slowly from
/// the corrections while it moves. The first field reference is the measured field; a World
/// Magnetic Model reference gives declination and only decides whether that reference starts
/// confirmed; it is never a gate. Nothing resets the attitude from a single sensor.
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
    /// Whether the unit counts as still (the bias is being learnt from the rates).
    public var isStill: Bool { stillTimer >= gains.stillTime }
    /// Number of times a new, steady field was adopted as the reference.
    public private(set) var recoveries = 0
    /// The World Magnetic Model field where the unit is: declination for true heading; a first
    /// field that disagrees with it starts unconfirmed. `nil` gives magnetic heading only.
    public private(set) var reference: ReferenceField?
    /// The field reference in use, learnt from the data: total intensity (µT) and dip (degrees).
    public var learntField: (intensity: Double, inclination: Double) {
        ((fieldH * fieldH + fieldV * fieldV).squareRoot(), Double.atan2(y: fieldV, x: fieldH) * degreesPerRadian)
    }

    // The three factors of the attitude.
    private var strapdown: AttitudeQuaternion = .identity
    private var inclination: AttitudeQuaternion = .identity
    /// The heading factor as the half-angle cosine and sine of its rotation about down.
    private var headingHalf = (c: 1.0, s: 0.0)
    /// Specific force low-pass filtered in the strapdown frame, g.
    private var filteredForce = Vector3.zero
    /// Earth down in body coordinates after the last update: the third row of
    /// `inclination ⊗ strapdown`, which is also the attitude's (the heading factor turns about down).
    private var levelDown = Vector3(0, 0, 1)
    // Elapsed times for the running-mean start of the two corrections, seconds.
    private var accelerationTime = 0.0
    private var fieldTime = 0.0
    // How long the field has agreed with the reference without a break, seconds.
    private var settleTime = 0.0
    // The field reference (horizontal and vertical parts, µT), and a candidate for a new one.
    private var fieldH = 0.0, fieldV = 0.0
    private var referenceConfirmed = false
    private var candidateH = 0.0, candidateV = 0.0, candidateTime = 0.0
    // Stillness: short averages of rates and force, the field direction at its start, its timer.
    private var rateAverage = Vector3.zero
    private var forceAverage = Vector3.zero
    private var fieldAnchor = Vector3.zero
    private var stillTimer = 0.0
    // Precomputed from the gains.
    private var cosDipTolerance = 0.0
    private var fieldChord = 0.0
    private var courseAidSpeedSquared = 0.0
    private var newFieldRateSquared = 0.0
    // The mean square rotation rate over the heading time constant (rad²/s²), and its half-weight value.
    private var rotationSquared = 0.0, headingBiasRateSquared = 0.0
    private var disagreementScale = 0.0
    private var stillAccelerationSquared = 0.0
    private var magnitudeLowerSquared = 0.0, magnitudeUpperSquared = 0.0, cosDipSquared = 0.0
    /// The per-step coefficients, recomputed only when the step changes.
    private var step = StepCoefficients(dt: 0, gains: AttitudeFilterGains())
    // The GNSS speed last seen, the time since it changed, and the acceleration it implies (m/s²).
    private var lastSpeed = Double.nan, speedClock = 0.0, longitudinal = 0.0
    private var recoveryScale = 0.0
    // Whether the field was disturbed since it last corrected the heading; how long a field back in
    // norm and dip but far from north has pointed steadily, and where (radians); the angle.
    private var returning = false, returnTime = 0.0, returnError = 0.0, returnAngle = 0.0
    private var newFieldTangent = 0.0

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
        cosDipTolerance = Double.cos(newGains.dipTolerance / degreesPerRadian)
        cosDipSquared = cosDipTolerance * cosDipTolerance
        magnitudeLowerSquared = max(0, 1 - newGains.fieldMagnitudeTolerance) * max(0, 1 - newGains.fieldMagnitudeTolerance)
        magnitudeUpperSquared = (1 + newGains.fieldMagnitudeTolerance) * (1 + newGains.fieldMagnitudeTolerance)
        stillAccelerationSquared = newGains.stillAccelerationThreshold * newGains.stillAccelerationThreshold
        step = StepCoefficients(dt: 0, gains: newGains)
        fieldChord = 2 * Double.sin(newGains.stillFieldThreshold / degreesPerRadian / 2)
        courseAidSpeedSquared = newGains.courseAidMinimumSpeed * newGains.courseAidMinimumSpeed
        let rate = newGains.newFieldRate / degreesPerRadian
        newFieldRateSquared = rate * rate
        let calm = newGains.headingBiasRate / degreesPerRadian
        headingBiasRateSquared = calm * calm
        let separation = 1 - Double.cos(newGains.accelerationDisagreement / degreesPerRadian)
        disagreementScale = separation > 0 ? 1 / (separation * separation) : 0
        newFieldTangent = Double.tan(min(89, max(0, newGains.newFieldAngle)) / degreesPerRadian)
        returnAngle = newGains.fieldReturnAngle / degreesPerRadian
        let recovery = newGains.fieldRecoveryAngle / degreesPerRadian
        recoveryScale = recovery > 0 ? 1 / (recovery * recovery) : 0
    }

    /// Replaces the World Magnetic Model field (after a position fix, or when the unit has moved
    /// far). A running filter keeps the reference it has learnt; the new one gives declination,
    /// and is what the next start compares the field with.
    public mutating func setReference(_ newReference: ReferenceField?) {
        reference = newReference
    }

    /// Forgets the attitude and the learnt field (the next sample initialises them again); the
    /// bias is kept.
    public mutating func reset() {
        isInitialised = false
        quaternion = .identity
        stillTimer = 0
        sources = []
    }
}

extension AttitudeFilter {
    /// Above this GNSS speed (m/s) the unit is not still whatever its gyroscope says.
    public static let stillSpeedLimit = 0.5
    /// A gap between samples longer than this (seconds) re-initialises the attitude from the
    /// sensors instead of integrating the gyroscope across it.
    public static let maximumStep = 1.0
    /// Time constant of the short averages the stillness test compares with, seconds.
    static let stillAverageTime = 0.5
    /// Above this GNSS speed (m/s) the centripetal acceleration ω × v of a vehicle whose x axis
    /// points forward, and its longitudinal acceleration from the change of speed, are taken off
    /// the accelerometer.
    public static let centripetalSpeed = 2.0
    /// m/s² per g.
    static let standardGravity = 9.80665
    /// Heading errors above this (radians, 10°) are transients, not bias: they do not feed it.
    static let biasLearningError = 0.17

    /// Processes one sample set taken at the same time.
    ///
    /// - Parameters:
    ///   - gyroscope: body rates, degrees per second, FRD.
    ///   - acceleration: specific force, g, FRD (level and still reads (0, 0, -1)).
    ///   - field: calibrated field, µT, FRD.
    ///   - deltaTime: seconds since the previous sample.
    ///   - speed: GNSS speed over ground, m/s, when known (stops bias learning from the rates
    ///     while moving; enables the course aid).
    ///   - course: GNSS course over ground, degrees clockwise from true north, when known.
    /// - Returns: the sources believed (also kept in ``sources``).
    @discardableResult
    public mutating func update(gyroscope g: Vector3, acceleration a: Vector3, field m: Vector3, deltaTime dt: Double,
                                speed: Double? = nil, course: Double? = nil) -> AttitudeSources {
        // Squared norms: a square root only where a length itself is needed. The range tests also
        // reject NaN and infinite parts (any comparison with NaN is false; an infinite part makes
        // the squared norm infinite), so no separate isFinite test is made.
        let aSquared = a.dot(a), mSquared = m.dot(m)
        let accelerationUsable = aSquared > 1e-12 && aSquared < 1e6
        let fieldUsable = mSquared > 1e-18 && mSquared < 1e12
        if isInitialised, !(dt.isFinite && dt > 0 && dt <= Self.maximumStep) { reset() }
        guard isInitialised else {
            guard accelerationUsable, fieldUsable, start(acceleration: a, field: m, fieldSquared: mSquared) else {
                sources = []
                return []
            }
            sources = [.accelerometer, .magnetometer]
            return sources
        }
        guard abs(g.x) < 1e5, abs(g.y) < 1e5, abs(g.z) < 1e5 else {
            sources = []
            return []
        }

        // Stillness: rates small, force and field direction steady. Bias from the rates then.
        if dt != step.dt { step = StepCoefficients(dt: dt, gains: gains) }
        let kShort = step.short
        rateAverage = rateAverage + (g - rateAverage) * kShort
        let rate = g - gyroscopeBias
        let threshold = gains.stillRateThreshold
        var still = (speed ?? 0) <= Self.stillSpeedLimit && abs(rate.x) < threshold && abs(rate.y) < threshold
            && abs(rate.z) < threshold
        if accelerationUsable {
            forceAverage = forceAverage + (a - forceAverage) * kShort
            let deviation = a - forceAverage
            still = still && deviation.dot(deviation) < stillAccelerationSquared
        }
        if still, fieldUsable {
            let direction = m * (1 / mSquared.squareRoot())
            if stillTimer == 0 {
                fieldAnchor = direction
            } else if (direction - fieldAnchor).length > fieldChord {
                still = false
            }
        }
        if still {
            stillTimer += dt
            if stillTimer >= gains.stillTime {
                gyroscopeBias = gyroscopeBias + (rateAverage - gyroscopeBias) * step.rest
            }
        } else {
            stillTimer = 0
        }
        let learning = stillTimer < gains.stillTime

        // Strapdown integration of the bias-corrected rates.
        let omega = (g - gyroscopeBias) * radiansPerDegree
        strapdown = Self.renormalised(strapdown * Self.rotation(omega, over: dt))
        rotationSquared += (omega.dot(omega) - rotationSquared) * step.field
        var believed: AttitudeSources = [.gyroscope]
        // inclination ⊗ strapdown (body to the levelled frame), once the inclination is final.
        var bodyToLevel = AttitudeQuaternion.identity
        var levelKnown = false

        // Gravity: the force low-passed in the strapdown frame, pulled to vertical. With a GNSS
        // speed the centripetal acceleration ω × v (x forward) is taken off first.
        if accelerationUsable {
            var force = a
            var speedCompensated = false
            if let speed, speed.isFinite, speed > Self.centripetalSpeed {
                speedCompensated = true
                // The fix's change of speed gives the longitudinal acceleration (held between changes).
                speedClock += dt
                if speed != lastSpeed {
                    longitudinal = lastSpeed.isFinite ? (speed - lastSpeed) / speedClock : 0
                    lastSpeed = speed
                    speedClock = 0
                }
                let acceleration = omega.cross(Vector3(speed, 0, 0)) + Vector3(longitudinal, 0, 0)
                force = force - acceleration * (1 / Self.standardGravity)
            } else {
                lastSpeed = .nan
                longitudinal = 0
            }
            accelerationTime += dt
            // A sample that disagrees with the estimated gravity counts less (half at the
            // disagreement angle, compared through 1 - cos without trigonometry).
            // With L = |force|, separation = 1 + force·down / L = (L + force·down) / L, so the
            // weight 1 / (1 + separation² s) is L² / (L² + (L + force·down)² s): one division.
            let down = levelDown
            let forceSquared = speedCompensated ? force.dot(force) : aSquared
            let forceLength = forceSquared.squareRoot()
            let sum = forceLength + force.dot(down)
            let weight = forceLength > 0 ? forceSquared / (forceSquared + sum * sum * disagreementScale) : 1
            var k = weight * step.acceleration
            if accelerationTime < gains.accelerationTimeConstant + dt { k = max(k, dt / accelerationTime) }
            filteredForce = filteredForce + (strapdown.rotate(force) - filteredForce) * k
            if !filteredForce.isFinite { filteredForce = strapdown.rotate(a) }
            // |level| is |filteredForce| (a rotation keeps lengths): its square root need not wait
            // for the rotation.
            let length = filteredForce.length
            let level = inclination.rotate(filteredForce)
            if length > 1e-9 {
                // Down in the levelled frame is d = -level / length; the shortest rotation taking d
                // onto (0, 0, 1) is (1 + d.z, d.y, -d.x, 0) normalised, i.e. (length - level.z,
                // -level.y, level.x, 0) / (2 length) normalised. Its norm is cos(θ/2) for a
                // correction by θ, within 1e-8 of 1 for a running filter's steps of a milliradian;
                // it is left as it is: the product below is normalised, and the drift fed to the bias
                // is taken only from corrections under 0.02 rad (norm within 5e-5 of 1).
                let w = length - level.z
                let correction: AttitudeQuaternion
                if w > 1e-9 * length {
                    let scale = 1 / (2 * length)
                    correction = AttitudeQuaternion(w: w * scale, x: -level.y * scale, y: level.x * scale, z: 0)
                } else {
                    correction = AttitudeQuaternion(w: 0, x: 1, y: 0, z: 0)
                }
                inclination = Self.renormalised(Self.product(correction, inclination))
                bodyToLevel = inclination * strapdown
                levelKnown = true
                believed.insert(.accelerometer)
                if learning, accelerationTime > gains.accelerationTimeConstant,
                   correction.x * correction.x + correction.y * correction.y < 1e-4 {
                    // The correction is the drift of the strapdown frame: feed it back into the bias.
                    // Its rotation vector (2x, 2y, 0) in the body: the first two rows of bodyToLevel.
                    let drift = bodyToLevel.northInBody * (2 * correction.x) + bodyToLevel.eastInBody * (2 * correction.y)
                    gyroscopeBias = gyroscopeBias - drift * step.bias
                }
            }
        }

        // Field: heading about the vertical, while it agrees with the learnt reference.
        if !levelKnown { bodyToLevel = inclination * strapdown }
        levelDown = bodyToLevel.downInBody
        if fieldUsable, fieldStep(m, lengthSquared: mSquared, omega: omega, dt: dt, learning: learning, bodyToLevel: bodyToLevel) {
            believed.insert(.magnetometer)
        }

        // GNSS course (vehicles): a heading correction about the vertical.
        if gains.gnssCourseAid, let speed, let course, course.isFinite, speed.isFinite,
           speed * speed >= courseAidSpeedSquared {
            let magneticCourse = course - (reference?.declination ?? 0)
            let yaw = composed(bodyToLevel).yaw
            let error = wrap180(magneticCourse - yaw) / degreesPerRadian
            turnHeading(by: min(1, gains.courseGain * dt) * error)
            believed.insert(.gnssCourse)
        }
        let limit = gains.biasLimit
        gyroscopeBias = Vector3(max(-limit, min(limit, gyroscopeBias.x)), max(-limit, min(limit, gyroscopeBias.y)),
                                max(-limit, min(limit, gyroscopeBias.z)))
        quaternion = composed(bodyToLevel)
        sources = believed
        return believed
    }

    /// One field sample: the disturbance test against the learnt reference, then either the
    /// heading correction (and the reference follows) or the candidate for a new reference.
    private mutating func fieldStep(_ m: Vector3, lengthSquared: Double, omega: Vector3, dt: Double, learning: Bool,
                                    bodyToLevel: AttitudeQuaternion) -> Bool {
        let level = bodyToLevel.rotate(m)
        let h = (level.x * level.x + level.y * level.y).squareRoot(), v = level.z
        if agrees(h, v, lengthSquared, fieldH, fieldV) {
            candidateTime = 0
            settleTime += dt
            // Not yet settled: a sample agreeing amid a disturbance is chance, not the earth's field.
            guard settleTime >= gains.fieldSettleTime, h * h > 1e-18 * lengthSquared else { return false }
            // The field's horizontal direction after the heading factor: north when right.
            let c = headingHalf.c * headingHalf.c - headingHalf.s * headingHalf.s
            let s = 2 * headingHalf.c * headingHalf.s
            let error = Self.angle(y: s * level.x + c * level.y, x: c * level.x - s * level.y)
            if returning, abs(error) > returnAngle {
                // Back in norm and dip after a disturbance, but far from where the gyroscope carried
                // north: a disturbance that matches by chance, unless it points steadily for long.
                var drift = error - returnError
                if drift > Double.pi { drift -= 2 * Double.pi } else if drift < -Double.pi { drift += 2 * Double.pi }
                if returnTime > 0, abs(drift) < returnAngle / 3 {
                    returnTime += dt
                    returnError += drift * step.candidate
                } else {
                    returnTime = dt
                    returnError = error
                }
                guard returnTime >= gains.fieldReturnTime else { return false }
            }
            returning = false
            returnTime = 0
            let kReference = step.reference
            fieldH += (h - fieldH) * kReference
            fieldV += (v - fieldV) * kReference
            referenceConfirmed = true
            fieldTime += dt
            let speedUp = 1 + error * error * recoveryScale
            var k = speedUp * step.field
            if fieldTime < gains.fieldTimeConstant + dt { k = max(k, dt / fieldTime) }
            k = min(1, k)
            let turn = -k * error
            turnHeading(by: turn)
            if learning, fieldTime > gains.fieldTimeConstant, abs(error) < Self.biasLearningError {
                // The turn about down, in the body: down's row of bodyToLevel; weighed down after
                // fast rotation, whose scale and cross-axis error is not bias.
                let calm = headingBiasRateSquared / (headingBiasRateSquared + rotationSquared)
                gyroscopeBias = gyroscopeBias - levelDown * (turn * step.bias * calm)
            }
            return true
        }
        settleTime = 0
        returning = referenceConfirmed
        returnTime = 0
        // Disturbed. A different field that stays steady (while turning, once the first
        // reference is confirmed) long enough, and points where the attitude says north is,
        // becomes the reference: the earth's field somewhere else, not a magnet beside the unit.
        let c = headingHalf.c * headingHalf.c - headingHalf.s * headingHalf.s
        let s = 2 * headingHalf.c * headingHalf.s
        let northward = c * level.x - s * level.y, eastward = s * level.x + c * level.y
        let startingOut = !referenceConfirmed && h * h > 1e-18 * lengthSquared
        if startingOut {
            // Nothing has confirmed the one-sample first reference: the field is all there is, so
            // it corrects the heading as the start's running mean (VQF's fast initial convergence).
            let error = Self.angle(y: eastward, x: northward)
            fieldTime += dt
            turnHeading(by: -min(1, max((1 + error * error * recoveryScale) * step.field, dt / fieldTime)) * error)
        }
        let pointsNorth = !referenceConfirmed || northward > 0 && abs(eastward) < newFieldTangent * northward
        if pointsNorth, agrees(h, v, lengthSquared, candidateH, candidateV) {
            if !referenceConfirmed || omega.dot(omega) > newFieldRateSquared { candidateTime += dt }
        } else {
            candidateTime = 0
        }
        let kCandidate = step.candidate
        candidateH += (h - candidateH) * kCandidate
        candidateV += (v - candidateV) * kCandidate
        if candidateTime > (referenceConfirmed ? gains.newFieldTime : gains.newFieldFirstTime) {
            fieldH = candidateH
            fieldV = candidateV
            referenceConfirmed = true
            candidateTime = 0
            recoveries += 1
        }
        return startingOut
    }

    /// Whether a field of horizontal part `h`, vertical part `v` and squared norm `lengthSquared`
    /// agrees with the reference (`rh`, `rv`) in norm and dip.
    @inline(__always)
    private func agrees(_ h: Double, _ v: Double, _ lengthSquared: Double, _ rh: Double, _ rv: Double) -> Bool {
        // Compared squared: no square root.
        let normSquared = rh * rh + rv * rv
        let dot = h * rh + v * rv
        return lengthSquared >= magnitudeLowerSquared * normSquared && lengthSquared <= magnitudeUpperSquared * normSquared
            && dot > 0 && dot * dot >= cosDipSquared * lengthSquared * normSquared
    }

    /// Turns the heading factor by `angle` radians about down.
    @inline(__always)
    private mutating func turnHeading(by angle: Double) {
        let half = angle / 2
        let c: Double, s: Double
        if abs(half) < 0.05 {
            let h2 = half * half
            c = 1 - h2 / 2
            s = half * (1 - h2 / 6)
        } else {
            c = Double.cos(half)
            s = Double.sin(half)
        }
        let nc = headingHalf.c * c - headingHalf.s * s, ns = headingHalf.s * c + headingHalf.c * s
        // One Newton step of 1/sqrt: the product of two unit rotations is off unit by rounding only.
        let k = 1.5 - 0.5 * (nc * nc + ns * ns)
        headingHalf = k.isFinite && k > 0.5 ? (nc * k, ns * k) : (1, 0)
    }

    /// heading ⊗ inclination ⊗ strapdown.
    private func composed(_ bodyToLevel: AttitudeQuaternion) -> AttitudeQuaternion {
        // (c, 0, 0, s) ⊗ (inclination ⊗ strapdown) written out; every factor is kept at unit norm.
        let (c, s) = headingHalf, i = bodyToLevel
        return AttitudeQuaternion(w: c * i.w - s * i.z, x: c * i.x - s * i.y, y: c * i.y + s * i.x, z: c * i.z + s * i.w)
    }

    /// Starts from one sample: the tilt-compensated sensor solution, and the first field reference
    /// (the measured one; unconfirmed when a World Magnetic Model prior disagrees with it).
    private mutating func start(acceleration a: Vector3, field m: Vector3, fieldSquared: Double) -> Bool {
        guard let q = Self.sensorSolution(down: a * (-1 / a.length), field: m) else { return false }
        strapdown = .identity
        inclination = q
        headingHalf = (1, 0)
        filteredForce = a
        forceAverage = a
        rotationSquared = 0
        rateAverage = gyroscopeBias
        accelerationTime = 0
        fieldTime = 0
        settleTime = 0
        stillTimer = 0
        candidateTime = 0
        returning = false
        returnTime = 0
        let level = q.rotate(m)
        let h = (level.x * level.x + level.y * level.y).squareRoot(), v = level.z
        candidateH = h
        candidateV = v
        // The measured field is the first reference even when the model disagrees (indoors it
        // mostly does), so the start's running mean corrects a bad first sample at once. Until a
        // field agrees with it (the next sample, normally), a reference that the model does not
        // confirm, or any without a place, is unconfirmed: a different steady field replaces it
        // within seconds. One sample is no evidence: a stale first row (another attitude's field)
        // would otherwise stay the reference, and the field unused, for good.
        fieldH = h
        fieldV = v
        referenceConfirmed = reference.map {
            agrees(h, v, fieldSquared, $0.horizontalIntensity, $0.totalIntensity * Double.sin($0.inclination / degreesPerRadian))
        } ?? false
        quaternion = q
        levelDown = q.downInBody
        isInitialised = true
        return true
    }
}
