@testable import NMEA
import Testing

/// The framer's digest of a sentence (the XOR and the commas of its bytes after the delimiter,
/// found in the same scan as its end) and the parser's use of it in place of its own pass.
@Suite("Framer digest")
struct FramerDigestTests {
    /// The first byte from `from` on that cannot continue a sentence, and the XOR and commas before
    /// it, one byte at a time.
    static func reference(_ bytes: [UInt8], from: Int) -> (stop: Int, xor: UInt8, commas: Int) {
        var xor: UInt8 = 0
        var commas = 0
        var index = from
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte >= 0x7F || byte == 0x24 || byte == 0x21 { break }
            xor ^= byte
            if byte == 0x2C { commas += 1 }
            index += 1
        }
        return (index, xor, commas)
    }

    @Test("the scan's end and digest at every length up to 300 bytes and every place of the stop, against one byte at a time")
    func scanAgainstReference() {
        var random = SplitMix(state: 0x5EED_D16E)
        let printable = Array("0123456789ABCDEF.,,,-*GPRMC".utf8)
        let stops: [UInt8] = [0x0D, 0x0A, 0x24, 0x21, 0x00, 0x7F, 0x80, 0xFF, 0x1F]
        var checked = 0
        var stoppedInside = 0
        for length in 0...300 {
            for _ in 0..<6 {
                var bytes = (0..<length).map { _ in printable[Int(random.next() % UInt64(printable.count))] }
                // A stop at a random place (or none), sometimes followed by more sentence bytes.
                if length > 0, random.next() % 4 != 0 {
                    bytes[Int(random.next() % UInt64(length))] = stops[Int(random.next() % UInt64(stops.count))]
                }
                let from = length == 0 ? 0 : Int(random.next() % UInt64(min(length, 4)))
                let expected = Self.reference(bytes, from: from)
                var digest = SentenceDigest()
                let stop = bytes.withUnsafeBufferPointer { buffer -> Int in
                    guard let base = buffer.baseAddress else { return 0 }
                    return FramerCore.sentenceEnd(base, from: from, to: buffer.count, digest: &digest)
                }
                #expect(stop == expected.stop, "length \(length) from \(from)")
                #expect(digest.xor == expected.xor, "length \(length) from \(from) stop \(stop)")
                #expect(digest.commas == expected.commas, "length \(length) from \(from) stop \(stop)")
                checked += 1
                if expected.stop < length { stoppedInside += 1 }
            }
        }
        #expect(checked == 301 * 6)
        #expect(stoppedInside > 1_000, "most ranges end at a stop byte inside them")
    }

    /// A sink that checks each digest against the sentence's own bytes.
    struct CheckingSink: NMEAFramerSink {
        var sentences = 0
        var digested = 0
        var wrong: [String] = []

        mutating func framer(sentence: Span<UInt8>) { sentences += 1 }

        mutating func framer(sentence: Span<UInt8>, digest: SentenceDigest) {
            sentences += 1
            digested += 1
            var bytes: [UInt8] = []
            for index in sentence.indices { bytes.append(sentence[index]) }
            let expected = FramerDigestTests.reference(bytes, from: 1)
            if expected.stop != bytes.count || digest.xor != expected.xor || digest.commas != expected.commas {
                wrong.append(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    @Test("every sentence of the gpsd corpus framed whole comes with the digest of its bytes: in 64 KiB reads, a line at a time and in bursts",
          .enabled(if: sharedFolder() != nil, "../shared/corpus/gpsd is not beside the package"))
    func corpusDigests() throws {
        let shared = try #require(sharedFolder())
        var random = SplitMix(state: 17)
        var total = 0
        for (number, name) in FileProbe.list(shared + "/corpus/gpsd").filter({ $0.hasSuffix(".log") }).enumerated() {
            let bytes = try #require(FileProbe.read(shared + "/corpus/gpsd/" + name))
            // 64 KiB reads; then one line (its line end included) per feed; then, for every third
            // log (the test runs beside the others on two cores), random bursts.
            var chunkings: [[Range<Int>]] = [stride(from: 0, to: bytes.count, by: 65_536).map { $0..<min($0 + 65_536, bytes.count) }]
            var lines: [Range<Int>] = []
            var start = 0
            for (index, byte) in bytes.enumerated() where byte == 0x0A {
                lines.append(start..<index + 1)
                start = index + 1
            }
            if start < bytes.count { lines.append(start..<bytes.count) }
            chunkings.append(lines)
            if number % 3 == 0 {
                var bursts: [Range<Int>] = []
                start = 0
                while start < bytes.count {
                    let end = min(bytes.count, start + 1 + Int(random.next() % 300))
                    bursts.append(start..<end)
                    start = end
                }
                chunkings.append(bursts)
            }
            var counts: [Int] = []
            for chunks in chunkings {
                let framer = NMEAFramer()
                var sink = CheckingSink()
                for range in chunks { framer.feed(Array(bytes[range]).span, into: &sink) }
                framer.finish(into: &sink)
                #expect(sink.wrong.isEmpty, "\(name): \(sink.wrong.prefix(3))")
                counts.append(sink.sentences)
                total += sink.digested
            }
            // The same sentences however the bytes come; a line at a time, all of them whole.
            #expect(Set(counts).count == 1, "\(name): \(counts)")
        }
        #expect(total > 30_000)
    }

    @Test("a sentence parsed with its digest gives what it gives without: every line of the gpsd corpus, and each with one byte changed",
          .enabled(if: sharedFolder() != nil, "../shared/corpus/gpsd is not beside the package"))
    func parseWithDigest() throws {
        let shared = try #require(sharedFolder())
        var random = SplitMix(state: 99)
        var compared = 0
        var failures = 0
        for name in FileProbe.list(shared + "/corpus/gpsd") where name.hasSuffix(".log") {
            let bytes = try #require(FileProbe.read(shared + "/corpus/gpsd/" + name))
            // Every second line (the test runs beside the others on two cores).
            for (index, line) in bytes.split(separator: 0x0A).enumerated() where index % 2 == 0 {
                var sentence = Array(line)
                if sentence.last == 0x0D { sentence.removeLast() }
                guard let first = sentence.first, first == 0x24 || first == 0x21 else { continue }
                var variants = [sentence]
                if sentence.count > 2 {
                    var changed = sentence
                    changed[1 + Int(random.next() % UInt64(sentence.count - 1))] ^= 0x01
                    variants.append(changed)
                }
                for variant in variants {
                    let expected = Self.reference(variant, from: 1)
                    guard expected.stop == variant.count else { continue }   // the framer would not hand it over whole
                    let digest = SentenceDigest(xor: expected.xor, commas: expected.commas)
                    for options in [NMEAParserOptions(), NMEAParserOptions(requireChecksum: false, toleratesUnreadableFields: false)] {
                        let plain = Result { () throws(NMEAError) in try NMEAParser.parse(variant.span, options: options) }
                        let fused = Result { () throws(NMEAError) in try NMEAParser.parse(variant.span, digest: digest, options: options) }
                        switch (plain, fused) {
                        case (.success(let a), .success(let b)):
                            #expect("\(a.sentence)" == "\(b.sentence)" && a.unreadableFields == b.unreadableFields
                                    && a.address == b.address, "\(name): \(String(decoding: variant, as: UTF8.self))")
                        case (.failure(let a), .failure(let b)):
                            #expect(a == b, "\(name): \(String(decoding: variant, as: UTF8.self))")
                            failures += 1
                        default:
                            Issue.record("\(name): \(String(decoding: variant, as: UTF8.self)): \(plain) against \(fused)")
                        }
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 45_000)
        #expect(failures > 5_000, "the changed sentences fail their checksum, with the digest as without")
    }
}
