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
}
