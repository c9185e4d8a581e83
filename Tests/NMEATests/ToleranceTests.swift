import NMEA
import Testing

/// One entry of `Sources/NMEA/QUIRKS.md`: a sentence of the shape a real receiver sends, and what
/// the parser must make of it. The id names the catalogue entry.
struct Quirk: Sendable, CustomTestStringConvertible {
    let id: String
    let line: String
    let check: @Sendable (ParsedSentence) -> Void

    var testDescription: String { id }
}

/// The sentence-level entries of the quirk catalogue, one sentence each.
let quirks: [Quirk] = [
    Quirk(id: "Q-RMC-1 SiRF III: NMEA 2.3 mode letter where the variation's E/W belongs",
          line: "$GPRMC,092751.000,A,5321.6802,N,00630.3372,W,0.06,31.66,280511,003.1,A") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.time != nil && s.isValid == true && s.latitude != nil && s.longitude != nil)
        #expect(s.speedKnots?.doubleValue == 0.06 && s.courseTrue?.doubleValue == 31.66 && s.day == 28)
        #expect(s.magneticVariation == nil && parsed.unreadableFields.contains(11))
    },
    Quirk(id: "Q-RMC-2 SiRF: no variation, no mode (NMEA 2.0, nine fields)",
          line: "$GPRMC,225446,A,4916.45,N,12311.12,W,000.5,054.7,191194") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.twoDigitYear == 94 && s.magneticVariation == nil && s.mode == nil && parsed.unreadableFields.isEmpty)
    },
    Quirk(id: "Q-RMC-3 NMEA 4.10: navigational status after the mode",
          line: "$GNRMC,001031.00,A,4404.13993,N,12118.86023,W,0.146,,100117,,,A,V") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.mode == .autonomous && s.navigationalStatus != nil && s.courseTrue == nil)
    },
    Quirk(id: "Q-RMC-4 variation 0.0 with a lower-case letter (gpsd: 'some GPS set 0.0,E, or 0,w')",
          line: "$GPRMC,225446,A,4916.45,N,12311.12,W,000.5,054.7,191194,0,w,A") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.magneticVariation == nil && s.mode == .autonomous && s.latitude != nil)
    },
    Quirk(id: "Q-RMC-5 Quectel: no time, no date, status V",
          line: "$GPRMC,,V,,,,,,,,,,N") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.time == nil && s.isValid == false && s.mode == .notValid && parsed.unreadableFields.isEmpty)
    },
    Quirk(id: "Q-RMC-6 Telit HE910: year -1 in the date",
          line: "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,2208-1,003.1,W") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.day == nil && s.latitude != nil && s.magneticVariation?.doubleValue == -3.1)
        #expect(Array(parsed.unreadableFields) == [9])
    },
    Quirk(id: "Q-RMC-7 Quectel 'U' (unsafe) and 'C' (caution), Skytraq '0' as FAA mode",
          line: "$GNRMC,001031.00,A,4404.13993,N,12118.86023,W,0.146,,100117,,,U") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.mode == nil && s.latitude != nil && s.twoDigitYear == 17 && Array(parsed.unreadableFields) == [12])
    },
    Quirk(id: "Q-RMC-9 TN-200: a placeholder position of 360 degrees while there is no fix",
          line: "$GPRMC,000452.981,V,36000.0000,N,72000.0000,E,0.000000,,190120,,") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.latitude == nil && s.longitude == nil && s.isValid == false && s.day == 19 && Array(parsed.unreadableFields) == [3, 5])
    },
    Quirk(id: "Q-RMC-8 extra trailing fields after the NMEA 4.11 list",
          line: "$GNRMC,001031.00,A,4404.13993,N,12118.86023,W,0.146,,100117,,,A,V,7,X") { parsed in
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(s.mode == .autonomous && s.latitude != nil && parsed.unreadableFields.isEmpty)
    },
    Quirk(id: "Q-GGA-1 myGuide 3100: position and altitude without a quality",
          line: "$GPGGA,193648.000,3746.8900,N,12224.6312,W,,06,1.2,18.7,M,-25.7,M,,0000") { parsed in
        guard case .gga(let s) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(s.quality == nil && s.latitude != nil && s.altitudeMSL?.doubleValue == 18.7)
    },
    Quirk(id: "Q-GGA-2 Jackson Labs: a quality number outside 0...8",
          line: "$GPGGA,123519,4807.038,N,01131.000,E,9,08,0.9,545.4,M,46.9,M,,") { parsed in
        guard case .gga(let s) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(s.quality == nil && s.latitude != nil && Array(parsed.unreadableFields) == [6])
    },
    Quirk(id: "Q-GGA-3 SiRF up to 2.2: empty altitude",
          line: "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,,M,,M,,") { parsed in
        guard case .gga(let s) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(s.altitudeMSL == nil && s.geoidSeparation == nil && s.latitude != nil)
    },
    Quirk(id: "Q-GGA-4 Quectel: everything empty but quality 0",
          line: "$GPGGA,,,,,,0,,,,,,,,") { parsed in
        guard case .gga(let s) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(s.time == nil && s.quality == .invalid && s.latitude == nil)
    },
    Quirk(id: "Q-GGA-5 letters where numbers belong (satellites, HDOP)",
          line: "$GPGGA,123519,4807.038,N,01131.000,E,1,xx,N/A,545.4,M,46.9,M,,") { parsed in
        guard case .gga(let s) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(s.satellitesUsed == nil && s.hdop == nil && s.altitudeMSL?.doubleValue == 545.4)
        #expect(Array(parsed.unreadableFields) == [7, 8])
    },
    Quirk(id: "Q-GGA-6 a number where the hemisphere letter belongs: the position pair is absent",
          line: "$GPGGA,123519,4807.038,0,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") { parsed in
        guard case .gga(let s) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(s.latitude == nil && s.longitude == nil && s.quality == .gps && s.altitudeMSL != nil)
        #expect(Array(parsed.unreadableFields) == [3])
    },
    Quirk(id: "Q-GGA-7 short list: NMEA 1.5 GGA without the differential fields",
          line: "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M") { parsed in
        guard case .gga(let s) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(s.altitudeMSL?.doubleValue == 545.4 && s.geoidSeparation == nil && s.differentialAge == nil)
    },
    Quirk(id: "Q-GLL-1 Garmin 65: no time and no status",
          line: "$GPGLL,4916.45,N,12311.12,W") { parsed in
        guard case .gll(let s) = parsed.sentence else { Issue.record("not GLL"); return }
        #expect(s.latitude != nil && s.time == nil && s.isValid == nil && s.mode == nil)
    },
    Quirk(id: "Q-GLL-2 SiRF: no mode indicator",
          line: "$GPGLL,4916.45,N,12311.12,W,225444,A") { parsed in
        guard case .gll(let s) = parsed.sentence else { Issue.record("not GLL"); return }
        #expect(s.isValid == true && s.mode == nil && s.time != nil)
    },
    Quirk(id: "Q-GLL-3 Magellan eXplorist 110: status and mode letters swapped (N,V) while there is no fix",
          line: "$GPGLL,3728.0549,N,12213.8639,W,014413.076,N,V") { parsed in
        guard case .gll(let s) = parsed.sentence else { Issue.record("not GLL"); return }
        #expect(s.isValid == nil && s.mode == nil && s.time != nil && s.latitude != nil)
        #expect(Array(parsed.unreadableFields) == [6, 7])
    },
    Quirk(id: "Q-GSA-1 u-blox Antaris: E (dead reckoning) as the fix type",
          line: "$GPGSA,A,E,05,09,12,,,,,,,,,,2.5,1.3,2.1") { parsed in
        guard case .gsa(let s) = parsed.sentence else { Issue.record("not GSA"); return }
        #expect(s.fixType == nil && s.satelliteCount == 3 && s.pdop?.doubleValue == 2.5 && Array(parsed.unreadableFields) == [2])
    },
    Quirk(id: "Q-GSA-2 i.Trek M3 (SiRF III?): a short GSA with no satellites",
          line: "$GPGSA,A,1,,,") { parsed in
        guard case .gsa(let s) = parsed.sentence else { Issue.record("not GSA"); return }
        #expect(s.fixType == GSAFixType.none && s.satelliteCount == 0 && s.pdop == nil)
    },
    Quirk(id: "Q-GSA-3 SiRF TriG: a decimal number in field 18, not a system ID",
          line: "$GPGSA,A,3,25,32,12,14,,,,,,,,,2.1,1.1,1.8,1.2") { parsed in
        guard case .gsa(let s) = parsed.sentence else { Issue.record("not GSA"); return }
        #expect(s.pdop?.doubleValue == 2.1 && s.hdop?.doubleValue == 1.1 && s.vdop?.doubleValue == 1.8)
        #expect(s.satelliteCount == 4 && s.systemID == nil && Array(parsed.unreadableFields) == [18])
    },
    Quirk(id: "Q-GSA-4 Quectel EC25: QZSS/BeiDou satellites as $PQGSA with a system ID",
          line: "$PQGSA,A,3,12,,,,,,,,,,,,1.2,0.9,0.9,4") { parsed in
        guard case .gsa(let s) = parsed.sentence else { Issue.record("not GSA"); return }
        #expect(s.constellation == .beidou && s.satelliteCount == 1 && s.pdop?.doubleValue == 1.2)
    },
    Quirk(id: "Q-GSA-5 Navior-24 CH-4701: 24 satellite fields",
          line: "$GPGSA,A,3,27,23,13,07,25,,,,,,,,,,,,,,,,,,,,07.9,06.0,05.2") { parsed in
        guard case .gsa(let s) = parsed.sentence else { Issue.record("not GSA"); return }
        #expect(s.satelliteCount == 5 && s.pdop?.doubleValue == 7.9 && s.vdop?.doubleValue == 5.2)
    },
    Quirk(id: "Q-GSA-6 u-blox 9 / NMEA 4.10: one GSA per constellation with its system ID",
          line: "$GNGSA,A,3,82,66,81,,,,,,,,,,1.05,0.64,0.83,2") { parsed in
        guard case .gsa(let s) = parsed.sentence else { Issue.record("not GSA"); return }
        #expect(s.constellation == .glonass && s.satelliteCount == 3)
    },
    Quirk(id: "Q-GSV-1 out-of-range elevation and SNR are absent; the satellite stays",
          line: "$GPGSV,3,1,12,07,95,333,127,08,12,279,35") { parsed in
        guard case .gsv(let s) = parsed.sentence else { Issue.record("not GSV"); return }
        #expect(s.satelliteCount == 2 && s.satellites[0] == SatelliteView(prn: 7, elevation: nil, azimuth: 333, snr: nil))
        #expect(Array(parsed.unreadableFields) == [5, 7])
    },
    Quirk(id: "Q-GSV-2 Quectel EC25: BeiDou satellites as $PQGSV",
          line: "$PQGSV,1,1,01,201,45,120,40") { parsed in
        guard case .gsv(let s) = parsed.sentence else { Issue.record("not GSV"); return }
        #expect(s.satelliteCount == 1 && s.satellites[0].prn == 201)
    },
    Quirk(id: "Q-VTG-1 NMEA 1.5: four fields without unit letters",
          line: "$GPVTG,054.7,034.4,005.5,010.2") { parsed in
        guard case .vtg(let s) = parsed.sentence else { Issue.record("not VTG"); return }
        #expect(s.courseTrue?.doubleValue == 54.7 && s.speedKnots?.doubleValue == 5.5 && s.speedKilometresPerHour?.doubleValue == 10.2)
    },
    Quirk(id: "Q-VTG-2 a letter where the course belongs; speed kept",
          line: "$GPVTG,x,T,,M,005.5,N,010.2,K,A") { parsed in
        guard case .vtg(let s) = parsed.sentence else { Issue.record("not VTG"); return }
        #expect(s.courseTrue == nil && s.speedKnots?.doubleValue == 5.5 && s.mode == .autonomous && Array(parsed.unreadableFields) == [1])
    },
    Quirk(id: "Q-ZDA-1 u-blox Antaris 4h: ZDA with blank fields before lock",
          line: "$GPZDA,,,,,,") { parsed in
        guard case .zda(let s) = parsed.sentence else { Issue.record("not ZDA"); return }
        #expect(s.time == nil && s.date == nil && parsed.unreadableFields.isEmpty)
    },
    Quirk(id: "Q-ZDA-2 a year that is not four digits: the date is absent, the time kept",
          line: "$GPZDA,201530.00,04,07,20021,-01,00") { parsed in
        guard case .zda(let s) = parsed.sentence else { Issue.record("not ZDA"); return }
        #expect(s.time != nil && s.date == nil && s.localZoneHours == -1 && Array(parsed.unreadableFields) == [4])
    },
    Quirk(id: "Q-GNS-1 an unknown mode letter for one constellation",
          line: "$GNGNS,014035.00,4332.69262,S,17235.48549,E,RXN,16,0.9,1.4,-14.8,,") { parsed in
        guard case .gns(let s) = parsed.sentence else { Issue.record("not GNS"); return }
        #expect(s.modeCount == 3 && s.modes[0] == .rtk && s.modes[1] == nil && s.modes[2] == .notValid)
        #expect(s.isValid && s.altitudeMSL?.doubleValue == 1.4 && Array(parsed.unreadableFields) == [6])
    },
    Quirk(id: "Q-PGRMZ-1 Garmin altitude with an unknown unit: metres absent, the value kept",
          line: "$PGRMZ,246,x,3") { parsed in
        guard case .pgrmz(let s) = parsed.sentence else { Issue.record("not PGRMZ"); return }
        #expect(s.altitude?.doubleValue == 246 && s.altitudeMetres == nil && s.dimension == 3 && Array(parsed.unreadableFields) == [2])
    },
]

@Suite("Field tolerance and the quirk catalogue")
struct ToleranceTests {
    @Test("each catalogue entry's sentence is kept with every readable field", arguments: quirks)
    func quirk(_ quirk: Quirk) throws {
        quirk.check(try parse(withChecksum(quirk.line)))
    }

    @Test("a sentence is refused when a field it needs is unreadable", arguments: [
        ("$GPRMC,126519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W", NMEAError.badField(sentence: .rmc, field: 1, problem: .badTime)),
        ("$GPRMC,123519,X,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W", .badField(sentence: .rmc, field: 2, problem: .unexpectedValue(0x58))),
        ("$GPGGA,123519,4807.038,N,01131.000,E,Q,08,0.9,545.4,M,46.9,M,,", .badField(sentence: .gga, field: 6, problem: .notANumber(offset: 0))),
        ("$GPGLL,4916.45,N,12311.12,W,226544,A,A", .badField(sentence: .gll, field: 5, problem: .badTime)),
        ("$GPZDA,2015,04,07,2002,,", .badField(sentence: .zda, field: 1, problem: .badTime)),
        ("$GPGSV,x,1,12,07,10,333,39", .badField(sentence: .gsv, field: 1, problem: .notANumber(offset: 0))),
    ])
    func requiredFields(_ line: String, _ error: NMEAError) {
        #expect(throws: error) { try parse(withChecksum(line)) }
    }

    @Test("Garmin GPS-10: two sentences merged into one longer than gpsd's NMEA_MAX are refused, not mined for fields")
    func mergedSentences() throws {
        let merged = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,A,GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
        #expect(throws: NMEAError.tooLong(length: merged.utf8.count + 3)) { try parse(withChecksum(merged)) }
        #expect(NMEAError.tooLong(length: 140).reason == .tooLong)
        // Proprietary sentences are not limited (Skytraq $PSTI can pass 105 characters).
        let proprietary = "$PSTI,030," + String(repeating: "1,", count: 70) + "1"
        guard case .proprietary = try parse(withChecksum(proprietary)).sentence else { Issue.record("not proprietary"); return }
    }

    @Test("the strict reading's field errors become absent fields, and every other field stays")
    func strictErrorsBecomeAbsent() throws {
        guard case .gga(let gga) = try parse(withChecksum("$GPGGA,123519,9107.038,N,01131.000,E,1,08,0.9,1234567890123456789.5,M,46.9,M,,")).sentence
        else { Issue.record("not GGA"); return }
        #expect(gga.latitude == nil && gga.longitude == nil && gga.altitudeMSL == nil)
        #expect(gga.time != nil && gga.quality == .gps && gga.satellitesUsed == 8 && gga.hdop?.doubleValue == 0.9 && gga.geoidSeparation?.doubleValue == 46.9)
        let parsed = try parse(withChecksum("$GPGGA,123519,48x7.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
        #expect(Array(parsed.unreadableFields) == [2])
    }

    @Test("the stream counts unreadable fields per sentence type and field, and accepts the sentences")
    func streamStatistics() {
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil))
        let lines = [
            "$GPRMC,092751.000,A,5321.6802,N,00630.3372,W,0.06,31.66,280511,003.1,A",
            "$GPGGA,092751.000,5321.6802,N,00630.3372,W,1,08,N/A,x,M,50.0,M,,",
            "$GPRMC,092752.000,A,5321.6802,N,00630.3372,W,0.06,31.66,280511,003.1,A",
        ]
        var fixes: [Fix] = []
        for line in lines {
            let bytes = Array((withChecksum(line) + "\r\n").utf8)
            stream.feed(bytes.span) { fixes.append($0) }
        }
        stream.finish { fixes.append($0) }
        let counters = stream.counters
        #expect(counters.accepted(.rmc) == 2 && counters.accepted(.gga) == 1 && counters.totalRejected == 0)
        #expect(counters.unreadable(.rmc, field: 11) == 2)
        #expect(counters.unreadable(.gga, field: 8) == 1 && counters.unreadable(.gga, field: 9) == 1)
        #expect(counters.totalUnreadableFields == 4)
        #expect(fixes.count == 2 && fixes.allSatisfy { $0.hasPosition && $0.time != nil })
    }
}

/// The tolerant parser against the strict reading, on generated sentences whose fields take every
/// shape: plain values, numbers out of range, letters, signs, empty fields, short and long lists.
@Suite("Field tolerance: property against the strict reading")
struct TolerancePropertyTests {
    /// Seeded, so any failure repeats.
    struct Generator {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        mutating func pick(_ shapes: [String]) -> String { shapes[next(shapes.count)] }
    }

    static let times = ["123519", "123519.25", "", "126519", "246060", "12351", "1235x9"]
    static let latitudes = ["4807.038", "9107.038", "4875.5", "", "x", "-4807.0", "9000.000", "0000.0001"]
    static let longitudes = ["01131.000", "18100.0", "01160.0", "", "E", "17959.9999"]
    static let latitudeLetters = ["N", "S", "", "X", "0", "n"]
    static let longitudeLetters = ["E", "W", "", "Q", "1"]
    static let decimals = ["", "0.9", "545.4", "-12.5", "x", "1.2.3", "99.99", "1234567890123456789.5"]
    static let integers = ["", "0", "08", "12", "1000", "x", "-1", "9"]
    static let dates = ["230394", "", "2208-1", "320394", "231394", "23039", "001294"]
    static let letters = ["", "A", "D", "N", "U", "x", "AA", "W", "E"]

    /// `line`'s fields (after the address) with the fields in `blank` emptied.
    static func blanking(_ line: String, _ blank: Set<Int>) -> String {
        var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for number in blank where number < fields.count { fields[number] = "" }
        return fields.joined(separator: ",")
    }

    /// The fields to blank for the strict reading to see what the tolerant one kept: each unreadable
    /// field, and all of a pair (or of the position) that the tolerant reading dropped as a whole.
    static func blanked(_ unreadable: UnreadableFields, groups: [ClosedRange<Int>]) -> Set<Int> {
        var blank = Set(unreadable)
        for group in groups where group.contains(where: { unreadable.contains($0) }) { blank.formUnion(group) }
        return blank
    }

    func check(_ line: String, groups: [ClosedRange<Int>], requiredFields: Set<Int>, same: (Sentence, Sentence) -> Bool) {
        let text = withChecksum(line)
        let strict = NMEAParserOptions(toleratesUnreadableFields: false)
        do {
            let tolerant = try parse(text)
            // What the tolerant reading kept is exactly what the strict reading accepts once the
            // unreadable fields are empty: no field the strict reading refuses is ever reported.
            let cleaned = withChecksum(Self.blanking(line, Self.blanked(tolerant.unreadableFields, groups: groups)))
            do {
                let reference = try parse(cleaned, options: strict)
                #expect(same(tolerant.sentence, reference.sentence), "\(line) -> \(cleaned)")
            } catch {
                Issue.record("strict refuses the tolerant reading's fields: \(line) -> \(cleaned): \(error)")
            }
            if tolerant.unreadableFields.isEmpty {
                #expect(throws: Never.self, "\(line)") { try parse(text, options: strict) }
            }
        } catch {
            // Refused: only for a required field, which the strict reading refuses too.
            #expect(throws: NMEAError.self, "\(line)") { try parse(text, options: strict) }
            guard case .badField(_, let field, _) = error, requiredFields.contains(field) else {
                Issue.record("refused for a field that is not required: \(line): \(error)")
                return
            }
        }
    }

    @Test("RMC: the tolerant reading equals the strict reading of the sentence with its unreadable fields emptied")
    func rmc() {
        var g = Generator()
        for _ in 0..<4000 {
            var fields = [g.pick(Self.times), g.pick(["A", "V", "", "X"]), g.pick(Self.latitudes), g.pick(Self.latitudeLetters),
                          g.pick(Self.longitudes), g.pick(Self.longitudeLetters), g.pick(Self.decimals), g.pick(Self.decimals),
                          g.pick(Self.dates), g.pick(Self.decimals), g.pick(Self.letters), g.pick(Self.letters), g.pick(Self.letters)]
            fields = Array(fields.prefix(7 + g.next(7)))
            check("$GPRMC," + fields.joined(separator: ","), groups: [3...6, 10...11], requiredFields: [1, 2]) { a, b in
                guard case .rmc(let x) = a, case .rmc(let y) = b else { return false }
                return x == y
            }
        }
    }

    @Test("GGA: the tolerant reading equals the strict reading of the sentence with its unreadable fields emptied")
    func gga() {
        var g = Generator()
        for _ in 0..<4000 {
            var fields = [g.pick(Self.times), g.pick(Self.latitudes), g.pick(Self.latitudeLetters), g.pick(Self.longitudes),
                          g.pick(Self.longitudeLetters), g.pick(Self.integers), g.pick(Self.integers), g.pick(Self.decimals),
                          g.pick(Self.decimals), "M", g.pick(Self.decimals), "M", g.pick(Self.decimals), g.pick(Self.integers)]
            fields = Array(fields.prefix(6 + g.next(9)))
            check("$GPGGA," + fields.joined(separator: ","), groups: [2...5], requiredFields: [1, 6]) { a, b in
                guard case .gga(let x) = a, case .gga(let y) = b else { return false }
                return x == y
            }
        }
    }

    @Test("GLL, VTG and ZDA: the tolerant reading equals the strict reading with the unreadable fields emptied")
    func gllVtgZda() {
        var g = Generator()
        for _ in 0..<3000 {
            let gll = [g.pick(Self.latitudes), g.pick(Self.latitudeLetters), g.pick(Self.longitudes), g.pick(Self.longitudeLetters),
                       g.pick(Self.times), g.pick(["A", "V", "", "X"]), g.pick(Self.letters)]
            check("$GPGLL," + gll.prefix(4 + g.next(4)).joined(separator: ","), groups: [1...4], requiredFields: [5]) { a, b in
                guard case .gll(let x) = a, case .gll(let y) = b else { return false }
                return x == y
            }
            let vtg = [g.pick(Self.decimals), "T", g.pick(Self.decimals), "M", g.pick(Self.decimals), "N", g.pick(Self.decimals), "K", g.pick(Self.letters)]
            check("$GPVTG," + vtg.prefix(5 + g.next(5)).joined(separator: ","), groups: [], requiredFields: []) { a, b in
                guard case .vtg(let x) = a, case .vtg(let y) = b else { return false }
                return x == y
            }
            let zda = [g.pick(Self.times), g.pick(["04", "", "32", "x", "31"]), g.pick(["07", "", "13", "02", "y"]),
                       g.pick(["2002", "", "20021", "1899", "2024"]), g.pick(["-01", "", "14", "x"]), g.pick(["00", "", "60", "30"])]
            check("$GPZDA," + zda.prefix(1 + g.next(6)).joined(separator: ","), groups: [], requiredFields: [1]) { a, b in
                guard case .zda(let x) = a, case .zda(let y) = b else { return false }
                return x == y
            }
        }
    }
}
