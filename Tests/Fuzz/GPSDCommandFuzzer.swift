// libFuzzer entry point for the gpsd protocol layer: request-line parser, WATCH merge, JSON reader
// and report encoders.
//
// Built together with the sources of Sources/NMEA and Sources/GPSDProtocol as one module (so there is
// no `import NMEA`/`import GPSDProtocol`; the GPSDProtocol sources import NMEA only `#if canImport`):
//
//   swiftc -O -parse-as-library -sanitize=fuzzer,address -module-name GPSDFuzz \
//       Sources/NMEA/*.swift Sources/NMEA/Sentences/*.swift Sources/GPSDProtocol/*.swift \
//       Tests/Fuzz/GPSDCommandFuzzer.swift -o /tmp/gpsd-fuzzer
//
// Any trap or memory error is a crash, and so is a broken invariant (checked with `require`):
// - a line yields no more requests than it has `?` bytes, a non-`?` line is ignored, and a failure
//   can only be the last result;
// - the borrowed-bytes and collection parsers agree;
// - every WATCH merge keeps `raw` in 0...2, and its WATCH report, every ERROR report and the TPV/SKY/
//   ATT reports built from the input's bytes parse back with our JSON reader, contain no exponent,
//   NaN or infinity, and carry the values they were built from;
// - JSON the reader accepts survives a round trip through `jsonText`.
// The encoders run on inputs whose last byte is a multiple of 8 (see the entry point).

#if canImport(Glibc)
import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    print("gpsd fuzz invariant broken: \(message())")
    abort()
}

/// Parses a report we produced; it must be an object whose `class` is `name`, without exponents.
private func checkReport(_ text: String, class name: String) -> GPSDJSONValue {
    let value: GPSDJSONValue
    do {
        value = try GPSDJSONValue.parse(text.utf8)
    } catch {
        require(false, "report does not parse (\(error)): \(text)")
        return .null
    }
    require(value["class"] == .string(name), "report class is not \(name): \(text)")
    require(!hasExponentOrNonFinite(text), "report has an exponent or a non-finite number: \(text)")
    return value
}

/// Whether the text outside string literals holds a word other than `true`/`false`: an exponent,
/// `nan`, `inf` or `null` (gpsd never prints null).
private func hasExponentOrNonFinite(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) }
    var index = 0
    var inString = false
    while index < bytes.count {
        let byte = bytes[index]
        if inString {
            if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            index += 1
        } else if byte == UInt8(ascii: "\"") {
            inString = true
            index += 1
        } else if isLetter(byte) {
            let start = index
            while index < bytes.count, isLetter(bytes[index]) { index += 1 }
            let word = String(decoding: bytes[start..<index], as: UTF8.self)
            if word != "true" && word != "false" { return true }
        } else {
            index += 1
        }
    }
    return false
}

/// Runs one line through the parser and the WATCH merge.
private func exercise(line: UnsafeBufferPointer<UInt8>, policy: inout GPSDWatchPolicy) {
    let parsed = GPSDCommand.parse(line.span)
    require(parsed == GPSDCommand.parse(Array(line)), "span and collection parsers disagree")
    let questionMarks = line.reduce(0) { $0 + ($1 == UInt8(ascii: "?") ? 1 : 0) }
    let firstByte = line.first { !($0 == 0x20 || (0x09...0x0D).contains($0)) }
    switch parsed {
    case .ignored:
        require(firstByte != UInt8(ascii: "?"), "a ? line was ignored")
    case .requests(let results):
        require(firstByte == UInt8(ascii: "?"), "a non-? line was parsed")
        require(!results.isEmpty && results.count <= questionMarks, "\(results.count) requests from \(questionMarks) '?'")
        for (index, result) in results.enumerated() {
            switch result {
            case .success(.watch(let request?)):
                policy.apply(request)
                require((0...2).contains(policy.raw), "raw out of range: \(policy.raw)")
                let report = checkReport(policy.report, class: "WATCH")
                require(report["enable"] == .bool(policy.enable) && report["raw"] == .number(Double(policy.raw)),
                        "WATCH report does not echo the policy: \(policy.report)")
                require(report["device"] == policy.device.map(GPSDJSONValue.string), "WATCH device echo differs")
            case .success:
                break
            case .failure(let error):
                require(index == results.count - 1, "a failure is not the last result")
                let report = checkReport(GPSDReport.error(error), class: "ERROR")
                require(report["message"] == .string(error.message), "ERROR message does not round-trip")
            }
        }
    }
}

/// Doubles taken from the input's bytes (8 at a time), cycling; NaN, infinities and huge values included.
private struct DoubleSource {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func next() -> Double? {
        guard bytes.count >= 8 else { return nil }
        var bits: UInt64 = 0
        for _ in 0..<8 {
            bits = bits << 8 | UInt64(bytes[index % bytes.count])
            index += 1
        }
        let value = Double(bitPattern: bits)
        return bits & 0x0F == 0 ? nil : value
    }
}

/// Builds a fix and an attitude from the bytes and checks their reports.
private func exerciseEncoders(_ bytes: UnsafeBufferPointer<UInt8>) {
    var source = DoubleSource(bytes: bytes)
    var fix = Fix()
    fix.mode = FixMode(rawValue: Int(bytes.first ?? 0) % 4) ?? .unknown
    fix.quality = FixQuality(rawValue: Int(bytes.last ?? 0) % 9) ?? .invalid
    fix.time = source.next().map { UTCTime(nanosecondsSinceEpoch: Int64(bitPattern: $0.bitPattern)) }
    fix.latitude = source.next()
    fix.longitude = source.next()
    fix.altitudeMSL = source.next()
    fix.altitudeHAE = source.next()
    fix.geoidSeparation = source.next()
    fix.speed = source.next()
    fix.course = source.next()
    fix.magneticVariation = source.next()
    fix.horizontalAccuracy = source.next()
    fix.verticalAccuracy = source.next()
    fix.hdop = source.next()
    for (offset, byte) in bytes.prefix(24).enumerated() {
        let constellation = Constellation(rawValue: byte % 8)
        fix.satellites.append(SatelliteInfo(constellation: constellation, prn: UInt16(byte) &* UInt16(offset + 1),
                                            elevation: Int16(truncatingIfNeeded: Int(byte) &* 300 &- 32768),
                                            azimuth: UInt16(byte) &* 3, snr: byte, used: byte & 1 == 1))
    }
    let extras = GPSDTPVExtras(timeError: source.next(), climb: source.next(), speedError: source.next())
    let tpv = checkReport(GPSDReport.tpv(fix, device: "/dev/fuzz", extras: extras), class: "TPV")
    require(tpv["mode"] == .number(Double(fix.mode.rawValue)), "TPV mode differs")
    if fix.mode >= .twoD, let lat = fix.latitude, lat.isFinite, lat.magnitude < 1e6 {
        guard case .number(let printed)? = tpv["lat"] else { return require(false, "TPV lost lat \(lat)") }
        require((printed - lat).magnitude <= 1e-9, "TPV lat \(printed) differs from \(lat)")
    }
    let sky = checkReport(GPSDReport.sky(fix, device: nil), class: "SKY")
    if case .array(let satellites)? = sky["satellites"] {
        require(sky["nSat"] == .number(Double(satellites.count)), "SKY nSat differs from the satellites listed")
    }
    _ = checkReport(GPSDReport.poll(time: fix.time ?? UTCTime(nanosecondsSinceEpoch: 1), devices: [GPSDPollEntry(device: nil, fix: fix)]),
                    class: "POLL")
    let attitude = AttitudeInput(device: "/dev/fuzz", heading: source.next(), magnetometerStatus: .normal, pitch: source.next(),
                                 roll: source.next(), dip: source.next(), magneticX: source.next(), accelerationZ: source.next(),
                                 temperature: source.next())
    _ = checkReport(GPSDReport.att(attitude), class: "ATT")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var policy = GPSDWatchPolicy()
    // The whole input as one line, then line by line as a server would split it.
    exercise(line: bytes, policy: &policy)
    var start = 0
    for index in 0..<bytes.count where bytes[index] == 0x0A {
        exercise(line: UnsafeBufferPointer(rebasing: bytes[start...index]), policy: &policy)
        start = index + 1
    }
    exercise(line: UnsafeBufferPointer(rebasing: bytes[start...]), policy: &policy)
    // The JSON reader alone: what it accepts must survive a round trip through jsonText.
    if let value = try? GPSDJSONValue.parse(bytes.span) {
        require((try? GPSDJSONValue.parse(value.jsonText.utf8)) == value, "JSON round trip differs: \(value.jsonText)")
    }
    // The report encoders cost about ten times the parsers (four reports built, each parsed back),
    // so they run on one input in eight, chosen by the input's last byte (libFuzzer learns to set
    // it when that finds new coverage); the request parser and the JSON reader run on every input.
    if let last = bytes.last, last & 0x07 == 0 { exerciseEncoders(bytes) }
    return 0
}
