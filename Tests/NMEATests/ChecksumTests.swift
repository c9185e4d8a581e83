import NMEA
import Testing

/// The package's one implementation of each wire checksum, against values computed elsewhere.
@Suite("Checksums and frame encoding")
struct ChecksumTests {
    /// `"B5 62 06 08"` as bytes.
    static func hex(_ text: String) -> [UInt8] {
        text.split(separator: " ").compactMap { UInt8($0, radix: 16) }
    }

    @Test("NMEA: the checksums of a recorded u-blox NEO-M9N sentence, NMEA's own GGA example and reference commands",
          arguments: [
              // Tests/Data/ublox-neo-m9n-nmea.log, line 14.
              "$GNGGA,223745.00,3806.62964,N,12237.61382,W,2,12,0.54,83.1,M,-29.5,M,,0000*44",
              "$GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V*0E",
              "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
              // receivers-commands.md's golden vectors (PCAS12's correct checksum is 1E, not the 1C of public code).
              "$PMTK161,0*28", "$PMTK225,8*23", "$PCAS12,0*1E", "$PUBX,41,1,0007,0003,115200,0*18",
          ])
    func nmea(_ sentence: String) throws {
        let bytes = Array(sentence.utf8)
        let star = try #require(bytes.lastIndex(of: 0x2A))
        let body = bytes[1..<star]
        let (high, low) = NMEAChecksum.hexDigits(NMEAChecksum.compute(body))
        #expect([high, low] == Array(bytes[(star + 1)...]))
        #expect(NMEAChecksum.sentence(body: body) == bytes)
        #expect(body.withUnsafeBufferPointer { NMEAChecksum.compute($0.span) } == NMEAChecksum.compute(body))
    }

    @Test("UBX: frames of the reference command tables are rebuilt byte for byte from class, id and payload",
          arguments: [
              "B5 62 0A 04 00 00 0E 34",                                // MON-VER poll
              "B5 62 06 08 06 00 E8 03 01 00 01 00 01 39",              // CFG-RATE 1 Hz
              "B5 62 06 08 06 00 10 27 01 00 01 00 4D DD",              // CFG-RATE 0.1 Hz
              "B5 62 05 01 02 00 06 8A 98 C1",                          // ACK-ACK for CFG-VALSET
              "B5 62 06 8A 09 00 00 03 00 00 07 00 91 20 01 55 58",     // CFG-VALSET NAV-PVT on UART1
              "B5 62 06 11 02 00 08 01 22 92",                          // CFG-RXM power save
          ])
    func ubx(_ text: String) {
        let frame = Self.hex(text)
        let (a, b) = UBXFraming.checksum(frame[2..<(frame.count - 2)])
        #expect([a, b] == Array(frame.suffix(2)))
        #expect(UBXFraming.encode(class: frame[2], id: frame[3], payload: frame[6..<(frame.count - 2)]) == frame)
    }

    @Test("UBX: an oversized payload is cut to what the length field can say")
    func ubxOversized() {
        let frame = UBXFraming.encode(class: 1, id: 2, payload: [UInt8](repeating: 7, count: 70_000))
        #expect(frame.count == UBXFraming.maximumPayload + 8)
        #expect(frame[4] == 0xFF && frame[5] == 0xFF)
    }

    @Test("CRC-24Q: the CRC-24/LTE-A check value, and RTCM 3 frames a u-blox ZED-F9R sent")
    func crc24q() {
        #expect(CRC24Q.compute(Array("123456789".utf8)) == 0xCDE703)
        #expect(CRC24Q.compute([UInt8]()) == 0)
        // ../shared/corpus/gpsd/ublox-zed-f9r.log, bytes 5876 (message 1008, antenna "GPPNULLANTENNA")
        // and 5952 (message 1230): the last three bytes are the receiver's CRC.
        for text in ["D3 00 14 3F 00 29 0E 47 50 50 4E 55 4C 4C 41 4E 54 45 4E 4E 41 00 00 B7 59 D3",
                     "D3 00 0C 4C E0 29 0F F1 F3 F1 F3 F1 F3 F1 F3 9C 78 21"] {
            let frame = Self.hex(text)
            let crc = CRC24Q.compute(frame.dropLast(3))
            #expect(CRC24Q.bytes(crc) == Array(frame.suffix(3)), "\(text)")
            #expect(frame.dropLast(3).reduce(UInt32(0), CRC24Q.step) == crc)
        }
    }
}
