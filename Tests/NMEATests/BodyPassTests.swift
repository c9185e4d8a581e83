import NMEA
import Testing

/// The parser's single pass over a sentence body (checksum and commas, sixteen or thirty-two bytes a
/// turn) at every body length a sentence can have, against a byte-by-byte reference.
@Suite("Body pass")
struct BodyPassTests {
    @Test("every length up to 400 bytes: the checksum is checked and the commas counted as one byte at a time would")
    func everyLength() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let alphabet = Array("0123456789ABCDEF.,,,-".utf8)
        for length in 0...400 {
            // A proprietary address (no length limit, passed through with its field count).
            var body = Array("PXYZ,".utf8)
            for _ in 0..<length { body.append(alphabet[next(alphabet.count)]) }
            let commas = body.filter { $0 == 0x2C }.count
            let good = NMEAChecksum.sentence(body: body)
            let parsed = try NMEAParser.parse(good.span)
            guard case .proprietary(let raw) = parsed.sentence else { Issue.record("not proprietary: \(length)"); continue }
            #expect(raw.fieldCount == commas, "\(length)")
            // Any single byte changed in the body is a checksum mismatch.
            var bad = good
            let index = 1 + next(body.count)
            bad[index] ^= 0x01
            #expect(throws: NMEAError.self, "\(length)") { try NMEAParser.parse(bad.span) }
        }
    }
}
