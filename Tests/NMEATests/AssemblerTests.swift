import NMEA
import Testing

/// The epoch assembler's rules, each on a small hand-written sentence sequence.
@Suite("EpochAssembler rules")
struct AssemblerTests {
    /// What a stream produced: the fixes, and for each fix the index of the sentence after which it came out.
    struct Run {
        var fixes: [Fix] = []
        var emittedAfter: [Int] = []
    }

    /// Feeds the sentences one at a time (checksums added), recording when each fix comes out; index
    /// `lines.count` means "at the end of the stream".
    func run(_ lines: [String], distance: DistanceFunction? = nil) -> Run {
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, distance: distance))
        var result = Run()
        for (index, line) in lines.enumerated() {
            let bytes = Array((withChecksum(line) + "\r\n").utf8)
            stream.feed(bytes.span) { fix in
                result.fixes.append(fix)
                result.emittedAfter.append(index)
            }
        }
        stream.finish { fix in
            result.fixes.append(fix)
            result.emittedAfter.append(lines.count)
        }
        return result
    }

    /// A flat-earth distance, good enough for metres-apart test positions.
    static let flatDistance: DistanceFunction = { lat1, lon1, lat2, lon2 in
        let metresPerDegree = 111_194.93
        let dy = (lat2 - lat1) * metresPerDegree
        let dx = (lon2 - lon1) * metresPerDegree * 0.74  // cos(42 degrees)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// One Garmin 38 epoch (as in the gpsd capture): RMC, GGA, GSA, GLL, then PGRMZ in feet after the ender.
    func garminEpoch(_ time: String, ggaAltitude: String, feet: String) -> [String] {
        [
            "$GPRMC,\(time),A,3348.452,N,11821.143,W,000.0,353.6,081002,013.8,E",
            "$GPGGA,\(time),3348.452,N,11821.143,W,1,05,1.8,\(ggaAltitude),M,-32.4,M,,",
            "$GPGSA,A,3,03,,11,14,,,25,31,,,,,3.3,1.8,2.8",
            "$GPGLL,3348.452,N,11821.143,W,\(time),A",
            "$PGRMZ,\(feet),f,3",
            "$PGRMM,NAD83",
        ]
    }

    @Test("a ZDA date past 2262 (no UTC instant) gives fixes without a time, not a trap")
    func dateBeyondUTCRange() {
        let out = run([
            "$GPGGA,194104,4426.1207,N,07140.5084,W,1,08,0.9,100.0,M,-30.0,M,,",
            "$GPZDA,194104,16,09,2906,-05,00",
            "$GPGGA,194105,4426.1207,N,07140.5084,W,1,08,0.9,100.0,M,-30.0,M,,",
            "$GPZDA,194105,16,09,2906,-05,00",
        ], distance: AssemblerTests.flatDistance)
        #expect(!out.fixes.isEmpty)
        #expect(out.fixes.allSatisfy { $0.time == nil && $0.latitude != nil })
    }

    @Test("PGRMZ after the cycle ender sets the epoch's MSL altitude, converted from feet; one fix per epoch")
    func pgrmzAfterEnder() throws {
        let lines = garminEpoch("142216", ggaAltitude: "38.4", feet: "126")
            + garminEpoch("142218", ggaAltitude: "38.4", feet: "126")
            + garminEpoch("142220", ggaAltitude: "37.6", feet: "123")
            + garminEpoch("142222", ggaAltitude: "38.0", feet: "125")
        let out = run(lines)
        #expect(out.fixes.map { $0.time?.description } == [
            "2002-10-08T14:22:16.000Z", "2002-10-08T14:22:18.000Z", "2002-10-08T14:22:20.000Z", "2002-10-08T14:22:22.000Z",
        ])
        let altitudes = out.fixes.map { $0.altitudeMSL ?? .nan }
        let expected = [126 * 0.3048, 126 * 0.3048, 123 * 0.3048, 125 * 0.3048]
        for (got, want) in zip(altitudes, expected) { #expect(abs(got - want) < 1e-9) }
        // The ellipsoid height stays the GGA's own (MSL + separation from the same sentence).
        #expect(abs((out.fixes[0].altitudeHAE ?? 0) - 6.0) < 1e-9)
        #expect(out.fixes.allSatisfy { $0.mode == .threeD })
    }

    @Test("once the ender (learned as PGRMZ here) has ended two epochs, fixes come out right after it")
    func emitsAtLearnedEnder() {
        let lines = garminEpoch("142216", ggaAltitude: "38.4", feet: "126")
            + garminEpoch("142218", ggaAltitude: "38.4", feet: "126")
            + garminEpoch("142220", ggaAltitude: "37.6", feet: "123")
            + garminEpoch("142222", ggaAltitude: "38.0", feet: "125")
        let out = run(lines)
        // Epochs 1 and 2 end at the next epoch's RMC (index 6, 12); once PGRMZ has ended two epochs,
        // epochs 3 and 4 come out at their own PGRMZ (index 16, 22), not at the end of the stream.
        #expect(out.emittedAfter == [6, 12, 16, 22])
    }

    @Test("an untimed VTG directly after the last timed sentence belongs to that epoch")
    func vtgAfterTimedSentence() throws {
        // Half-second epochs; ZDA only on whole seconds, so the last timed sentence alternates.
        let lines = [
            "$GPGGA,194058.00,4221.8236441,N,07101.9438734,W,1,04,1.4,6.786,M,-33.057,M,,",
            "$GPVTG,346.88,T,1.52,M,0.04,N,0.07,K,A",
            "$GPZDA,194058.00,07,09,2018,00,00",
            "$GPHDT,274.07,T",
            "$GPGGA,194058.50,4221.8236149,N,07101.9438435,W,1,04,1.4,6.668,M,-33.057,M,,",
            "$GPVTG,237.64,T,252.28,M,0.02,N,0.04,K,A",
            "$GPHDT,274.04,T",
            "$GPGGA,194059.00,4221.8235923,N,07101.9438218,W,1,04,1.4,6.709,M,-33.057,M,,",
            "$GPVTG,150.20,T,164.83,M,0.02,N,0.05,K,A",
            "$GPZDA,194059.00,07,09,2018,00,00",
            "$GPHDT,274.12,T",
            "$GPGGA,194059.50,4221.8235724,N,07101.9438087,W,1,04,1.4,6.809,M,-33.057,M,,",
        ]
        let out = run(lines)
        let dated = out.fixes.filter { $0.time != nil }
        #expect(dated.count == 4)
        #expect(dated.map { $0.course } == [346.88, 237.64, 150.20, nil])
        #expect(abs((dated[2].speed ?? 0) - 0.02 * 1852 / 3600) < 1e-9)
        #expect(dated[2].speedIsDerived == false)
    }

    @Test("a sentence seen after the ender in the same epoch is never trusted as the ender again")
    func distrustEarlyEnder() {
        // 2 Hz GGA; RMC joins once a second after the GGA of the whole second.
        func gga(_ t: String, _ lat: String) -> String { "$GPGGA,\(t),\(lat),N,08802.041110,W,2,08,1.0,221.9,M,,,3,0138" }
        func rmc(_ t: String, _ lat: String) -> String { "$GPRMC,\(t),A,\(lat),N,08802.041110,W,9.000,41.0,190214,,,D" }
        let lines = [
            gga("204130.00", "4205.733000"), rmc("204130.00", "4205.733000"),
            gga("204130.50", "4205.733100"),
            gga("204131.00", "4205.733200"),
            gga("204131.50", "4205.733300"),
            gga("204132.00", "4205.733400"), rmc("204132.00", "4205.733400"),  // GGA fired early here
            gga("204132.50", "4205.733500"),
            gga("204133.00", "4205.733600"),
            gga("204133.50", "4205.733700"),
            gga("204134.00", "4205.733800"), rmc("204134.00", "4205.733800"),  // must include this RMC
            gga("204134.50", "4205.733900"),
        ]
        let out = run(lines)
        let byTime = Dictionary(out.fixes.compactMap { fix in fix.time.map { ($0.description, fix) } },
                                uniquingKeysWith: { first, _ in first })
        #expect(byTime["2014-02-19T20:41:32.000Z"]?.course == nil)  // the early emission, as gpsd's first TPV
        #expect(byTime["2014-02-19T20:41:34.000Z"]?.course == 41.0)
        #expect(abs((byTime["2014-02-19T20:41:34.000Z"]?.speed ?? 0) - 9.0 * 1852 / 3600) < 1e-9)
        #expect(out.fixes.count == 10)  // one per epoch
    }

    @Test("RMC after a GGA with altitude reports 3D even with three satellites; GSA 2D does not downgrade it")
    func rmcWithAltitudeIsThreeD() throws {
        let lines = [
            "$GPGGA,102523.342,4815.6883,N,01140.3675,E,1,03,4.1,-47.5,M,47.5,M,,0000",
            "$GPGSA,A,2,09,18,15,,,,,,,,,,4.2,4.1,1.0",
            "$GPRMC,102523.342,A,4815.6883,N,01140.3675,E,0.00,0.00,210808,,,A",
            "$GPGGA,102524.342,4815.6880,N,01140.3673,E,1,03,4.1,-47.5,M,47.5,M,,0000",
            "$GPGSA,A,2,09,18,15,,,,,,,,,,4.2,4.1,1.0",
            "$GPRMC,102524.342,A,4815.6880,N,01140.3673,E,0.00,0.00,210808,,,A",
        ]
        let out = run(lines)
        #expect(out.fixes.count == 2)
        #expect(out.fixes.map(\.mode) == [.threeD, .threeD])
        #expect(out.fixes.last?.altitudeMSL == -47.5)
    }

    @Test("a GGA with fewer than three satellites is 2D at best and GP/GN with < 3 is no fix")
    func ggaSatelliteRule() throws {
        let out = run([
            "$GPRMC,120000,V,,,,,,,010120,,,N",
            "$GPGGA,120001,4815.6880,N,01140.3673,E,1,02,4.1,500.0,M,47.5,M,,",
            "$GPGGA,120002,4815.6880,N,01140.3673,E,1,03,4.1,500.0,M,47.5,M,,",
            "$GPGGA,120003,4815.6880,N,01140.3673,E,1,04,4.1,500.0,M,47.5,M,,",
        ])
        #expect(out.fixes.map(\.mode) == [.noFix, .noFix, .twoD, .threeD])
        #expect(out.fixes[1].latitude == nil)
    }

    @Test("3D is held across RMC/GLL-only epochs after an altitude, and dropped after a no-fix")
    func holdsThreeD() {
        let out = run([
            "$INRMC,194103,A,4426.1134,N,07140.5558,W,5.3,77.0,160906,15.8,W",
            "$INGGA,194104,4426.1138,N,07140.5536,W,2,10,0.9,267.9,M,,,,",
            "$INZDA,194104,16,09,2006,-05,00",
            "$INRMC,194105,A,4426.1142,N,07140.5515,W,5.3,76.8,160906,15.8,W",
            "$INGLL,4426.1146,N,07140.5499,W,194106,A",
            "$INRMC,194107,A,4426.1149,N,07140.5477,W,5.3,76.6,160906,15.8,W",
            "$INRMC,194108,V,,,,,,,160906,,",
            "$INRMC,194109,A,4426.1153,N,07140.5439,W,5.2,76.5,160906,15.8,W",
        ])
        #expect(out.fixes.map(\.mode) == [.twoD, .threeD, .threeD, .threeD, .threeD, .noFix, .twoD])
    }

    @Test("RMC reports 3D when the last GSA used four or more satellites")
    func rmcFourSatellites() {
        let out = run([
            "$GPGSA,A,3,04,05,09,12,,,,,,,,,2.5,1.3,2.1",
            "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
            "$GPRMC,123520,A,4807.039,N,01131.000,E,022.4,084.4,230394,003.1,W",
        ])
        #expect(out.fixes.map(\.mode) == [.threeD, .threeD])
        #expect(out.fixes.allSatisfy { $0.altitudeMSL == nil })
    }

    @Test("a GGA repeating the previous GGA's time latches no fix")
    func ggaLatch() {
        let out = run([
            "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
            "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "$GPRMC,123520,V,4807.038,N,01131.000,E,,,230394,003.1,W",
            "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        ])
        // Epoch 12:35:19 is complete; the repeated GGA (time 12:35:19 again) reopens nothing valid.
        #expect(out.fixes.first?.mode == .threeD)
        #expect(out.fixes.dropFirst().allSatisfy { $0.mode < .twoD && $0.latitude == nil })
    }

    @Test("RMC status V gives no fix and no position")
    func rmcInvalid() {
        let out = run(["$GPRMC,123519,V,4807.038,N,01131.000,E,,,230394,,"])
        #expect(out.fixes.count == 1)
        #expect(out.fixes.first?.mode == .noFix)
        #expect(out.fixes.first?.latitude == nil)
        #expect(out.fixes.first?.time?.description == "1994-03-23T12:35:19.000Z")
    }

    @Test("without a speed sentence, speed is derived from the previous fix and marked as derived")
    func derivedSpeed() throws {
        // GGA + ZDA only, 1 s apart, 0.005396 minutes of latitude (10.0 m) between the first two fixes.
        let metres = 0.005396 / 60 * 111_194.93
        let lat2 = "4221.005396"
        let lines = [
            "$GPZDA,100000.00,07,09,2018,00,00",
            "$GPGGA,100000.00,4221.000000,N,07101.000000,W,1,08,0.9,10.0,M,-33.0,M,,",
            "$GPZDA,100001.00,07,09,2018,00,00",
            "$GPGGA,100001.00,\(lat2),N,07101.000000,W,1,08,0.9,10.0,M,-33.0,M,,",
            "$GPZDA,100002.00,07,09,2018,00,00",
            "$GPVTG,0.0,T,,M,1.0,N,1.852,K,A",
            "$GPGGA,100002.00,\(lat2),N,07101.000000,W,1,08,0.9,10.0,M,-33.0,M,,",
        ]
        let out = run(lines, distance: Self.flatDistance)
        #expect(out.fixes.count == 3)
        #expect(out.fixes[0].speed == nil)  // no previous fix
        let derived = try #require(out.fixes[1].speed)
        #expect(abs(derived - metres) < 0.01)
        #expect(out.fixes[1].speedIsDerived)
        // A VTG in the epoch gives the speed: not derived.
        #expect(abs((out.fixes[2].speed ?? 0) - 1852.0 / 3600) < 1e-9)
        #expect(out.fixes[2].speedIsDerived == false)
        // Without a distance function nothing is derived.
        #expect(run(lines).fixes[1].speed == nil)
    }
}
