// libFuzzer entry point for the NTRIP client's parsers: the response head, the chunked decoder,
// the source table, and whole sessions (stream and source table) over the RTCM 3 framer.
//
// Built together with the sources of Sources/NMEA and Sources/NTRIP as one module (the NTRIP
// sources import NMEA only `#if canImport`):
//
//   swiftc -O -parse-as-library -sanitize=fuzzer,address -module-name NTRIPFuzz \
//       Sources/NMEA/*.swift Sources/NMEA/Sentences/*.swift Sources/NMEA/Binary/*.swift Sources/NTRIP/*.swift \
//       Tests/Fuzz/NTRIPFuzzer.swift -o /tmp/ntrip-fuzzer
//
// Invariants (a broken one aborts):
// - every frame a session hands out is a whole RTCM 3 frame: D3, its length, a correct CRC-24Q;
// - a session fed the input whole and fed it in pieces (split at points the input's first byte
//   chooses) ends in the same state with the same frames, unless the answer is `ICY` (whether
//   header lines follow an ICY line depends on what has arrived with it: by design);
// - the chunked decoder gives the same data (or fails at the same offset) whole and byte by byte;
// - a parsed head's length never exceeds the input, and source-table records have a mountpoint.

#if canImport(Glibc)
import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    print("ntrip fuzz invariant broken: \(message())")
    abort()
}

private func checkFrame(_ frame: [UInt8]) {
    require(frame.count >= 6 && frame[0] == 0xD3, "frame without preamble: \(frame.prefix(8))")
    let length = Int(frame[1] & 0x03) << 8 | Int(frame[2])
    require(frame.count == length + 6, "frame length \(frame.count) for payload \(length)")
    let crc = CRC24Q.compute(frame[..<(frame.count - 3)])
    require(CRC24Q.bytes(crc) == Array(frame[(frame.count - 3)...]), "frame with a wrong CRC")
}

private func session(_ bytes: [UInt8], pieces: [Int], sourceTable: Bool) -> (NTRIPLinkState, [[UInt8]], NTRIPSourceTable?) {
    var s = NTRIPSession(configuration: NTRIPConfiguration(host: "h", mountpoint: "M", user: "u", password: "p"), sourceTable: sourceTable)
    var rtcm = RTCM3Stream()
    _ = s.request()
    var frames: [[UInt8]] = []
    var offset = 0
    var k = 0
    while offset < bytes.count {
        let n = pieces.isEmpty ? bytes.count : max(1, min(pieces[k % pieces.count], bytes.count - offset))
        frames += s.receive(bytes[offset..<(offset + n)], rtcm: &rtcm)
        offset += n
        k += 1
    }
    s.closed("end of input", rtcm: &rtcm)
    return (s.state, frames, s.sourceTable)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let (_, length) = try? NTRIPResponseParser.parse(bytes) { require(length <= bytes.count, "head longer than the input") }
    _ = try? NTRIPResponseParser.parse(bytes, atEnd: true)
    for record in NTRIPSourceTable.parse(bytes).streams { require(!record.mountpoint.isEmpty, "STR without a mountpoint") }

    var whole: [UInt8] = []
    var a = ChunkedDecoder()
    let wholeError: NTRIPError?
    do { try a.decode(bytes, into: &whole); wholeError = nil } catch { wholeError = error }
    var split: [UInt8] = []
    var b = ChunkedDecoder()
    var splitError: NTRIPError?
    for byte in bytes {
        do { try b.decode([byte], into: &split) } catch { splitError = error; break }
    }
    require(wholeError == splitError, "chunked errors differ: \(String(describing: wholeError)) vs \(String(describing: splitError))")
    if wholeError == nil { require(whole == split, "chunked data differs whole and byte by byte") }

    let pieces = bytes.isEmpty ? [] : [Int(bytes[0] % 7) + 1, Int(bytes[0] / 7 % 13) + 1]
    for table in [false, true] {
        let (state1, frames1, table1) = session(bytes, pieces: [], sourceTable: table)
        let (state2, frames2, table2) = session(bytes, pieces: pieces, sourceTable: table)
        for frame in frames1 { checkFrame(frame) }
        for frame in frames2 { checkFrame(frame) }
        if bytes.starts(with: Array("ICY".utf8)) { continue }
        require(frames1 == frames2, "frames differ whole and in pieces")
        require(state1 == state2, "states differ whole and in pieces: \(state1) vs \(state2)")
        require(table1 == table2, "source tables differ whole and in pieces")
    }
    return 0
}
