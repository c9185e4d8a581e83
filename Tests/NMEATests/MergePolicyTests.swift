import NMEA
import Testing

/// The merge policy of one epoch (QUIRKS.md section 4): one test per shape. The expected values are
/// what gpsd reports for the same lines (its last TPV of each second).
@Suite("Merge policy of one epoch")
struct MergePolicyTests {
    func fixes(_ lines: [String]) -> [Fix] {
        streamFixes(Array(lines.map { withChecksum($0) + "\r\n" }.joined().utf8),
                    options: AssemblerOptions(weekRolloverPivot: nil)).fixes
    }

    /// The fixes that have a position, by time of day (`hhmmss.sss`), the last of each time.
    func positioned(_ out: [Fix]) -> [String: Fix] {
        var byTime: [String: Fix] = [:]
        for fix in out where fix.hasPosition {
            if let time = fix.timeOfDay { byTime[time.description] = fix }
        }
        return byTime
    }

    @Test("M-1: RMC then VTG then GGA of one second: the VTG's course and speed, the last before the ender")
    func vtgBeforeEnder() throws {
        var lines: [String] = []
        for second in 54..<58 {
            lines += ["$GPRMC,1207\(second),A,5229.9353,N,00520.6618,E,5.5,78.4,221123,,",
                      "$GPVTG,78.3,T,,M,5.6,N,10.4,K",
                      "$GPGGA,1207\(second),5229.9353,N,00520.6618,E,1,08,1.0,10.0,M,46.0,M,,"]
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 4)
        for fix in out.values {
            #expect(fix.course == 78.3)
            #expect(abs((fix.speed ?? 0) - 5.6 * 1852 / 3600) < 1e-9)
        }
    }

    @Test("M-1: a VTG directly after the second's last timed sentence joins that second (gpsd reports it just after its cycle ender)")
    func vtgAfterEnder() throws {
        var lines: [String] = []
        for second in 54..<58 {
            lines += ["$GPGGA,1207\(second),5229.9353,N,00520.6618,E,1,08,1.0,10.0,M,46.0,M,,",
                      "$GPRMC,1207\(second),A,5229.9353,N,00520.6618,E,5.5,78.4,221123,,",
                      "$GPVTG,78.3,T,,M,5.6,N,10.4,K"]
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 4)
        #expect(out.values.allSatisfy { $0.course == 78.3 })
    }

    @Test("M-1: a VTG that repeats the RMC's speed and course with fewer digits leaves the RMC's (Trimble R2: 104.669 and 104.67)")
    func vtgWithFewerDigits() throws {
        var lines: [String] = []
        for second in 47..<51 {
            lines += ["$GNGGA,2356\(second).00,3403.47162394,N,11711.80927093,W,5,10,1.2,403.600,M,-32.133,M,1.0,0000",
                      "$GNRMC,2356\(second).00,A,3403.47162394,N,11711.80927093,W,0.014,104.669,201217,12.0194,E,D",
                      "$GNVTG,104.67,T,116.69,M,0.01,N,0.03,K,D",
                      "$GNZDA,2356\(second).05,20,12,2017,00,00"]
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 4)
        for fix in out.values {
            #expect(fix.course == 104.669)
            #expect(abs((fix.speed ?? 0) - 0.014 * 1852 / 3600) < 1e-12)
        }
        // Cut instead of rounded (104.66): still the RMC's digits.
        let cut = positioned(fixes(lines.map { $0.hasPrefix("$GNVTG") ? "$GNVTG,104.66,T,116.69,M,0.01,N,0.03,K,D" : $0 }))
        #expect(cut.values.allSatisfy { $0.course == 104.669 })
        // A VTG that says something else (104.65) replaces the RMC's course, as any later value does.
        let other = positioned(fixes(lines.map { $0.hasPrefix("$GNVTG") ? "$GNVTG,104.65,T,116.69,M,0.01,N,0.03,K,D" : $0 }))
        #expect(other.count == 4 && other.values.allSatisfy { $0.course == 104.65 })
    }

    @Test("M-1, gpsd 3.22's end of cycle (UntimedAfterCycleEnd.leftOut): a VTG after the second's last timed sentence is left out, one before it is kept")
    func vtgLeftOutAfterEnder() throws {
        var options = AssemblerOptions(weekRolloverPivot: nil)
        options.untimedAfterCycleEnd = .leftOut
        func run(_ lines: [String]) -> [String: Fix] {
            positioned(streamFixes(Array(lines.map { withChecksum($0) + "\r\n" }.joined().utf8), options: options).fixes)
        }
        var after: [String] = []
        var before: [String] = []
        for second in 54..<58 {
            let gga = "$GPGGA,1207\(second),5229.9353,N,00520.6618,E,1,08,1.0,10.0,M,46.0,M,,"
            let rmc = "$GPRMC,1207\(second),A,5229.9353,N,00520.6618,E,5.5,78.4,221123,,"
            let vtg = "$GPVTG,78.3,T,,M,5.6,N,10.4,K"
            after += [gga, rmc, vtg]
            before += [rmc, vtg, gga]
        }
        let left = run(after)
        #expect(left.count == 4 && left.values.allSatisfy { $0.course == 78.4 && abs(($0.speed ?? 0) - 5.5 * 1852 / 3600) < 1e-9 })
        let kept = run(before)
        #expect(kept.count == 4 && kept.values.allSatisfy { $0.course == 78.3 })
        // PGRMZ after the last timed sentence is left out too (the GGA's altitude stands).
        let garmin = run((0..<4).flatMap { second in
            ["$GPGGA,14000\(second),5229.9353,N,00520.6618,E,1,08,1.0,10.0,M,46.0,M,,",
             "$GPRMC,14000\(second),A,5229.9353,N,00520.6618,E,5.0,90.0,221123,,", "$PGRMZ,100,f,3"]
        })
        #expect(garmin.count == 4 && garmin.values.allSatisfy { $0.altitudeMSL == 10 })
    }

    @Test("M-2: RMC, ZDA, GGA of one second: the last position of the second (the GGA's)")
    func lastPositionWins() throws {
        var lines: [String] = []
        for second in 27..<31 {
            lines += ["$GPRMC,1211\(second),A,5229.9353,N,00520.6618,E,0.1,10.0,221123,,",
                      "$GPZDA,1211\(second),22,11,2023,00,00",
                      "$GPGGA,1211\(second),5229.9357,N,00520.6640,E,1,08,1.0,10.0,M,46.0,M,,"]
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 4)
        #expect(out.values.allSatisfy { abs(($0.latitude ?? 0) - (52 + 29.9357 / 60)) < 1e-9 })
    }

    @Test("M-2: a second that breaks the receiver's order (RMC, ZDA, GGA after GGA, ZDA, RMC) ends at the learned ender: the RMC's position")
    func reorderedSecondEndsAtEnder() throws {
        var lines: [String] = []
        for second in 20..<27 {
            let gga = "$GPGGA,1211\(second),5229.9357,N,00520.6640,E,1,08,1.0,10.0,M,46.0,M,,"
            let zda = "$GPZDA,1211\(second),22,11,2023,00,00"
            let rmc = "$GPRMC,1211\(second),A,5229.9353,N,00520.6618,E,0.1,10.0,221123,,"
            lines += second == 24 ? [rmc, zda, gga] : [gga, zda, rmc]
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 7)
        let rmcLatitude = 52 + 29.9353 / 60
        for (time, fix) in out {
            #expect(abs((fix.latitude ?? 0) - rmcLatitude) < 1e-9, "\(time)")
        }
    }

    @Test("M-3: a second sent twice, first without a fix (RMC V, GGA 0) and then with one (RMC A, GGA 2): the fixed copy is reported")
    func repeatedSecondWithBetterFix() throws {
        var lines: [String] = []
        for second in 53..<57 {
            lines += ["$GPRMC,1834\(second),V,,,,,,,221123,,",
                      "$GPGGA,1834\(second),,,,,0,00,,,M,,M,,",
                      "$GPRMC,1834\(second),A,4124.6743,N,00211.1234,E,0.0,0.0,221123,,",
                      "$GPGGA,1834\(second),4124.6743,N,00211.1234,E,2,04,2.5,100.0,M,50.0,M,,"]
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 4, "\(out.keys.sorted())")
        for fix in out.values {
            #expect(fix.mode == .threeD && fix.altitudeMSL == 100 && fix.quality == .differential)
        }
        // GGA of quality 0, then of quality 2, of the same time: not a stale repeat.
        var ggas: [String] = []
        for second in 53..<56 {
            ggas += ["$GPGGA,1834\(second),,,,,0,00,,,M,,M,,",
                     "$GPGGA,1834\(second),4124.6743,N,00211.1234,E,2,04,2.5,100.0,M,50.0,M,,",
                     "$GPRMC,1834\(second),A,4124.6743,N,00211.1234,E,0.0,0.0,221123,,"]
        }
        #expect(positioned(fixes(ggas)).values.allSatisfy { $0.mode == .threeD })
        #expect(positioned(fixes(ggas)).count == 3)
    }

    @Test("M-3: a second sent twice, both copies with a fix (GGA, RMC, GGA, RMC of one time, other positions): the later copy is reported")
    func repeatedSecondBothFixed() throws {
        func copy(_ second: Int, _ latitude: String) -> [String] {
            ["$GPGGA,1249\(second),\(latitude),N,01014.1000,E,1,04,2.00,0.00,M,,,",
             "$GPRMC,1249\(second),A,\(latitude),N,01014.1000,E,0.1000,358.000,160517,,"]
        }
        var lines: [String] = []
        for second in 46..<55 {
            lines += copy(second, "5907.4750")
            if second == 52 { lines += copy(second, "5907.4700") }
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 9, "\(out.keys.sorted())")
        for (time, fix) in out {
            let minutes = time.hasPrefix("12:49:52") ? 7.4700 : 7.4750
            #expect(abs((fix.latitude ?? 0) - (59 + minutes / 60)) < 1e-9, "\(time)")
            #expect(fix.mode == .threeD, "\(time)")
        }
        // The ender merely sent twice (the same position again, as a duplicated line) is no new
        // copy: one record per second.
        var same: [String] = []
        for second in 46..<55 {
            same += copy(second, "5907.4750")
            if second == 52 { same += copy(second, "5907.4750") }
        }
        #expect(fixes(same).count == 9)
        #expect(fixes(lines).count == 10)
    }

    @Test("M-3: a GGA with a fix repeated with its time (Trimble Placer 450 after losing lock) is still no fix")
    func staleRepeatIsNoFix() {
        let gga = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
        let out = fixes([gga, "$GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
                         "$GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
                         "$GPGGA,123521,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"])
        #expect(out.map(\.mode) == [.threeD, .noFix, .threeD])
    }

    @Test("M-4: a timed sentence of another time never lands in the open epoch: half-second epochs stay apart")
    func halfSecondEpochs() throws {
        var lines: [String] = []
        for second in 10..<14 {
            lines += ["$GPRMC,1300\(second).000,A,5229.9353,N,00520.6618,E,1.0,10.0,221123,,",
                      "$GPGGA,1300\(second).000,5229.9353,N,00520.6618,E,1,08,1.0,10.0,M,46.0,M,,",
                      "$GPRMC,1300\(second).500,A,5229.9354,N,00520.6619,E,1.0,10.0,221123,,",
                      "$GPGGA,1300\(second).500,5229.9354,N,00520.6619,E,1,08,1.0,11.0,M,46.0,M,,"]
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 8)
        for (time, fix) in out {
            #expect(fix.altitudeMSL == (time.hasSuffix(".500") ? 11 : 10), "\(time)")
        }
    }

    @Test("M-5: two talkers on one bus ($GPRMC, $GPGGA, $IIRMC): each field from the second's last sentence with it, and the position's talker named")
    func severalTalkers() throws {
        var lines: [String] = []
        for second in 0..<4 {
            lines += ["$GPRMC,14000\(second),A,5229.9353,N,00520.6618,E,5.0,90.0,221123,,",
                      "$GPGGA,14000\(second),5229.9353,N,00520.6618,E,1,08,1.0,10.0,M,46.0,M,,",
                      "$IIRMC,14000\(second),A,5229.9300,N,00520.6600,E,5.2,91.0,221123,,"]
        }
        let out = positioned(fixes(lines))
        #expect(out.count == 4)
        for fix in out.values {
            #expect(abs((fix.latitude ?? 0) - (52 + 29.93 / 60)) < 1e-9)
            #expect(fix.course == 91 && fix.altitudeMSL == 10)
            #expect(fix.positionTalker == Talker(0x49, 0x49) && fix.positionTalkersDiffer)
        }
        // One talker: named, and not said to differ; nor a receiver's own two talkers (GN RMC, GP GGA).
        let single = positioned(fixes(Array(lines.filter { $0.hasPrefix("$GP") })))
        #expect(single.values.allSatisfy { $0.positionTalker == .gps && !$0.positionTalkersDiffer })
        let receiver = positioned(fixes(lines.filter { $0.hasPrefix("$GP") }.map { $0.hasPrefix("$GPRMC") ? "$GN" + $0.dropFirst(3) : $0 }))
        #expect(receiver.count == 4 && receiver.values.allSatisfy { $0.positionTalker == .gps && !$0.positionTalkersDiffer })
    }
}
