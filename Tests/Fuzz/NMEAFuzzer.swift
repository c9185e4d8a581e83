// libFuzzer entry point for the NMEA engine: framer + parser + epoch assembler.
//
// Built by `.ci/fuzz.sh` together with the sources of Sources/NMEA as one module (so there is
// no `import NMEA`), with `-sanitize=fuzzer,address`. Any trap (overflow, bounds, unwrap) or
// memory error is a crash, and so is a difference between feeding the input whole and in pieces.

#if canImport(Glibc)
import Glibc
#endif

private struct Tally: NMEAStreamDelegate, Equatable {
    var fixes = 0
    var sentences = 0
    var rejected = 0
    var framing = 0
    var ubx = 0
    var checksum = 0

    mutating func stream(fix: Fix) {
        fixes += 1
        // Touch every field so the optimiser keeps the work and the sanitizer sees every read.
        checksum &+= Int(fix.latitude.map { $0.isFinite ? 1 : 2 } ?? 0) &+ fix.satellites.count
        checksum &+= fix.time.map { Int(truncatingIfNeeded: $0.nanosecondsSinceEpoch) } ?? 0
    }
    mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>) {
        sentences += 1
        checksum &+= bytes.count
        if case .proprietary(let p) = sentence.sentence { checksum &+= p.fields(in: bytes).count }
    }
    mutating func stream(rejected error: NMEAError, bytes: Span<UInt8>) {
        rejected += 1
        checksum &+= error.description.utf8.count
    }
    mutating func stream(framingError: FramingError) { framing += 1 }
    mutating func stream(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) { ubx += 1; checksum &+= payload.count }
}

private func run(_ bytes: UnsafeRawBufferPointer, chunk: Int, requireChecksum: Bool) -> Tally {
    let stream = NMEAStream(parserOptions: NMEAParserOptions(requireChecksum: requireChecksum),
                            skipsCommentLines: true)
    var tally = Tally()
    let typed = bytes.bindMemory(to: UInt8.self)
    var offset = 0
    while offset < typed.count {
        let end = min(typed.count, offset + chunk)
        stream.feed(UnsafeBufferPointer(rebasing: typed[offset..<end]).span, delegate: &tally)
        offset = end
    }
    stream.finish(delegate: &tally)
    return tally
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let control = bytes[0]
    let requireChecksum = control & 0x80 == 0
    let whole = run(bytes, chunk: size, requireChecksum: requireChecksum)
    let split = run(bytes, chunk: Int(control & 0x1F) + 1, requireChecksum: requireChecksum)
    if whole != split {
        print("framing differs between whole and chunked input: \(whole) vs \(split)")
        abort()
    }
    // The parser alone, on the input taken as one sentence, tolerant and strict: a sentence the
    // strict reading accepts is accepted whole by the tolerant one, and nothing the tolerant reading
    // reports is out of its field's range (a tolerated field is absent, never clamped or guessed).
    let span = UnsafeBufferPointer(start: data, count: size).span
    let tolerant = try? NMEAParser.parse(span)
    let strict = try? NMEAParser.parse(span, options: NMEAParserOptions(toleratesUnreadableFields: false))
    if strict != nil, tolerant?.unreadableFields.isEmpty != true {
        print("the strict reading accepts what the tolerant one refuses or finds unreadable")
        abort()
    }
    if let tolerant, !inRange(tolerant.sentence) {
        print("the tolerant reading reports a value out of its field's range: \(tolerant.sentence)")
        abort()
    }
    return 0
}

/// Whether every coordinate, date and satellite value of a decoded sentence is within its range.
private func inRange(_ sentence: Sentence) -> Bool {
    func position(_ latitude: Coordinate?, _ longitude: Coordinate?) -> Bool {
        guard let latitude, let longitude else { return latitude == nil && longitude == nil }
        return abs(latitude.degrees) <= 90 && abs(longitude.degrees) <= 180
    }
    switch sentence {
    case .rmc(let s):
        let date = s.day.map { (1...31).contains($0) } ?? true
        let month = s.month.map { (1...12).contains($0) } ?? true
        return position(s.latitude, s.longitude) && date && month
    case .gga(let s): return position(s.latitude, s.longitude) && (s.satellitesUsed ?? 0) <= 999
    case .gll(let s): return position(s.latitude, s.longitude)
    case .gns(let s): return position(s.latitude, s.longitude)
    case .gsv(let s):
        for index in 0..<s.satelliteCount {
            let view = s.satellites[index]
            if let e = view.elevation, !(-90...90).contains(e) { return false }
            if let a = view.azimuth, a > 360 { return false }
            if let n = view.snr, n > 99 { return false }
        }
        return true
    case .zda(let s): return s.localZoneHours.map { (-13...13).contains($0) } ?? true
    default: return true
    }
}
