import Devices
import HardwareInterfaces
import ReceiverProtocols
import Testing

/// Run-time settings (issue 20): dynamic model, rate, legal intervals, against the reference frames.
@Suite("Dynamic model and rate commands")
struct DynamicModelTests {
    @Test("golden frames: CFG-NAVSPG-DYNMODEL 3, CFG-RATE 200 ms, VALSET RATE-MEAS 1000 ms, PMTK886, PCAS11, PCAS02, PMTK220")
    func golden() {
        #expect(UBXMessage.setValues([(.dynamicModel, UInt64(DynamicModel.pedestrian.ubloxValue))]).bytes
                == bytes("B5 62 06 8A 09 00 00 03 00 00 21 00 11 20 03 F1 5C"))
        #expect(UBXMessage.rate(milliseconds: 200).bytes == bytes("B5 62 06 08 06 00 C8 00 01 00 01 00 DE 6A"))
        #expect(UBXMessage.setValues([(.rateMeasurement, 1000), (.rateNavigation, 1)]).bytes
                == bytes("B5 62 06 8A 10 00 00 03 00 00 01 00 21 30 E8 03 02 00 21 30 01 00 34 80"))
        #expect(PMTK.navigationMode(.automotive).sentence == "$PMTK886,0*28")
        #expect(PMTK.navigationMode(.pedestrian).sentence == "$PMTK886,1*29")
        #expect(PMTK.navigationMode(.airborne).sentence.hasPrefix("$PMTK886,2*"))
        #expect(PCAS.dynamicModel(.stationary).sentence == "$PCAS11,1*1C")
        #expect(PCAS.dynamicModel(.automotive).sentence == "$PCAS11,3*1E")
        #expect(PCAS.rate(milliseconds: 200)?.sentence == "$PCAS02,200*1D")
        #expect(PMTK.rate(milliseconds: 100).sentence == "$PMTK220,100*2F")
    }

    @Test("CFG-NAV5: 36 bytes, mask 0x0001 (dynModel only), dynModel at byte 2, the rest zero; Fletcher checksum")
    func nav5() {
        let frame = UBXMessage.navigationEngine(dynamicModel: .automotive).bytes
        #expect(Array(frame.prefix(6)) == [0xB5, 0x62, 0x06, 0x24, 0x24, 0x00])
        let payload = Array(frame[6..<42])
        #expect(payload[0] == 0x01 && payload[1] == 0x00)
        #expect(payload[2] == 4)
        #expect(payload[3...].allSatisfy { $0 == 0 })
        var a: UInt8 = 0, b: UInt8 = 0
        for x in frame[2..<42] { a &+= x; b &+= a }
        #expect(Array(frame[42...]) == [a, b])
        #expect(UBXMessage.navigationEngine(dynamicModel: .airborne).payload[2] == 6)
        #expect(UBXMessage.navigationEngine(dynamicModel: .portable).payload[2] == 0)
    }

    @Test("each u-blox generation gets its command: VALSET on the M10, CFG-NAV5 on the M8, both ACKed")
    func ubloxDrivers() throws {
        let m10 = AckingPort()
        try UBloxDriver(channel: CommandChannel(port: m10), generation: .m10).setDynamicModel(.automotive)
        #expect(m10.written == [UBXMessage.setValues([(.dynamicModel, 4)]).bytes])
        let m8 = AckingPort()
        try UBloxDriver(channel: CommandChannel(port: m8), generation: .m8).setDynamicModel(.airborne)
        #expect(m8.written == [UBXMessage.navigationEngine(dynamicModel: .airborne).bytes])
        let refused = AckingPort()
        refused.answer = .nak
        #expect(throws: ReceiverError.rejected(command: "UBX 06 24 (36 bytes)", reason: "ACK-NAK")) {
            try UBloxDriver(channel: CommandChannel(port: refused), generation: .ublox6).setDynamicModel(.sea)
        }
    }

    @Test("MediaTek waits for PMTK001,886; a refusal is an error")
    func mediatek() throws {
        let port = AckingPort()
        try MediaTekDriver(channel: CommandChannel(port: port)).setDynamicModel(.pedestrian)
        #expect(port.written == [Array("$PMTK886,1*29\r\n".utf8)])
        let refused = AckingPort()
        refused.pmtkFlag = 1
        #expect(throws: ReceiverError.self) { try MediaTekDriver(channel: CommandChannel(port: refused)).setDynamicModel(.airborne) }
    }

    @Test("legal intervals per family: CASIC snaps to 200/500/1000 ms, MediaTek 100...10000, u-blox 25...65535")
    func legalRates() {
        #expect(ReceiverFamily.casic.legalRate(milliseconds: 100) == 200)
        #expect(ReceiverFamily.casic.legalRate(milliseconds: 333) == 200)
        #expect(ReceiverFamily.casic.legalRate(milliseconds: 400) == 500)
        #expect(ReceiverFamily.casic.legalRate(milliseconds: 5000) == 1000)
        #expect(ReceiverFamily.mediatek.legalRate(milliseconds: 50) == 100)
        #expect(ReceiverFamily.mediatek.legalRate(milliseconds: 20_000) == 10_000)
        #expect(ReceiverFamily.ublox.legalRate(milliseconds: 10) == 25)
        #expect(ReceiverFamily.ublox.legalRate(milliseconds: 200) == 200)
    }
}
