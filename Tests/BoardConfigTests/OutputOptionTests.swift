import BoardConfig
import Testing

/// The `[receiver] output = nmea | binary | both` option and its defaults.
@Suite("Receiver output option")
struct OutputOptionTests {
    @Test("u-blox 8 and later default to both, u-blox 6/7, CASIC, MediaTek and generic to nmea")
    func defaults() {
        #expect(ReceiverOutputMode.default(family: .ublox, model: "NEO-M9N") == .both)
        #expect(ReceiverOutputMode.default(family: .ublox, model: "MAX-M10S") == .both)
        #expect(ReceiverOutputMode.default(family: .ublox, model: nil) == .both)
        #expect(ReceiverOutputMode.default(family: .ublox, model: "NEO-6M") == .nmea)
        #expect(ReceiverOutputMode.default(family: .ublox, model: "neo-7m") == .nmea)
        #expect(ReceiverOutputMode.default(family: .casic, model: "L76K") == .nmea)
        #expect(ReceiverOutputMode.default(family: .mediatek, model: "MT3339") == .nmea)
    }

    @Test("the option is read, and refused for a receiver without a binary protocol")
    func parsing() throws {
        let ublox = board(replacing: "family = \"mtk\"", with: "family = \"ublox\"\n    model = \"NEO-M8N\"\n    output = \"binary\"")
        #expect(try BoardLoader.load(text: ublox, file: "Boards/t.toml").receiver?.output == .binary)
        let casic = board(replacing: "family = \"mtk\"", with: "family = \"casic\"\n    output = \"both\"")
        #expect(try BoardLoader.load(text: casic, file: "Boards/t.toml").receiver?.output == .both)
        let defaulted = board(replacing: "family = \"mtk\"", with: "family = \"ublox\"")
        #expect(try BoardLoader.load(text: defaulted, file: "Boards/t.toml").receiver?.output == .both)
        let mtk = board(replacing: "family = \"mtk\"", with: "family = \"mtk\"\n    output = \"both\"")
        #expect {
            try BoardLoader.load(text: mtk, file: "Boards/t.toml")
        } throws: { error in
            (error as? BoardError)?.key == "output" && "\(error)".contains("binary protocol")
        }
        let unknown = board(replacing: "family = \"mtk\"", with: "family = \"ublox\"\n    output = \"rtcm\"")
        #expect {
            try BoardLoader.load(text: unknown, file: "Boards/t.toml")
        } throws: { error in
            (error as? BoardError)?.key == "output"
        }
    }
}
