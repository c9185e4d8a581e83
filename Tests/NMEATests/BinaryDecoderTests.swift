import NMEA
import Testing

/// The UBX and CASIC decoders against frames of the gpsd logs (values cross-checked with gpsd's .chk)
/// and against frames built from the interface descriptions, one per message and generation.
@Suite("Binary decoders")
struct BinaryDecoderTests {
    static let haveShared = sharedFolder() != nil

    @Test("u-blox 8 NAV-PVT of ublox8-uniqid-monhw.log at 20:42:25 reads as gpsd's TPV of it", .enabled(if: haveShared))
    func ubloxEightNavPVT() throws {
        let frames = try #require(BinaryFrames.of(log: "ublox8-uniqid-monhw.log"))
        let pvts = frames.payloads(0x01, 0x07)
        #expect(pvts.count == 7)
        let m = try #require(UBXNavPVT(bytes: pvts[3]))
        // gpsd: "lat":46.404610900,"lon":-117.020731200,"altHAE":272.0810,"altMSL":290.2530,"speed":0.015,"track":30.7706,"epv":18.590
        #expect(m.iTOW == 74_563_000)
        #expect((m.year, m.month, m.day, m.hour, m.minute, m.second) == (2024, 3, 24, 20, 42, 25))
        #expect(m.validity.isSuperset(of: [.validDate, .validTime, .fullyResolved]))
        #expect(m.fixType.type == .threeD && m.numSV == 6)
        #expect(m.latitude == 464_046_109 && m.longitude == -1_170_207_312)
        #expect(m.height == 272_081 && m.heightMSL == 290_253)
        #expect(m.hAcc == 13_223 && m.vAcc == 18_590 && m.gSpeed == 15 && m.headMot == 3_077_055)
        #expect(m.sAcc == 675 && m.pDOP == 223)
    }

    @Test("NAV-SOL, NAV-DOP, NAV-TIMEGPS and NAV-SAT of the same epoch", .enabled(if: haveShared))
    func ubloxEightCompanions() throws {
        let frames = try #require(BinaryFrames.of(log: "ublox8-uniqid-monhw.log"))
        let sol = try #require(UBXNavSOL(bytes: frames.payloads(0x01, 0x06)[3]))
        #expect(sol.iTOW == 74_563_000 && sol.week == 2307 && sol.fixType.type == .threeD && sol.numSV == 6 && sol.pDOP == 223)
        #expect(sol.ecefX == -200_172_319 && sol.pAcc == 2281)
        let dop = try #require(UBXNavDOP(bytes: frames.payloads(0x01, 0x04)[3]))
        #expect((dop.gDOP, dop.pDOP, dop.tDOP, dop.vDOP, dop.hDOP) == (246, 223, 105, 176, 136))
        let time = try #require(UBXNavTimeGPS(bytes: frames.payloads(0x01, 0x20)[3]))
        #expect(time.week == 2307 && time.leapSeconds == 18 && time.isFullyValid && time.tAcc == 21)
        var sky = SatelliteList()
        #expect(UBXNavSAT.decode(bytes: frames.payloads(0x01, 0x35)[3], into: &sky) == 74_563_000)
        #expect(sky.count == 14)
        #expect(sky[0].gnssID == 0 && sky[0].svID == 4 && sky[0].snr == nil && sky[0].constellation == .gps)
        #expect(sky[1].svID == 6 && sky[1].snr == 25 && sky[1].elevation == 65)
    }

    @Test("NEO-M8L HNR-PVT at 10 Hz and ZED-F9R NAV-SIG, MON-RF (compact blocks)", .enabled(if: haveShared))
    func highRateAndSignals() throws {
        let m8l = try #require(BinaryFrames.of(log: "ublox-neo-m8l.log"))
        // gpsd: "ecefx":4158803.9900,...,"ecefpAcc":12.6300
        let ecef = try #require(UBXNavPOSECEF(bytes: m8l.payloads(0x01, 0x01)[0]))
        #expect(ecef.iTOW == 228_730_000 && ecef.ecefX == 415_880_399 && ecef.pAcc == 1263)
        let hnr = try #require(UBXHNRPVT(bytes: m8l.payloads(0x28, 0x00)[0]))
        // gpsd: 2024-01-30T15:31:52.100Z, "lat":48.740960500,"lon":9.311732800,"altHAE":311.2210,"altMSL":263.6100
        #expect(hnr.iTOW == 228_730_100 && hnr.second == 52 && hnr.nano == 100_000_003)
        #expect(hnr.latitude == 487_409_605 && hnr.longitude == 93_117_328)
        #expect(hnr.height == 311_221 && hnr.heightMSL == 263_610)
        let f9r = try #require(BinaryFrames.of(log: "ublox-zed-f9r.log"))
        var sky = SatelliteList()
        let sig = try #require(f9r.payloads(0x01, 0x43).first)
        #expect(UBXNavSIG.decode(bytes: sig, into: &sky) != nil)
        #expect(sig[5] == 77 && sky.count == SatelliteList.capacity && sky.dropped == 77 - SatelliteList.capacity)
        #expect((0..<sky.count).allSatisfy { sky[$0].signalID != nil && sky[$0].gnssID != nil })
        let rfPayload = try #require(f9r.payloads(0x0A, 0x38).first)
        let rf = try #require(UBXMonRF(bytes: rfPayload))
        #expect(rf.blocks == 2 && rf.jamming == .unknown)
    }

    @Test("CASIC NAV-PV, NAV-TIMEUTC and NAV-GPSINFO of quectel-l76k-binary.log at 07:18:09", .enabled(if: haveShared))
    func casicFrames() throws {
        let frames = try #require(BinaryFrames.of(log: "quectel-l76k-binary.log"))
        let pv = try #require(CASICNavPV(bytes: frames.payloads(casic: true, 0x01, 0x03)[5]))
        // gpsd: "lat":47.661958456,"lon":-122.326375623,"altHAE":56.0097,"altMSL":77.6189,"epv":1.795,"track":286.3458
        #expect(pv.positionValidity == .threeD && pv.velocityValidity == .threeD && pv.numSV == 17)
        #expect(abs(pv.latitude - 47.661958456) < 1e-9 && abs(pv.longitude + 122.326375623) < 1e-9)
        #expect(abs(Double(pv.height) - 56.0097) < 1e-4)
        #expect(abs(Double(pv.height - pv.geoidSeparation) - 77.6189) < 1e-4)
        #expect(abs((CASICNavPV.sigma(pv.vAccVariance) ?? 0) - 1.795) < 1e-3)
        #expect(abs(Double(pv.heading) - 286.3458) < 1e-4)
        let utc = try #require(CASICNavTimeUTC(bytes: frames.payloads(casic: true, 0x01, 0x10)[5]))
        #expect(utc.isUsable && utc.runTime == pv.runTime)
        #expect((utc.year, utc.month, utc.day, utc.hour, utc.minute, utc.second) == (2026, 8, 6, 7, 18, 9))
        var sky = SatelliteList()
        #expect(CASICNavSatelliteInfo.decode(messageID: 0x20, bytes: frames.payloads(casic: true, 0x01, 0x20)[5],
                                             appendingTo: &sky) == pv.runTime)
        #expect(sky.count == 11)
        #expect(sky[0].svID == 1 && sky[0].snr == 30 && sky[0].elevation == 18 && sky[0].azimuth == 44 && sky[0].used)
        #expect(CASICNavSatelliteInfo.decode(messageID: 0x23, bytes: frames.payloads(casic: true, 0x01, 0x20)[5],
                                             appendingTo: &sky) == nil)
    }

    @Test("u-blox 7 NAV-PVT (protocol 14, 84 bytes) from the interface description")
    func protocolFourteenNavPVT() throws {
        var p = Payload(84)
        p.u32(0, 123_456_000); p.u16(4, 2015); p.u8(6, 6); p.u8(7, 30); p.u8(8, 23); p.u8(9, 59); p.u8(10, 60)
        p.u8(11, 0x07); p.i32(16, -1500); p.u8(20, 2); p.u8(21, 0x03); p.u8(23, 5)
        p.i32(24, -1_234_567_890); p.i32(28, 123_456_789); p.u32(40, 2500)
        let m = try #require(UBXNavPVT(bytes: p.bytes))
        #expect(m.second == 60 && m.nano == -1500 && m.fixType.type == .twoD && m.flags & 0x02 != 0)
        #expect(m.longitude == -1_234_567_890 && m.latitude == 123_456_789 && m.hAcc == 2500)
        #expect(UBXNavPVT(bytes: Array(p.bytes[0..<83])) == nil)
    }

    @Test("every decoder refuses a payload one byte short and never traps on any length up to its size")
    func truncatedPayloads() {
        for size in 0..<100 {
            let bytes = [UInt8](repeating: 0xFF, count: size)
            #expect((UBXNavPVT(bytes: bytes) != nil) == (size >= 84))
            #expect((UBXHNRPVT(bytes: bytes) != nil) == (size >= 72))
            #expect((UBXNavSOL(bytes: bytes) != nil) == (size >= 52))
            #expect((UBXNavPOSLLH(bytes: bytes) != nil) == (size >= 28))
            #expect((UBXNavPOSECEF(bytes: bytes) != nil) == (size >= 20))
            #expect((UBXNavVELNED(bytes: bytes) != nil) == (size >= 36))
            #expect((UBXNavDOP(bytes: bytes) != nil) == (size >= 18))
            #expect((UBXNavTimeGPS(bytes: bytes) != nil) == (size >= 16))
            #expect((UBXNavTimeUTC(bytes: bytes) != nil) == (size >= 20))
            #expect((UBXNavTimeLS(bytes: bytes) != nil) == (size >= 24))
            #expect((UBXNavStatus(bytes: bytes) != nil) == (size >= 16))
            #expect((UBXTimTP(bytes: bytes) != nil) == (size >= 16))
            #expect(UBXMonRF(bytes: bytes) == nil)  // version 0xFF
            #expect((CASICNavPV(bytes: bytes) != nil) == (size >= 80))
            #expect((CASICNavTimeUTC(bytes: bytes) != nil) == (size >= 24))
            #expect((CASICNavDOP(bytes: bytes) != nil) == (size >= 28))
            var sky = SatelliteList()
            // 255 satellites claimed: never read past the payload.
            #expect(UBXNavSAT.decode(bytes: bytes, into: &sky) == nil)
            #expect(UBXNavSIG.decode(bytes: bytes, into: &sky) == nil)
            #expect(CASICNavSatelliteInfo.decode(messageID: 0x21, bytes: bytes, appendingTo: &sky) == nil)
        }
    }

    @Test("UBX satellite numbers follow gpsd's ubx2_to_prn")
    func satelliteNumbers() {
        #expect(UBXGNSS.prn(gnssID: 0, svID: 12) == 12)
        #expect(UBXGNSS.prn(gnssID: 1, svID: 123) == 36)
        #expect(UBXGNSS.prn(gnssID: 2, svID: 5) == 305)
        #expect(UBXGNSS.prn(gnssID: 3, svID: 27) == 427)
        #expect(UBXGNSS.prn(gnssID: 5, svID: 1) == 193)
        #expect(UBXGNSS.prn(gnssID: 6, svID: 8) == 72)
        #expect(UBXGNSS.prn(gnssID: 6, svID: 255) == 0)
        #expect(UBXGNSS.prn(gnssID: 9, svID: 1) == 0)
        #expect(UBXGNSS.prn(gnssID: 0, svID: 0) == 0)
    }
}
