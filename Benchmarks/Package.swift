// swift-tools-version:6.1
//
// Benchmarks for FieldLocation, kept in their own package so the main package does not depend on
// the benchmark harness. Run from this folder:  swift package benchmark
import PackageDescription

let package = Package(
    name: "FieldLocationBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // 24 simulated hours of the whole engine with clients coming and going: memory and CPU per hour.
        .executableTarget(
            name: "engine-soak",
            dependencies: [
                .product(name: "FieldLocation", package: "main"),
                .product(name: "LocationAPI", package: "main"),
                .product(name: "EnginePlatforms", package: "main"),
                .product(name: "LocationServices", package: "main"),
                .product(name: "BoardConfig", package: "main"),
                .product(name: "SimulatedHardware", package: "main"),
                .product(name: "PowerPolicy", package: "main"),
            ],
            path: "Sources/engine-soak"
        ),
        // Issue 17: `fieldloc replay --json` without the command-line layer, for callgrind.
        .executableTarget(
            name: "replay-json",
            dependencies: [
                .product(name: "FieldLocation", package: "main"),
                .product(name: "EnginePlatforms", package: "main"),
                .product(name: "FieldLocationOutput", package: "main"),
            ],
            path: "Sources/replay-json"
        ),
        .executableTarget(
            name: "nmea-parse-loop",
            dependencies: [.product(name: "NMEA", package: "main")],
            path: "Sources/nmea-parse-loop"
        ),
        .executableTarget(
            name: "HeadingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Heading", package: "main"),
            ],
            path: "Benchmarks/HeadingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "NMEABenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NMEA", package: "main"),
            ],
            path: "Benchmarks/NMEABenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Issue 16: decoding a UBX NAV-PVT, and a NAV-PVT epoch through the whole stream, with the malloc counter.
        .executableTarget(
            name: "BinaryBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NMEA", package: "main"),
            ],
            path: "Benchmarks/BinaryBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Issue 19: LE advertising report events parsed with the reports borrowed, with the malloc counter.
        .executableTarget(
            name: "BluetoothHCIBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "BluetoothHCI", package: "main"),
                .product(name: "HardwareInterfaces", package: "main"),
            ],
            path: "Benchmarks/BluetoothHCIBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Issue 21: one fix against 10,000 regions, through the grid index and the linear scan, with the malloc counter.
        .executableTarget(
            name: "RegionBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LocationServices", package: "main"),
                .product(name: "HardwareInterfaces", package: "main"),
            ],
            path: "Benchmarks/RegionBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Issue 19: parsing beacon adverts and ranging them, with the malloc counter.
        .executableTarget(
            name: "BeaconBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Beacons", package: "main"),
            ],
            path: "Benchmarks/BeaconBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
