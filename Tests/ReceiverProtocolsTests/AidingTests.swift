import ReceiverProtocols
import Testing

/// Aiding frames against golden vectors: the MGA-INI and PMTK740/741 frames are the receivers
/// reference's (§2.7.8 and §3.1, checked there with pyubx2 and pynmeagps); CFG-NAVX5, CFG-ANA and
/// CASIC AID-INI were assembled field by field from the u-blox M8 protocol specification and the
/// CASIC protocol specification (V4.2.0.3, AID-INI 0x0B 0x01) and checksummed outside this package.
@Suite("Receiver aiding frames")
struct AidingTests {
    static func hex(_ text: String) -> [UInt8] { text.split(separator: " ").compactMap { UInt8($0, radix: 16) } }

    /// 2026-01-15 12:00:00 UTC.
    static let reference = 1_768_478_400.0

    @Test("calendar from seconds since 1970, across a leap day and before 1970")
    func calendar() {
        let t = UTCDateTime(utcSeconds: Self.reference + 0.25)
        #expect([t.year, t.month, t.day, t.hour, t.minute, t.second] == [2026, 1, 15, 12, 0, 0])
        #expect(t.nanoseconds == 250_000_000)
        let leap = UTCDateTime(utcSeconds: 1_709_164_799)  // 2024-02-28 23:59:59
        #expect([leap.year, leap.month, leap.day, leap.hour, leap.minute, leap.second] == [2024, 2, 28, 23, 59, 59])
        let next = UTCDateTime(utcSeconds: 1_709_164_800 + 86_400)
        #expect([next.year, next.month, next.day] == [2024, 3, 1])
        let before = UTCDateTime(utcSeconds: -1)
        #expect([before.year, before.month, before.day, before.hour, before.minute, before.second] == [1969, 12, 31, 23, 59, 59])
    }

    @Test("UBX-MGA-INI-TIME_UTC: 2026-01-15 12:00:00, tAcc 2 s, leap seconds unknown (reference §2.7.8)")
    func timeUTC() {
        let frame = UBXMessage.initialTime(.init(utcSeconds: Self.reference, accuracy: 2))
        #expect(frame.bytes == Self.hex("B5 62 13 40 18 00 10 00 00 80 EA 07 01 0F 0C 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 0A F2"))
        #expect(!frame.expectsAcknowledgement, "MGA messages are not ACKed unless MGA-ACK is asked for")
        let fine = UBXMessage.initialTime(.init(utcSeconds: Self.reference + 0.5, accuracy: 0.11)).payload
        #expect(Array(fine[12..<16]) == [0x00, 0x65, 0xCD, 0x1D], "ns = 500,000,000")
        #expect(Array(fine[16..<18]) == [0, 0] && Array(fine[20..<24]) == [0x80, 0x77, 0x8E, 0x06], "tAccNs = 110,000,000")
    }

    @Test("UBX-MGA-INI-POS_LLH: 51.5 N, 0.1 W, 50 m, posAcc 1 km (reference §2.7.8)")
    func positionLLH() {
        let frame = UBXMessage.initialPosition(.init(latitude: 51.5, longitude: -0.1, height: 50, accuracy: 1000))
        #expect(frame.bytes == Self.hex("B5 62 13 40 14 00 01 00 00 00 C0 46 B2 1E C0 BD F0 FF 88 13 00 00 A0 86 01 00 6C FF"))
    }

    @Test("AssistNow Autonomous: CFG-NAVX5 v2 with only mask1's AOP bit (M8), CFG-ANA-USE_ANA by VALSET (M10)")
    func autonomous() {
        #expect(UBXMessage.autonomousAssistance(true).bytes == Self.hex(
            "B5 62 06 23 28 00 02 00 00 40 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 94 16"))
        #expect(UBXMessage.setValues([(.useAutonomousAssistance, 1)]).bytes == Self.hex("B5 62 06 8A 09 00 00 03 00 00 01 00 23 10 01 D1 D0"))
        #expect(UBXMessage.autonomousAssistance(true).expectsAcknowledgement)
    }

    @Test("MediaTek $PMTK740 time and $PMTK741 position+time (reference §3.1)")
    func mediatek() {
        #expect(PMTK.timeAiding(utcSeconds: Self.reference).sentence == "$PMTK740,2026,01,15,12,00,00*31")
        #expect(PMTK.positionAiding(latitude: 24.772816, longitude: 121.022636, altitude: 160, utcSeconds: Self.reference).sentence
                == "$PMTK741,24.772816,121.022636,160,2026,01,15,12,00,00*11")
        #expect(PMTK.positionAiding(latitude: -33.5, longitude: -70.25, altitude: -2.4, utcSeconds: Self.reference).body
                == "PMTK741,-33.500000,-70.250000,-2,2026,01,15,12,00,00")
    }

    @Test("CASIC AID-INI: LLA, GPS week 2401 TOW 388818 s (18 leap seconds), variances, flags 0x23")
    func casic() {
        let aiding = ReceiverAiding(time: .init(utcSeconds: Self.reference, accuracy: 1),
                                    position: .init(latitude: 30, longitude: 120, height: 10, accuracy: 100))
        let frame = CASICMessage.initialAiding(aiding)
        #expect(frame.payload.count == 56)
        #expect(frame.bytes == Self.hex("""
            BA CE 38 00 0B 01 00 00 00 00 00 00 3E 40 00 00 00 00 00 00 5E 40 00 00 00 00 00 00 24 40 00 00 00 00 48 BB 17 41 \
            00 00 00 00 00 40 1C 46 A7 A6 9F 5B 00 00 00 00 00 00 00 00 61 09 00 23 88 AB 9E C7
            """))
        let timeOnly = CASICMessage.initialAiding(ReceiverAiding(time: aiding.time))
        #expect(timeOnly.payload[55] == 0x22 && timeOnly.payload[0..<24].allSatisfy { $0 == 0 })
    }
}
