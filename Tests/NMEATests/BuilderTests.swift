import NMEA
import Testing

@Suite("NMEA output sentences")
struct BuilderTests {
    func text(_ bytes: [UInt8]?) -> String { bytes.map { String(decoding: $0, as: UTF8.self) } ?? "nil" }

    @Test("HDT, HDM, HDG and XDR: the fields, checksums verified, CR LF")
    func sentences() throws {
        let hdt = try #require(NMEABuilder.hdt(trueHeading: 274.07))
        #expect(text(hdt) == "$HCHDT,274.1,T*29\r\n")
        #expect(NMEABuilder.isValid(hdt))
        let hdm = try #require(NMEABuilder.hdm(magneticHeading: -1.04))
        #expect(text(hdm).hasPrefix("$HCHDM,359.0,M*"))
        #expect(NMEABuilder.isValid(hdm))
        // East variation positive; west written as its magnitude with W.
        let east = try #require(NMEABuilder.hdg(sensorHeading: 10, deviation: 0, variation: 3.26))
        #expect(text(east).hasPrefix("$HCHDG,10.0,0.0,E,3.3,E*"))
        let west = try #require(NMEABuilder.hdg(sensorHeading: 10, deviation: -1.5, variation: -12.04))
        #expect(text(west).hasPrefix("$HCHDG,10.0,1.5,W,12.0,W*"))
        let unknown = try #require(NMEABuilder.hdg(sensorHeading: 359.96, deviation: nil, variation: nil))
        #expect(text(unknown).hasPrefix("$HCHDG,0.0,,,,*"))
        let xdr = try #require(NMEABuilder.xdrAttitude(pitch: -2.04, roll: 12.35))
        #expect(text(xdr).hasPrefix("$HCXDR,A,-2.0,D,PTCH,A,12.4,D,ROLL*"))
        for line in [east, west, unknown, xdr] { #expect(NMEABuilder.isValid(line), "\(text(line))") }
        // The checksum is the XOR of the body, two upper-case hex digits.
        let body = Array("HCHDT,274.1,T".utf8)
        let sum = body.reduce(UInt8(0)) { $0 ^ $1 }
        #expect(text(hdt).contains("*" + String(sum, radix: 16, uppercase: true)))
    }

    @Test("not finite or out of range: no sentence")
    func refused() {
        #expect(NMEABuilder.hdt(trueHeading: .nan) == nil)
        #expect(NMEABuilder.hdm(magneticHeading: .infinity) == nil)
        #expect(NMEABuilder.hdg(sensorHeading: 1, deviation: nil, variation: .nan) == nil)
        #expect(NMEABuilder.xdrAttitude(pitch: 91, roll: 0) == nil)
        #expect(NMEABuilder.sentence(talker: "H", formatter: "HDT", fields: []) == nil)
        #expect(NMEABuilder.sentence(talker: "HC", formatter: "HDT", fields: ["a,b"]) == nil)
        #expect(NMEABuilder.sentence(talker: "HC", formatter: "HDT", fields: ["1*2"]) == nil)
    }

    @Test("the 82-character limit: 82 is built, 83 is refused")
    func lengthLimit() throws {
        // `$` + 5 address + `,` + field + `*hh` + CR LF = 12 + field.
        let fits = try #require(NMEABuilder.sentence(talker: "II", formatter: "TXT", fields: [String(repeating: "A", count: 70)]))
        #expect(fits.count == 82)
        #expect(NMEABuilder.isValid(fits))
        #expect(NMEABuilder.sentence(talker: "II", formatter: "TXT", fields: [String(repeating: "A", count: 71)]) == nil)
        // The longest our builders make stays within it.
        let longest = try #require(NMEABuilder.xdrAttitude(pitch: -89.99, roll: -179.99))
        #expect(longest.count <= NMEABuilder.maximumLength)
        var tooLong = Array("$GPTXT,".utf8) + [UInt8](repeating: 0x41, count: 72)
        tooLong += NMEABuilder.sentence(talker: "GP", formatter: "TXT", fields: []).map { Array($0.suffix(4)) } ?? []
        #expect(!NMEABuilder.isValid(tooLong))
    }

    @Test("isValid: a wrong checksum, a missing CR LF, a broken start are refused")
    func validity() throws {
        let good = try #require(NMEABuilder.hdt(trueHeading: 10))
        #expect(NMEABuilder.isValid(good))
        var bad = good
        bad[8] = UInt8(ascii: "9")
        #expect(!NMEABuilder.isValid(bad))
        #expect(!NMEABuilder.isValid(Array(good.dropLast(2))))
        #expect(!NMEABuilder.isValid(Array(good.dropFirst())))
        #expect(NMEABuilder.isValid(Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n".utf8)))
    }

    @Test("decimal: rounding, negatives, no exponent; formatter of an address")
    func decimalsAndFormatters() {
        #expect(NMEABuilder.decimal(0.05, places: 1) == "0.1")
        #expect(NMEABuilder.decimal(-0.04, places: 1) == "0.0")
        #expect(NMEABuilder.decimal(-3.25, places: 2) == "-3.25")
        #expect(NMEABuilder.decimal(1e-9, places: 3) == "0.000")
        #expect(NMEABuilder.decimal(12345.678, places: 0) == "12346")
        #expect(NMEABuilder.formatter(of: Array("$GPGGA,1*00\r\n".utf8)) == "GGA")
        #expect(NMEABuilder.formatter(of: Array("$PMTK001,220,3*30\r\n".utf8)) == "PMTK001")
        #expect(NMEABuilder.formatter(of: Array("!AIVDM,1*00\r\n".utf8)) == "VDM")
        #expect(NMEABuilder.formatter(of: Array("GPGGA".utf8)) == nil)
    }
}
