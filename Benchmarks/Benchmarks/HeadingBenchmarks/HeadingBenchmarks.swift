import Benchmark
import Heading

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 3,
        maxDuration: .seconds(10),
        maxIterations: 1_000)

    // One WMM2025 evaluation (degree 12, with secular variation and yearly rates) per inner
    // iteration, over a grid of positions and dates so nothing is cached by accident.
    Benchmark("WMM2025 evaluation, per point", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let model = WorldMagneticModel.wmm2025
        var sum = 0.0
        var step = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            step &+= 1
            let latitude = Double(step % 179) - 89
            let longitude = Double(step % 359) - 179
            let year = 2025 + Double(step % 50) / 10
            sum += model.evaluate(latitude: latitude, longitude: longitude, heightKm: 0.1, decimalYear: year).declination
        }
        benchmark.stopMeasurement()
        blackHole(sum)
    }

    // One heading per inner iteration: soft- and hard-iron calibration, both mount matrices,
    // tilt compensation, declination (cached reference field), accuracy and integrity checks.
    // Samples vary so nothing is constant-folded.
    Benchmark("Heading per sample (calibration + tilt + declination)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let calibration = MagnetometerCalibration(
            offset: Vector3(12, -7, 25),
            softIron: Matrix3(rows: Vector3(0.945, -0.040, 0.020), Vector3(-0.040, 1.056, -0.032), Vector3(0.020, -0.032, 0.992)),
            fieldStrength: 48.9,
            quality: CalibrationQuality(residualRMS: 0.1, relativeResidual: 0.002, coverage: 0.95, shapeRatio: 1.1,
                                        scaleRatio: 1, sampleCount: 300, method: .ellipsoid))
        let engine = HeadingEngine(
            accelerometerMount: Matrix3(rows: Vector3(1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, -1)),
            magnetometerMount: Matrix3(rows: Vector3(1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, -1)),
            calibration: calibration,
            reference: ReferenceField(declination: 13.2, inclination: 61.5, totalIntensity: 48.9))
        var sum = 0.0
        var step = 0.0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            step += 1
            let s = step.truncatingRemainder(dividingBy: 64) / 64
            let reading = engine.process(acceleration: Vector3(0.1 * s, -0.05, 0.99),
                                         field: Vector3(30 + 10 * s, -8 + 5 * s, -20))
            sum += reading.trueHeading ?? 0
        }
        benchmark.stopMeasurement()
        blackHole(sum)
    }
    // Issue 18: one attitude-filter update per inner iteration at 100 Hz: bias check, gyroscope
    // propagation, acceleration and magnetic rejection tests against the reference field, both
    // feedbacks, the second integration and normalisation. Samples vary (a slow turn with a 2 Hz
    // bounce) so both sensors are believed on some samples and rejected on others.
    Benchmark("Attitude filter per sample", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var filter = AttitudeFilter(reference: ReferenceField(declination: 13.2, inclination: 61.5, totalIntensity: 48.9))
        filter.update(gyroscope: .zero, acceleration: Vector3(0, 0, -1), field: Vector3(23.3, 0, 43.0), deltaTime: 0)
        // The sample's phase from an integer counter: the same 64 values as
        // `step.truncatingRemainder(dividingBy: 64) / 64` of a Double counter without libm's `fmod`
        // (about 120 instructions, 12-15 ns), which is the harness's cost, not the filter's.
        var step = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            step &+= 1
            let s = Double(step & 63) / 64
            filter.update(gyroscope: Vector3(0.5 * s, -0.3, 2 + s), acceleration: Vector3(0.05 * s, -0.02, -0.9 - 0.2 * s),
                          field: Vector3(23.3 - 2 * s, 1.5 * s, 43.0), deltaTime: 0.01)
        }
        benchmark.stopMeasurement()
        blackHole(filter.quaternion.w)
    }

    // Issue 18, in the engine: one fused heading per inner iteration as SensorSubsystem takes it on
    // a board with a gyroscope (HeadingEngine.fuse): mounts and calibration, today's tilt
    // compensation of the sample (its flags), the filter update, and the accuracy for the
    // filter's gravity. Same varying samples as the filter alone.
    Benchmark("Fused heading per sample (engine: tilt flags + filter + accuracy)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let engine = HeadingEngine(reference: ReferenceField(declination: 13.2, inclination: 61.5, totalIntensity: 48.9))
        var filter = AttitudeFilter()
        _ = engine.fuse(into: &filter, acceleration: Vector3(0, 0, -1), field: Vector3(23.3, 0, 43.0), rotationRate: .zero,
                        deltaTime: 0)
        var sum = 0.0
        var step = 0.0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            step += 1
            let s = step.truncatingRemainder(dividingBy: 64) / 64
            let reading = engine.fuse(into: &filter, acceleration: Vector3(0.05 * s, -0.02, -0.9 - 0.2 * s),
                                      field: Vector3(23.3 - 2 * s, 1.5 * s, 43.0), rotationRate: Vector3(0.5 * s, -0.3, 2 + s),
                                      deltaTime: 0.01)
            sum += reading.trueHeading ?? 0
        }
        benchmark.stopMeasurement()
        blackHole(sum)
    }
}
