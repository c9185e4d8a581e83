import BoardConfig
import Devices
import HardwareInterfaces
import Testing

/// `family = "auto"` and a receiver table without `family`: the family is left to detection on
/// arrival; ``ReceiverDescription/identified(as:model:)`` makes the receiver the detection found.
@Suite("Receiver family detected on arrival (board keys)")
struct FamilyAutoTests {
    static func receiver(_ lines: String) throws -> ReceiverDescription? {
        try BoardLoader.load(text: """
            name = "t"
            title = "test"
            simulated = false
            [receiver]
            uart = "/dev/serial0"
            baud = 9600
            \(lines)
            """, file: "t.toml").receiver
    }

    @Test("no family and auto both detect, with NMEA until the arrival; a named family does not")
    func keys() throws {
        for lines in ["", "family = \"auto\""] {
            let receiver = try #require(try Self.receiver(lines))
            #expect(receiver.detectsFamily)
            #expect(receiver.family == .genericNMEA)
            #expect(receiver.output == .nmea)
            #expect(receiver.familySpelling == "auto")
        }
        let named = try #require(try Self.receiver("family = \"ublox\"\nmodel = \"NEO-M8N\""))
        #expect(!named.detectsFamily)
        #expect(named.output == .both)
    }

    @Test("an output the board asks for is kept where the identified family has a binary protocol, else NMEA; none asked: the family's default")
    func identifiedOutput() throws {
        let binary = try #require(try Self.receiver("family = \"auto\"\noutput = \"binary\""))
        #expect(binary.identified(as: .ublox, model: "MAX-M10S").output == .binary)
        #expect(binary.identified(as: .mediatek, model: nil).output == .nmea)
        let plain = try #require(try Self.receiver(""))
        let m8 = plain.identified(as: .ublox, model: "NEO-M8N")
        #expect(m8.output == .both && m8.family == .ublox && m8.model == "NEO-M8N")
        #expect(plain.identified(as: .ublox, model: "u-blox 6").output == .nmea)
        // The board's model wins over the receiver's word.
        let modelled = try #require(try Self.receiver("model = \"SAM-M10Q\""))
        #expect(modelled.identified(as: .ublox, model: "NEO-M8N").model == "SAM-M10Q")
    }
}
