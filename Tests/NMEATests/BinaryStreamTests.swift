import NMEA
import Testing

/// Binary frames through the whole stream: framing, epochs, the merge rule, bad input.
@Suite("Binary navigation stream")
struct BinaryStreamTests {
    /// A u-blox 8 NAV-PVT for 2024-03-24 20:42:`second`, 3D, at the position of ublox8-uniqid-monhw.log.
    static func navPVT(second: UInt8, iTOW: UInt32, latitude: Int32 = 464_046_109, hMSL: Int32 = 290_253) -> [UInt8] {
        var p = Payload(92)
        p.u32(0, iTOW); p.u16(4, 2024); p.u8(6, 3); p.u8(7, 24); p.u8(8, 20); p.u8(9, 42); p.u8(10, second)
        p.u8(11, 0x37); p.u32(12, 21); p.u8(20, 3); p.u8(21, 0x01); p.u8(22, 0xE0); p.u8(23, 6)
        p.i32(24, -1_170_207_312); p.i32(28, latitude); p.i32(32, hMSL - 18_172); p.i32(36, hMSL)
        p.u32(40, 13_223); p.u32(44, 18_590); p.i32(48, 10); p.i32(52, -11); p.i32(56, 3); p.i32(60, 15)
        p.i32(64, 3_077_055); p.u32(68, 675); p.u32(72, 4_873_862); p.u16(76, 223)
        return ubxFrame(0x01, 0x07, p.bytes)
    }

    static func eoe(_ iTOW: UInt32) -> [UInt8] {
        var p = Payload(4)
        p.u32(0, iTOW)
        return ubxFrame(0x01, 0x61, p.bytes)
    }

    @Test("NAV-PVT alone gives one fix per epoch with the receiver's estimates, whole, byte by byte, in bursts")
    func navPVTOnly() throws {
        var bytes: [UInt8] = []
        for second in 25...28 {
            let iTOW = UInt32(74_538_000 + second * 1000)
            bytes += Self.navPVT(second: UInt8(second), iTOW: iTOW) + Self.eoe(iTOW)
        }
        for chunk in [4096, 1, 7] {
            let (fixes, stream) = streamFixes(bytes, chunk: chunk)
            #expect(fixes.count == 4, "chunk \(chunk)")
            let fix = try #require(fixes.first)
            #expect(fix.time?.iso8601(fractionDigits: 3) == "2024-03-24T20:42:25.000Z")
            #expect(fix.mode == .threeD && fix.quality == .gps && fix.binaryProtocol == .ubx)
            #expect(abs((fix.latitude ?? 0) - 46.4046109) < 1e-12 && fix.altitudeMSL == 290.253)
            #expect(fix.speed == 0.015 && abs((fix.course ?? 0) - 30.77055) < 1e-9)
            #expect(fix.horizontalAccuracy == 13.223 && fix.verticalAccuracy == 18.59 && fix.accuracySource == .receiver)
            #expect(fix.receiverAccuracy?.model == .ubxAccuracyEstimate && fix.receiverAccuracy?.speed == 0.675)
            #expect(fix.timeValidity?.isSuperset(of: [.validDate, .validTime, .fullyResolved, .confirmedTime]) == true)
            #expect(fix.velocityNorth == 0.01 && fix.velocityDown == 0.003)
            #expect(stream.framer.counters.ubxFrames == 8 && stream.merger.counters.decoded == 8)
        }
    }

    @Test("u-blox 6: NAV-SOL, NAV-POSLLH, NAV-VELNED and NAV-TIMEGPS make one fix")
    func ubloxSix() throws {
        let iTOW: UInt32 = 74_563_000
        var time = Payload(16)
        time.u32(0, iTOW); time.i32(4, 256_775); time.i16(8, 2307); time.i8(10, 18); time.u8(11, 0x07)
        var sol = Payload(52)
        sol.u32(0, iTOW); sol.i32(4, 256_775); sol.i16(8, 2307); sol.u8(10, 3); sol.u8(11, 0x0D)
        sol.u32(24, 2281); sol.u32(40, 67); sol.u16(44, 223); sol.u8(47, 6)
        var llh = Payload(28)
        llh.u32(0, iTOW); llh.i32(4, -1_170_207_312); llh.i32(8, 464_046_109); llh.i32(12, 272_081); llh.i32(16, 290_253)
        llh.u32(20, 13_223); llh.u32(24, 18_590)
        var vel = Payload(36)
        vel.u32(0, iTOW); vel.i32(4, 1); vel.u32(20, 2); vel.i32(24, 3_077_055); vel.u32(28, 68); vel.u32(32, 500_000)
        let bytes = ubxFrame(0x01, 0x20, time.bytes) + ubxFrame(0x01, 0x06, sol.bytes) + ubxFrame(0x01, 0x02, llh.bytes)
            + ubxFrame(0x01, 0x12, vel.bytes)
        let (fixes, _) = streamFixes(bytes)
        let fix = try #require(fixes.first)
        #expect(fixes.count == 1)
        // GPS week 2307, 74563.000256775 s, 18 leap seconds: 2024-03-24T20:42:25.000Z.
        #expect(fix.time?.iso8601(fractionDigits: 3) == "2024-03-24T20:42:25.000Z" && fix.leapSeconds == 18)
        #expect(fix.mode == .threeD && fix.satellitesUsed == 6 && fix.pdop == 2.23)
        #expect(fix.altitudeMSL == 290.253 && fix.altitudeHAE == 272.081 && fix.speed == 0.02 && abs((fix.course ?? 0) - 30.77055) < 1e-9)
        #expect(fix.receiverAccuracy?.position3D == 22.81 && fix.receiverAccuracy?.course == 5 && fix.horizontalAccuracy == 13.223)
    }

    @Test("UBX then NMEA of the same epoch: one fix; NMEA, sent last, wins position; the receiver's estimate stays")
    func ubxThenNMEA() throws {
        let nmea = [withChecksum("$GNRMC,204225.00,A,4624.27666,N,11701.24387,W,0.029,,240324,,,A"),
                    withChecksum("$GNGGA,204225.00,4624.27666,N,11701.24387,W,1,06,1.36,287.7,M,-18.2,M,,"),
                    withChecksum("$GNGLL,4624.27666,N,11701.24387,W,204225.00,A,A")].map { $0 + "\r\n" }.joined()
        let bytes = Self.navPVT(second: 25, iTOW: 74_563_000) + Array(nmea.utf8)
        let (fixes, stream) = streamFixes(bytes)
        #expect(fixes.count == 1)
        let fix = try #require(fixes.first)
        #expect(fix.altitudeMSL == 287.7 && fix.rawLatitude != nil && fix.binaryProtocol == .ubx)
        #expect(abs((fix.course ?? 0) - 30.77055) < 1e-9, "NMEA gave no course: the binary one stays")
        #expect(fix.horizontalAccuracy == 13.223 && fix.accuracySource == .receiver)
        #expect(stream.merger.counters.merged == 1)
    }

    @Test("NAV-EOE ends the epoch, but waits for the NMEA fix the assembler still holds; a late NMEA fix is dropped")
    func endOfEpochWaitsForNMEA() throws {
        var bytes: [UInt8] = []
        for second in 25...27 {
            let iTOW = UInt32(74_538_000 + second * 1000)
            let gga = withChecksum("$GNGGA,2042\(second).00,4624.27666,N,11701.24387,W,1,06,1.36,287.7,M,-18.2,M,,") + "\r\n"
            // As the ZED-F9R sends it: NAV-PVT, the NMEA, then NAV-EOE.
            bytes += Self.navPVT(second: UInt8(second), iTOW: iTOW) + Array(gga.utf8) + Self.eoe(iTOW)
        }
        let (fixes, stream) = streamFixes(bytes)
        #expect(fixes.map { $0.timeOfDay?.second } == [25, 26, 27], "one fix per epoch, in order")
        #expect(fixes.allSatisfy { $0.altitudeMSL == 287.7 && $0.horizontalAccuracy == 13.223 },
                "the GGA, sent after NAV-PVT, wins the altitude; the receiver's estimate stays")
        #expect(stream.merger.counters.late == 0)
        // A stale NMEA epoch after a newer one was delivered is dropped, not delivered out of order.
        let stale = Array((withChecksum("$GNGGA,204225.00,4624.27666,N,11701.24387,W,1,06,1.36,280.0,M,-18.2,M,,") + "\r\n").utf8)
        let (again, late) = streamFixes(bytes + stale + Self.navPVT(second: 28, iTOW: 74_566_000) + Self.eoe(74_566_000))
        #expect(again.count == 4 && !again.contains { $0.altitudeMSL == 280.0 })
        #expect(late.merger.counters.late == 1)
    }

    @Test("NMEA then CASIC of the same epoch: CASIC, sent last, wins; its sky carries gnssId and svId")
    func nmeaThenCASIC() throws {
        let nmea = [withChecksum("$GNGGA,071809.000,4739.71751,N,12219.58225,W,1,17,0.8,77.6,M,-21.6,M,,"),
                    withChecksum("$GNRMC,071809.000,A,4739.71751,N,12219.58225,W,0.00,286.35,060826,,,A,V")]
            .map { $0 + "\r\n" }.joined()
        var pv = Payload(80)
        pv.u32(0, 285_437_835); pv.u8(4, 7); pv.u8(5, 7); pv.u8(7, 17); pv.f32(12, 1.3)
        pv.f64(16, -122.32637562298537); pv.f64(24, 47.66195845629666); pv.f32(32, 56.009674); pv.f32(36, -21.609249)
        pv.f32(40, 1.6451099); pv.f32(44, 3.223133); pv.f32(64, 0.02); pv.f32(68, 286.34583); pv.f32(72, 0.0196); pv.f32(76, 1e6)
        var utc = Payload(24)
        utc.u32(0, 285_437_835); utc.u16(14, 2026); utc.u8(16, 8); utc.u8(17, 6); utc.u8(18, 7); utc.u8(19, 18); utc.u8(20, 9)
        utc.u8(21, 7); utc.u8(23, 3)
        var gps = Payload(8 + 12)
        gps.u32(0, 285_437_835); gps.u8(4, 1); gps.u8(5, 1); gps.u8(9, 27); gps.u16(10, 0x61C1); gps.u8(12, 31); gps.i8(13, 40)
        gps.i16(14, 172)
        let bytes = Array(nmea.utf8) + casicFrame(0x01, 0x03, pv.bytes) + casicFrame(0x01, 0x10, utc.bytes)
            + casicFrame(0x01, 0x21, gps.bytes)
        for chunk in [4096, 1, 5] {
            let (fixes, stream) = streamFixes(bytes, chunk: chunk)
            #expect(fixes.count == 1)
            let fix = try #require(fixes.first)
            #expect(fix.time?.iso8601(fractionDigits: 3) == "2026-08-06T07:18:09.000Z")
            #expect(abs((fix.altitudeMSL ?? 0) - 77.618923) < 1e-4 && fix.rawLatitude == nil && fix.binaryProtocol == .casic)
            #expect(abs((fix.verticalAccuracy ?? 0) - 1.7953) < 1e-4 && fix.receiverAccuracy?.model == .casicVariance)
            #expect(fix.receiverAccuracy?.course == nil, "cAcc 1e6 is CASIC's 'unknown'")
            #expect(fix.satellites.count == 1 && fix.satellites[0].gnssID == 3 && fix.satellites[0].prn == 427 && fix.satellites[0].used)
            #expect(stream.framer.counters.casicFrames == 3)
        }
    }

    @Test("bad checksums, unknown ids, wrong lengths: counted, never a fix, never mistaken for another message")
    func badInput() throws {
        var pvt = Self.navPVT(second: 25, iTOW: 74_563_000)
        pvt[20] ^= 0x01
        var casic = casicFrame(0x01, 0x03, [UInt8](repeating: 0, count: 80))
        casic[casic.count - 1] ^= 0x80
        // A NAV-PVT payload sent under the ids of the other messages, each cut to one byte less than
        // that message's size, and unknown ids.
        let body = Array(Self.navPVT(second: 25, iTOW: 74_563_000)[6..<98])
        var mislabelled: [UInt8] = []
        for (id, size) in [(0x06, 52), (0x01, 20), (0x02, 28), (0x12, 36), (0x04, 18), (0x20, 16), (0x21, 20), (0x26, 24), (0x03, 16), (0x07, 84)] {
            mislabelled += ubxFrame(0x01, UInt8(id), Array(body[0..<(size - 1)]))
        }
        mislabelled += ubxFrame(0x28, 0x00, Array(body[0..<71])) + ubxFrame(0x0D, 0x01, Array(body[0..<15]))
        mislabelled += casicFrame(0x01, 0x03, Array(body[0..<76])) + casicFrame(0x01, 0x10, Array(body[0..<20]))
        let unknown = ubxFrame(0x01, 0x99, body) + ubxFrame(0x0A, 0x04, body) + casicFrame(0x06, 0x07, Array(body[0..<8]))
        let sentence = Array((withChecksum("$GPTXT,01,01,02,still here") + "\r\n").utf8)
        let (fixes, stream) = streamFixes(pvt + casic + mislabelled + unknown + sentence)
        #expect(fixes.isEmpty)
        #expect(stream.framer.counters.badBinaryChecksums == 2)
        #expect(stream.merger.counters.malformed == 14 && stream.merger.counters.decoded == 0)
        #expect(stream.merger.counters.ignored == 3)
        #expect(stream.counters.accepted(.txt) == 1, "the sentence after the bad frames is still read")
    }

    @Test("a stream without binary frames is unchanged: each fix is delivered as soon as the assembler completes it")
    func pureNMEAUnchanged() {
        let stream = NMEAStream()
        var assembler = EpochAssembler()
        for second in 10...13 {
            let line = withChecksum("$GPGGA,1200\(second).00,4624.27666,N,11701.24387,W,1,06,1.36,287.7,M,-18.2,M,,")
            var streamed: [TimeOfDay?] = []
            var assembled: [TimeOfDay?] = []
            stream.feed(Array((line + "\r\n").utf8).span) { streamed.append($0.timeOfDay) }
            if let parsed = try? parse(line) { assembler.add(parsed) { assembled.append($0.timeOfDay) } }
            #expect(streamed == assembled, "same fixes at the same sentence")
        }
        #expect(stream.merger.counters.decoded == 0)
    }
}
