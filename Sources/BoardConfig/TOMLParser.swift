/// The parser behind ``TOML/parse(text:file:)``: one pass over the UTF-8 bytes.
struct TOMLParser {
    let bytes: [UInt8]
    let file: String
    var position = 0
    var line = 1
    var lineStart = 0

    /// The root's own key/value entries.
    var root: [TOMLTable.Entry] = []
    /// Every table header's table, in file order.
    var tables: [(name: String, header: SourceLocation, isArrayElement: Bool, table: TOMLTable)] = []
    /// Which table new keys go into: nil for the root, else an index into `tables`.
    var current: Int?
    /// First location of every root-level name (keys and headers).
    var rootNames: [String: (location: SourceLocation, kind: RootKind)] = [:]
    /// Keys seen in the current table, for duplicate detection.
    var currentKeys: [String: SourceLocation] = [:]

    enum RootKind { case value, table, arrayOfTables }

    init(text: String, file: String) {
        bytes = Array(text.utf8)
        self.file = file
        // A byte-order mark is not content.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3; lineStart = 3 }
    }

    mutating func parseDocument() throws(BoardError) -> TOMLTable {
        while position < bytes.count {
            skipWhitespace()
            guard let byte = peek() else { break }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
                try endOfLine(key: nil)
            case UInt8(ascii: "["):
                try parseHeader()
            default:
                try parseKeyValue()
            }
        }
        var entries = root
        var arrays: [String: Int] = [:]
        for table in tables {
            let node = TOMLNode(.table(table.table), at: table.header)
            if table.isArrayElement {
                if let index = arrays[table.name], case .array(var elements) = entries[index].node.value {
                    elements.append(node)
                    entries[index].node.value = .array(elements)
                } else {
                    arrays[table.name] = entries.count
                    entries.append(.init(key: table.name, keyLocation: table.header, node: TOMLNode(.array([node]), at: table.header)))
                }
            } else {
                entries.append(.init(key: table.name, keyLocation: table.header, node: node))
            }
        }
        return TOMLTable(entries: entries)
    }

    // MARK: Lines

    mutating func parseHeader() throws(BoardError) {
        let start = location()
        advance()  // [
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { advance() }
        skipWhitespace()
        let name = try parseKey()
        skipWhitespace()
        if peek() == UInt8(ascii: ".") {
            throw error("dotted table names are not supported in board files; use [\(name)]", key: name)
        }
        guard peek() == UInt8(ascii: "]") else {
            throw error("expected ']' to close the table header\(found())", key: name)
        }
        advance()
        if isArray {
            guard peek() == UInt8(ascii: "]") else { throw error("expected ']]' to close [[\(name)]]\(found())", key: name) }
            advance()
        }
        if let previous = rootNames[name] {
            switch (previous.kind, isArray) {
            case (.arrayOfTables, true): break
            case (.value, _):
                throw error("'\(name)' is already a value (at \(previous.location)); it cannot also be a table", key: name, at: start)
            case (.table, _):
                throw error("table [\(name)] is already defined at \(previous.location)", key: name, at: start)
            case (.arrayOfTables, false):
                throw error("'\(name)' is already an array of tables ([[\(name)]] at \(previous.location))", key: name, at: start)
            }
        } else {
            rootNames[name] = (start, isArray ? .arrayOfTables : .table)
        }
        tables.append((name, start, isArray, TOMLTable()))
        current = tables.count - 1
        currentKeys = [:]
        try endOfLine(key: name)
    }

    mutating func parseKeyValue() throws(BoardError) {
        let keyLocation = location()
        let key = try parseKey()
        skipWhitespace()
        if peek() == UInt8(ascii: ".") {
            throw error("dotted keys are not supported in board files; put '\(key)' in its own [table]", key: key)
        }
        guard peek() == UInt8(ascii: "=") else {
            throw error("expected '=' after the key\(found())", key: key)
        }
        advance()
        skipWhitespace()
        let node = try parseValue(key: key, depth: 0)
        if let current {
            if let first = currentKeys[key] {
                throw error("duplicate key (first defined at \(first))", key: key, at: keyLocation)
            }
            currentKeys[key] = keyLocation
            tables[current].table.entries.append(.init(key: key, keyLocation: keyLocation, node: node))
        } else {
            if let first = rootNames[key] {
                throw error("duplicate key (first defined at \(first.location))", key: key, at: keyLocation)
            }
            rootNames[key] = (keyLocation, .value)
            root.append(.init(key: key, keyLocation: keyLocation, node: node))
        }
        try endOfLine(key: key)
    }

    /// After a line's content: optional whitespace and comment, then a newline or the end.
    mutating func endOfLine(key: String?) throws(BoardError) {
        skipWhitespace()
        if peek() == UInt8(ascii: "#") { try skipComment() }
        guard let byte = peek() else { return }
        if byte == UInt8(ascii: "\n") {
            newline()
        } else if byte == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") {
            advance()
            newline()
        } else {
            throw error("expected the end of the line\(found())", key: key)
        }
    }

    mutating func skipComment() throws(BoardError) {
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { return }
            if isControl(byte) { throw error("control character \(describeCurrent()) in a comment") }
            advance()
        }
    }

    // MARK: Keys

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    mutating func parseKey() throws(BoardError) -> String {
        guard let byte = peek() else { throw error("expected a key, found the end of the file") }
        if byte == UInt8(ascii: "\"") { return try parseBasicString(key: nil) }
        if byte == UInt8(ascii: "'") { return try parseLiteralString(key: nil) }
        let start = position
        while let b = peek(), Self.isBareKeyByte(b) { advance() }
        guard position > start else {
            throw error("expected a key (letters, digits, '_' or '-'), a [table] or a comment\(found())")
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    // MARK: Cursor

    func peek(_ offset: Int = 0) -> UInt8? {
        let index = position + offset
        return index < bytes.count ? bytes[index] : nil
    }

    mutating func advance() { position += 1 }

    /// Consumes a `\n` and starts a new line.
    mutating func newline() {
        position += 1
        line += 1
        lineStart = position
    }

    mutating func skipWhitespace() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { advance() }
    }

    func location() -> SourceLocation {
        var column = 1
        var index = lineStart
        let end = min(position, bytes.count)
        while index < end {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return SourceLocation(line: line, column: column)
    }

    func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    /// The character at the cursor, for messages: `'x'` or `U+0000`.
    func describeCurrent(quoted: Bool = true) -> String {
        guard let byte = peek() else { return "the end of the file" }
        var length = 1
        if byte >= 0xF0 { length = 4 } else if byte >= 0xE0 { length = 3 } else if byte >= 0xC0 { length = 2 }
        let end = min(position + length, bytes.count)
        guard let scalar = String(decoding: bytes[position..<end], as: UTF8.self).unicodeScalars.first else {
            return "U+FFFD"
        }
        if scalar.value >= 0x21 && scalar.value < 0x7F {
            return quoted ? "'\(Character(scalar))'" : String(Character(scalar))
        }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `", found X"` for the character at the cursor.
    func found() -> String {
        guard let byte = peek() else { return ", found the end of the file" }
        if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return ", found the end of the line" }
        if byte == UInt8(ascii: " ") { return ", found a space" }
        return ", found \(describeCurrent())"
    }

    func error(_ message: String, key: String? = nil, at location: SourceLocation? = nil) -> BoardError {
        BoardError(file: file, location: location ?? self.location(), key: key, message: message)
    }
}
