// libFuzzer entry point for the binary navigation path: UBX and CASIC decoders and the epoch merger.
//
// Built by `.ci/fuzz.sh` with the sources of Sources/NMEA as one module (no `import NMEA`), with
// `-sanitize=fuzzer,address`. The input is a list of records, each becoming one frame with a correct
// checksum, so the fuzzer reaches the decoders instead of stopping at the framer:
//
//     [kind] [class] [id] [length] [length bytes of payload]
//
// kind bit 0: CASIC (else UBX); bit 1: the class/id are replaced by one of the navigation ids the
// decoders read (the low bits of `class` pick which), so most frames hit a decoder; bit 2: an NMEA
// sentence built from the payload follows the frame. Any trap or memory error is a crash, and so is a
// difference between feeding the stream whole and in pieces.

#if canImport(Glibc)
import Glibc
#endif

private let ubxIDs: [(UInt8, UInt8)] = [(0x01, 0x07), (0x28, 0x00), (0x01, 0x06), (0x01, 0x01), (0x01, 0x02), (0x01, 0x12), (0x01, 0x04),
                                        (0x01, 0x20), (0x01, 0x21), (0x01, 0x26), (0x01, 0x03), (0x01, 0x35), (0x01, 0x43),
                                        (0x01, 0x61), (0x0A, 0x38), (0x0D, 0x01), (0x01, 0x11)]
private let casicIDs: [(UInt8, UInt8)] = [(0x01, 0x03), (0x01, 0x10), (0x01, 0x01), (0x01, 0x20), (0x01, 0x21), (0x01, 0x22)]

private func frames(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    var at = 0
    while at + 4 <= input.count {
        let kind = input[at], length = Int(input[at + 3])
        var cls = input[at + 1], id = input[at + 2]
        let end = min(input.count, at + 4 + length)
        let payload = Array(input[(at + 4)..<end])
        at = end
        let casic = kind & 1 != 0
        if kind & 2 != 0 {
            let table = casic ? casicIDs : ubxIDs
            (cls, id) = table[Int(cls) % table.count]
        }
        if casic {
            out += CASICFrame.encode(class: cls, id: id, payload: payload)
        } else {
            var frame: [UInt8] = [0xB5, 0x62, cls, id, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload
            var a: UInt8 = 0
            var b: UInt8 = 0
            for byte in frame[2...] { a = a &+ byte; b = b &+ a }
            out += frame + [a, b]
        }
        if kind & 4 != 0 {
            // An NMEA sentence of the same time as a binary epoch may follow: its fields from the payload.
            let digits = payload.prefix(6).map { UInt8(0x30 + $0 % 10) }
            let body: [UInt8] = Array("GPGGA,".utf8) + digits + Array(".00,4624.27666,N,11701.24387,W,1,06,1.36,287.7,M,-18.2,M,,".utf8)
            var checksum: UInt8 = 0
            for byte in body { checksum ^= byte }
            let hex = Array("0123456789ABCDEF".utf8)
            out += [0x24] + body + [0x2A, hex[Int(checksum >> 4)], hex[Int(checksum & 0xF)], 0x0D, 0x0A]
        }
    }
    return out
}

// The engine's conversion lives in LocationServices (not in this one-module build): a spherical one
// with Glibc's trigonometry stands in, answering NaN or out-of-range values for some inputs so the
// merger's guards are exercised; and a flat-earth distance for the derived speed.
private let sphericalECEF: ECEFConversion = { position, velocity in
    let p = (position.x * position.x + position.y * position.y).squareRoot()
    let latitude = atan2(position.z, p) * 180 / .pi, longitude = atan2(position.y, position.x) * 180 / .pi
    if position.x < -6.0e6 { return GeodeticSolution(latitude: .nan, longitude: longitude, heightAboveEllipsoid: 0) }
    if position.y < -6.0e6 { return GeodeticSolution(latitude: 91, longitude: longitude, heightAboveEllipsoid: .infinity) }
    var solution = GeodeticSolution(latitude: latitude, longitude: longitude,
                                    heightAboveEllipsoid: (p * p + position.z * position.z).squareRoot() - 6_371_000)
    if let velocity {
        solution.velocityNorth = velocity.z
        solution.velocityEast = velocity.y
        solution.velocityDown = -velocity.x
        solution.speed = (velocity.y * velocity.y + velocity.z * velocity.z).squareRoot()
        solution.course = velocity.x < 0 ? .nan : atan2(velocity.y, velocity.z) * 180 / .pi + 180
    }
    return solution
}
private let flatDistance: DistanceFunction = { lat1, lon1, lat2, lon2 in
    ((lat2 - lat1) * (lat2 - lat1) + (lon2 - lon1) * (lon2 - lon1)).squareRoot() * 111_000
}

private struct Tally: NMEAStreamDelegate, Equatable {
    var fixes = 0
    var sum = 0
    mutating func stream(fix: Fix) {
        fixes += 1
        sum &+= fix.satellites.count &+ (fix.latitude.map { $0.isFinite ? 1 : 2 } ?? 0)
        sum &+= fix.time.map { Int(truncatingIfNeeded: $0.nanosecondsSinceEpoch) } ?? 0
        sum &+= fix.receiverAccuracy.map { $0.horizontal == nil ? 3 : 4 } ?? 0
        sum &+= fix.altitudeHAE.map { $0.isFinite ? 5 : 6 } ?? 0
        sum &+= fix.speed.map { $0.isFinite ? (fix.speedIsDerived ? 7 : 8) : 9 } ?? 0
        if let latitude = fix.latitude, !(latitude.isFinite && abs(latitude) <= 90) {
            print("a fix with latitude \(latitude)")
            fflush(stdout)
            abort()
        }
    }
}

private func run(_ bytes: [UInt8], chunk: Int) -> (Tally, EpochMerger.Counters) {
    let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, distance: flatDistance,
                                                               ecefConversion: sphericalECEF))
    var tally = Tally()
    var offset = 0
    bytes.withUnsafeBufferPointer { all in
        while offset < all.count {
            let end = min(all.count, offset + chunk)
            stream.feed(UnsafeBufferPointer(rebasing: all[offset..<end]).span, delegate: &tally)
            offset = end
        }
    }
    stream.finish(delegate: &tally)
    return (tally, stream.merger.counters)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    // Every decoder on the raw input as a payload: bounds are the decoders' own business.
    let raw = input.span
    var sky = SatelliteList()
    var touched = 0
    touched &+= UBXNavPVT(payload: raw) == nil ? 0 : 1
    touched &+= UBXHNRPVT(payload: raw) == nil ? 0 : 1
    touched &+= UBXNavSOL(payload: raw) == nil ? 0 : 1
    touched &+= UBXNavVELECEF(payload: raw) == nil ? 0 : 1
    touched &+= UBXNavStatus(payload: raw).map { Int($0.carrierSolution) } ?? 0
    touched &+= UBXMonRF(payload: raw) == nil ? 0 : 1
    touched &+= CASICNavPV(payload: raw).map { CASICNavPV.sigma($0.hAccVariance) == nil ? 1 : 2 } ?? 0
    touched &+= UBXNavSAT.decode(payload: raw, into: &sky) == nil ? 0 : 1
    touched &+= UBXNavSIG.decode(payload: raw, into: &sky) == nil ? 0 : 1
    touched &+= CASICNavSatelliteInfo.decode(messageID: 0x20 + data[0] % 4, payload: raw, appendingTo: &sky) == nil ? 0 : 1
    if touched < 0 || sky.count > SatelliteList.capacity { abort() }

    let stream = frames(input)
    let whole = run(stream, chunk: max(stream.count, 1))
    let split = run(stream, chunk: Int(data[0] & 0x0F) + 1)
    if whole.0 != split.0 || whole.1 != split.1 {
        print("binary navigation differs between whole and chunked input: \(whole) vs \(split)")
        fflush(stdout)
        abort()
    }
    return 0
}
