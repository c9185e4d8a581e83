import NMEA
import Testing

/// An error in a sentence's fields comes back from the decoders inside the parsed sentence (so the
/// stream reads a parsed sentence where the decoder wrote it); every caller must still throw it.
@Suite("Field errors through parser and stream")
struct FieldFailureTests {
    /// Records what a stream hands its delegate.
    struct Recorder: NMEAStreamDelegate {
        var sentences: [String] = []
        var rejected: [NMEAError] = []
        mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>) {
            var text: [UInt8] = []
            for index in bytes.indices { text.append(bytes[index]) }
            sentences.append(String(decoding: text, as: UTF8.self))
        }
        mutating func stream(rejected error: NMEAError, bytes: Span<UInt8>) { rejected.append(error) }
    }

    @Test("sentences with a field made unreadable are rejected by the stream with the parser's own error, fed whole and byte by byte, tolerant and strict")
    func rejectedAsParserThrows() throws {
        var random = SplitMix(state: 0xBADF)
        let bases = [
            "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
            "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "$GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00",
            "$GNGSA,A,3,80,71,73,79,69,,,,,,,,1.83,1.09,1.47,2",
            "$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A",
            "$GPGLL,4916.45,N,12311.12,W,225444,A,A",
            "$GPZDA,201530.00,04,07,2002,00,00",
            "$GPGST,172814.0,0.006,0.023,0.020,273.6,0.030,0.040,0.031",
            "$PGRMZ,246,f,3",
        ]
        var failing: [String] = []
        var passing: [String] = []
        for _ in 0..<3_000 {
            var bytes = Array(bases[Int(random.next() % UInt64(bases.count))].utf8)
            // One character of the fields (after the address) replaced by a letter or a sign.
            let commas = bytes.indices.filter { bytes[$0] == 0x2C }
            guard let first = commas.first else { continue }
            let index = first + 1 + Int(random.next() % UInt64(bytes.count - first - 1))
            if bytes[index] != 0x2C { bytes[index] = [0x5A, 0x2D, 0x2E, 0x2B][Int(random.next() % 4)] }
            let sentence = withChecksum(String(decoding: bytes, as: UTF8.self))
            for options in [NMEAParserOptions(), NMEAParserOptions(requireChecksum: true, toleratesUnreadableFields: false)] {
                let expected: NMEAError?
                do throws(NMEAError) { _ = try NMEAParser.parse(Array(sentence.utf8).span, options: options); expected = nil } catch { expected = error }
                for byteByByte in [false, true] {
                    let stream = NMEAStream(parserOptions: options)
                    var recorder = Recorder()
                    let line = Array((sentence + "\r\n").utf8)
                    if byteByByte {
                        for byte in line { stream.feed([byte].span, delegate: &recorder) }
                    } else {
                        stream.feed(line.span, delegate: &recorder)
                    }
                    if let expected {
                        #expect(recorder.rejected == [expected], "\(sentence) \(byteByByte)")
                        #expect(recorder.sentences.isEmpty, "\(sentence): a failed sentence was handed out")
                        #expect(stream.counters.rejected(expected.reason) == 1)
                        failing.append(sentence)
                    } else {
                        #expect(recorder.rejected.isEmpty && recorder.sentences == [sentence], "\(sentence) \(byteByByte)")
                        passing.append(sentence)
                    }
                }
            }
        }
        #expect(failing.count > 1_000 && passing.count > 1_000, "failing \(failing.count), passing \(passing.count)")
    }
}

/// The stream hands each fix to `stream(fixAt:)`, whose default passes it on to `stream(fix:)`.
@Suite("Fix delivery in place")
struct FixAtTests {
    struct ByValue: NMEAStreamDelegate {
        var times: [String] = []
        mutating func stream(fix: Fix) { times.append(fix.time?.description ?? "-") }
    }
    struct InPlace: NMEAStreamDelegate {
        var times: [String] = []
        var byValue = 0
        mutating func stream(fixAt fix: UnsafePointer<Fix>) { times.append(fix.pointee.time?.description ?? "-") }
        mutating func stream(fix: Fix) { byValue += 1 }
    }

    @Test("a delegate that takes the fix in place gets every fix a delegate by value gets, and stream(fix:) is not called for it")
    func sameFixes() throws {
        var lines: [String] = []
        for second in 0..<50 {
            let time = "1235" + (second < 10 ? "0" : "") + String(second)
            lines.append(withChecksum("$GPRMC,\(time),A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"))
            lines.append(withChecksum("$GPGGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
        }
        let bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
        var byValue = ByValue()
        var inPlace = InPlace()
        let first = NMEAStream()
        let second = NMEAStream()
        first.feed(bytes.span, delegate: &byValue)
        first.finish(delegate: &byValue)
        second.feed(bytes.span, delegate: &inPlace)
        second.finish(delegate: &inPlace)
        #expect(byValue.times.count == 50)
        #expect(inPlace.times == byValue.times)
        // `finish` hands its last fix by value (it is no longer the assembler's own).
        #expect(inPlace.byValue <= 1)
    }
}
