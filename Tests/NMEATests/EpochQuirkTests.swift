import NMEA
import Testing

/// The epoch-level entries of the quirk catalogue (E-n in QUIRKS.md): which sentence's value a fix
/// reports when the sentences of one epoch disagree, as gpsd decides.
@Suite("Quirk catalogue: epoch rules")
struct EpochQuirkTests {
    func fixes(_ lines: [String]) -> [Fix] {
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil))
        var fixes: [Fix] = []
        for line in lines {
            let bytes = Array((withChecksum(line) + "\r\n").utf8)
            stream.feed(bytes.span) { fixes.append($0) }
        }
        stream.finish { fixes.append($0) }
        return fixes
    }

    @Test("E-3: a VTG without a true course, or with mode N or E, is not believed: the RMC speed stands")
    func vtgNotBelieved() {
        let got = fixes([
            "$GPRMC,120000,A,4807.038,N,01131.000,E,1.0,90.0,230394,,,A",
            "$GPVTG,,T,,M,0.117,N,0.216,K,A",
            "$GPRMC,120001,A,4807.038,N,01131.000,E,2.0,91.0,230394,,,A",
            "$GPVTG,80.0,T,,M,9.0,N,16.7,K,N",
            "$GPRMC,120002,A,4807.038,N,01131.000,E,3.0,92.0,230394,,,A",
            "$GPVTG,93.0,T,,M,4.0,N,7.4,K,A",
        ])
        #expect(got.count == 3)
        #expect(got.map { $0.speed.map { ($0 * 3600 / 1852 * 10).rounded() / 10 } } == [1.0, 2.0, 4.0])
        #expect(got.map(\.course) == [90.0, 91.0, 93.0])
    }

    @Test("E-2: PGRMZ overrides GGA's altitude only in feet, as whole feet, and its field 3 sets the mode")
    func pgrmz() {
        let got = fixes([
            "$GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,38.4,M,46.9,M,,",
            "$PGRMZ,126.9,f,3",
            "$GPGGA,120001,4807.038,N,01131.000,E,1,08,0.9,38.4,M,46.9,M,,",
            "$PGRMZ,40,m,3",
            "$GPGGA,120002,4807.038,N,01131.000,E,1,08,0.9,,M,,M,,",
            "$PGRMZ,130,f,3",
            "$GPGGA,120003,4807.038,N,01131.000,E,1,08,0.9,38.4,M,46.9,M,,",
            "$PGRMZ,126,f,1",
        ])
        #expect(got.count == 4)
        let foot = 0.3048
        let expected: [Double?] = [126 * foot, 38.4, 130 * foot, 126 * foot]
        #expect(got.map(\.altitudeMSL) == expected)
        #expect(got.map(\.mode) == [.threeD, .threeD, .threeD, .noFix])
    }

    @Test("E-10: a GNS whose navigational status is V (u-blox sends it always) or U leaves the fix as it was")
    func gnsNavigationalStatus() {
        let got = fixes([
            "$GPRMC,120000,A,4807.038,N,01131.000,E,1.0,90.0,230394,,,A",
            "$GNGNS,120000,4808.000,N,01132.000,E,AAAAN,16,0.9,545.4,46.9,,,V",
            "$GPRMC,120001,A,4807.038,N,01131.000,E,1.0,90.0,230394,,,A",
            "$GNGNS,120001,4808.000,N,01132.000,E,AAAAN,16,0.9,545.4,46.9,,,S",
        ])
        #expect(got.count == 2)
        #expect(got.map(\.rawLatitude?.degreesMinutes) == [FixedDecimal(significand: 4807038, scale: 3), FixedDecimal(significand: 4808000, scale: 3)])
        #expect(got.map(\.altitudeMSL) == [nil, 545.4])
    }

    @Test("E-4: a magnetic variation of 0.0 means none; DOPs of 99.99, 99.00 and 0.00 mean none")
    func invalidMarkers() {
        let got = fixes([
            "$GPGGA,120000,4807.038,N,01131.000,E,1,08,99.99,545.4,M,46.9,M,,",
            "$GPGSA,A,3,01,02,03,04,05,06,07,08,,,,,0.00,99.00,99.99",
            "$GPRMC,120000,A,4807.038,N,01131.000,E,1.0,90.0,230394,0.0,E,A",
        ])
        #expect(got.count == 1)
        #expect(got.first?.magneticVariation == nil && got.first?.hdop == nil && got.first?.pdop == nil && got.first?.vdop == nil)
        #expect(got.first?.hasPosition == true && got.first?.altitudeMSL == 545.4)
    }

    @Test("Q-RMC-1 in a stream: a SiRF III log whose RMC carries the mode in the E/W slot gives timed fixes")
    func sirfThreeGivesFixes() {
        let got = fixes((0..<5).map { "$GPRMC,09275\($0).000,A,5321.6802,N,00630.3372,W,0.06,31.66,280511,003.1,A" })
        #expect(got.count == 5 && got.allSatisfy { $0.time != nil && $0.hasPosition && $0.magneticVariation == nil })
    }

    @Test("E-12: a cycle learned without a fix from Quectel's empty-time RMC/GGA does not cut the first fix before its RMC's date")
    func cycleLearnedWithoutFixQuectel() {
        var lines: [String] = []
        for second in 0..<4 {
            lines += ["$GNGNS,19143\(second).96,,,,,NNN,,,,,,", "$GPVTG,,T,,M,,N,,K,N", "$GPGGA,,,,,,0,,,,,,,,", "$GPRMC,,V,,,,,,,,,,N"]
        }
        for second in 0..<3 {
            let t = "19150\(second + 3).01"
            lines += ["$GPGGA,\(t),3645.876324,N,03124.670280,E,1,04,1.3,-6.7,M,32.0,M,,",
                      "$GNGNS,\(t),3645.876324,N,03124.670280,E,AAN,08,1.3,-6.7,32.0,,,V",
                      "$GPVTG,300.5,T,296.9,M,1.3,N,2.3,K,A",
                      "$GPRMC,\(t),A,3645.876324,N,03124.670280,E,1.3,300.5,110922,3.6,E,A,V"]
        }
        let got = fixes(lines).filter { $0.hasPosition }
        #expect(got.count == 3)
        // Every fix with a position has the date its RMC brought, the first one included.
        #expect(got.allSatisfy { $0.time != nil })
        #expect(got.first?.timeOfDay == TimeOfDay(hour: 19, minute: 15, second: 3, nanosecond: 10_000_000))
        #expect(got.first?.course == 300.5)
    }

    @Test("E-12: a Garmin 25LP's first fix takes its mode from the GSA after a GGA with 00 satellites")
    func cycleLearnedWithoutFixGarmin() {
        var lines: [String] = []
        for second in 0..<3 {
            lines += ["$GPRMC,12032\(second),V,4221.4394,N,01321.9948,E,000.0,000.0,150305,001.4,E",
                      "$GPGGA,12032\(second),4221.4394,N,01321.9948,E,0,00,,,M,,M,,",
                      "$GPGSA,A,1,,,,,,,,,,,,,,,",
                      "$GPGSV,1,1,02,01,10,158,44,03,72,164,42"]
        }
        lines += ["$GPRMC,120326,A,4221.3871,N,01322.0800,E,000.0,000.0,150305,001.4,E",
                  "$GPGGA,120326,4221.3871,N,01322.0800,E,1,00,3.1,746.1,M,44.2,M,,",
                  "$GPGSA,A,2,01,03,,14,,,,,,,,,3.1,3.1,",
                  "$GPRMC,120327,A,4221.3872,N,01322.0800,E,000.0,000.0,150305,001.4,E",
                  "$GPGGA,120327,4221.3872,N,01322.0800,E,1,03,3.1,746.1,M,44.2,M,,",
                  "$GPGSA,A,2,01,03,,14,,,,,,,,,3.1,3.1,"]
        let got = fixes(lines).filter { ($0.timeOfDay?.second ?? 0) >= 26 }
        // gpsd's last reports: 2D with the position at 12:03:26 (GSA after the GGA), then 3D
        // (RMC with the previous epoch's altitude; the 3-satellite GGA does not downgrade it).
        #expect(got.map(\.mode) == [.twoD, .threeD])
        #expect(got.allSatisfy { $0.hasPosition && $0.altitudeMSL == 746.1 })
    }
}

@Suite("Field tolerance on the gpsd corpus", .enabled(if: sharedFolder() != nil, "../shared/corpus/gpsd is not beside the package"))
struct CorpusToleranceTests {
    @Test("every sentence the strict reading accepts is accepted unchanged; those it refused for an optional field are kept and their fields counted")
    func corpus() throws {
        let shared = try #require(sharedFolder())
        let strict = NMEAParserOptions(toleratesUnreadableFields: false)
        var accepted = 0
        var kept: [String: Int] = [:]   // "RMC field 11" -> sentences kept that the strict reading refused
        var unreadableFields = 0
        var examples: [String] = []
        for name in FileProbe.list(shared + "/corpus/gpsd").sorted() where name.hasSuffix(".log") {
            let bytes = try #require(FileProbe.read(shared + "/corpus/gpsd/" + name))
            for case .sentence(let text) in frame(bytes, chunks: [4096], skipComments: true) {
                let tolerant = try? parse(text)
                do {
                    _ = try parse(text, options: strict)
                    accepted += 1
                    #expect(tolerant?.unreadableFields.isEmpty == true, "\(name): \(text)")
                } catch {
                    guard let tolerant, !tolerant.unreadableFields.isEmpty else { continue }
                    unreadableFields += tolerant.unreadableFields.count
                    let key = "\(tolerant.sentence.type) field " + tolerant.unreadableFields.map(String.init).joined(separator: "+")
                    if kept[key] == nil { examples.append("\(name): \(text)") }
                    kept[key, default: 0] += 1
                }
            }
        }
        let total = kept.values.reduce(0, +)
        print("corpus tolerance: \(accepted) sentences read strictly; \(total) more kept with \(unreadableFields) unreadable fields: "
            + kept.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        print("corpus tolerance, first of each kind: " + examples.joined(separator: " | "))
        #expect(accepted > 24_000)
        // The corpus's sentences that one unreadable field used to refuse: Telit HE910's year -1
        // (april6_2019), SiRF TriG's field 18 (beidou-bd), and placeholder positions past 90 or 180
        // degrees while there is no fix (tn200-all's 36000.0000,N; tr737A+'s 8960.0000,N).
        #expect(kept == ["GGA field 2": 1, "GLL field 1+3": 9, "GSA field 18": 10, "RMC field 3": 2, "RMC field 3+5": 9, "RMC field 9": 1])
        #expect(unreadableFields == 50)
    }

}
