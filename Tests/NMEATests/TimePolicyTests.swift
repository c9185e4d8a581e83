import NMEA
import Testing

/// Whose date and whose leap seconds a fix's time is made of.
@Suite("Time policy: dates and leap seconds")
struct TimePolicyTests {
    func fixes(_ lines: [String]) -> [Fix] {
        let bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
        return streamFixes(bytes, options: AssemblerOptions(weekRolloverPivot: nil)).fixes
    }

    @Test("the date of an RMC without a time never replaces a ZDA's full date, before or after it")
    func untimedRMCDate() {
        // The shape of the field capture: an RMC with an empty time and a stale 1994 date, and a
        // ZDA with the real date.
        let rmc = withChecksum("$GPRMC,,A,5738.7695,N,01158.8893,E,0.0,0.0,230394,,W")
        for zdaFirst in [true, false] {
            var lines: [String] = []
            for second in 48..<51 {
                let zda = withChecksum("$GPZDA,1709\(second),18,08,2022,00,00")
                let gga = withChecksum("$GPGGA,1709\(second),5738.7695,N,01158.8893,E,1,08,1.0,10.0,M,40.0,M,,")
                lines += zdaFirst ? [zda, gga, rmc] : [rmc, zda, gga]
            }
            let out = fixes(lines)
            #expect(out.count == 3, "\(zdaFirst)")
            #expect(out.map { $0.time?.description ?? "-" } == ["2022-08-18T17:09:48.000Z", "2022-08-18T17:09:49.000Z",
                                                                  "2022-08-18T17:09:50.000Z"], "\(zdaFirst)")
        }
        // Alone, the untimed RMC's date is the only one there is, and is used.
        let alone = fixes([rmc, withChecksum("$GPGGA,170948,5738.7695,N,01158.8893,E,1,08,1.0,10.0,M,40.0,M,,"),
                           withChecksum("$GPGGA,170949,5738.7695,N,01158.8893,E,1,08,1.0,10.0,M,40.0,M,,")])
        #expect(alone.first?.time?.description == "1994-03-23T17:09:48.000Z")
    }

    @Test("the built-in table: GPS − UTC by date, with the table's expiry")
    func builtInTable() throws {
        let table = LeapSecondTable.iers
        #expect(table.steps.count == 28)
        #expect(table.steps.first?.taiMinusUTC == 10 && table.steps.last?.taiMinusUTC == 37)
        // 2013-07-24 (GPS week 1750): 16 s, where gpsd's built-in constant says 18.
        #expect(table.gpsMinusUTC(week: 1750, timeOfWeekMilliseconds: 345_600_000)?.seconds == 16)
        #expect(table.gpsMinusUTC(week: 1750, timeOfWeekMilliseconds: 345_600_000)?.source == .table)
        // The GPS epoch: 0 s; after 1981-07-01: 1 s.
        #expect(table.gpsMinusUTC(gpsSeconds: 0)?.seconds == 0)
        #expect(table.gpsMinusUTC(gpsSeconds: 86_400 * 600)?.seconds == 1)
        #expect(table.gpsMinusUTC(gpsSeconds: -1) == nil)
        // Either side of 2017-01-01T00:00:00Z (POSIX 1483228800), on the GPS scale.
        let gpsEpoch: Int64 = 315_964_800
        #expect(table.gpsMinusUTC(gpsSeconds: 1_483_228_799 + 17 - gpsEpoch)?.seconds == 17)
        #expect(table.gpsMinusUTC(gpsSeconds: 1_483_228_800 + 18 - gpsEpoch)?.seconds == 18)
        // Past the expiry (2026-06-28): the last count, assumed.
        let late = try #require(table.gpsMinusUTC(week: 2446, timeOfWeekMilliseconds: 259_200_000))
        #expect(late.seconds == 18 && late.source == .assumed)
    }

    @Test("a leap-seconds.list replaces the table; its errors name the line")
    func listFormat() throws {
        let text = """
            # a comment
            #@\t3991593600
            2272060800\t10\t# 1 Jan 1972
            2287785600\t11\t# 1 Jul 1972
            3692217600\t37\t# 1 Jan 2017
            """
        #expect(throws: LeapSecondTableError.notIncreasing(line: 5)) { try LeapSecondTable(leapSecondsList: text) }
        let good = try LeapSecondTable(leapSecondsList: "#@ 3991593600\n2272060800 10\n2287785600 11 # July\n")
        #expect(good.steps == [LeapSecondTable.Step(utc: 63_072_000, taiMinusUTC: 10), LeapSecondTable.Step(utc: 78_796_800, taiMinusUTC: 11)])
        #expect(good.expires == 3_991_593_600 - 2_208_988_800)
        #expect(throws: LeapSecondTableError.malformedLine(line: 2)) { try LeapSecondTable(leapSecondsList: "#@ 1\n22720608x0 10\n") }
        #expect(throws: LeapSecondTableError.missingExpiry) { try LeapSecondTable(leapSecondsList: "2272060800 10\n") }
        #expect(throws: LeapSecondTableError.empty) { try LeapSecondTable(leapSecondsList: "#@ 1\n# nothing\n") }
    }

    @Test("the built-in table agrees with the system's leap-seconds.list, when there is one",
          .enabled(if: FileProbe.read("/usr/share/zoneinfo/leap-seconds.list") != nil, "no tzdata leap-seconds.list"))
    func systemList() throws {
        let bytes = try #require(FileProbe.read("/usr/share/zoneinfo/leap-seconds.list"))
        let system = try LeapSecondTable(leapSecondsList: String(decoding: bytes, as: UTF8.self))
        #expect(system.steps == LeapSecondTable.iers.steps)
        #expect(system.expires >= LeapSecondTable.iers.expires)
    }

    /// A NAV-SOL frame: 3D, week and time of week valid, an ECEF position, `week` and `iTOW`.
    static func navSOL(week: Int16, iTOW: UInt32) -> [UInt8] {
        var sol = Payload(52)
        sol.u32(0, iTOW); sol.i16(8, week); sol.u8(10, 3); sol.u8(11, 0x0D)
        sol.i32(12, 384_000_000); sol.i32(16, 80_000_000); sol.i32(20, 501_000_000); sol.u16(44, 150); sol.u8(47, 9)
        return ubxFrame(0x01, 0x06, sol.bytes)
    }

    @Test("T-3: a stream nothing can date (NAV-POSLLH and NAV-STATUS only) still delivers its fixes, with no time")
    func undatedDelivered() {
        var bytes: [UInt8] = []
        for second in 0..<3 {
            let iTOW = 345_600_000 + UInt32(second) * 1000
            var llh = Payload(28)
            llh.u32(0, iTOW); llh.i32(4, 115_000_000); llh.i32(8, 577_000_000); llh.i32(12, 50_000); llh.i32(16, 10_000)
            var status = Payload(16)
            status.u32(0, iTOW); status.u8(4, 3); status.u8(5, 0x0D)
            bytes += ubxFrame(0x01, 0x02, llh.bytes) + ubxFrame(0x01, 0x03, status.bytes)
        }
        let out = streamFixes(bytes, options: AssemblerOptions(weekRolloverPivot: nil)).fixes
        #expect(out.count == 3)
        #expect(out.allSatisfy { $0.time == nil && $0.hasPosition && $0.mode == .threeD && $0.leapSecondsSource == nil })
    }

    @Test("a binary-only 2013 u-blox stream (NAV-SOL, NAV-POSLLH, no leap seconds from the receiver) gets 2013's 16 s from the table")
    func binaryOnly2013() throws {
        var bytes: [UInt8] = []
        for second in 0..<3 {
            let iTOW = 345_600_000 + UInt32(second) * 1000
            var llh = Payload(28)
            llh.u32(0, iTOW); llh.i32(4, 115_000_000); llh.i32(8, 577_000_000); llh.i32(12, 50_000); llh.i32(16, 10_000)
            bytes += Self.navSOL(week: 1750, iTOW: iTOW) + ubxFrame(0x01, 0x02, llh.bytes)
        }
        let out = streamFixes(bytes, options: AssemblerOptions(weekRolloverPivot: nil)).fixes
        #expect(out.count == 3)
        // GPS 2013-07-25T00:00:00 is UTC 2013-07-24T23:59:44 (gpsd, assuming 18 s, says :42).
        #expect(out.map { $0.time?.description ?? "-" } == ["2013-07-24T23:59:44.000Z", "2013-07-24T23:59:45.000Z",
                                                              "2013-07-24T23:59:46.000Z"])
        #expect(out.allSatisfy { $0.leapSecondsSource == .table })
        #expect(abs((out.first?.latitude ?? 0) - 57.7) < 1e-9 && out.first?.mode == .threeD)
        // The receiver's own count, when it states one (NAV-TIMELS), wins over the table.
        var ls = Payload(24)
        ls.u32(0, 345_599_000); ls.u8(8, 0); ls.i8(9, 15); ls.u8(23, 0x01)
        let stated = streamFixes(ubxFrame(0x01, 0x26, ls.bytes) + bytes, options: AssemblerOptions(weekRolloverPivot: nil)).fixes
        #expect(stated.first?.time?.description == "2013-07-24T23:59:45.000Z")
        #expect(stated.first?.leapSecondsSource == .receiver)
        // Past the table's expiry the last count is assumed, and said to be.
        let recent = streamFixes(Self.navSOL(week: 2446, iTOW: 259_200_000), options: AssemblerOptions(weekRolloverPivot: nil)).fixes
        #expect(recent.first?.leapSecondsSource == .assumed)
        #expect(recent.first?.time?.description == "2026-11-24T23:59:42.000Z")
        // A table given in the options replaces the built-in one.
        let list = try LeapSecondTable(leapSecondsList: "#@ 4000000000\n2272060800 10\n")
        let custom = streamFixes(bytes, options: AssemblerOptions(weekRolloverPivot: nil, leapSecondTable: list)).fixes
        #expect(custom.first?.time?.description == "2013-07-25T00:00:09.000Z")
    }
}
