import HardwareInterfaces
import ReceiverProtocols
import Testing

/// The binary navigation output switch, checked as exact bytes on the bus.
@Suite("Binary output")
struct BinaryOutputTests {
    @Test("M10: one CFG-VALSET with the CFG-MSGOUT keys at 1 and the NMEA output protocol off for binary")
    func m10() throws {
        let port = AckingPort()
        try UBloxDriver(channel: CommandChannel(port: port), generation: .m10).setBinaryOutput(.binary)
        let keys: [UInt32] = [0x2091_0007, 0x2091_0016, 0x2091_0346, 0x2091_0039, 0x2091_0048, 0x2091_0061, 0x2091_001B,
                              0x2091_017E, 0x2091_035A, 0x2091_0160]
        var payload: [UInt8] = [0x00, 0x03, 0x00, 0x00]
        for key in keys { payload += (0..<4).map { UInt8(truncatingIfNeeded: key >> (8 * UInt32($0))) } + [1] }
        payload += [0x01, 0x00, 0x74, 0x10, 1, 0x02, 0x00, 0x74, 0x10, 0]
        #expect(port.written == [UBXMessage(class: 0x06, id: 0x8A, payload: payload).bytes])
    }

    @Test("M8: CFG-MSG per navigation message; u-blox 6: NAV-SOL, POSLLH, VELNED instead of NAV-PVT")
    func legacy() throws {
        let m8 = AckingPort()
        try UBloxDriver(channel: CommandChannel(port: m8), generation: .m8).setBinaryOutput(.both)
        #expect(m8.written.count == 8)
        #expect(m8.written.first == [0xB5, 0x62, 0x06, 0x01, 0x03, 0x00, 0x01, 0x07, 0x01, 0x13, 0x51])
        let six = AckingPort()
        try UBloxDriver(channel: CommandChannel(port: six), generation: .ublox6).setBinaryOutput(.nmea)
        let ids = six.written.map { Array($0[6..<9]) }
        #expect(ids.prefix(3) == [[0x01, 0x06, 0], [0x01, 0x02, 0], [0x01, 0x12, 0]])
        #expect(!ids.contains([0x01, 0x07, 0]))
    }

    @Test("CASIC: CFG-MSG frames with the word-sum checksum, then $PCAS03 all off for binary")
    func casic() throws {
        let port = AckingPort()
        try CASICDriver(channel: CommandChannel(port: port)).setBinaryOutput(.binary)
        #expect(port.written.count == 7)
        // NAV-PV at rate 1: checksum = (0x01 << 24 | 0x06 << 16 | 4) + (0x0001_0301).
        let expected: [UInt8] = [0xBA, 0xCE, 0x04, 0x00, 0x06, 0x01, 0x01, 0x03, 0x01, 0x00] + [0x05, 0x03, 0x07, 0x01]
        #expect(port.written[1] == expected)
        #expect(String(decoding: port.written[6], as: UTF8.self).hasPrefix("$PCAS03,0,0,0,0,0,0,0,"))
    }

    @Test("MediaTek has no binary navigation: nmea is accepted, binary refused")
    func mediatek() throws {
        let driver = MediaTekDriver(channel: CommandChannel(port: AckingPort()))
        try driver.setBinaryOutput(.nmea)
        #expect(throws: ReceiverError.self) { try driver.setBinaryOutput(.both) }
    }
}
