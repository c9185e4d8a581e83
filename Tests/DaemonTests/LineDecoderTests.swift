@testable import FieldLocationDaemon
import FieldLocationWire
import NIOCore
import NIOTestUtils
import Testing

/// The one line decoder of the daemon's sockets, checked SwiftNIO's way (`ByteToMessageDecoderVerifier`
/// feeds each input whole, byte by byte and many at once) and by feeding the same streams whole,
/// byte by byte and in seeded random bursts, which must give the same lines.
@Suite("line decoder")
struct LineDecoderTests {
    static func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
    static func line(_ text: String) -> LineDecoder.Item { .line(buffer(text)) }

    /// The client socket's decoder with a small limit: CR dropped, empty lines skipped.
    static func small() -> LineDecoder {
        LineDecoder(maximumLength: 8, stripsCarriageReturn: true, skipsEmptyLines: true, deliversUnterminatedLine: false)
    }

    @Test("ByteToMessageDecoderVerifier: lines, CR LF, empty lines, lines at and over the limit")
    func verifier() throws {
        try ByteToMessageDecoderVerifier.verifyDecoder(
            stringInputOutputPairs: [
                ("abc\n", [Self.line("abc")]),
                ("x\r\ny\n", [Self.line("x"), Self.line("y")]),
                ("\n", []),
                ("\r\n", []),
                ("12345678\r\n", [Self.line("12345678")]),
                ("123456789\n", [.tooLong(Self.buffer("123456789"))]),
                ("123456789\r\n", [.tooLong(Self.buffer("123456789"))]),
                ("much too long for eight bytes\nok\n", [.tooLong(Self.buffer("much too ")), Self.line("ok")]),
                ("a\rb\n", [Self.line("a\rb")]),
            ],
            decoderFactory: Self.small)
        // Keeping CR and empty lines (the watch client keeps empty lines; the gpsd server keeps CR).
        try ByteToMessageDecoderVerifier.verifyDecoder(
            stringInputOutputPairs: [
                ("\n", [Self.line("")]),
                ("?A\r\n", [Self.line("?A\r")]),
                ("1234\r\n", [.tooLong(Self.buffer("1234\r"))]),
            ],
            decoderFactory: { LineDecoder(maximumLength: 4, stripsCarriageReturn: false, skipsEmptyLines: false) })
    }

    /// Feeds `chunks` through a processor and returns what came out, then what `finishProcessing` gives.
    static func run(_ chunks: [[UInt8]], _ decoder: LineDecoder, finish: Bool = true) throws -> [LineDecoder.Item] {
        let processor = NIOSingleStepByteToMessageProcessor(decoder)
        var out: [LineDecoder.Item] = []
        for chunk in chunks { try processor.process(buffer: ByteBuffer(bytes: chunk)) { out.append($0) } }
        if finish { try processor.finishProcessing(seenEOF: true) { out.append($0) } }
        return out
    }

    /// A stream of lines: short ones, empty ones, CR LF, over-long ones (some of them much longer), in a seeded order.
    /// A deterministic pseudo-random sequence (a 64-bit linear congruential generator, top bits).
    struct Sequence {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
    }

    static func stream(seed: UInt64, limit: Int) -> [UInt8] {
        var sequence = Sequence(state: seed)
        var bytes: [UInt8] = []
        for _ in 0..<200 {
            let length: Int
            switch sequence.next(10) {
            case 0: length = 0
            case 1: length = limit
            case 2: length = limit + 1
            case 3: length = limit * 3 + sequence.next(5)
            default: length = 1 + sequence.next(limit - 1)
            }
            bytes += (0..<length).map { _ in UInt8(0x21 + sequence.next(0x5E)) }
            if sequence.next(2) == 0 { bytes.append(0x0D) }
            bytes.append(0x0A)
        }
        return bytes
    }

    static func bursts(_ bytes: [UInt8], seed: UInt64) -> [[UInt8]] {
        var sequence = Sequence(state: seed)
        var out: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + 1 + sequence.next(40))
            out.append(Array(bytes[start..<end]))
            start = end
        }
        return out
    }

    @Test("whole, byte by byte and in bursts give the same lines, for every setting", arguments: [
        LineDecoder(maximumLength: 16, stripsCarriageReturn: true, skipsEmptyLines: true),
        LineDecoder(maximumLength: 16, stripsCarriageReturn: false, skipsEmptyLines: false),
        LineDecoder(maximumLength: 16, stripsCarriageReturn: true, skipsEmptyLines: false, deliversUnterminatedLine: true),
    ])
    func chunkingDoesNotMatter(decoder: LineDecoder) throws {
        for seed in 1...5 as ClosedRange<UInt64> {
            let bytes = Self.stream(seed: seed, limit: decoder.maximumLength) + Array("unterminated".utf8)
            let whole = try Self.run([bytes], decoder)
            #expect(try Self.run(bytes.map { [$0] }, decoder) == whole)
            #expect(try Self.run(Self.bursts(bytes, seed: seed * 7), decoder) == whole)
            // Every line is within the limit; every over-long one is reported with the limit + 1 first bytes.
            for item in whole {
                switch item {
                case .line(let l): #expect(l.readableBytes <= decoder.maximumLength)
                case .tooLong(let head): #expect(head.readableBytes == decoder.maximumLength + 1)
                }
            }
            #expect(whole.contains { if case .tooLong = $0 { true } else { false } })
            let last = whole.last
            #expect((last == Self.line("unterminated")) == decoder.deliversUnterminatedLine)
        }
    }

    @Test("an unterminated line is handed over on a pause only when asked, and the stream goes on after it")
    func unterminated() throws {
        let processor = NIOSingleStepByteToMessageProcessor(
            LineDecoder(maximumLength: 32, stripsCarriageReturn: false, deliversUnterminatedLine: true))
        var out: [LineDecoder.Item] = []
        try processor.process(buffer: Self.buffer("?VERSION;\n?WATCH={")) { out.append($0) }
        #expect(out == [Self.line("?VERSION;")])
        #expect(processor.unprocessedBytes == 8)
        try processor.finishProcessing(seenEOF: false) { out.append($0) }
        #expect(out == [Self.line("?VERSION;"), Self.line("?WATCH={")])
        #expect(processor.unprocessedBytes == 0)
        try processor.process(buffer: Self.buffer("?POLL;\n")) { out.append($0) }
        #expect(out.last == Self.line("?POLL;"))
        // Over the limit: reported once, the rest skipped to its LF even when it comes in later reads.
        out = []
        try processor.process(buffer: Self.buffer(String(repeating: "x", count: 40))) { out.append($0) }
        #expect(out == [.tooLong(Self.buffer(String(repeating: "x", count: 33)))])
        #expect(processor.unprocessedBytes == 0)
        try processor.process(buffer: Self.buffer("yyyy\n?DEVICES;\n")) { out.append($0) }
        #expect(out.count == 2 && out.last == Self.line("?DEVICES;"))
        // The client socket drops what a peer left unterminated when it closed.
        #expect(try Self.run([Array("{\"op\":\"hello\"}\n{\"op\":".utf8)], ClientSocketCodec.lineDecoder()) == [Self.line("{\"op\":\"hello\"}")])
    }

    @Test("the NMEA output's filter lines: up to 256 bytes before the LF (a CR counts), longer ones refused, a line left unfinished dropped")
    func nmeaFilterLines() throws {
        let decoder = NMEAClientHandler.lineDecoder()
        let longest = "sentences=" + String(repeating: "A", count: 245) + "\r"
        #expect(longest.utf8.count == NMEAClientHandler.maximumLine)
        let out = try Self.run([Array((longest + "\n" + "x" + longest + "\nevery=2\r\nsentences=GG").utf8)], decoder)
        #expect(out.count == 3)
        #expect(out.first == Self.line(longest))
        guard out.count == 3, case .tooLong = out[1] else { Issue.record("the 257-byte line is not refused: \(out)"); return }
        #expect(out[2] == Self.line("every=2\r"))
    }
}
