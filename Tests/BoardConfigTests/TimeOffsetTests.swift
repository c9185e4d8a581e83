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

/// The `[receiver] leap_seconds` key: a leap-second list in place of the built-in table.
@Suite("Receiver leap-second list")
struct LeapSecondsKeyTests {
    @Test("leap_seconds names an absolute path, is absent by default, and a relative one is refused by key and line")
    func parsing() throws {
        #expect(try BoardLoader.load(text: validBoard, file: "Boards/t.toml").receiver?.leapSecondsFile == nil)
        let set = board(replacing: "family = \"mtk\"", with: "family = \"mtk\"\n    leap_seconds = \"/usr/share/zoneinfo/leap-seconds.list\"")
        #expect(try BoardLoader.load(text: set, file: "Boards/t.toml").receiver?.leapSecondsFile == "/usr/share/zoneinfo/leap-seconds.list")
        for bad in ["leap_seconds = \"leap-seconds.list\"", "leap_seconds = 18"] {
            let text = board(replacing: "family = \"mtk\"", with: "family = \"mtk\"\n    \(bad)")
            #expect {
                try BoardLoader.load(text: text, file: "Boards/t.toml")
            } throws: { error in
                (error as? BoardError)?.key == "leap_seconds" && "\(error)".contains("Boards/t.toml:")
            }
        }
    }
}
