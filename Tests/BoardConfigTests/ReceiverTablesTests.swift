import BoardConfig
import Devices
import Foundation
import HardwareInterfaces
import Testing

/// Several receivers: `[[receiver]]` tables, each by port or by USB identity; one `[receiver]` as before.
@Suite("Board receivers ([[receiver]])")
struct ReceiverTablesTests {
    static let two = """
        name = "t"
        title = "Two receivers"
        simulated = false

        [[receiver]]
        name = "hat"
        uart = "/dev/serial0"
        baud = 9600
        family = "mtk"

        [[receiver]]
        name = "dongle"
        usb_vendor = "1546"
        usb_product = "01A9"
        usb_serial = "F9P-1"
        baud = 38400
        family = "ublox"
        model = "ZED-F9P"

        """

    /// `two` with `old` replaced by `new`; the test fails if `old` is not in it.
    static func two(replacing old: String, with new: String) -> String {
        let replaced = two.replacingOccurrences(of: old, with: new)
        return replaced == two ? "unchanged: \(old)" : replaced
    }

    @Test("two [[receiver]] tables: the first is receiver, the second by its USB identity; the order is kept")
    func twoReceivers() throws {
        let board = try BoardLoader.load(text: Self.two, file: "Boards/t.toml")
        #expect(board.receivers.count == 2)
        #expect(board.receiver?.uart == "/dev/serial0" && board.receiver?.name == "hat" && board.receiver?.family == .mediatek)
        let dongle = try #require(board.otherReceivers.first)
        #expect(dongle.uart == nil && dongle.name == "dongle" && dongle.family == .ublox && dongle.baudRate == .b38400)
        #expect(dongle.usb == USBSerialMatch(vendor: "1546", product: "01a9", serial: "F9P-1"))
        #expect(dongle.label == "dongle")
        #expect(dongle.usb?.matches(vendor: "1546", product: "01A9", serial: "F9P-1") == true)
        #expect(dongle.usb?.matches(vendor: "1546", product: "01a9", serial: "other") == false)
        #expect(dongle.usb?.description == "usb:1546:01a9:F9P-1")
    }

    @Test("one [receiver] table loads as before, with no other receivers; every board in Boards/ still loads")
    func singleUnchanged() throws {
        let board = try BoardLoader.load(text: validBoard, file: "Boards/t.toml")
        #expect(board.receivers.count == 1 && board.otherReceivers.isEmpty && board.receiver?.uart == "/dev/serial0")
        #expect(board.receiver?.label == "/dev/serial0")
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Boards")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".toml") }
        #expect(files.count >= 7)
        for file in files {
            let path = folder.appendingPathComponent(file).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let board = try BoardLoader.load(text: text, file: path)
            #expect(board.otherReceivers.isEmpty, "\(file)")
        }
    }

    @Test("a receiver on a USB identity alone is a real board's receiver")
    func usbOnly() throws {
        let text = validBoard.replacingOccurrences(of: "uart = \"/dev/serial0\"", with: "usb_vendor = \"1546\"\nusb_product = \"01a8\"")
        let board = try BoardLoader.load(text: text, file: "Boards/t.toml")
        #expect(board.receiver?.uart == nil && board.receiver?.usb == USBSerialMatch(vendor: "1546", product: "01a8"))
        #expect(board.receiver?.label == "usb:1546:01a8")
    }

    @Test("bad receiver tables are refused with file, line and key", arguments: [
        ("uart = \"/dev/serial0\"\nbaud = 9600\nfamily = \"mtk\"\n\n[[receiver]]\nname = \"dongle\"",
         "uart = \"/dev/serial0\"\nbaud = 9600\nfamily = \"mtk\"\n\n[[receiver]]\nname = \"hat\"",
         "Boards/t.toml:12:8: key 'name': the name 'hat' is already used by [[receiver]] #1"),
        ("usb_vendor = \"1546\"\nusb_product = \"01A9\"\nusb_serial = \"F9P-1\"", "uart = \"/dev/serial0\"",
         "Boards/t.toml:13:8: key 'uart': the port /dev/serial0 is already used by [[receiver]] #1"),
        ("usb_vendor = \"1546\"", "usb_vendor = \"15g6\"",
         "Boards/t.toml:13:14: key 'usb_vendor': '15g6' is not a USB ID (four hex digits, e.g. \"1546\")"),
        ("usb_product = \"01A9\"\n", "",
         "Boards/t.toml:11:1: key 'usb_product': missing required key in [[receiver]] #2 (the USB product ID as udev gives it, e.g. \"01a9\")"),
        ("usb_serial = \"F9P-1\"", "usb_serial = \"F9P-1\"\nuart = \"/dev/ttyACM0\"",
         "Boards/t.toml:16:8: key 'uart': give either uart or usb_vendor/usb_product, not both (/dev/ttyACM0 or usb:1546:01a9:F9P-1)"),
        ("model = \"ZED-F9P\"", "model = \"ZED-F9P\"\nwake = \"extint\"",
         "Boards/t.toml:19:8: key 'wake': wake method 'extint' needs a [gpio] line, and those belong to the first receiver; use uart-byte or none here"),
        ("usb_serial = \"F9P-1\"", "usb_seriel = \"F9P-1\"",
         "Boards/t.toml:15:1: key 'usb_seriel': unknown key in [[receiver]] #2 (did you mean 'usb_serial'?)"),
    ])
    func refused(old: String, new: String, expected: String) throws {
        let text = Self.two(replacing: old, with: new)
        #expect(throws: BoardError.self) { try BoardLoader.load(text: text, file: "Boards/t.toml") }
        do {
            _ = try BoardLoader.load(text: text, file: "Boards/t.toml")
        } catch {
            #expect("\(error)".hasPrefix(expected), "\(error)")
        }
    }

    @Test("a simulated board has one receiver")
    func simulatedHasOne() throws {
        let text = """
            name = "s"
            title = "S"
            simulated = true

            [[receiver]]
            baud = 9600
            family = "mtk"

            [[receiver]]
            baud = 9600
            family = "mtk"

            [sim]
            latitude = 1.0
            longitude = 2.0

            """
        do {
            _ = try BoardLoader.load(text: text, file: "Boards/s.toml")
            Issue.record("loaded")
        } catch {
            #expect("\(error)" == "Boards/s.toml:9:1: key 'receiver': a simulated board has one receiver; [[receiver]] #2 needs simulated = false", "\(error)")
        }
    }
}
