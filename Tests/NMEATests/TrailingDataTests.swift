import NMEA
import Testing

/// Data after a sentence's checksum, up to the line end: Android's GnssLogger writes each NMEA line
/// as `NMEA,$GPGGA,...*63,1699400577561` (a record type before the `$`, its own millisecond
/// timestamp after the checksum).
@Suite("Data after the checksum")
struct TrailingDataTests {
    static let sentences = [
        withChecksum("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"),
        withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        withChecksum("$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"),
        withChecksum("$GPRMC,123520,A,4807.039,N,01131.000,E,022.4,084.4,230394,003.1,W"),
        withChecksum("$GPGGA,123520,4807.039,N,01131.000,E,1,08,0.9,545.5,M,46.9,M,,"),
        withChecksum("$GPRMC,123521,A,4807.040,N,01131.000,E,022.4,084.4,230394,003.1,W"),
        withChecksum("$GPGGA,123521,4807.040,N,01131.000,E,1,08,0.9,545.6,M,46.9,M,,"),
    ]

    /// The GnssLogger form of the sentences: wrapper, sentence, a timestamp after the checksum.
    static var logger: [UInt8] {
        Array(sentences.enumerated().map { "NMEA,\($0.element),\(1_699_400_577_561 + $0.offset * 100)\n" }.joined().utf8)
    }

    static var plain: [UInt8] { Array(sentences.map { $0 + "\r\n" }.joined().utf8) }

    /// The fixes and the counters of a stream fed `bytes` in chunks of the given sizes (cycled).
    func run(_ bytes: [UInt8], chunks: [Int]) -> ([String], SentenceCounters) {
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil))
        var out: [String] = []
        var index = 0
        var chunk = 0
        while index < bytes.count {
            let end = min(bytes.count, index + max(1, chunks[chunk % chunks.count]))
            let slice = Array(bytes[index..<end])
            stream.feed(slice.span) { out.append("\($0.time?.description ?? "-") \($0.latitude ?? 0) \($0.altitudeMSL ?? 0) \($0.speed ?? 0)") }
            index = end
            chunk += 1
        }
        stream.finish { out.append("\($0.time?.description ?? "-") \($0.latitude ?? 0) \($0.altitudeMSL ?? 0) \($0.speed ?? 0)") }
        return (out, stream.counters)
    }

    @Test("a logger's timestamp after the checksum: the same fixes as the bare sentences, whole, byte by byte and in bursts",
          arguments: [[Int.max], [1], [7, 13, 64], [3, 200, 1, 31]])
    func sameFixes(chunks: [Int]) {
        let (expected, plainCounters) = run(Self.plain, chunks: [Int.max])
        #expect(expected.count == 3)
        #expect(plainCounters.trailingData == 0)
        let (fixes, counters) = run(Self.logger, chunks: chunks)
        #expect(fixes == expected)
        #expect(counters.totalAccepted == Self.sentences.count)
        #expect(counters.totalRejected == Self.sentences.count, "the `NMEA,` wrapper of each line is stray bytes")
        #expect(counters.rejected(.garbage) == Self.sentences.count)
        #expect(counters.rejected(.malformedChecksum) == 0 && counters.rejected(.checksumMismatch) == 0)
        #expect(counters.trailingData == Self.sentences.count)
        #expect(counters.trailingDataBytes == Self.sentences.count * 14)   // ",1699400577561" and the like
    }

    @Test("a wrong checksum before the trailing data is still refused", arguments: [[Int.max], [1], [5, 17]])
    func badChecksumRefused(chunks: [Int]) {
        var lines = Self.sentences
        // The first epoch's GGA (checksum 47) with a wrong checksum.
        lines[1] = String(lines[1].dropLast(2)) + "48"
        let text = lines.map { "NMEA,\($0),1699400577561\n" }.joined()
        let (fixes, counters) = run(Array(text.utf8), chunks: chunks)
        #expect(counters.rejected(.checksumMismatch) == 1)
        #expect(counters.totalAccepted == Self.sentences.count - 1)
        #expect(counters.trailingData == Self.sentences.count - 1)
        // The first epoch lost its GGA's altitude, not its RMC.
        #expect(fixes.count == 3)
        #expect(fixes.first?.split(separator: " ").dropFirst(2).first == "0.0", "\(fixes)")
    }

    @Test("the parser: data after `*hh` is not a field; a malformed or wrong checksum before it is an error")
    func parser() throws {
        let gga = withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let parsed = try parse(gga + ",1699400577561")
        guard case .gga(let fields) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(fields.altitudeMSL?.doubleValue == 545.4)
        #expect(try parse(gga + " ").sentence.type == .gga)
        #expect(NMEAParser.trailingDataLength(Array((gga + ",1699400577561").utf8).span) == 14)
        #expect(NMEAParser.trailingDataLength(Array(gga.utf8).span) == 0)
        let body = String(gga.dropLast(3))
        #expect(throws: NMEAError.checksumMismatch(calculated: 0x47, found: 0x48)) { try parse(body + "*48,1699400577561") }
        #expect(throws: NMEAError.malformedChecksum) { try parse(body + "*4,1699400577561") }
        #expect(throws: NMEAError.malformedChecksum) { try parse(body + "*ZZ,1699400577561") }
        #expect(throws: NMEAError.missingChecksum) { try parse(body + ",1699400577561") }
    }
}
