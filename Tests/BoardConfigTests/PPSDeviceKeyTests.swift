import BoardConfig
import Testing

/// The `[gpio] pps_device` key: a kernel PPS device (`/dev/ppsN`) as the board's PPS source.
@Suite("Board PPS device")
struct PPSDeviceKeyTests {
    @Test("pps_device names /dev/ppsN; a path outside /dev, or beside gnss_pps, is refused by key and line")
    func parsing() throws {
        #expect(try BoardLoader.load(text: validBoard, file: "Boards/t.toml").gpio?.ppsDevice == nil)
        let set = board(replacing: "chip = \"gpiochip0\"", with: "chip = \"gpiochip0\"\n    pps_device = \"/dev/pps0\"")
        #expect(try BoardLoader.load(text: set, file: "Boards/t.toml").gpio?.ppsDevice == "/dev/pps0")
        for (bad, phrase) in [("pps_device = \"pps0\"", "not a device path"), ("pps_device = 0", "expected a string"),
                              ("pps_device = \"/dev/pps0\"\n    gnss_pps = \"GPIO18\"", "two PPS sources")] {
            let text = board(replacing: "chip = \"gpiochip0\"", with: "chip = \"gpiochip0\"\n    \(bad)")
            #expect {
                try BoardLoader.load(text: text, file: "Boards/t.toml")
            } throws: { error in
                (error as? BoardError)?.key == "pps_device" && "\(error)".contains("Boards/t.toml") && "\(error)".contains(phrase)
            }
        }
    }
}
