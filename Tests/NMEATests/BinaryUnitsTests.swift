import NMEA
import Testing

/// Message shapes of u-blox units beyond the shared corpus (timing M8T, GLONASS 2D, F9V, ECEF-only
/// units): frames built from the interface descriptions, expected values from gpsd's `.chk` of the
/// named gpsd regression log where one is quoted.
@Suite("UBX units beyond the shared corpus")
struct BinaryUnitsTests {
    static func timeUTC(iTOW: UInt32, year: UInt16, month: UInt8, day: UInt8, hour: UInt8, minute: UInt8, second: UInt8) -> [UInt8] {
        var p = Payload(20)
        p.u32(0, iTOW); p.u16(12, year); p.u8(14, month); p.u8(15, day); p.u8(16, hour); p.u8(17, minute); p.u8(18, second)
        p.u8(19, 0x07)
        return ubxFrame(0x01, 0x21, p.bytes)
    }

    static func status(iTOW: UInt32, gpsFix: UInt8, flags: UInt8 = 0xDD, flags2: UInt8 = 0x08) -> [UInt8] {
        var p = Payload(16)
        p.u32(0, iTOW); p.u8(4, gpsFix); p.u8(5, flags); p.u8(7, flags2); p.u32(8, 30_000)
        return ubxFrame(0x01, 0x03, p.bytes)
    }

    static func posLLH(iTOW: UInt32, latitude: Int32, longitude: Int32, height: Int32, heightMSL: Int32) -> [UInt8] {
        var p = Payload(28)
        p.u32(0, iTOW); p.i32(4, longitude); p.i32(8, latitude); p.i32(12, height); p.i32(16, heightMSL)
        p.u32(20, 20_619); p.u32(24, 14_580)
        return ubxFrame(0x01, 0x02, p.bytes)
    }

    static func fixes(_ bytes: [UInt8], options: AssemblerOptions = AssemblerOptions(weekRolloverPivot: nil)) -> [[Fix]] {
        [bytes.count, 1, 5].map { chunk in
            streamFixes(bytes, chunk: chunk, options: options, skipsCommentLines: false).fixes
        }
    }

    /// u-blox-m8t-time.log (an M8T in time mode: NAV-STATUS, NAV-POSECEF, NAV-POSLLH, NAV-TIMEUTC, no
    /// NAV-PVT or NAV-SOL). gpsd, 2021-02-23T18:04:34: mode 3, lat 44.7654405, lon -68.8066651,
    /// altHAE 13.684, altMSL 43.156; its status 7 (time) is gpsFix 5.
    @Test("NAV-STATUS gives the mode to a NAV-POSLLH epoch (timing M8T): position and heights kept")
    func statusAndPOSLLH() throws {
        let iTOW: UInt32 = 237_892_000
        let bytes = Self.status(iTOW: iTOW, gpsFix: 5)
            + Self.posLLH(iTOW: iTOW, latitude: 447_654_405, longitude: -688_066_651, height: 13_684, heightMSL: 43_156)
            + Self.timeUTC(iTOW: iTOW, year: 2021, month: 2, day: 23, hour: 18, minute: 4, second: 34)
        for fixes in Self.fixes(bytes) {
            #expect(fixes.count == 1)
            let fix = try #require(fixes.first)
            #expect(fix.time?.iso8601(fractionDigits: 3) == "2021-02-23T18:04:34.000Z")
            #expect(fix.mode == .threeD && fix.quality == .gps)
            #expect(fix.latitude == 44.7654405 && fix.longitude == -68.8066651)
            #expect(fix.altitudeHAE == 13.684 && fix.altitudeMSL == 43.156)
            #expect(fix.horizontalAccuracy == 20.619 && fix.receiverStatus?.timeToFirstFix == 30)
        }
        // gpsFixOk clear (flags bit 0): no fix, whatever gpsFix says; no position delivered.
        let bad = Self.status(iTOW: iTOW, gpsFix: 3, flags: 0xDC)
            + Self.posLLH(iTOW: iTOW, latitude: 447_654_405, longitude: -688_066_651, height: 13_684, heightMSL: 43_156)
        let fix = try #require(Self.fixes(bad)[0].first)
        #expect(fix.mode == .noFix && fix.latitude == nil)
        // Dead reckoning only (gpsFix 1) is 2D, as gpsd counts it; carrSoln 2 in flags2 with diffSoln is RTK fixed.
        #expect(Self.fixes(Self.status(iTOW: iTOW, gpsFix: 1))[0].first?.quality == .deadReckoning)
        #expect(Self.fixes(Self.status(iTOW: iTOW, gpsFix: 3, flags: 0x03, flags2: 0x80))[0].first?.quality == .rtkFixed)
    }

    @Test("a NAV-POSLLH latitude beyond 90° (a corrupt frame whose checksum passed) sets no position (found by the ubxnav fuzzer)")
    func outOfRange() throws {
        let iTOW: UInt32 = 237_892_000
        let bytes = Self.status(iTOW: iTOW, gpsFix: 3)
            + Self.posLLH(iTOW: iTOW, latitude: 956_302_016, longitude: -688_066_651, height: 13_684, heightMSL: 43_156)
        let fix = try #require(Self.fixes(bytes)[0].first)
        #expect(fix.mode == .threeD && fix.latitude == nil && fix.longitude == nil && fix.altitudeHAE == nil)
    }

    @Test("NAV-STATUS does not override the mode NAV-PVT gave the epoch")
    func statusAfterPVT() throws {
        let iTOW: UInt32 = 74_563_000
        let bytes = BinaryStreamTests.navPVT(second: 25, iTOW: iTOW) + Self.status(iTOW: iTOW, gpsFix: 0, flags: 0)
        let fix = try #require(Self.fixes(bytes)[0].first)
        #expect(fix.mode == .threeD && fix.latitude != nil)
    }

    /// ublox-glo.log: NAV-PVT fixType 2 (flags 0x00); gpsd, 2023-06-28T14:52:12: mode 2,
    /// lat 55.6024871, lon 37.5979727, altHAE 206.121, altMSL 192.758, speed 0.021.
    @Test("a 2D NAV-PVT keeps the heights the receiver sends with it, as gpsd reports them (ublox-glo)")
    func twoDHeights() throws {
        var p = Payload(92)
        p.u32(0, 312_750_000); p.u16(4, 2023); p.u8(6, 6); p.u8(7, 28); p.u8(8, 14); p.u8(9, 52); p.u8(10, 12)
        p.u8(11, 0x67); p.u8(20, 2); p.u8(21, 0x00); p.u8(23, 4)
        p.i32(24, 375_979_727); p.i32(28, 556_024_871); p.i32(32, 206_121); p.i32(36, 192_758)
        p.u32(40, 28_568); p.u32(44, 68_507); p.i32(60, 21); p.i32(64, 34_381_700)
        let fix = try #require(Self.fixes(ubxFrame(0x01, 0x07, p.bytes))[1].first)
        #expect(fix.mode == .twoD && fix.latitude == 55.6024871)
        #expect(fix.altitudeHAE == 206.121 && fix.altitudeMSL == 192.758 && fix.speed == 0.021)
    }

    /// ublox-neo-f9v.log: NAV-PVT gSpeed 2 mm/s, then NAV-VELNED gSpeed 0 cm/s; gpsd,
    /// 2025-09-14T02:40:14: speed 0.002 (gpsd takes no speed from NAV-VELNED).
    @Test("NAV-VELNED's cm/s do not replace NAV-PVT's mm/s of the same epoch (F9V); alone it still gives the speed")
    func velnedAfterPVT() throws {
        let iTOW: UInt32 = 74_563_000
        var vel = Payload(36)
        vel.u32(0, iTOW); vel.i32(4, 0); vel.u32(20, 0); vel.i32(24, 0); vel.u32(28, 262)
        let velned = ubxFrame(0x01, 0x12, vel.bytes)
        var pvt = BinaryStreamTests.navPVT(second: 25, iTOW: iTOW)
        // gSpeed (payload offset 60) 2 mm/s; re-framed with its checksum.
        var body = Array(pvt[6..<(6 + 92)])
        body[60] = 2; body[61] = 0; body[62] = 0; body[63] = 0
        pvt = ubxFrame(0x01, 0x07, body)
        for fixes in Self.fixes(pvt + velned) {
            let fix = try #require(fixes.first)
            #expect(fix.speed == 0.002 && fix.receiverAccuracy?.speed == 0.675)
        }
        // NAV-VELNED before NAV-PVT: NAV-PVT, later, wins as before.
        #expect(Self.fixes(velned + pvt)[0].first?.speed == 0.002)
    }

    @Test("NAV-VELECEF decodes 20 bytes; shorter is malformed, never a fix")
    func velECEFDecoder() throws {
        var p = Payload(20)
        p.u32(0, 1000); p.i32(4, -5); p.i32(8, 7); p.i32(12, -9); p.u32(16, 12)
        let m = try #require(UBXNavVELECEF(bytes: p.bytes))
        #expect(m.iTOW == 1000 && m.ecefVX == -5 && m.ecefVY == 7 && m.ecefVZ == -9 && m.sAcc == 12)
        #expect(UBXNavVELECEF(bytes: Array(p.bytes.prefix(19))) == nil)
        let stream = NMEAStream()
        let runt = ubxFrame(0x01, 0x11, Array(p.bytes.prefix(19)))
        var count = 0
        stream.feed(runt.span) { _ in count += 1 }
        stream.finish { _ in count += 1 }
        #expect(count == 0 && stream.merger.counters.malformed == 1)
    }

    /// A conversion that records what it was given and answers fixed values: the merger's plumbing
    /// (units, which fields, when) apart from the trigonometry (tested in `GeodesyECEFTests`).
    final class Recorder: @unchecked Sendable {
        var calls: [(ECEFVector, ECEFVector?)] = []
    }

    @Test("the merger hands NAV-SOL's ECEF in metres to the conversion and takes its answer only where nothing else gave one")
    func plumbing() throws {
        let recorder = Recorder()
        let convert: ECEFConversion = { position, velocity in
            recorder.calls.append((position, velocity))
            return GeodeticSolution(latitude: 10, longitude: 20, heightAboveEllipsoid: 30, velocityNorth: 1, velocityEast: 2,
                                    velocityDown: 3, speed: 4, course: 5)
        }
        var sol = Payload(52)
        sol.u32(0, 74_563_000); sol.i16(8, 2307); sol.u8(10, 3); sol.u8(11, 0x0D)
        sol.i32(12, 123_456_789); sol.i32(16, -98_765_432); sol.i32(20, 55_555_555); sol.i32(28, 150); sol.i32(32, -250); sol.i32(36, 7)
        let options = AssemblerOptions(weekRolloverPivot: nil, ecefConversion: convert)
        let fix = try #require(Self.fixes(ubxFrame(0x01, 0x06, sol.bytes), options: options)[0].first)
        #expect(fix.latitude == 10 && fix.longitude == 20 && fix.altitudeHAE == 30 && fix.altitudeMSL == nil)
        #expect(fix.speed == 4 && fix.course == 5 && fix.velocityNorth == 1 && fix.velocityDown == 3 && !fix.speedIsDerived)
        let (position, velocity) = try #require(recorder.calls.first)
        #expect(position == ECEFVector(x: 1_234_567.89, y: -987_654.32, z: 555_555.55))
        #expect(velocity == ECEFVector(x: 1.5, y: -2.5, z: 0.07))
        // An all-zero ECEF position (a receiver without a solution) is never converted.
        recorder.calls.removeAll()
        var zero = sol
        for k in 12..<24 { zero.u8(k, 0) }
        let none = try #require(Self.fixes(ubxFrame(0x01, 0x06, zero.bytes), options: options)[0].first)
        #expect(none.latitude == nil && recorder.calls.isEmpty)
    }
}
