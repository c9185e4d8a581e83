import Benchmark
import BluetoothHCI
import HardwareInterfaces

/// An iBeacon LE Advertising Report as a controller sends it (indicator first, 45 bytes).
private let iBeaconEvent: [UInt8] = HCIEventEncoder.leAdvertisingReport([
    HCIAdvertisement(
        address: BluetoothAddress(rawValue: 0xAABB_CCDD_EEFF),
        data: [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
               0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
               0x00, 0x01, 0x00, 0x02, 0xC5],
        rssi: -59),
]) ?? []

/// 1000 such events as one H4 byte stream.
private let stream1000: [UInt8] = Array((0..<1000).map { _ in iBeaconEvent }.joined())

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 3,
        maxDuration: .seconds(10),
        maxIterations: 1_000)

    // What LinuxBluetoothScanner does per packet read from the socket: parse one event and hand
    // its report over, borrowed; the handler reads every field and sums the data.
    Benchmark("HCI LE advertising report parse", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var sum = 0
        var parser = HCIEventParser()
        iBeaconEvent.withUnsafeBytes { raw in
            let packet = UnsafeRawBufferPointer(rebasing: raw[1...])
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                parser.parse(event: packet, timestamp: .zero) { report in
                    sum &+= Int(truncatingIfNeeded: report.address.rawValue) &+ (report.rssi ?? 0) &+ Int(report.data[report.data.count - 1])
                }
            }
            benchmark.stopMeasurement()
        }
        blackHole(sum)
        blackHole(parser.statistics.reports)
    }

    // A UART-style byte stream: the H4 framer, then the parser, 1000 reports per sample; per report.
    Benchmark("HCI H4 stream: framer + parse", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var sum = 0
        var framer = HCIPacketFramer()
        var parser = HCIEventParser()
        stream1000.withUnsafeBytes { raw in
            benchmark.startMeasurement()
            framer.push(raw) { _, packet in
                parser.parse(event: packet, timestamp: .zero) { report in sum &+= report.rssi ?? 0 }
            }
            benchmark.stopMeasurement()
        }
        blackHole(sum)
    }
}
