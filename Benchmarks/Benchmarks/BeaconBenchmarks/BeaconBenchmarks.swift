import Beacons
import Benchmark

/// Apple's iBeacon advert (flags + manufacturer data, 30 bytes) and an Eddystone-URL advert.
private let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
private let iBeacon = BeaconAdvert.iBeacon(uuid: uuid, major: 1, minor: 2, measuredPower: -59)
private let eddystoneURL: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE, 0x15, 0x16, 0xAA, 0xFE, 0x10, 0xEB, 0x01]
    + Array("example".utf8) + [0x00] + Array("beacons".utf8)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 3,
        maxDuration: .seconds(10),
        maxIterations: 1_000)

    // The parser alone: one advert per inner iteration, counted.
    Benchmark("Beacon iBeacon parse", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var counters = AdvertCounters()
        var sum = 0
        iBeacon.withUnsafeBytes { bytes in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let result = BeaconParser.parse(bytes)
                counters.record(result)
                if case .beacon(.iBeacon(let f)) = result { sum &+= Int(f.minor) }
            }
            benchmark.stopMeasurement()
        }
        blackHole(sum)
        blackHole(counters)
    }

    Benchmark("Beacon Eddystone-URL parse", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var counters = AdvertCounters()
        eddystoneURL.withUnsafeBytes { bytes in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { counters.record(BeaconParser.parse(bytes)) }
            benchmark.stopMeasurement()
        }
        blackHole(counters)
    }

    // An advert of a beacon already ranged: parse, then add its RSSI to the ranger (10 Hz times).
    Benchmark("Beacon advert parsed and ranged", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var ranger = BeaconRanger()
        var time = 0.0
        let key = BeaconRanger.Key(uuid: uuid, major: 1, minor: 2)
        ranger.add(key, measuredPower: -59, rssi: -70, at: time)
        iBeacon.withUnsafeBytes { bytes in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                time += 0.1
                if case .beacon(let frame) = BeaconParser.parse(bytes), let id = frame.rangingIdentity {
                    ranger.add(BeaconRanger.Key(uuid: id.uuid, major: id.major, minor: id.minor), measuredPower: id.measuredPower,
                               rssi: -70 + Int(time.truncatingRemainder(dividingBy: 7)), at: time)
                }
            }
            benchmark.stopMeasurement()
        }
        blackHole(ranger.count)
    }

    Benchmark("Beacon ranger add only", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var ranger = BeaconRanger()
        let key = BeaconRanger.Key(uuid: uuid, major: 1, minor: 2)
        ranger.add(key, measuredPower: -59, rssi: -70, at: 0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            ranger.add(key, measuredPower: -59, rssi: -70, at: Double(i) * 0.1)
        }
        benchmark.stopMeasurement()
        blackHole(ranger.count)
    }
}
