import NMEA
import Testing

@Suite("Parser")
struct ParserTests {
    @Test("RMC with NMEA 4.10 navigational status")
    func rmc() throws {
        let parsed = try parse("$GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,13.5,E,D,V*6A".replacingChecksum())
        guard case .rmc(let s) = parsed.sentence else { Issue.record("not RMC"); return }
        #expect(parsed.talker == .combined)
        #expect(s.time == TimeOfDay(hour: 22, minute: 37, second: 45))
        #expect(s.isValid == true)
        #expect(s.latitude?.degreesMinutes == FixedDecimal(significand: 380662964, scale: 5))
        #expect(abs((s.latitude?.degrees ?? 0) - 38.110494) < 1e-6)
        #expect(abs((s.longitude?.degrees ?? 0) + 122.626897) < 1e-6)
        #expect(s.speedKnots == FixedDecimal(significand: 40, scale: 3))
        #expect(s.courseTrue == nil)
        #expect(s.day == 11 && s.month == 7 && s.twoDigitYear == 20)
        #expect(s.magneticVariation == FixedDecimal(significand: 135, scale: 1))
        #expect(s.mode == .differential)
        #expect(s.navigationalStatus == .notValid)
    }

    @Test("GGA keeps the receiver's digits and reads quality, satellites, altitude and geoid separation")
    func gga() throws {
        let parsed = try parse("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47")
        guard case .gga(let s) = parsed.sentence else { Issue.record("not GGA"); return }
        #expect(s.quality == .gps)
        #expect(s.satellitesUsed == 8)
        #expect(s.hdop?.description == "0.9")
        #expect(s.altitudeMSL?.description == "545.4")
        #expect(s.geoidSeparation?.doubleValue == 46.9)
        #expect(s.differentialAge == nil && s.differentialStation == nil)
    }

    @Test("GSA with NMEA 4.10 system ID")
    func gsa() throws {
        let parsed = try parse(withChecksum("$GNGSA,A,3,03,09,08,21,27,16,26,02,,,,,1.23,0.71,1.00,1"))
        guard case .gsa(let s) = parsed.sentence else { Issue.record("not GSA"); return }
        #expect(s.fixType == .threeD)
        #expect(s.satelliteCount == 8)
        #expect(s.satellites[0] == 3 && s.satellites[7] == 2)
        #expect(s.pdop?.doubleValue == 1.23 && s.hdop?.doubleValue == 0.71 && s.vdop?.doubleValue == 1.0)
        #expect(s.constellation == .gps)
    }

    @Test("GSV satellites of every field shape agree with a reference reading: values, ranges, skipped groups, strict errors and tolerant absences")
    func gsvShapes() throws {
        // Field shapes: empty, 1-4 digits, a sign, a letter, a point. Seeded, so any failure repeats.
        let shapes = ["", "0", "7", "07", "45", "123", "359", "0999", "1000", "-5", "+3", "x", "4.5", "99"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var fastShaped = 0
        for round in 0..<3000 {
            let groups = 1 + next(4)
            var fields: [[String]] = []
            for _ in 0..<groups { fields.append((0..<4).map { _ in shapes[next(shapes.count)] }) }
            // Every other sentence has only plain shapes, as receivers send them.
            if round % 2 == 0 {
                func plain(_ field: String) -> String {
                    if field.isEmpty { return "" }
                    guard let value = Int(field), value >= 0, field.count <= 3, !field.hasPrefix("+") else { return "34" }
                    return field
                }
                fields = fields.map { $0.map(plain) }
            }
            let signal = next(3) == 0 ? ",1" : ""
            let text = withChecksum("$GPGSV,3,1,12," + fields.map { $0.joined(separator: ",") }.joined(separator: ",") + signal)
            // The reference: each field read with Int() and checked against its range (number 0...999,
            // elevation -90...90, azimuth 0...360, SNR 0...99), as the NMEA field rules say. The strict
            // reading refuses a sentence with any unreadable field; the tolerant one makes that field
            // absent (a satellite without a readable number is left out).
            let ranges = [0...999, -90...90, 0...360, 0...99]
            var strictExpected: [SatelliteView] = []
            var tolerantExpected: [SatelliteView] = []
            var expectError = false
            for group in fields {
                var values: [Int?] = []
                for (index, field) in group.enumerated() {
                    let value = field.contains(".") ? nil : Int(field.hasPrefix("+") ? String(field.dropFirst()) : field)
                    let readable = value.map { ranges[index].contains($0) } ?? false
                    if !field.isEmpty && !readable { expectError = true }
                    values.append(readable ? value : nil)
                }
                guard let prn = values[0], prn > 0 else { continue }
                let view = SatelliteView(prn: UInt16(prn), elevation: values[1].map { Int16($0) },
                                         azimuth: values[2].map { UInt16($0) }, snr: values[3].map { UInt8($0) })
                if tolerantExpected.count < 4 { tolerantExpected.append(view) }
            }
            if !expectError { strictExpected = tolerantExpected }
            if fields.allSatisfy({ $0.allSatisfy { $0.count <= 3 && $0.allSatisfy(\.isNumber) } }) { fastShaped += 1 }
            do {
                let parsed = try parse(text, options: NMEAParserOptions(toleratesUnreadableFields: false))
                guard case .gsv(let gsv) = parsed.sentence else { Issue.record("not GSV: \(text)"); continue }
                #expect(!expectError, "accepted: \(text)")
                let got = (0..<gsv.satelliteCount).map { gsv.satellites[$0] }
                #expect(got == strictExpected, "\(text)")
                #expect(gsv.signalID == (signal.isEmpty ? nil : 1), "\(text)")
            } catch {
                #expect(expectError, "refused: \(text): \(error)")
            }
            let tolerant = try parse(text)
            guard case .gsv(let gsv) = tolerant.sentence else { Issue.record("not GSV: \(text)"); continue }
            #expect((0..<gsv.satelliteCount).map { gsv.satellites[$0] } == tolerantExpected, "\(text)")
            #expect(tolerant.unreadableFields.isEmpty == !expectError, "\(text)")
        }
        #expect(fastShaped > 1000)
    }

    @Test("GSV with a NMEA 4.11 letter signal ID and an untracked satellite")
    func gsv() throws {
        let parsed = try parse(withChecksum("$GBGSV,2,1,07,06,12,052,,16,46,309,33,26,24,219,38,29,63,060,45,B"))
        guard case .gsv(let s) = parsed.sentence else { Issue.record("not GSV"); return }
        #expect(s.totalMessages == 2 && s.messageNumber == 1 && s.satellitesInView == 7)
        #expect(s.satelliteCount == 4)
        #expect(s.satellites[0] == SatelliteView(prn: 6, elevation: 12, azimuth: 52, snr: nil))
        #expect(s.satellites[3].snr == 45)
        #expect(s.signalID == 11)
        #expect(parsed.talker?.constellation == .beidou)
    }

    @Test("VTG, both the NMEA 2.x and the pre-2.0 layout")
    func vtg() throws {
        guard case .vtg(let new) = try parse("$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K*48").sentence else {
            Issue.record("not VTG"); return
        }
        #expect(new.courseTrue?.doubleValue == 54.7 && new.speedKnots?.doubleValue == 5.5)
        guard case .vtg(let old) = try parse(withChecksum("$GPVTG,054.7,034.4,005.5,010.2")).sentence else {
            Issue.record("not VTG"); return
        }
        #expect(old.courseMagnetic?.doubleValue == 34.4 && old.speedKilometresPerHour?.doubleValue == 10.2)
    }

    @Test("GLL, ZDA, GNS, GST, GBS, HDT, HDG, THS, TXT, DTM")
    func others() throws {
        guard case .gll(let gll) = try parse(withChecksum("$GPGLL,4916.45,N,12311.12,W,225444,A,A")).sentence,
              case .zda(let zda) = try parse(withChecksum("$GPZDA,201530.00,04,07,2002,00,00")).sentence,
              case .gns(let gns) = try parse(withChecksum("$GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,,S")).sentence,
              case .gst(let gst) = try parse(withChecksum("$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031")).sentence,
              case .gbs(let gbs) = try parse(withChecksum("$GPGBS,015509.00,-0.031,-0.186,0.219,19,0.000,-0.354,6.972")).sentence,
              case .hdt(let hdt) = try parse(withChecksum("$HEHDT,274.07,T")).sentence,
              case .hdg(let hdg) = try parse(withChecksum("$HCHDG,101.1,,,7.1,W")).sentence,
              case .ths(let ths) = try parse(withChecksum("$GPTHS,77.52,E")).sentence,
              case .txt(let txt) = try parse(withChecksum("$GPTXT,01,01,02,ANTSTATUS=OK")).sentence,
              case .dtm(let dtm) = try parse(withChecksum("$GPDTM,W84,,0.0,N,0.0,E,0.0,W84")).sentence
        else { Issue.record("a sentence parsed as the wrong type"); return }
        #expect(gll.isValid == true && gll.mode == .autonomous && gll.time == TimeOfDay(hour: 22, minute: 54, second: 44))
        #expect(zda.date == CalendarDate(year: 2002, month: 7, day: 4) && zda.localZoneHours == 0)
        #expect(gns.modeCount == 2 && gns.bestMode == .rtk && gns.satellitesUsed == 13 && gns.navigationalStatus == .safe)
        #expect(gns.latitude?.isNegative == true)
        #expect(gst.latitudeSigma?.doubleValue == 0.023 && gst.altitudeSigma?.doubleValue == 0.031)
        #expect(gbs.longitudeError?.doubleValue == -0.186 && gbs.failedSatellite == 19)
        #expect(hdt.headingTrue?.doubleValue == 274.07)
        #expect(hdg.variation?.doubleValue == -7.1 && hdg.deviation == nil)
        #expect(ths.headingTrue?.doubleValue == 77.52 && ths.isValid)
        #expect(txt.text.description == "ANTSTATUS=OK" && txt.textIdentifier == 2)
        #expect(dtm.localDatum.description == "W84" && dtm.referenceDatum.description == "W84")
    }

    @Test("talkers GP GL GA GB BD GQ QZ GI GN map to their constellations")
    func talkers() throws {
        let expected: [(String, Constellation?)] = [
            ("GP", .gps), ("GL", .glonass), ("GA", .galileo), ("GB", .beidou), ("BD", .beidou),
            ("GQ", .qzss), ("QZ", .qzss), ("GI", .navic), ("GN", nil),
        ]
        for (talker, constellation) in expected {
            let parsed = try parse(withChecksum("$\(talker)GSV,1,1,00"))
            #expect(parsed.talker?.description == talker)
            #expect(parsed.talker?.constellation == constellation, "\(talker)")
        }
    }

    @Test("AIS and proprietary sentences are kept undecoded, with address and raw fields")
    func undecoded() throws {
        let ais = "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26"
        let parsed = try parse(ais)
        guard case .encapsulated(let raw) = parsed.sentence else { Issue.record("not encapsulated"); return }
        #expect(raw.address.description == "AIVDM" && raw.fieldCount == 6)
        #expect(raw.fields(in: Array(ais.utf8).span)[4] == "13aEOK?P00PD2wVMdLDRhgvL289?")

        let pgrme = withChecksum("$PGRME,15.0,M,45.0,M,25.0,M")
        guard case .proprietary(let p) = try parse(pgrme).sentence else { Issue.record("not proprietary"); return }
        #expect(p.address.description == "PGRME" && p.fieldCount == 6)
        #expect(p.address.talker == nil)

        let long = withChecksum("$PTNTHTM,285.6,N,-0.1,N,10.2,N,12.4,N")
        guard case .proprietary(let q) = try parse(long).sentence else { Issue.record("not proprietary"); return }
        #expect(q.address.description == "PTNTHTM")

        guard case .other(let mwv) = try parse(withChecksum("$WIMWV,214.8,R,0.1,K,A")).sentence else {
            Issue.record("not other"); return
        }
        #expect(mwv.address.description == "WIMWV")
    }

    @Test("a checksum mismatch carries the calculated and found values")
    func checksumMismatch() {
        #expect(throws: NMEAError.checksumMismatch(calculated: 0x47, found: 0x48)) {
            try parse("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*48")
        }
    }

    @Test("a missing checksum is an error by default and accepted when asked")
    func missingChecksum() throws {
        let text = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
        #expect(throws: NMEAError.missingChecksum) { try parse(text) }
        let parsed = try parse(text, options: NMEAParserOptions(requireChecksum: false))
        #expect(parsed.sentence.type == .gga)
        #expect(throws: NMEAError.malformedChecksum) { try parse(text + "*4") }
        #expect(throws: NMEAError.malformedChecksum) { try parse(text + "*ZZ") }
    }

    @Test("field errors name the sentence, the field and the problem (the strict reading)")
    func fieldErrors() {
        let strict = NMEAParserOptions(toleratesUnreadableFields: false)
        #expect(throws: NMEAError.badField(sentence: .gga, field: 2, problem: .notANumber(offset: 2))) {
            try parse(withChecksum("$GPGGA,123519,48x7.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), options: strict)
        }
        #expect(throws: NMEAError.badField(sentence: .rmc, field: 1, problem: .badTime)) {
            try parse(withChecksum("$GPRMC,126519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"), options: strict)
        }
        #expect(throws: NMEAError.badField(sentence: .rmc, field: 9, problem: .badDate)) {
            try parse(withChecksum("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,2208-1,003.1,W"), options: strict)
        }
        #expect(throws: NMEAError.badField(sentence: .gga, field: 3, problem: .unexpectedValue(0x58))) {
            try parse(withChecksum("$GPGGA,123519,4807.038,X,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), options: strict)
        }
        #expect(throws: NMEAError.badField(sentence: .gga, field: 2, problem: .outOfRange)) {
            try parse(withChecksum("$GPGGA,123519,9107.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), options: strict)
        }
        #expect(throws: NMEAError.badField(sentence: .gga, field: 9, problem: .tooManyDigits)) {
            try parse(withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,1234567890123456789.5,M,46.9,M,,"), options: strict)
        }
        #expect(throws: NMEAError.malformedAddress) { try parse(withChecksum("$gprmc,1")) }
        #expect(throws: NMEAError.missingStartDelimiter) { try parse("GPRMC,1*00") }
    }

    @Test("sentences with more fields than the parser indexes are still read to the end")
    func manyFields() throws {
        let prns = (1...30).map { String(format2($0)) }.joined(separator: ",")
        let text = withChecksum("$GPGSA,A,3," + prns + ",1.5,0.9,1.2")
        guard case .gsa(let s) = try parse(text).sentence else { Issue.record("not GSA"); return }
        #expect(s.satelliteCount == 16)
        #expect(s.pdop?.doubleValue == 1.5 && s.hdop?.doubleValue == 0.9 && s.vdop?.doubleValue == 1.2)
        #expect(s.systemID == nil)
    }

    @Test("a minus sign right after a comma is read as a sign, not as a field separator")
    func negativeAfterComma() throws {
        guard case .gga(let s) = try parse(withChecksum("$GPGGA,142216,3348.452,N,11821.143,W,1,05,1.8,-38.4,M,-32.4,M,,")).sentence
        else { Issue.record("not GGA"); return }
        #expect(s.altitudeMSL?.doubleValue == -38.4 && s.geoidSeparation?.doubleValue == -32.4)
    }

    @Test("the one-pass field readers and the general path agree on unusual shapes")
    func unusualShapes() throws {
        let strict = NMEAParserOptions(toleratesUnreadableFields: false)
        // Two-digit fields next to signs, three digits and a bad character (GSV field 8 is `x5`).
        guard case .gsv(let gsv) = try parse(withChecksum("$GPGSV,3,1,12,01,-5,040,,02,+17,307,31")).sentence else {
            Issue.record("not GSV"); return
        }
        #expect(gsv.satellites[0] == SatelliteView(prn: 1, elevation: -5, azimuth: 40, snr: nil))
        #expect(gsv.satellites[1] == SatelliteView(prn: 2, elevation: 17, azimuth: 307, snr: 31))
        #expect(throws: NMEAError.badField(sentence: .gsv, field: 8, problem: .notANumber(offset: 0))) {
            try parse(withChecksum("$GPGSV,3,1,12,01,05,040,,x5,17,307,31"), options: strict)
        }
        // Coordinates with more than seven fraction digits, and one among the last bytes.
        guard case .gll(let gll) = try parse(withChecksum("$GPGLL,4916.451234567891,N,12311.12,W,225444,A,A")).sentence else {
            Issue.record("not GLL"); return
        }
        #expect(gll.latitude?.degreesMinutes == FixedDecimal(significand: 4916451234567891, scale: 12))
        #expect(gll.longitude?.degreesMinutes == FixedDecimal(significand: 1231112, scale: 2))
        guard case .gga(let gga) = try parse(withChecksum("$GPGGA,123519,4807.038,N,1.5,E")).sentence else {
            Issue.record("not GGA"); return
        }
        #expect(gga.longitude?.degreesMinutes == FixedDecimal(significand: 15, scale: 1) && gga.quality == nil)
        #expect(throws: NMEAError.badField(sentence: .gga, field: 4, problem: .outOfRange)) {
            try parse(withChecksum("$GPGGA,123519,4807.038,N,123456789.5,E,1,08"), options: strict)
        }
        #expect(throws: NMEAError.badField(sentence: .gga, field: 2, problem: .notANumber(offset: 0))) {
            try parse(withChecksum("$GPGGA,123519,.,N,01131.000,E,1,08"), options: strict)
        }
        // Fractions of a second beyond nanoseconds are checked, not kept.
        guard case .gga(let fine) = try parse(withChecksum("$GPGGA,123519.1234567891,,,,,1")).sentence else {
            Issue.record("not GGA"); return
        }
        #expect(fine.time == TimeOfDay(hour: 12, minute: 35, second: 19, nanosecond: 123_456_789))
        // Addresses of eight characters and more, and sentences too short to hold eight.
        guard case .proprietary(let long) = try parse(withChecksum("$PABCDEFGHIJKLMN,1,2")).sentence else {
            Issue.record("not proprietary"); return
        }
        #expect(long.address.description == "PABCDEFGHIJKLMN" && long.fieldCount == 2)
        #expect(throws: NMEAError.malformedAddress) { try parse(withChecksum("$PABCDEFGHIJKLMNO,1")) }
        guard case .gga(let bare) = try parse(withChecksum("$GPGGA")).sentence else { Issue.record("not GGA"); return }
        #expect(bare.time == nil && bare.quality == nil)
        guard case .other(let short) = try parse(withChecksum("$GPX")).sentence else { Issue.record("not other"); return }
        #expect(short.address.description == "GPX" && short.fieldCount == 0)
        #expect(throws: NMEAError.malformedAddress) { try parse(withChecksum("$,1")) }
        // The last field read to the end of a sentence without a checksum.
        let unchecked = NMEAParserOptions(requireChecksum: false)
        guard case .vtg(let vtg) = try parse("$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A", options: unchecked).sentence else {
            Issue.record("not VTG"); return
        }
        #expect(vtg.mode == .autonomous && vtg.speedKilometresPerHour == FixedDecimal(significand: 102, scale: 1))
        #expect(throws: NMEAError.badField(sentence: .zda, field: 4, problem: .outOfRange)) {
            try parse("$GPZDA,201530.00,04,07,20021", options: NMEAParserOptions(requireChecksum: false, toleratesUnreadableFields: false))
        }
    }

    @Test("empty fields are nil, never zero")
    func emptyFields() throws {
        guard case .gga(let s) = try parse("$GPGGA,,,,,,0,,,,,,,,*66").sentence else { Issue.record("not GGA"); return }
        #expect(s.time == nil && s.latitude == nil && s.altitudeMSL == nil && s.hdop == nil && s.satellitesUsed == nil)
        #expect(s.quality == .invalid)
    }

    @Test("FixedDecimal prints the receiver's digits back")
    func decimals() {
        #expect(FixedDecimal(significand: -123456, scale: 3).description == "-123.456")
        #expect(FixedDecimal(significand: 5, scale: 3).description == "0.005")
        #expect(FixedDecimal(significand: 42, scale: 0).description == "42")
        #expect(FixedDecimal(significand: 12345, scale: 2).integerPart == 123)
    }

    @Test("dates and times convert to UTC exactly")
    func times() throws {
        let date = try #require(CalendarDate(year: 2020, month: 7, day: 11))
        let time = try #require(TimeOfDay(hour: 22, minute: 37, second: 45, nanosecond: 500_000_000))
        #expect(UTCTime(date: date, time: time).description == "2020-07-11T22:37:45.500Z")
        #expect(CalendarDate(year: 2021, month: 2, day: 29) == nil)
        #expect(CalendarDate(daysSinceEpoch: date.daysSinceEpoch) == date)
        #expect(try #require(CalendarDate(year: 1999, month: 12, day: 31)).adding(days: 1) == CalendarDate(year: 2000, month: 1, day: 1))
    }
}

extension String {
    /// Recomputes the checksum of a sentence that carries one (for examples typed by hand).
    func replacingChecksum() -> String {
        guard let star = lastIndex(of: "*") else { return self }
        return withChecksum(String(self[..<star]))
    }
}

private func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
