import Benchmark
import Foundation
import HardwareInterfaces
import LocationServices

// Issue 21: one fix against 10,000 monitored regions (5,000 circles and 5,000 polygons of 3-8
// sides, 30-500 m across, over 100 km x 100 km about Zürich), through the grid index and through
// the linear scan that checks every region.

private struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private func offset(_ lat: Double, _ lon: Double, north: Double, east: Double) -> GeoPoint {
    GeoPoint(latitude: lat + north / 111_195, longitude: lon + east / (111_195 * cos(lat * .pi / 180)))
}

private let regions: [CircularRegion] = {
    var rng = Generator(state: 21)
    return (0..<10_000).map { i in
        let c = offset(47.0, 8.0, north: .random(in: 0...100_000, using: &rng), east: .random(in: 0...100_000, using: &rng))
        let size = Double.random(in: 15...250, using: &rng)
        if i % 2 == 0 { return CircularRegion(identifier: "c\(i)", latitude: c.latitude, longitude: c.longitude, radius: size) }
        let sides = Int.random(in: 3...8, using: &rng)
        let ring = (0..<sides).map { k -> GeoPoint in
            let a = Double(k) * 2 * .pi / Double(sides)
            return offset(c.latitude, c.longitude, north: size * cos(a), east: size * sin(a))
        }
        return CircularRegion(identifier: "p\(i)", polygon: RegionPolygon(vertices: ring))
    }
}()

/// A loop of 1,000 fixes 100 m apart through the field (it crosses regions: enter and exit events).
private let busyTrack: [Location] = (0..<1000).map { i in
    let a = Double(i) * 2 * .pi / 1000
    let p = offset(47.0, 8.0, north: 50_000 + 16_000 * sin(a), east: 50_000 + 16_000 * cos(a))
    return Location(latitude: p.latitude, longitude: p.longitude, horizontalAccuracy: 5,
                    receivedAt: MonotonicInstant(nanoseconds: UInt64(i) * 1_000_000_000))
}

/// The busy loop's fixes that are clearly outside every region (after the first pass, no events).
private let quietTrack: [Location] = busyTrack.filter { fix in regions.allSatisfy { RegionMonitor.classify($0, fix) == .outside } }

private final class Box: @unchecked Sendable {
    var monitor = RegionMonitor()
    init(_ track: [Location]) {
        for r in regions { _ = monitor.add(r) }
        for fix in track { _ = monitor.update(fix) }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 3,
        maxDuration: .seconds(10),
        maxIterations: 1_000)

    // The index, fixes outside every region: the steady state of a unit between fences.
    Benchmark("Regions indexed, per fix, 10,000 regions, no event", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let box = Box(quietTrack)
        var events = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { events &+= box.monitor.update(quietTrack[i % quietTrack.count]).count }
        benchmark.stopMeasurement()
        blackHole(events)
    }

    // The index along the loop: entering and leaving regions (the events' arrays are allocated).
    Benchmark("Regions indexed, per fix, 10,000 regions, crossing fences", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let box = Box(busyTrack)
        var events = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { events &+= box.monitor.update(busyTrack[i % busyTrack.count]).count }
        benchmark.stopMeasurement()
        blackHole(events)
    }

    // The linear scan (every region's test for every fix), the same quiet fixes.
    Benchmark("Regions linear, per fix, 10,000 regions, no event") { benchmark in
        let box = Box(quietTrack)
        var events = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { events &+= box.monitor.updateLinear(quietTrack[i % quietTrack.count]).count }
        benchmark.stopMeasurement()
        blackHole(events)
    }
}
