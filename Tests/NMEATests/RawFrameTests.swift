import NMEA
import Testing

@Suite("Raw frames")
struct RawFrameTests {
    /// Hears the frames and the fixes, in order.
    struct Recorder: NMEAStreamDelegate {
        enum Event: Equatable {
            case frame(RawFrame)
            case fix
        }
        var events: [Event] = []
        mutating func stream(fix: Fix) { events.append(.fix) }
        mutating func stream(frame: Span<UInt8>, kind: RawFrame.Kind) { events.append(.frame(RawFrame(kind: kind, framed: frame))) }
        var frames: [RawFrame] { events.compactMap { if case .frame(let f) = $0 { return f } else { return nil } } }
    }

    static func feed(_ stream: NMEAStream, _ bytes: [UInt8], into recorder: inout Recorder) {
        bytes.withUnsafeBufferPointer { stream.feed($0.span, delegate: &recorder) }
    }

    @Test("a sentence split across reads is handed out once, whole, with CR LF; binary frames byte for byte, never rebuilt")
    func splitAndBinary() {
        let stream = NMEAStream()
        stream.deliversFrames = true
        var recorder = Recorder()
        let gga = Array("$GPGGA,120207.00,,,,,0,00,,,,,,,*4E\r\n".utf8)
        Self.feed(stream, gga + Array("$GPRMC,1202".utf8), into: &recorder)
        #expect(recorder.frames == [RawFrame(kind: .sentence, bytes: gga)])
        let ubx = ubxFrame(0x06, 0x00, [])
        #expect(ubx == [0xB5, 0x62, 0x06, 0x00, 0x00, 0x00, 0x06, 0x18])
        let rtcm = rtcm3Frame(type: 1005, extra: [1, 2, 3, 4])
        let casic = casicFrame(0x06, 0x01, [0, 0, 0, 0])
        // The RMC ends with a bare LF: it is handed out with CR LF, as gpsd passes sentences on.
        Self.feed(stream, Array("07.00,V,,,,,2.72,45.00,010526,,,N*4D\n".utf8) + ubx + rtcm + casic, into: &recorder)
        #expect(recorder.frames == [
            RawFrame(kind: .sentence, bytes: gga),
            RawFrame(kind: .sentence, bytes: Array("$GPRMC,120207.00,V,,,,,2.72,45.00,010526,,,N*4D\r\n".utf8)),
            RawFrame(kind: .ubx, bytes: ubx), RawFrame(kind: .rtcm3, bytes: rtcm), RawFrame(kind: .casic, bytes: casic),
        ])
        #expect(recorder.frames.map(\.isBinary) == [false, false, true, true, true])
    }

    @Test("a sentence with a bad checksum is a frame too; a frame comes before the fix it completes; off, nothing is handed out")
    func rejectedOrderAndOff() {
        let stream = NMEAStream()
        var recorder = Recorder()
        let rmc = Array("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n".utf8)
        Self.feed(stream, rmc, into: &recorder)
        #expect(recorder.frames.isEmpty, "frames are not handed out unless asked for")
        stream.deliversFrames = true
        recorder = Recorder()
        let bad = Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*00\r\n".utf8)
        let next = Array("$GPRMC,123520,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*60\r\n".utf8)
        Self.feed(stream, bad + next, into: &recorder)
        #expect(recorder.events.first == .frame(RawFrame(kind: .sentence, bytes: bad)))
        #expect(recorder.events.dropFirst().first == .frame(RawFrame(kind: .sentence, bytes: next)),
                "the frame of the sentence that ends an epoch comes before the epoch's fix")
        #expect(recorder.events.contains(.fix), "the change of second ended the first epoch: \(recorder.events)")
    }
}
