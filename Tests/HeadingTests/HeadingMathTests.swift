import Foundation
import Heading
import Testing

/// Deterministic random numbers (SplitMix64) so every run sees the same samples.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func gaussian(_ sigma: Double) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// Body-to-NED rotation R = Rz(yaw) Ry(pitch) Rx(roll), degrees.
func bodyToNED(yaw: Double, pitch: Double, roll: Double) -> Matrix3 {
    let (y, p, r) = (yaw * .pi / 180, pitch * .pi / 180, roll * .pi / 180)
    let rz = Matrix3(rows: Vector3(cos(y), -sin(y), 0), Vector3(sin(y), cos(y), 0), Vector3(0, 0, 1))
    let ry = Matrix3(rows: Vector3(cos(p), 0, sin(p)), Vector3(0, 1, 0), Vector3(-sin(p), 0, cos(p)))
    let rx = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, cos(r), -sin(r)), Vector3(0, sin(r), cos(r)))
    return rz * ry * rx
}

/// The field in NED from declination, inclination and intensity (µT).
func nedField(declination: Double, inclination: Double, total: Double) -> Vector3 {
    let (d, i) = (declination * .pi / 180, inclination * .pi / 180)
    return Vector3(total * cos(i) * cos(d), total * cos(i) * sin(d), total * sin(i))
}

/// A still unit at an attitude: accelerometer (g) and true field (µT) in body axes.
func sense(yaw: Double, pitch: Double, roll: Double, field: Vector3) -> (Vector3, Vector3) {
    let rt = bodyToNED(yaw: yaw, pitch: pitch, roll: roll).transposed
    return (rt * Vector3(0, 0, -1), rt * field)
}

func angleError(_ a: Double, _ b: Double) -> Double { wrap180(a - b) }

@Suite("Tilt compensation")
struct TiltTests {
    let field = nedField(declination: 0, inclination: 64, total: 50)

    @Test("exact at every heading for tilts up to 60° (vector method against the rotation)")
    func exact() throws {
        for yaw in stride(from: 0.0, to: 360, by: 15) {
            for (pitch, roll) in [(0.0, 0.0), (30, 0), (-30, 0), (0, 45), (0, -60), (60, 20), (-45, -45)] {
                let (a, m) = sense(yaw: yaw, pitch: pitch, roll: roll, field: field)
                let s = try TiltCompensation.solve(acceleration: a, field: m).get()
                #expect(abs(angleError(s.magneticHeading, yaw)) < 1e-9, "yaw \(yaw) pitch \(pitch) roll \(roll)")
                #expect(abs(s.pitch - pitch) < 1e-9)
                #expect(abs(s.roll - roll) < 1e-9)
                #expect(abs(s.inclination - 64) < 1e-9)
                #expect(s.magneticHeading >= 0 && s.magneticHeading < 360)
            }
        }
    }

    @Test("near vertical, no gravity and NaN are refused with a reason, never garbage")
    func refusals() {
        let (a, m) = sense(yaw: 10, pitch: 85, roll: 0, field: field)
        guard case .failure(.pitchNearVertical(let pitch, _)) = TiltCompensation.solve(acceleration: a, field: m) else {
            Issue.record("pitch 85° was accepted"); return
        }
        #expect(abs(pitch - 85) < 1e-9)
        #expect(TiltCompensation.solve(acceleration: .zero, field: m) == .failure(.noGravity))
        #expect(TiltCompensation.solve(acceleration: Vector3(.nan, 0, -1), field: m) == .failure(.notFinite))
        // A field straight down has no horizontal direction.
        #expect(TiltCompensation.solve(acceleration: Vector3(0, 0, -1), field: Vector3(0, 0, 40)) == .failure(.noHorizontalField))
    }
}

/// Samples of a distorted magnetometer over a set of attitudes.
struct Distortion {
    var softIron = Matrix3(rows: Vector3(1.06, 0.04, -0.02), Vector3(0.04, 0.95, 0.03), Vector3(-0.02, 0.03, 1.01))
    var hardIron = Vector3(12, -7, 25)
    var noise = 0.1

    func raw(_ trueField: Vector3, _ rng: inout SplitMix) -> Vector3 {
        softIron * trueField + hardIron + Vector3(rng.gaussian(noise), rng.gaussian(noise), rng.gaussian(noise))
    }
}

@Suite("Calibration: ellipsoid fit and quality")
struct CalibrationTests {
    let field = nedField(declination: 13.2, inclination: 61.5, total: 48.9)
    let distortion = Distortion()

    func samples(count: Int, maxTilt: Double?, seed: UInt64) -> [Vector3] {
        var rng = SplitMix(state: seed)
        return (0..<count).map { _ in
            let yaw = Double.random(in: 0..<360, using: &rng)
            let pitch: Double, roll: Double
            if let maxTilt {
                pitch = Double.random(in: -maxTilt...maxTilt, using: &rng)
                roll = Double.random(in: -maxTilt...maxTilt, using: &rng)
            } else {
                // Uniform over the rotation group is not needed; every attitude is.
                pitch = asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
                roll = Double.random(in: -180..<180, using: &rng)
            }
            return distortion.raw(sense(yaw: yaw, pitch: pitch, roll: roll, field: field).1, &rng)
        }
    }

    @Test("a full-sphere set recovers offset and soft iron and is judged good")
    func fullSphere() throws {
        let cal = try CalibrationFitter.fit(samples(count: 400, maxTilt: nil, seed: 1), expectedField: 48.9)
        #expect((cal.offset - distortion.hardIron).length < 0.3, "offset \(cal.offset)")
        // S·A should be a rotation-free identity (S symmetric ≈ A⁻¹ up to scale 1).
        let product = cal.softIron * distortion.softIron
        for r in 0..<3 { for c in 0..<3 { #expect(abs(product[r, c] - (r == c ? 1 : 0)) < 0.01) } }
        #expect(cal.quality.method == .ellipsoid)
        #expect(cal.quality.coverage > 0.9)
        #expect(cal.quality.relativeResidual < 0.01)
        #expect(cal.quality.verdict == .good, "\(cal.quality.reasons)")
        #expect(cal.quality.score > 90)
    }

    @Test("a set from within ±30° of level fits with a small residual but is judged poor")
    func nearLevelOnly() throws {
        let cal = try CalibrationFitter.fit(samples(count: 400, maxTilt: 30, seed: 2), expectedField: 48.9)
        #expect(cal.quality.coverage < CalibrationQuality.fairCoverage, "coverage \(cal.quality.coverage)")
        #expect(cal.quality.verdict == .poor)
        #expect(cal.quality.reasons.contains { $0.contains("coverage") })
        let good = try CalibrationFitter.fit(samples(count: 400, maxTilt: nil, seed: 3), expectedField: 48.9)
        #expect(good.quality.isBetter(than: cal.quality))
        #expect(!cal.quality.isBetter(than: good.quality))
    }

    @Test("too few, non-finite and degenerate sets are errors")
    func errors() {
        #expect(throws: CalibrationError.tooFewSamples(count: 3, needed: 12)) {
            try CalibrationFitter.fit([Vector3(1, 2, 3), Vector3(1, 2, 3), Vector3(1, 2, 3)])
        }
        var bad = samples(count: 20, maxTilt: nil, seed: 4)
        bad[7] = Vector3(.infinity, 0, 0)
        #expect(throws: CalibrationError.notFinite(index: 7)) { try CalibrationFitter.fit(bad) }
        #expect(throws: CalibrationError.degenerate) {
            try CalibrationFitter.fit(Array(repeating: Vector3(5, 5, 5), count: 30))
        }
    }
}

@Suite("Heading engine: true heading, accuracy, integrity")
struct HeadingEngineTests {
    let elements = ReferenceField(declination: 13.2, inclination: 61.5, totalIntensity: 48.9)

    @Test("calibrated from a full sphere: true heading within 1.0° RMS over all headings at tilts up to ±30°")
    func accuracy() throws {
        let field = nedField(declination: elements.declination, inclination: elements.inclination,
                             total: elements.totalIntensity)
        let distortion = Distortion()
        var rng = SplitMix(state: 42)
        var sphere: [Vector3] = []
        for _ in 0..<400 {
            let pitch = asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
            let (_, m) = sense(yaw: .random(in: 0..<360, using: &rng), pitch: pitch,
                               roll: .random(in: -180..<180, using: &rng), field: field)
            sphere.append(distortion.raw(m, &rng))
        }
        let calibration = try CalibrationFitter.fit(sphere, expectedField: elements.totalIntensity)
        let engine = HeadingEngine(calibration: calibration, reference: elements)
        var squares = 0.0, count = 0.0, worst = 0.0
        for yaw in stride(from: 0.0, to: 360, by: 10) {
            for (pitch, roll) in [(0.0, 0.0), (15, 0), (-15, 10), (30, 0), (-30, 0), (0, 30), (0, -30), (20, -20), (-30, 30)] {
                let (a, m) = sense(yaw: yaw, pitch: pitch, roll: roll, field: field)
                let accel = a + Vector3(rng.gaussian(0.002), rng.gaussian(0.002), rng.gaussian(0.002))
                let reading = engine.process(acceleration: accel, field: distortion.raw(m, &rng))
                let heading = try #require(reading.trueHeading)
                let error = angleError(heading, yaw)
                squares += error * error
                count += 1
                worst = max(worst, abs(error))
                #expect(reading.quality == .good, "\(reading.flags.names)")
            }
        }
        let rms = (squares / count).squareRoot()
        print("true heading over \(Int(count)) attitudes: RMS \(rms)°, worst \(worst)°")
        #expect(rms <= 1.0)
    }

    @Test("without a reference field only magnetic heading is given")
    func noPosition() {
        let field = nedField(declination: 0, inclination: 60, total: 50)
        let (a, m) = sense(yaw: 123, pitch: 5, roll: -5, field: field)
        let reading = HeadingEngine().solve(acceleration: a, field: m)
        #expect(reading.trueHeading == nil)
        #expect(abs(angleError(reading.magneticHeading ?? -1, 123)) < 1e-9)
        #expect(reading.flags.contains(.noReferenceField))
        #expect(reading.flags.contains(.poorCalibration))
    }

    @Test("a disturbed field, a bent field, acceleration and a course mismatch are flagged")
    func integrity() {
        let field = nedField(declination: elements.declination, inclination: elements.inclination,
                             total: elements.totalIntensity)
        let good = MagnetometerCalibration(offset: .zero, softIron: .identity, fieldStrength: 48.9,
                                           quality: CalibrationQuality(residualRMS: 0.2, relativeResidual: 0.004, coverage: 0.95,
                                                                       shapeRatio: 1.02, scaleRatio: 1, sampleCount: 300,
                                                                       method: .ellipsoid))
        let engine = HeadingEngine(calibration: good, reference: elements)
        let (a, m) = sense(yaw: 90, pitch: 0, roll: 0, field: field)
        let clean = engine.solve(acceleration: a, field: m)
        #expect(clean.quality == .good)
        #expect(abs(angleError(clean.trueHeading ?? -1, 90)) < 1e-9)
        #expect(abs(angleError(clean.magneticHeading ?? -1, 90 - 13.2)) < 1e-9)
        let strong = engine.solve(acceleration: a, field: m * 1.3)
        #expect(strong.flags.contains(.magnitudeMismatch))
        #expect(strong.quality == .degraded)
        #expect((strong.accuracy ?? 0) > (clean.accuracy ?? 99))
        // Same magnitude, dip bent by 10°.
        let bent = engine.solve(acceleration: a, field: sense(yaw: 90, pitch: 0, roll: 0,
            field: nedField(declination: 13.2, inclination: 51.5, total: 48.9)).1)
        #expect(bent.flags.contains(.inclinationMismatch))
        let accelerating = engine.solve(acceleration: a * 1.2, field: m)
        #expect(accelerating.flags.contains(.accelerating))
        var moving = clean
        let difference = HeadingEngine.crossCheck(&moving, course: 300, speed: 10)
        #expect(difference != nil)
        #expect(moving.flags.contains(.courseMismatch))
        var slow = clean
        #expect(HeadingEngine.crossCheck(&slow, course: 300, speed: 0.5) == nil)
        // Declination uncertainty from NOAA's model at H = 48.9 cos 61.5 µT.
        #expect(abs(elements.declinationUncertainty - (0.26 * 0.26 + pow(5417 / (48900 * cos(61.5 * .pi / 180)), 2)).squareRoot()) < 1e-9)
    }

    @Test("matrix helpers: inverse, rotation check, symmetric square root")
    func matrices() throws {
        let r = bodyToNED(yaw: 30, pitch: 10, roll: -20)
        #expect(r.isRotation())
        #expect(!(Matrix3.diagonal(1, 1, -1)).isRotation())
        let s = Matrix3(rows: Vector3(4, 1, 0), Vector3(1, 3, 0.5), Vector3(0, 0.5, 2))
        let root = try #require(s.symmetricSquareRoot())
        let back = root * root
        for i in 0..<3 { for j in 0..<3 { #expect(abs(back[i, j] - s[i, j]) < 1e-12) } }
        let inv = try #require(s.inverse)
        let id = s * inv
        for i in 0..<3 { for j in 0..<3 { #expect(abs(id[i, j] - (i == j ? 1 : 0)) < 1e-12) } }
        #expect(Matrix3(rows: Vector3(1, 2, 3), Vector3(2, 4, 6), Vector3(0, 0, 1)).inverse == nil)
    }
}
