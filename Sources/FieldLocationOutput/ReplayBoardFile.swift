import BoardConfig
import HardwareInterfaces

/// The replay board `fieldloc record` writes beside a recording (``path(out:)``): the recorded
/// board's sensor layout (chips, addresses, mounting, gyroscope), I2C bus,
/// Bluetooth adapter and PPS line, with `[replay]` naming the recording (and, for a board with
/// several receivers, each receiver by name: `receivers`). `fieldloc watch --board
/// unit-nmea-replay.toml` (for `-o unit.nmea`; or any command taking a board) then replays the session through the same
/// engine path, with no board file to write by hand; the calibration the unit applied travels in
/// the recording itself. Edit the mounting and replay again to see what it would have done.
public enum ReplayBoardFile {
    /// The path the board is written to for a recording whose raw log is `out`: beside it, named
    /// ``name(out:)`` (a board file is named after its board), `unit.nmea` → `unit-nmea-replay.toml`.
    public static func path(out: String) -> String {
        let parts = out.split(separator: "/", omittingEmptySubsequences: false)
        let folder = parts.dropLast().joined(separator: "/")
        return (parts.count > 1 ? folder + "/" : "") + name(out: out) + ".toml"
    }

    /// The replay board's name for a recording whose raw log is `out`: the log's file name in
    /// lower-case letters, digits and '-' (the characters of a board name), then `-replay`.
    public static func name(out: String) -> String {
        let file = out.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? out
        var name = ""
        for c in file.lowercased().unicodeScalars {
            let keep = ("a"..."z").contains(c) || ("0"..."9").contains(c)
            if keep { name.unicodeScalars.append(c) } else if !name.isEmpty && !name.hasSuffix("-") { name += "-" }
        }
        while name.hasSuffix("-") { name.removeLast() }
        return (name.isEmpty ? "recording" : name) + "-replay"
    }

    /// The board file's text for a recording of `board` whose raw log is `out` (named relative to
    /// the board file, which sits beside it). The board's name is ``name(out:)``.
    public static func text(recording board: BoardDescription, out: String) -> String {
        let logName = out.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? out
        var lines = [
            "# A replay of a recording 'fieldloc record' made on board \(board.name): the recorded board's",
            "# sensor layout (no [receiver]: a recording cannot answer the receiver's commands, and its",
            "# bytes are read whatever they hold). Edit the mounting and replay again to compare.",
            "name = \(quoted(name(out: out)))",
            "title = \(quoted("Replay of " + board.title))",
            "simulated = true",
        ]
        if let bluetooth = board.bluetooth { lines.append("bluetooth = \(quoted(bluetooth))") }
        if let n = board.beaconPathLossExponent { lines.append("beacon_path_loss_exponent = \(n)") }
        if let p = board.beaconPower1m { lines.append("beacon_power_1m = \(p)") }
        lines += ["", "[replay]", "log = \(quoted(logName))"]
        if board.receivers.count > 1 {
            // Each receiver's reads play on a port of its own, through the best-source rule.
            lines.append("receivers = [" + board.receivers.map { quoted($0.label) }.joined(separator: ", ") + "]")
        }
        if !board.sensors.isEmpty {
            lines += ["", "[i2c]", "bus = \(board.i2cBus ?? 1)"]
        }
        for s in board.sensors {
            lines += ["", "[[sensor]]"]
            if let chip = s.chip.entry.boardSpellings.first { lines.append("chip = \(quoted(chip))") }
            lines.append("address = 0x" + hex(s.address.rawValue))
            let rows = s.orientation.rows.map { row in "[" + row.map(number).joined(separator: ", ") + "]" }
            lines.append("orientation = [" + rows.joined(separator: ",\n               ") + "]")
            if let range = s.gyroscopeRange { lines.append("gyro = \(range)") }
            if s.gnssCourseAid { lines.append("gnss_course_aid = true") }
        }
        if let g = board.gpio, let pps = g.lines[.gnssPPS] {
            let name: String
            switch pps {
            case .name(let n): name = n
            case .offset(let o): name = "line\(o)"
            }
            lines += ["", "[gpio]", "chip = \(quoted(g.chip))", "gnss_pps = \(quoted(name))"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A TOML basic string: JSON's string escapes are TOML's (`\"`, `\\`, `\uXXXX`).
    static func quoted(_ text: String) -> String { RecordingEvents.quoted(text) }

    /// A mounting entry: whole numbers without a fraction, others with every digit.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
