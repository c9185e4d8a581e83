/// The SASL exchange that opens a D-Bus connection, as text lines: `AUTH EXTERNAL` with the
/// caller's uid in hex, the server's `OK <guid>`, then `BEGIN`.
public enum DBusAuth {
    /// The bytes a client sends first: a nul byte, then `AUTH EXTERNAL <uid as hex of its decimal digits>`.
    public static func authExternal(uid: UInt32) -> [UInt8] {
        let digits = Array(String(uid).utf8)
        let hex = Array("0123456789abcdef".utf8)
        var line: [UInt8] = [0] + Array("AUTH EXTERNAL ".utf8)
        for digit in digits {
            line.append(hex[Int(digit >> 4)])
            line.append(hex[Int(digit & 0xF)])
        }
        return line + Array("\r\n".utf8)
    }

    /// The line that ends authentication; the binary protocol starts right after it.
    public static let begin: [UInt8] = Array("BEGIN\r\n".utf8)

    /// What the server answered to `AUTH`.
    public enum Reply: Equatable, Sendable {
        /// Accepted; the server's GUID.
        case ok(guid: String)
        /// Refused; the mechanisms the server offers.
        case rejected(mechanisms: [String])
        /// `ERROR` or any other line.
        case other(String)
    }

    /// The longest server line accepted.
    public static let maximumLineLength = 512

    /// Takes one `\r\n`-terminated line from the front of `buffer` and reads it; `nil` until a whole
    /// line is there.
    ///
    /// - Throws: ``DBusWireError`` for a line longer than ``maximumLineLength`` or not ASCII.
    public static func reply(from buffer: inout [UInt8]) throws(DBusWireError) -> Reply? {
        var end: Int?
        for index in buffer.indices.dropFirst() where buffer[index - 1] == 13 && buffer[index] == 10 {
            end = index - 1
            break
        }
        guard let end else {
            if buffer.count > maximumLineLength { throw DBusWireError(offset: 0, "authentication line over \(maximumLineLength) bytes") }
            return nil
        }
        guard end <= maximumLineLength else { throw DBusWireError(offset: 0, "authentication line over \(maximumLineLength) bytes") }
        let line = buffer[0..<end]
        if let bad = line.firstIndex(where: { $0 < 0x20 || $0 > 0x7E }) {
            throw DBusWireError(offset: bad, "authentication line has byte 0x\(String(line[bad], radix: 16))")
        }
        buffer.removeFirst(end + 2)
        let words = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        switch words.first {
        case "OK" where words.count == 2: return .ok(guid: words[1])
        case "REJECTED": return .rejected(mechanisms: Array(words.dropFirst()))
        default: return .other(String(decoding: line, as: UTF8.self))
        }
    }
}
