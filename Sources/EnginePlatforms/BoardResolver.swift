import BoardConfig
import Foundation
import HardwareInterfaces

/// Finds a board by name or path, the way every command's `--board` does.
public enum BoardResolver {
    /// Loads a board: a path to a board file (anything containing `/` or ending in `.toml`), or
    /// the name of a built-in board. Errors name the file, the line and the key.
    public static func load(_ nameOrPath: String) throws(BoardError) -> BoardDescription {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".toml") {
            guard let data = FileManager.default.contents(atPath: nameOrPath) else {
                throw BoardError(file: nameOrPath, location: nil, key: nil,
                                 message: "cannot read the board file (no such file, or no permission)")
            }
            return try BoardLoader.load(text: String(decoding: data, as: UTF8.self), file: nameOrPath)
        }
        return try BoardCatalog.load(builtin: nameOrPath)
    }

    /// Several lines describing a board for a person.
    public static func describe(_ b: BoardDescription) -> String {
        var out = "\(b.name): \(b.title)\(b.simulated ? " (simulated)" : "")\n"
        if let r = b.receiver {
            out += "  receiver   \(r.detectsFamily ? "auto" : r.family.rawValue)\(r.model.map { " \($0)" } ?? "") on \(r.uart ?? "(simulated)") at \(r.baudRate.rawValue) baud"
            out += r.wake.isEmpty ? "\n" : ", wakes by \(r.wake.map(\.rawValue).joined(separator: ", "))\n"
        }
        if let bus = b.i2cBus { out += "  i2c        bus \(bus)\n" }
        for s in b.sensors {
            out += "  sensor     \(s.chip.rawValue) at \(s.address) (\(s.role.rawValue))"
            if s.orientation != .identity { out += ", mounted \(s.orientation.rows.map { "[" + $0.map { String(format: "%g", $0) }.joined(separator: " ") + "]" }.joined())" }
            out += "\n"
        }
        if let g = b.gpio {
            let lines = g.lines.keys.sorted().map { "\($0.rawValue)=\(g.lines[$0]!)" }.joined(separator: ", ")
            out += "  gpio       \(g.chip): \(lines)\n"
            if let device = g.ppsDevice { out += "  pps        \(device) (kernel PPS device, RFC 2783)\n" }
        }
        for note in b.setupNotes { out += "  setup      \(note)\n" }
        return out
    }
}
