import Foundation
import Heading

/// One sample set of the motion world: what the sensors read (body FRD) and the truth.
struct MotionSample {
    var t: Double
    /// Degrees per second.
    var gyroscope: Vector3
    /// Specific force, g.
    var acceleration: Vector3
    /// Calibrated field, µT.
    var field: Vector3
    /// True heading of the body x axis, degrees.
    var trueHeading: Double
}

/// Where the unit is pointing and how it accelerates at time t.
struct MotionState {
    /// Euler angles, degrees (R = Rz(yaw) Ry(pitch) Rx(roll)).
    var yaw: Double, pitch: Double, roll: Double
    /// Linear acceleration in NED, g.
    var linear: Vector3 = .zero
    /// Field added to the earth's, NED, µT.
    var disturbance: Vector3 = .zero
}

/// A seeded simulated world for the attitude tests: a trajectory (attitude, linear acceleration,
/// disturbance as functions of time) sensed by a gyroscope with bias, noise and scale error, an
/// accelerometer with noise and vibration, and a calibrated magnetometer with noise.
struct MotionWorld {
    static let reference = ReferenceField(declination: 13.2, inclination: 61.5, totalIntensity: 48.9)
    var rng: SplitMix
    var rate = 100.0
    var gyroscopeBias = Vector3(0.15, -0.1, 0.2)
    /// Degrees per second, 1σ per sample (LSM6DSOX: 3.8 mdps/√Hz over a 50 Hz band ≈ 0.03).
    var gyroscopeNoise = 0.05
    var gyroscopeScale = 1.003
    /// g, 1σ per sample.
    var accelerationNoise = 0.002
    /// Broadband vibration on the accelerometer, g 1σ (engine, road), and on the gyroscope, dps.
    var vibration = 0.0
    var gyroscopeVibration = 0.0
    /// µT, 1σ per sample.
    var fieldNoise = 0.2
    /// Sample-time jitter as a fraction of the period (uniform, ±half of it): irregular timestamps.
    var timeJitter = 0.0
    /// The gyroscope's full scale, degrees per second: rates beyond it read as the limit.
    var gyroscopeRange = Double.infinity

    init(seed: UInt64) { rng = SplitMix(state: seed) }

    mutating func run(duration: Double, _ state: (Double) -> MotionState) -> [MotionSample] {
        let earth = nedField(declination: Self.reference.declination, inclination: Self.reference.inclination,
                             total: Self.reference.totalIntensity)
        let dt = 1 / rate
        let count = Int((duration * rate).rounded())
        var samples: [MotionSample] = []
        samples.reserveCapacity(count)
        var previous: AttitudeQuaternion? = nil
        var previousTime = 0.0
        for k in 0..<count {
            var t = Double(k) * dt
            if k > 0, timeJitter > 0 { t += timeJitter * dt * Double.random(in: -0.5...0.5, using: &rng) }
            let step = t - previousTime
            previousTime = t
            let s = state(t)
            let q = AttitudeQuaternion(roll: s.roll, pitch: s.pitch, yaw: s.yaw)
            // Mean body rate over the last interval, from the relative rotation.
            var omega = Vector3.zero
            if let p = previous {
                var d = p.conjugate * q
                if d.w < 0 { d = AttitudeQuaternion(w: -d.w, x: -d.x, y: -d.y, z: -d.z) }
                let v = Vector3(d.x, d.y, d.z)
                let n = v.length
                if n > 1e-15 { omega = v * (2 * atan2(n, d.w) / n / step * 180 / .pi) }
            }
            previous = q
            let toBody = q.conjugate
            var gyro = omega * gyroscopeScale + gyroscopeBias
                + noise(gyroscopeNoise) + noise(gyroscopeVibration)
            let r = gyroscopeRange
            gyro = Vector3(max(-r, min(r, gyro.x)), max(-r, min(r, gyro.y)), max(-r, min(r, gyro.z)))
            let specificForce = toBody.rotate(s.linear - Vector3(0, 0, 1))
            let accel = specificForce + noise(accelerationNoise) + noise(vibration)
            let field = toBody.rotate(earth + s.disturbance) + noise(fieldNoise)
            samples.append(MotionSample(t: t, gyroscope: gyro, acceleration: accel, field: field, trueHeading: wrap360(s.yaw)))
        }
        return samples
    }

    private mutating func noise(_ sigma: Double) -> Vector3 {
        guard sigma > 0 else { return .zero }
        return Vector3(rng.gaussian(sigma), rng.gaussian(sigma), rng.gaussian(sigma))
    }
}

/// A smooth step from 0 (t ≤ start) to 1 (t ≥ start + length).
func smoothStep(_ t: Double, start: Double, length: Double) -> Double {
    if t <= start { return 0 }
    if t >= start + length { return 1 }
    return 0.5 - 0.5 * cos(.pi * (t - start) / length)
}

/// A smooth pulse: 0 outside [start, start + length], rising and falling over `edge` seconds.
func smoothPulse(_ t: Double, start: Double, length: Double, edge: Double) -> Double {
    smoothStep(t, start: start, length: edge) - smoothStep(t, start: start + length - edge, length: edge)
}

/// Errors of a heading series against the truth: RMS, 99th percentile and peak, degrees.
struct HeadingErrors: CustomStringConvertible {
    var rms: Double, p99: Double, peak: Double, count: Int

    init(_ errors: [Double]) {
        count = errors.count
        let magnitudes = errors.map(abs).sorted()
        rms = count == 0 ? .nan : (errors.reduce(0) { $0 + $1 * $1 } / Double(count)).squareRoot()
        p99 = count == 0 ? .nan : magnitudes[Int(0.99 * Double(count - 1))]
        peak = magnitudes.last ?? .nan
    }

    var description: String {
        String(format: "RMS %.2f°, p99 %.2f°, peak %.2f° (%d samples)", rms, p99, peak, count)
    }
}

/// Today's path and the filter over the same samples.
struct SideBySide {
    var tiltErrors: [Double]
    var filterErrors: [Double]
    var final: AttitudeFilter
    var tilt: HeadingErrors { HeadingErrors(tiltErrors) }
    var filter: HeadingErrors { HeadingErrors(filterErrors) }
}

/// Runs the tilt compensation and the attitude filter over the samples from `from` seconds on
/// (the filter sees every sample). A tilt sample that cannot be solved counts as a 180° error.
/// `reference` is the World Magnetic Model field the filter is given (`nil`: no place known);
/// its errors are of magnetic heading plus the world's declination either way. `speed` is the
/// GNSS speed the filter is told at a time (m/s), as the engine passes a recent fix's.
func compare(_ samples: [MotionSample], from: Double = 0, gains: AttitudeFilterGains = AttitudeFilterGains(),
             initialBias: Vector3 = .zero, reference: ReferenceField? = MotionWorld.reference,
             speed: (Double) -> Double? = { _ in nil }) -> SideBySide {
    var filter = AttitudeFilter(gains: gains, reference: reference, initialBias: initialBias)
    var tiltErrors: [Double] = [], filterErrors: [Double] = []
    var last: Double? = nil
    for s in samples {
        filter.update(gyroscope: s.gyroscope, acceleration: s.acceleration, field: s.field,
                      deltaTime: last.map { s.t - $0 } ?? 0, speed: speed(s.t))
        last = s.t
        guard s.t >= from else { continue }
        switch TiltCompensation.solve(acceleration: s.acceleration, field: s.field) {
        case .success(let solution):
            tiltErrors.append(wrap180(solution.magneticHeading + MotionWorld.reference.declination - s.trueHeading))
        case .failure:
            tiltErrors.append(180)
        }
        let heading = filter.magneticHeading.map { $0 + MotionWorld.reference.declination } ?? .nan
        filterErrors.append(wrap180(heading - s.trueHeading))
    }
    return SideBySide(tiltErrors: tiltErrors, filterErrors: filterErrors, final: filter)
}
