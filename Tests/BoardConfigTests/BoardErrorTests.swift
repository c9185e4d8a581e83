import BoardConfig
import Testing

/// A small valid real board; each bad input below changes one thing in it.
let validBoard = """
    name = "t"
    title = "Test"
    simulated = false

    [receiver]
    uart = "/dev/serial0"
    baud = 9600
    family = "mtk"

    [i2c]
    bus = 1

    [[sensor]]
    chip = "lis3mdl"
    address = 0x1c
    orientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

    [gpio]
    chip = "gpiochip0"
    mag_data_ready = "GPIO27"

    """

/// `validBoard` with `old` replaced by `new` (the test fails if `old` is not in it).
func board(replacing old: String, with new: String) -> String {
    let replaced = validBoard.replacingOccurrences(of: old, with: new)
    return replaced == validBoard && old != new ? "unchanged: \(old)" : replaced
}

extension String {
    fileprivate func replacingOccurrences(of old: String, with new: String) -> String {
        guard !old.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.range(of: old) {
            result += rest[..<range.lowerBound] + new
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

struct BadInput: CustomTestStringConvertible, Sendable {
    let label: String
    let text: String
    let expected: String
    var testDescription: String { label }
}

let badInputs: [BadInput] = [
    BadInput(label: "unknown key with a suggestion", text: board(replacing: "baud = 9600", with: "buad = 9600"),
             expected: "Boards/t.toml:7:1: key 'buad': unknown key in [receiver] (did you mean 'baud'?); allowed: name, uart, usb_vendor, usb_product, usb_serial, baud, family, model, wake, output, time_offset, receiver_config, leap_seconds, batch"),
    BadInput(label: "batching on a receiver without it", text: board(replacing: "baud = 9600", with: "baud = 9600\nbatch = 300"),
             expected: "Boards/t.toml:8:9: key 'batch': receiver-side batching needs a u-blox M8 (data batching), not mtk"),
    BadInput(label: "batching on a receiver whose family is detected", text: board(replacing: "family = \"mtk\"", with: "family = \"auto\"\nbatch = 300"),
             expected: "Boards/t.toml:9:9: key 'batch': receiver-side batching needs a u-blox M8 (data batching), not a family detected on arrival (name family = \"ublox\")"),
    BadInput(label: "a batch buffer out of range", text: board(replacing: "family = \"mtk\"", with: "family = \"ublox\"\nbatch = 5000"),
             expected: "Boards/t.toml:9:9: key 'batch': 5000 fixes: the receiver's buffer holds 1 to 1000"),
    BadInput(label: "a batch that is not a number of fixes", text: board(replacing: "family = \"mtk\"", with: "family = \"ublox\"\nbatch = true"),
             expected: "Boards/t.toml:9:9: key 'batch': expected a whole number of fixes (1 to 1000), found a boolean"),
    BadInput(label: "unknown table with a suggestion", text: board(replacing: "[receiver]", with: "[reciever]"),
             expected: "Boards/t.toml:5:1: key 'reciever': unknown key in the top level (did you mean 'receiver'?); allowed: name, title, simulated, receiver, i2c, sensor, gpio, setup, sim, replay, bluetooth, bluetooth_backend, beacon_path_loss_exponent, beacon_power_1m, beacon, ntrip, gpsd_clients"),
    BadInput(label: "unknown key without a close match", text: board(replacing: "bus = 1", with: "speed = 400000"),
             expected: "Boards/t.toml:11:1: key 'speed': unknown key in [i2c]; allowed: bus"),
    BadInput(label: "bad baud", text: board(replacing: "baud = 9600", with: "baud = 9601"),
             expected: "Boards/t.toml:7:8: key 'baud': 9601 is not a supported baud rate (4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)"),
    BadInput(label: "address not allowed for the chip", text: board(replacing: "0x1c", with: "0x1d"),
             expected: "Boards/t.toml:15:11: key 'address': lis3mdl cannot be at address 0x1d; it answers at 0x1c or 0x1e"),
    BadInput(label: "address out of byte range", text: board(replacing: "0x1c", with: "300"),
             expected: "Boards/t.toml:15:11: key 'address': lis3mdl cannot be at address 300; it answers at 0x1c or 0x1e"),
    BadInput(label: "non-orthonormal matrix", text: board(replacing: "[0, 0, 1]]", with: "[0, 0, 2]]"),
             expected: "Boards/t.toml:16:15: key 'orientation': the matrix is not orthonormal (rows must be unit length and perpendicular; off by 3.0); each row should be a body axis written in sensor axes"),
    BadInput(label: "slightly sheared matrix", text: board(replacing: "[0, 1, 0], [0, 0, 1]]", with: "[0.001, 1, 0], [0, 0, 1]]"),
             expected: "Boards/t.toml:16:15: key 'orientation': the matrix is not orthonormal (rows must be unit length and perpendicular; off by 0.001); each row should be a body axis written in sensor axes"),
    BadInput(label: "reflected matrix", text: board(replacing: "[0, 0, 1]]", with: "[0, 0, -1]]"),
             expected: "Boards/t.toml:16:15: key 'orientation': the matrix has determinant -1.0, not +1: it is a reflection (a mirrored axis), not a rotation; negate one row"),
    BadInput(label: "matrix of the wrong shape", text: board(replacing: "[0, 0, 1]]", with: "[0, 0]]"),
             expected: "Boards/t.toml:16:15: key 'orientation': expected a 3x3 matrix of numbers, e.g. [[1, 0, 0], [0, 1, 0], [0, 0, 1]]"),
    BadInput(label: "duplicate key", text: board(replacing: "baud = 9600\n", with: "baud = 9600\nbaud = 38400\n"),
             expected: "Boards/t.toml:8:1: key 'baud': duplicate key (first defined at 7:1)"),
    BadInput(label: "duplicate table", text: validBoard + "[i2c]\nbus = 2\n",
             expected: "Boards/t.toml:21:1: key 'i2c': table [i2c] is already defined at 10:1"),
    BadInput(label: "duplicate address",
             text: board(replacing: "[gpio]", with: "[[sensor]]\nchip = \"lis3mdl\"\naddress = 0x1c\norientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n\n[gpio]"),
             expected: "Boards/t.toml:20:11: key 'address': two sensors at address 0x1c on one bus (the other is at 15:11)"),
    BadInput(label: "unterminated string", text: board(replacing: "\"/dev/serial0\"", with: "\"/dev/serial0"),
             expected: "Boards/t.toml:6:8: key 'uart': unterminated string (the '\"' at 6:8 has no closing '\"' on its line)"),
    BadInput(label: "bad escape", text: board(replacing: "\"gpiochip0\"", with: "\"gpio\\qchip0\""),
             expected: "Boards/t.toml:19:13: key 'chip': invalid escape '\\q' (allowed: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)"),
    BadInput(label: "surrogate escape", text: board(replacing: "\"gpiochip0\"", with: "\"\\uD800\""),
             expected: "Boards/t.toml:19:9: key 'chip': escape U+D800 is not a Unicode scalar value"),
    BadInput(label: "wrong type", text: board(replacing: "baud = 9600", with: "baud = \"9600\""),
             expected: "Boards/t.toml:7:8: key 'baud': expected an integer, found a string"),
    BadInput(label: "wrong type for a boolean", text: board(replacing: "simulated = false", with: "simulated = 0"),
             expected: "Boards/t.toml:3:13: key 'simulated': expected true or false, found an integer"),
    BadInput(label: "unknown family with a suggestion", text: board(replacing: "\"mtk\"", with: "\"ubox\""),
             expected: "Boards/t.toml:8:10: key 'family': 'ubox' is not one of ublox, mtk, casic, generic-nmea, auto (did you mean 'ublox'?)"),
    BadInput(label: "unknown chip with a suggestion", text: board(replacing: "\"lis3mdl\"", with: "\"lis3mdI\""),
             expected: "Boards/t.toml:14:8: key 'chip': 'lis3mdI' is not one of lsm303agr-accel, lsm303agr-mag, lis3mdl, lsm6dsox, qmc5883l, icm20948, ak09916, mmc5983ma (did you mean 'lis3mdl'?)"),
    BadInput(label: "missing [receiver] on a real board",
             text: board(replacing: "[receiver]\nuart = \"/dev/serial0\"\nbaud = 9600\nfamily = \"mtk\"\n", with: ""),
             expected: "Boards/t.toml:3:13: key 'receiver': a real board (simulated = false) needs a [receiver] table with uart and baud (and family, or it is detected)"),
    BadInput(label: "missing uart on a real board", text: board(replacing: "uart = \"/dev/serial0\"\n", with: ""),
             expected: "Boards/t.toml:5:1: key 'uart': missing required key in [receiver]: a real board needs the serial device, e.g. \"/dev/serial0\", or usb_vendor and usb_product"),
    BadInput(label: "missing required key", text: board(replacing: "title = \"Test\"\n", with: ""),
             expected: "Boards/t.toml:1:1: key 'title': missing required key in the top level (a human name for the board)"),
    BadInput(label: "data_ready naming no line", text: board(replacing: "[gpio]", with: "data_ready = \"accel_data_ready\"\n\n[gpio]"),
             expected: "Boards/t.toml:18:14: key 'data_ready': 'accel_data_ready' names no line: add accel_data_ready to [gpio]"),
    BadInput(label: "wake method without its line", text: board(replacing: "family = \"mtk\"", with: "family = \"ublox\"\nwake = [\"uart-byte\", \"extint\"]"),
             expected: "Boards/t.toml:9:22: key 'wake': wake method 'extint' needs a line in [gpio] gnss_extint"),
    BadInput(label: "one line used twice", text: board(replacing: "mag_data_ready = \"GPIO27\"", with: "gnss_pps = \"GPIO27\"\nmag_data_ready = \"GPIO27\""),
             expected: "Boards/t.toml:21:18: key 'mag_data_ready': GPIO27 is already used by 'gnss_pps'"),
    BadInput(label: "name does not match the file", text: board(replacing: "name = \"t\"", with: "name = \"other\""),
             expected: "Boards/t.toml:1:8: key 'name': 'other' does not match the file name; it must be 't'"),
    BadInput(label: "[sensor] instead of [[sensor]]", text: board(replacing: "[[sensor]]", with: "[sensor]"),
             expected: "Boards/t.toml:13:1: key 'sensor': expected one [[sensor]] table per item, found a table"),
    BadInput(label: "[sim] on a real board", text: validBoard + "[sim]\nlatitude = 1\nlongitude = 2\n",
             expected: "Boards/t.toml:21:1: key 'sim': [sim] is only allowed when simulated = true"),
    BadInput(label: "simulated board without [sim]", text: board(replacing: "simulated = false", with: "simulated = true"),
             expected: "Boards/t.toml:3:13: key 'sim': a simulated board needs a [sim] table with at least latitude and longitude"),
    BadInput(label: "AK09916 without its ICM-20948",
             text: board(replacing: "chip = \"lis3mdl\"\naddress = 0x1c", with: "chip = \"ak09916\"\naddress = 0x0c"),
             expected: "Boards/t.toml:14:8: key 'chip': the AK09916 answers only through an ICM-20948's I2C bypass; add a [[sensor]] with chip = \"icm20948\""),
    BadInput(label: "dotted key", text: board(replacing: "bus = 1", with: "bus.number = 1"),
             expected: "Boards/t.toml:11:4: key 'bus': dotted keys are not supported in board files; put 'bus' in its own [table]"),
    BadInput(label: "inline table", text: board(replacing: "bus = 1", with: "bus = { number = 1 }"),
             expected: "Boards/t.toml:11:7: key 'bus': inline tables are not supported in board files; use a [table]"),
    BadInput(label: "bare word value", text: board(replacing: "\"mtk\"", with: "mtk"),
             expected: "Boards/t.toml:8:10: key 'family': 'mtk' is not a value; strings need double quotes: \"mtk\""),
    BadInput(label: "integer overflow", text: board(replacing: "bus = 1", with: "bus = 99999999999999999999"),
             expected: "Boards/t.toml:11:7: key 'bus': '99999999999999999999' is not a valid number (or is out of range)"),
    BadInput(label: "leading zero", text: board(replacing: "bus = 1", with: "bus = 01"),
             expected: "Boards/t.toml:11:7: key 'bus': '01' is not a valid number (or is out of range)"),
    BadInput(label: "unterminated array", text: "name = \"t\"\nrows = [1, 2,\n# comment\n",
             expected: "Boards/t.toml:4:1: key 'rows': unterminated array (the '[' at 2:8 has no ']')"),
    BadInput(label: "text after a value", text: board(replacing: "bus = 1", with: "bus = 1 2"),
             expected: "Boards/t.toml:11:9: key 'bus': expected the end of the line, found '2'"),
    BadInput(label: "binary garbage", text: String(decoding: [0x00, 0xFF, 0xFE, 0x13, 0x37, 0x0A, 0x80], as: UTF8.self),
             expected: "Boards/t.toml:1:1: expected a key (letters, digits, '_' or '-'), a [table] or a comment, found U+0000"),
    BadInput(label: "invalid UTF-8 as a key", text: String(decoding: [0xC3, 0x28, 0x20, 0x3D, 0x20, 0x31], as: UTF8.self),
             expected: "Boards/t.toml:1:1: expected a key (letters, digits, '_' or '-'), a [table] or a comment, found U+FFFD"),
    BadInput(label: "control character in a comment", text: "# bell \u{07}\nname = \"t\"\n",
             expected: "Boards/t.toml:1:8: control character U+0007 in a comment"),
    BadInput(label: "empty file", text: "",
             expected: "Boards/t.toml:1:1: the file is empty; a board file needs at least name, title and simulated"),
    BadInput(label: "only comments", text: "# nothing here\n\n   # really\n",
             expected: "Boards/t.toml:1:1: the file is empty; a board file needs at least name, title and simulated"),
]

@Suite("Board errors")
struct BoardErrorTests {
    @Test("the valid base board loads (so each bad input fails for its own reason)")
    func baseIsValid() throws {
        let board = try BoardLoader.load(text: validBoard, file: "Boards/t.toml")
        #expect(board.sensors.count == 1)
        #expect(board.receiver?.baudRate.rawValue == 9600)
    }

    @Test("each bad input gives its exact error", arguments: badInputs)
    func badInput(_ input: BadInput) {
        #expect(!input.text.hasPrefix("unchanged: "), "the edit did not apply: \(input.text)")
        do {
            let board = try BoardLoader.load(text: input.text, file: "Boards/t.toml")
            Issue.record("loaded without error: \(board.name)")
        } catch {
            #expect(error.description == input.expected)
        }
    }

    @Test("a data-ready key naming an output line is rejected")
    func dataReadyOutput() {
        let text = board(replacing: "[gpio]", with: "data_ready = \"gnss_reset\"\n\n[gpio]\ngnss_reset = \"GPIO5\"")
        #expect(throws: BoardError(file: "Boards/t.toml", location: SourceLocation(line: 18, column: 14), key: "data_ready",
                                   message: "'gnss_reset' is an output line, not a data-ready input")) {
            try BoardLoader.load(text: text, file: "Boards/t.toml")
        }
    }

    @Test("errors carry file, line, column and key as separate fields")
    func errorFields() {
        do {
            _ = try BoardLoader.load(text: board(replacing: "baud = 9600", with: "baud = 9601"), file: "board-x.txt")
            Issue.record("no error")
        } catch {
            #expect(error.file == "board-x.txt")
            #expect(error.line == 7 && error.column == 8)
            #expect(error.key == "baud")
        }
    }
}
