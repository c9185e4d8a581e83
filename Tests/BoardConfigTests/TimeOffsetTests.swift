import BoardConfig
import Testing

/// The `[receiver] time_offset` key: the receiver's sentence delay after the second starts.
@Suite("Receiver time offset")
struct TimeOffsetTests {
    @Test("time_offset is read in seconds, defaults to 0, and a value that is no delay is refused by key and line")
    func parsing() throws {
        #expect(try BoardLoader.load(text: validBoard, file: "Boards/t.toml").receiver?.timeOffset == 0)
        let set = board(replacing: "family = \"mtk\"", with: "family = \"mtk\"\n    time_offset = 0.512")
        #expect(try BoardLoader.load(text: set, file: "Boards/t.toml").receiver?.timeOffset == 0.512)
        let integer = board(replacing: "family = \"mtk\"", with: "family = \"mtk\"\n    time_offset = 0")
        #expect(try BoardLoader.load(text: integer, file: "Boards/t.toml").receiver?.timeOffset == 0)
        for bad in ["time_offset = 5", "time_offset = -3.5", "time_offset = \"500ms\""] {
            let text = board(replacing: "family = \"mtk\"", with: "family = \"mtk\"\n    \(bad)")
            #expect {
                try BoardLoader.load(text: text, file: "Boards/t.toml")
            } throws: { error in
                (error as? BoardError)?.key == "time_offset" && "\(error)".contains("Boards/t.toml")
            }
        }
    }

    @Test("the Adafruit GPS HAT board states the MT3339's half-second delay")
    func builtin() throws {
        #expect(try BoardCatalog.load(builtin: "pizero2w-adafruit-gps-hat-lis3mdl-lsm6dsox").receiver?.timeOffset == 0.5)
    }
}
