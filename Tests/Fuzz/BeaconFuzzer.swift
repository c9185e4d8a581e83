// libFuzzer entry point for the beacon advertisement parser and the ranger.
//
// Built by `.ci/fuzz.sh` together with the sources of Sources/Beacons as one module (so there is
// no `import Beacons`), with `-sanitize=fuzzer,address`:
//
//   .ci/fuzz.sh 25 .build-fuzz beacon
//
// The input is advertising data. Any trap (overflow, bounds, unwrap) or memory error is a crash,
// and so is a broken invariant (checked with `require`):
// - the AD walk covers the data in order: each structure's value lies inside the data, after the
//   previous one, and a walk that stops early says why (truncated) or met a zero length;
// - every outcome is counted exactly once, per rejection reason;
// - an iBeacon or AltBeacon frame, encoded again as a beacon sends it, parses to the same frame;
// - an Eddystone-URL expands to one of the four schemes and holds at most 17 encoded bytes;
// - ranging the frame's identity with RSSI values taken from the input gives, at every instant,
//   either `unknown` with accuracy −1 and RSSI 0, or a proximity that agrees with an accuracy in
//   0.01...1000 m;
// - text that parses as a UUID prints back to text that parses to the same UUID.

#if canImport(Glibc)
import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    print("beacon fuzz invariant broken: \(message())")
    abort()
}

private func checkWalk(_ bytes: UnsafeRawBufferPointer) {
    var iterator = AdvertisingStructures(bytes).makeIterator()
    var end = 0
    while let structure = iterator.next() {
        require(structure.offset >= end, "structure at \(structure.offset) before the end of the last (\(end))")
        let length = Int(bytes[structure.offset])
        require(length >= 1 && structure.offset + 1 + length <= bytes.count, "structure at \(structure.offset) runs past the data")
        require(structure.value.count == length - 1, "value of \(structure.value.count) bytes for length \(length)")
        end = structure.offset + 1 + length
    }
    if iterator.malformed == nil {
        require(end == bytes.count || (end < bytes.count && bytes[end] == 0), "the walk stopped at \(end) of \(bytes.count) without a reason")
    }
}

private func checkFrame(_ frame: BeaconFrame) {
    switch frame {
    case .iBeacon(let f):
        let again = BeaconAdvert.iBeacon(uuid: f.uuid, major: f.major, minor: f.minor, measuredPower: f.measuredPower)
        let parsed = again.withUnsafeBytes { BeaconParser.parse($0) }
        require(parsed == .beacon(frame), "iBeacon \(f) re-encoded parses as \(parsed)")
    case .altBeacon(let f):
        let again = BeaconAdvert.altBeacon(manufacturer: f.manufacturer, uuid: f.uuid, major: f.major, minor: f.minor,
                                           referenceRSSI: f.referenceRSSI, reserved: f.reserved)
        let parsed = again.withUnsafeBytes { BeaconParser.parse($0) }
        // Apple's company with 0x02 in the beacon code's place would read as an iBeacon; 0xBEAC rules that out.
        require(parsed == .beacon(frame), "AltBeacon \(f) re-encoded parses as \(parsed)")
    case .eddystoneURL(let u):
        require(u.encodedLength <= EddystoneURL.maximumEncodedLength, "URL of \(u.encodedLength) encoded bytes")
        let url = u.url
        require(EddystoneURL.schemes.contains { url.hasPrefix($0) }, "URL \(url) without a scheme")
    default:
        break
    }
}

private func checkRanging(_ frame: BeaconFrame, _ bytes: UnsafeRawBufferPointer) {
    guard let identity = frame.rangingIdentity else { return }
    var ranger = BeaconRanger()
    let key = BeaconRanger.Key(uuid: identity.uuid, major: identity.major, minor: identity.minor)
    let constraint = BeaconIdentityConstraint(uuid: identity.uuid, major: identity.major, minor: identity.minor)
    var time = 0.0
    for (index, byte) in bytes.enumerated() {
        time += Double(byte & 0x0F) * 0.25
        ranger.add(key, measuredPower: identity.measuredPower, rssi: -Int(byte >> 1), at: time)
        if index % 8 == 7 { ranger.prune(at: time) }
        for b in ranger.beacons(satisfying: constraint, at: time + Double(byte >> 5)) {
            if b.proximity == .unknown {
                require(b.accuracy == -1 && b.rssi == 0, "unknown beacon with accuracy \(b.accuracy), RSSI \(b.rssi)")
            } else {
                require(b.accuracy >= 0.01 && b.accuracy <= 1000, "accuracy \(b.accuracy) m")
                require(b.proximity == ranger.model.proximity(distance: b.accuracy), "proximity \(b.proximity) for \(b.accuracy) m")
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    checkWalk(bytes)
    var counters = AdvertCounters()
    let result = BeaconParser.parse(bytes)
    counters.record(result)
    require(counters.seen == 1 && counters.beacons + counters.other + counters.rejected == 1, "one parse counted as \(counters)")
    if case .rejected(let reason) = result { require(counters[reason] == 1, "\(reason) not counted") }
    if case .beacon(let frame) = result {
        checkFrame(frame)
        checkRanging(frame, bytes)
    }
    let text = String(decoding: bytes.prefix(40), as: UTF8.self)
    if let uuid = BeaconUUID(text) {
        require(BeaconUUID(uuid.description) == uuid, "UUID \(text) prints as \(uuid.description), which does not read back")
    }
    return 0
}
