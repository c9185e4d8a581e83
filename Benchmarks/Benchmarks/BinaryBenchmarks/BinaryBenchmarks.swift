import Benchmark
import NMEA

/// A u-blox 8 NAV-PVT payload: the 20:42:25 epoch of gpsd's ublox8-uniqid-monhw.log (92 bytes).
private let navPVT: [UInt8] = {
    var p = [UInt8](repeating: 0, count: 92)
    func put(_ offset: Int, _ value: UInt32, _ size: Int) { for k in 0..<size { p[offset + k] = UInt8(value >> (8 * UInt32(k)) & 0xFF) } }
    put(0, 74_563_000, 4); put(4, 2024, 2); p[6] = 3; p[7] = 24; p[8] = 20; p[9] = 42; p[10] = 25; p[11] = 0xF7
    put(12, 1021, 4); put(16, 256_775, 4); p[20] = 3; p[21] = 1; p[22] = 0xEA; p[23] = 6
    put(24, UInt32(bitPattern: -1_170_207_312), 4); put(28, 464_046_109, 4); put(32, 272_081, 4); put(36, 290_253, 4)
    put(40, 13_223, 4); put(44, 18_590, 4); put(48, 3, 4); put(52, 15, 4); put(56, UInt32(bitPattern: -68), 4); put(60, 15, 4)
    put(64, 3_077_055, 4); put(68, 675, 4); put(72, 4_873_862, 4); put(76, 223, 2)
    return p
}()

/// `count` NAV-PVT + NAV-EOE frames of successive seconds, as one byte stream.
private func epochs(_ count: Int) -> [UInt8] {
    var out: [UInt8] = []
    for n in 0..<count {
        var payload = navPVT
        let iTOW = UInt32(74_563_000 + n * 1000)
        for k in 0..<4 { payload[k] = UInt8(iTOW >> (8 * UInt32(k)) & 0xFF) }
        let seconds = 25 + n
        payload[8] = UInt8(20 + seconds / 3600 % 4); payload[9] = UInt8(42 + seconds / 60 % 18); payload[10] = UInt8(seconds % 60)
        for (id, body) in [(UInt8(0x07), payload), (UInt8(0x61), Array(payload[0..<4]))] {
            var frame: [UInt8] = [0xB5, 0x62, 0x01, id, UInt8(body.count), 0] + body
            var a: UInt8 = 0
            var b: UInt8 = 0
            for byte in frame[2...] { a = a &+ byte; b = b &+ a }
            frame += [a, b]
            out += frame
        }
    }
    return out
}

private let stream1000 = epochs(1000)

private final class Holder: @unchecked Sendable {
    let stream = NMEAStream()
}

private struct Counting: NMEAStreamDelegate {
    var fixes = 0
    mutating func stream(fix: Fix) { fixes &+= 1 }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 3,
        maxDuration: .seconds(10),
        maxIterations: 1_000)

    // The decoder alone: one NAV-PVT payload per inner iteration, every field read.
    Benchmark("UBX NAV-PVT decode", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var sum = 0
        navPVT.withUnsafeBufferPointer { buffer in
            let span = buffer.span
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                if let m = UBXNavPVT(payload: span) { sum &+= Int(m.latitude) &+ Int(m.hAcc) &+ Int(m.nano) }
            }
            benchmark.stopMeasurement()
        }
        blackHole(sum)
    }

    // The whole path: framer, checksum, decoder, epoch merger, one fix per epoch (NAV-PVT + NAV-EOE,
    // 110 bytes). 1000 epochs per sample through one long-lived stream; results per epoch.
    let holder = Holder()
    Benchmark("UBX NAV-PVT epoch through NMEAStream", configuration: .init(scalingFactor: .kilo)) { benchmark in
        var delegate = Counting()
        stream1000.withUnsafeBufferPointer { buffer in
            benchmark.startMeasurement()
            holder.stream.feed(buffer.span, delegate: &delegate)
            benchmark.stopMeasurement()
        }
        blackHole(delegate.fixes)
    }
}
