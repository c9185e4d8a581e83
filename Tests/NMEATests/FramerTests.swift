import NMEA
import Testing

@Suite("Framer")
struct FramerTests {
    let rmc = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A"
    let gga = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"

    @Test("every line terminator: CR LF, LF, CR, CR CR LF")
    func terminators() {
        for terminator in ["\r\n", "\n", "\r", "\r\r\n"] {
            let stream = Array((rmc + terminator + gga + terminator).utf8)
            let events = frame(stream, chunks: [1_000])
            #expect(events == [.sentence(rmc), .sentence(gga)], "terminator \(Array(terminator.utf8))")
        }
    }

    @Test("a sentence without a terminator at the end of the stream is delivered by finish()")
    func finishDeliversPending() {
        #expect(frame(Array(rmc.utf8), chunks: [7]) == [.sentence(rmc)])
    }

    @Test("garbage before, between and after sentences is reported once per run, with its offset")
    func garbage() {
        let stream = Array(("xyz" + rmc + "\r\n" + "noise" + gga + "\r\n").utf8)
        let events = frame(stream, chunks: [1_000])
        #expect(events == [
            .error(.garbage(offset: 0, count: 3)), .sentence(rmc),
            .error(.garbage(offset: Int64(3 + rmc.utf8.count + 2), count: 5)), .sentence(gga),
        ])
    }

    @Test("a new $ inside a sentence cuts it short and starts over")
    func restartOnDelimiter() {
        let stream = Array(("$GPGGA,1234" + rmc + "\r\n").utf8)
        let events = frame(stream, chunks: [1_000])
        #expect(events == [.error(.truncatedSentence(offset: 0, length: 11)), .sentence(rmc)])
    }

    @Test("over-long sentences are rejected with an error and framing resumes at the next line")
    func tooLong() {
        let long = "$GPTXT," + String(repeating: "A", count: 300)
        let stream = Array((long + "\r\n" + rmc + "\r\n").utf8)
        let events = frame(stream, chunks: [13])
        #expect(events == [.error(.sentenceTooLong(offset: 0, maximum: 255)), .sentence(rmc)])
    }

    @Test("the default maximum admits every real sentence of the gpsd corpus", .enabled(if: sharedFolder() != nil, "../shared/corpus/gpsd is not beside the package"))
    func corpusSentencesFit() throws {
        let shared = try #require(sharedFolder())
        var longest = 0
        for name in FileProbe.list(shared + "/corpus/gpsd") where name.hasSuffix(".log") {
            let bytes = try #require(FileProbe.read(shared + "/corpus/gpsd/" + name))
            let events = frame(bytes, chunks: [4096], skipComments: true)
            for event in events {
                if case .error(.sentenceTooLong) = event { Issue.record("\(name): \(event)") }
                if case .sentence(let s) = event { longest = max(longest, s.utf8.count) }
            }
        }
        #expect(longest > 82, "the corpus has sentences longer than NMEA's 82 characters")
        #expect(longest <= NMEAFramer.defaultMaximumSentenceLength)
    }

    @Test("UBX frames interleaved with NMEA are delivered whole and do not break sync")
    func ubxInterleaved() {
        let payload: [UInt8] = Array(0..<40) + [0x24, 0x0A, 0x0D, 0x21]  // '$', LF, CR, '!' inside binary
        let frameBytes = ubxFrame(0x01, 0x07, payload)
        let stream = Array((rmc + "\r\n").utf8) + frameBytes + Array((gga + "\r\n").utf8)
        for chunks in [[1], [3, 7], [1_000]] {
            let events = frame(stream, chunks: chunks)
            #expect(events == [.sentence(rmc), .ubx(0x01, 0x07, payload), .sentence(gga)], "chunks \(chunks)")
        }
    }

    @Test("a UBX frame with a bad checksum is reported and the bytes after it are not lost")
    func ubxBadChecksum() {
        var bad = ubxFrame(0x05, 0x01, [0x06, 0x01])
        bad[bad.count - 1] ^= 0xFF
        let stream = bad + Array((rmc + "\r\n").utf8)
        let events = frame(stream, chunks: [1])
        #expect(events.contains(.error(.badUBXChecksum(offset: 0, messageClass: 0x05, id: 0x01))))
        #expect(events.last == .sentence(rmc))
    }

    @Test("a false UBX sync whose length would swallow sentences is replayed, losing nothing")
    func ubxFalseSync() {
        // B5 62 then a class/id/length of 200 bytes: the sentences that follow must still come out.
        let stream: [UInt8] = [0xB5, 0x62, 0x01, 0x02, 200, 0] + Array((rmc + "\r\n" + gga + "\r\n").utf8)
        let events = frame(stream, chunks: [5])
        #expect(events.filter { if case .sentence = $0 { true } else { false } } == [.sentence(rmc), .sentence(gga)])
    }

    @Test("RTCM3 frames are recognised by CRC-24Q and a false D3 sync loses nothing")
    func rtcm3() {
        let good = rtcm3Frame(type: 1005, extra: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17])
        let stream = good + Array((rmc + "\r\n").utf8) + [0xD3, 0x00, 0x30] + Array((gga + "\r\n").utf8)
        let events = frame(stream, chunks: [2])
        #expect(events.first == .rtcm3(1005, 19))
        #expect(events.filter { if case .sentence = $0 { true } else { false } } == [.sentence(rmc), .sentence(gga)])
    }

    @Test("comment lines of recorded logs are skipped when asked, and counted as garbage otherwise")
    func comments() {
        let stream = Array(("# Name: test $GPRMC inside a comment\n" + rmc + "\n").utf8)
        #expect(frame(stream, chunks: [9], skipComments: true) == [.sentence(rmc)])
        #expect(frame(stream, chunks: [9], skipComments: false).contains(.sentence(rmc)))
    }

    @Test("counters add up")
    func counters() {
        let framer = NMEAFramer()
        var sink = RecordingSink()
        let stream = Array(("zz" + rmc + "\r\n").utf8) + ubxFrame(1, 2, [9]) + Array((gga + "\r\n").utf8)
        framer.feed(stream.span, into: &sink)
        #expect(framer.counters.bytes == Int64(stream.count))
        #expect(framer.counters.sentences == 2)
        #expect(framer.counters.ubxFrames == 1)
        #expect(framer.counters.garbageBytes == 2)
    }
}

@Suite("Framer: same output however the stream is split")
struct FramerVerifierTests {
    /// Feeds whole, byte by byte, and in random chunk sizes; every way must give the same events.
    func verify(_ bytes: [UInt8], seed: UInt64, name: String) {
        let whole = frame(bytes, chunks: [bytes.count + 1], skipComments: true)
        let dripped = frame(bytes, chunks: [1], skipComments: true)
        var rng = SplitMix(state: seed)
        let sizes = (0..<64).map { _ in Int.random(in: 1...200, using: &rng) }
        let bursts = frame(bytes, chunks: sizes, skipComments: true)
        // A line at a time, as a line-buffered reader delivers it (the framer's shortest path).
        var lines: [Int] = []
        var lineStart = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            lines.append(index + 1 - lineStart)
            lineStart = index + 1
        }
        if lineStart < bytes.count { lines.append(bytes.count - lineStart) }
        let byLine = frame(bytes, chunks: lines.isEmpty ? [bytes.count + 1] : lines, skipComments: true)
        #expect(whole == dripped, "\(name): byte by byte differs from whole")
        #expect(whole == bursts, "\(name): random chunks differ from whole")
        #expect(whole == byLine, "\(name): a line at a time differs from whole")
    }

    @Test("synthetic stream with binary frames, garbage and every terminator")
    func synthetic() {
        var rng = SplitMix(state: 42)
        var stream: [UInt8] = []
        for i in 0..<300 {
            switch i % 6 {
            case 0: stream += Array(withChecksum("$GPGGA,1235\(i % 10)9,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").utf8) + [13, 10]
            case 1: stream += ubxFrame(0x01, 0x07, (0..<UInt8(i % 90)).map { $0 })
            case 2: stream += (0..<(i % 11)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            case 3: stream += rtcm3Frame(type: 1077, extra: (0..<(i % 50)).map { UInt8($0) })
            case 4: stream += Array("!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26".utf8) + [13, 13, 10]
            default: stream += Array("$PGRMZ,246,f,3*1B".utf8) + [10]
            }
        }
        verify(stream, seed: 7, name: "synthetic")
    }

    @Test("every gpsd corpus log", .enabled(if: sharedFolder() != nil, "../shared/corpus/gpsd is not beside the package"))
    func corpus() throws {
        let shared = try #require(sharedFolder())
        var count = 0
        for (index, name) in FileProbe.list(shared + "/corpus/gpsd").enumerated() where name.hasSuffix(".log") {
            let bytes = try #require(FileProbe.read(shared + "/corpus/gpsd/" + name))
            verify(bytes, seed: UInt64(index), name: name)
            count += 1
        }
        #expect(count >= 80)
    }
}
