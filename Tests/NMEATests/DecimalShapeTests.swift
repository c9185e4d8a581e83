import NMEA
import Testing

/// The parser's one-pass decimal reader (and its path for a leading minus sign) against a reference
/// reading of each field shape, in a field where any shape can stand: GGA's geoid separation.
@Suite("Decimal field shapes")
struct DecimalShapeTests {
    /// The reference: an optional sign, digits with at most one point, at least one digit and at most
    /// 18; the value exactly as written. `nil` when the field is not a number.
    static func reference(_ field: String) -> FixedDecimal? {
        var text = Substring(field)
        var negative = false
        if let sign = text.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            text = text.dropFirst()
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        let digits = parts.joined()
        guard !digits.isEmpty, digits.count <= 18, let magnitude = Int64(digits) else { return nil }
        let scale = parts.count == 2 ? UInt8(parts[1].count) : 0
        return FixedDecimal(significand: negative ? -magnitude : magnitude, scale: scale)
    }

    @Test("every shape: value, absence and refusal agree with the reference, tolerant and strict")
    func shapes() throws {
        let shapes = ["", "0", "46.9", "-34.0", "-0", "-0.0", "-.5", "-5.", "-", "--5", "-5-3", "+3.25", "-+3", ".",
                      "-.", "12.", ".75", "-1234567890.12345678", "-1234567890.123456789", "123456789012345678",
                      "1234567890123456789", "4.5.6", "-4.5.6", "-x", "7x", "-7x", "x", "-00012.500", "1e3"]
        for shape in shapes {
            let text = withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,\(shape),M,,")
            let expected = Self.reference(shape)
            let readable = shape.isEmpty || expected != nil
            let tolerant = try parse(text)
            guard case .gga(let gga) = tolerant.sentence else { Issue.record("not GGA: \(text)"); continue }
            #expect(gga.geoidSeparation == expected, "\(shape)")
            #expect(tolerant.unreadableFields.contains(11) == !readable, "\(shape)")
            // The rest of the sentence is read as before whatever the shape.
            #expect(gga.altitudeMSL == FixedDecimal(significand: 5454, scale: 1), "\(shape)")
            do {
                let strict = try parse(text, options: NMEAParserOptions(toleratesUnreadableFields: false))
                #expect(readable, "accepted: \(shape)")
                guard case .gga(let strictGGA) = strict.sentence else { Issue.record("not GGA: \(text)"); continue }
                #expect(strictGGA.geoidSeparation == expected, "\(shape)")
            } catch {
                #expect(!readable, "refused: \(shape): \(error)")
                guard case .badField(let sentence, let field, _) = error else {
                    Issue.record("\(shape): \(error)"); continue
                }
                #expect(sentence == .gga && field == 11, "\(shape): \(error)")
            }
        }
    }

    @Test("a negative decimal before a comma keeps the receiver's digits; the error names the same offset as before")
    func negative() throws {
        let parsed = try parse(withChecksum("$HCHDG,-98.3,0.0,E,-12.5,W"))
        guard case .hdg(let hdg) = parsed.sentence else { Issue.record("not HDG"); return }
        #expect(hdg.sensorHeading == FixedDecimal(significand: -983, scale: 1))
        #expect(hdg.variation == FixedDecimal(significand: 125, scale: 1))
        #expect(throws: NMEAError.badField(sentence: .gga, field: 11, problem: .notANumber(offset: 1))) {
            try parse(withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,--5,M,,"),
                      options: NMEAParserOptions(toleratesUnreadableFields: false))
        }
        #expect(throws: NMEAError.badField(sentence: .gga, field: 11, problem: .notANumber(offset: 2))) {
            try parse(withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,-5x,M,,"),
                      options: NMEAParserOptions(toleratesUnreadableFields: false))
        }
    }
}

@Suite("Mode letters")
struct ModeLetterTests {
    @Test("every letter in RMC's mode field reads as ModeIndicator(rawValue:) says, or is unreadable")
    func letters() throws {
        for byte in UInt8(0x21)...UInt8(0x7E) where byte != 0x2C && byte != 0x2A {
            let letter = String(decoding: [byte], as: UTF8.self)
            let text = withChecksum("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,\(letter)")
            let parsed = try parse(text)
            guard case .rmc(let rmc) = parsed.sentence else { Issue.record("not RMC: \(letter)"); continue }
            let expected = ModeIndicator(rawValue: byte)
            #expect(rmc.mode == expected, "\(letter)")
            #expect(parsed.unreadableFields.contains(12) == (expected == nil), "\(letter)")
        }
    }
}
