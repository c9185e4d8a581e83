import Devices
import ReceiverProtocols
import Testing

@Suite("Command framing against golden vectors")
struct CommandTests {
    // Vectors from the vendors' documents and public code (see the receivers reference), checked
    // there with pyubx2 and pynmeagps.
    @Test("NMEA-style commands carry the XOR checksum", arguments: [
        ("PMTK220,1000", "$PMTK220,1000*1F"),
        ("PMTK220,200", "$PMTK220,200*2C"),
        ("PMTK161,0", "$PMTK161,0*28"),
        ("PMTK225,8", "$PMTK225,8*23"),
        ("PMTK225,1,3000,12000,18000,72000", "$PMTK225,1,3000,12000,18000,72000*16"),
        ("PMTK314,0,1,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", "$PMTK314,0,1,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0*28"),
        ("PMTK251,115200", "$PMTK251,115200*1F"),
        ("PMTK605", "$PMTK605*31"),
        ("PCAS03,1,0,0,0,1,0,0,0,0,0,,,0,0", "$PCAS03,1,0,0,0,1,0,0,0,0,0,,,0,0*02"),
        ("PCAS12,0", "$PCAS12,0*1E"),
        ("PCAS06,0", "$PCAS06,0*1B"),
        ("PCAS02,1000", "$PCAS02,1000*2E"),
        ("PAIR021", "$PAIR021*39"),
        ("PGKC462", "$PGKC462*2F"),
    ])
    func nmeaCommands(body: String, expected: String) {
        #expect(NMEACommand(body).sentence == expected)
        #expect(NMEACommand(body).bytes == Array((expected + "\r\n").utf8))
    }

    @Test("fields joined by commas")
    func fieldInit() {
        #expect(NMEACommand("PMTK220", 1000).sentence == "$PMTK220,1000*1F")
    }

    @Test("UBX frames carry the Fletcher checksum")
    func ubxFrames() {
        #expect(UBXMessage.pollVersion.bytes == [0xB5, 0x62, 0x0A, 0x04, 0x00, 0x00, 0x0E, 0x34])
        #expect(UBXMessage(class: 0x06, id: 0x11, payload: [0x08, 0x01]).bytes
                == [0xB5, 0x62, 0x06, 0x11, 0x02, 0x00, 0x08, 0x01, 0x22, 0x92])
        #expect(UBXMessage(class: 0x05, id: 0x01, payload: [0x06, 0x08]).bytes
                == [0xB5, 0x62, 0x05, 0x01, 0x02, 0x00, 0x06, 0x08, 0x16, 0x3F])
        #expect(UBXMessage(class: 0x05, id: 0x00, payload: [0x06, 0x08]).bytes
                == [0xB5, 0x62, 0x05, 0x00, 0x02, 0x00, 0x06, 0x08, 0x15, 0x3A])
    }

    @Test("MON-VER decodes generation, module and protocol version")
    func monVer() throws {
        let payload = monVerPayload(software: "ROM SPG 5.10 (7b202e)", hardware: "000A0000",
                                    extensions: ["FWVER=SPG 5.10", "PROTVER=34.10", "MOD=MAX-M10S"])
        let version = try #require(UBXVersion(payload: payload))
        #expect(version.generation == .m10)
        #expect(version.protocolVersion == "34.10")
        #expect(version.module == "MAX-M10S")
        let identity = try #require(ReceiverIdentity.from(version: version))
        #expect(identity.family == .ublox)
        #expect(identity.description == "ublox (u-blox M10, MAX-M10S, firmware ROM SPG 5.10 (7b202e), PROTVER 34.10)")
        // A CASIC chip's answer is not a u-blox identity.
        let casic = try #require(UBXVersion(payload: monVerPayload(software: "V5.3.0.0", hardware: "AT6558", extensions: [])))
        #expect(ReceiverIdentity.from(version: casic) == nil)
        // Malformed lengths are refused, not trapped on.
        #expect(UBXVersion(payload: Array(repeating: 0x41, count: 39)) == nil)
        #expect(UBXVersion(payload: Array(repeating: 0x41, count: 41)) == nil)
    }

    @Test("banners and replies name the family")
    func banners() {
        #expect(ReceiverIdentity.from(sentence: "$PMTK705,AXN_3.20_3333_13071501,0003,QUECTEL-L26,")?.model == "QUECTEL-L26")
        #expect(ReceiverIdentity.from(sentence: "$PMTK705,AXN_1.30,0000,20090609,")?.family == .mediatek)
        #expect(ReceiverIdentity.from(sentence: "$GPTXT,01,01,02,u-blox ag - www.u-blox.com")?.family == .ublox)
        #expect(ReceiverIdentity.from(sentence: "$GPTXT,01,01,02,IC=AT6558F-5N-32-1C580900")?.model == "AT6558F-5N-32-1C580900")
        #expect(ReceiverIdentity.from(sentence: "$GPTXT,01,01,02,SW=URANUS5,V5.3.0.0")?.firmware == "URANUS5,V5.3.0.0")
        #expect(ReceiverIdentity.from(sentence: "$PAIR021,AG3335M,V1")?.family == .airoha)
        #expect(ReceiverIdentity.from(sentence: "$GPRMC,1,2,3") == nil)
        #expect(ReceiverIdentity.from(sentence: "") == nil)
    }

    @Test("capability table: CASIC accepts only 200/500/1000 ms and does not acknowledge")
    func capabilities() {
        #expect(ReceiverFamily.casic.capabilities.rateSteps == [200, 500, 1000])
        #expect(!ReceiverFamily.casic.capabilities.acknowledgesCommands)
        #expect(ReceiverFamily.ublox.capabilities.wakeMethods.contains(.extint))
        #expect(ReceiverFamily.mediatek.capabilities.maximumRateHz == 10)
        #expect(ReceiverFamily(rawValue: "mtk") == .mediatek)
    }
}

func monVerPayload(software: String, hardware: String, extensions: [String]) -> [UInt8] {
    func padded(_ text: String, _ length: Int) -> [UInt8] {
        Array(Array(text.utf8).prefix(length)) + Array(repeating: 0, count: max(0, length - text.utf8.count))
    }
    return padded(software, 30) + padded(hardware, 10) + extensions.flatMap { padded($0, 30) }
}

/// The device catalogue's identification column: each string a family lists identifies it.
@Suite("Device catalogue identification strings")
struct CatalogueIdentificationTests {
    @Test("every proprietary sentence and banner text a family row lists identifies that family")
    func identification() {
        for row in ReceiverFamily.catalogue {
            for marker in row.identification where !marker.hasPrefix("UBX-") {
                let sentence = marker.hasPrefix("$") ? marker + ",MODEL,0000,NAME," : "$GPTXT,01,01,02," + marker + "X"
                #expect(ReceiverIdentity.from(sentence: sentence)?.family == row.family, "\(marker)")
                if marker.hasPrefix("$") { #expect(ReceiverFamily.identified(bySentence: marker) == row.family) }
            }
        }
    }
}
