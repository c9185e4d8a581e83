import Heading
import SimulatedHardware
import Testing

@Suite("Simulated sensors in the Earth's field: calibration and heading end to end")
struct SensorWorldTests {
    // Petaluma, CA (a NOAA test point region): I ≈ 61°, D ≈ 13° E, F ≈ 48 µT.
    let latitude = 38.1, longitude = -122.6
    // A breakout mounted upside down and turned: sensor x = body x, sensor y = -body y, sensor z = -body z.
    let mount = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, -1))

    func calibrate(maximumTilt: Double, seed: UInt64) throws -> (MagnetometerCalibration, SensorWorld) {
        var world = SensorWorld(latitude: latitude, longitude: longitude, motion: .calibrationDance(maximumTilt: maximumTilt),
                                magnetometerMount: mount, accelerometerMount: mount, seed: seed)
        var samples: [Vector3] = []
        // Three minutes of dance at 5 Hz.
        for i in 0..<900 { samples.append(world.sample(at: Double(i) * 0.2).field) }
        let expected = world.elements.totalIntensity / 1000
        return (try CalibrationFitter.fit(samples, expectedField: expected), world)
    }

    @Test("full-sphere dance: true heading within 1.0° RMS over all headings at tilts up to ±30°")
    func fullSphere() throws {
        let (calibration, world) = try calibrate(maximumTilt: 180, seed: 7)
        #expect(calibration.quality.verdict == .good, "\(calibration.quality.reasons)")
        #expect((calibration.offset - IronDistortion.typical.hardIron).length < 0.5)
        let engine = HeadingEngine(accelerometerMount: mount, magnetometerMount: mount, calibration: calibration,
                                   reference: ReferenceField(world.elements))
        var squares = 0.0, n = 0.0
        for (pitch, roll) in [(0.0, 0.0), (30, 0), (-30, 0), (0, 30), (0, -30), (20, 20), (-25, 15)] {
            var still = world
            still.motion = .turning(yawRate: 3, pitch: pitch, roll: roll)
            for second in stride(from: 0.0, to: 120, by: 1) {
                let s = still.sample(at: second)
                let reading = engine.process(acceleration: s.acceleration, field: s.field)
                let heading = try #require(reading.trueHeading)
                let error = wrap180(heading - s.attitude.yaw)
                squares += error * error
                n += 1
            }
        }
        let rms = (squares / n).squareRoot()
        print("simulated world: true heading RMS \(rms)° over \(Int(n)) readings")
        #expect(rms <= 1.0)
    }

    @Test("a dance within ±30° of level is flagged poor")
    func nearLevel() throws {
        let (calibration, _) = try calibrate(maximumTilt: 30, seed: 8)
        #expect(calibration.quality.verdict == .poor)
        #expect(calibration.quality.coverage < CalibrationQuality.fairCoverage)
    }

    @Test("temperature drift moves the offset; noise is deterministic per seed")
    func driftAndDeterminism() {
        var cold = SensorWorld(latitude: latitude, longitude: longitude, motion: .still(BodyAttitude(yaw: 0)),
                               magnetometerNoise: 0, temperature: { _ in -15 })
        var warm = SensorWorld(latitude: latitude, longitude: longitude, motion: .still(BodyAttitude(yaw: 0)),
                               magnetometerNoise: 0, temperature: { _ in 25 })
        let difference = cold.sample(at: 0).field - warm.sample(at: 0).field
        #expect(abs(difference.x - 0.02 * -40) < 1e-9)
        var a = SensorWorld(latitude: 0, longitude: 0, motion: .still(BodyAttitude(yaw: 10)), seed: 3)
        var b = SensorWorld(latitude: 0, longitude: 0, motion: .still(BodyAttitude(yaw: 10)), seed: 3)
        #expect(a.sample(at: 1).field == b.sample(at: 1).field)
        // Level and still reads -1 g on z in body axes.
        var level = SensorWorld(latitude: 0, longitude: 0, motion: .still(BodyAttitude(yaw: 0)), accelerometerNoise: 0)
        #expect((level.sample(at: 0).acceleration - Vector3(0, 0, -1)).length < 1e-12)
    }
}
