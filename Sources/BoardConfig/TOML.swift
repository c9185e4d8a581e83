/// A TOML value as the board-file subset of TOML knows it.
public indirect enum TOMLValue: Sendable, Equatable {
    /// A basic (`"..."`) or literal (`'...'`) string.
    case string(String)
    /// An integer: decimal, or `0x`/`0o`/`0b` with a radix prefix.
    case integer(Int)
    /// A finite floating-point number.
    case float(Double)
    /// `true` or `false`.
    case boolean(Bool)
    /// An array, possibly nested (rows of a matrix) and possibly of tables (`[[name]]`).
    case array([TOMLNode])
    /// A table (`[name]` or one element of `[[name]]`).
    case table(TOMLTable)

    /// The type's name as error messages use it: `a string`, `an integer`, ...
    public var typeName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a float"
        case .boolean: return "a boolean"
        case .array: return "an array"
        case .table: return "a table"
        }
    }
}

/// A value and where it starts in its file. Equality compares the values only.
public struct TOMLNode: Sendable, Equatable {
    /// The value.
    public var value: TOMLValue
    /// Where the value (or, for a table, its header) starts.
    public var location: SourceLocation

    /// Creates a node.
    public init(_ value: TOMLValue, at location: SourceLocation) {
        self.value = value
        self.location = location
    }

    /// Equal when the values are equal; locations are ignored.
    public static func == (a: TOMLNode, b: TOMLNode) -> Bool { a.value == b.value }
}

/// A TOML table: keys in file order, each with its value. Equality ignores order and locations.
public struct TOMLTable: Sendable, Equatable {
    /// One key and its value.
    public struct Entry: Sendable {
        /// The key, without quotes.
        public var key: String
        /// Where the key is written (for a table, where its header is).
        public var keyLocation: SourceLocation
        /// The value.
        public var node: TOMLNode

        /// Creates an entry.
        public init(key: String, keyLocation: SourceLocation, node: TOMLNode) {
            self.key = key
            self.keyLocation = keyLocation
            self.node = node
        }
    }

    /// The entries in the order they appear in the file.
    public var entries: [Entry]

    /// Creates a table from its entries.
    public init(entries: [Entry] = []) { self.entries = entries }

    /// The entry for `key`, if present.
    public func entry(_ key: String) -> Entry? { entries.first { $0.key == key } }

    /// The value for `key`, if present.
    public subscript(key: String) -> TOMLValue? { entry(key)?.node.value }

    /// Equal when both have the same keys with equal values, in any order.
    public static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        guard a.entries.count == b.entries.count else { return false }
        for entry in a.entries {
            guard let other = b.entry(entry.key), other.node == entry.node else { return false }
        }
        return true
    }
}

/// The board-file subset of TOML: `# comments`, `key = value`, `[table]`, `[[array-of-tables]]`,
/// basic strings with escapes, literal strings, integers (decimal, `0x`, `0o`, `0b`, `_`
/// separators), finite floats, booleans and (nested, multi-line) arrays.
///
/// Not supported, each with its own error: dotted keys and headers, inline tables, multi-line
/// strings, dates and times, `inf` and `nan`.
public enum TOML {
    /// Arrays nested deeper than this are rejected (a matrix needs 2).
    public static let maximumNesting = 16

    /// Parses `text` into its root table. Total: any input either parses or throws a
    /// ``BoardError`` naming `file`, the line and column and, where there is one, the key.
    public static func parse(text: String, file: String) throws(BoardError) -> TOMLTable {
        var parser = TOMLParser(text: text, file: file)
        return try parser.parseDocument()
    }

    /// Writes `table` as TOML that ``parse(text:file:)`` reads back to an equal table, or returns
    /// `nil` when the table has a shape this subset cannot write (tables inside tables, arrays
    /// mixing tables with other values, non-finite floats).
    public static func serialize(_ table: TOMLTable) -> String? {
        var head = ""
        var tail = ""
        for entry in table.entries {
            switch entry.node.value {
            case .table(let inner):
                guard let body = serializeValues(inner) else { return nil }
                tail += "\n[\(serializeKey(entry.key))]\n" + body
            case .array(let elements) where !elements.isEmpty && elements.allSatisfy(\.isTable):
                for element in elements {
                    guard case .table(let inner) = element.value, let body = serializeValues(inner) else { return nil }
                    tail += "\n[[\(serializeKey(entry.key))]]\n" + body
                }
            default:
                guard let value = serializeValue(entry.node.value) else { return nil }
                head += "\(serializeKey(entry.key)) = \(value)\n"
            }
        }
        return head + tail
    }

    private static func serializeValues(_ table: TOMLTable) -> String? {
        var text = ""
        for entry in table.entries {
            guard let value = serializeValue(entry.node.value) else { return nil }
            text += "\(serializeKey(entry.key)) = \(value)\n"
        }
        return text
    }

    private static func serializeValue(_ value: TOMLValue) -> String? {
        switch value {
        case .string(let string): return quote(string)
        case .integer(let integer): return String(integer)
        case .float(let double):
            guard double.isFinite else { return nil }
            let text = String(double)
            return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
        case .boolean(let bool): return bool ? "true" : "false"
        case .array(let elements):
            var parts: [String] = []
            for element in elements {
                guard let part = serializeValue(element.value) else { return nil }
                parts.append(part)
            }
            return "[" + parts.joined(separator: ", ") + "]"
        case .table: return nil
        }
    }

    private static func serializeKey(_ key: String) -> String {
        let bare = !key.isEmpty && key.utf8.allSatisfy(TOMLParser.isBareKeyByte)
        return bare ? key : quote(key)
    }

    /// `string` as a TOML basic string with the escapes it needs.
    static func quote(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }
}

extension TOMLNode {
    var isTable: Bool {
        if case .table = value { return true }
        return false
    }
}

/// The parser behind ``TOML/parse(text:file:)``: one pass over the UTF-8 bytes.
struct TOMLParser {
    private let bytes: [UInt8]
    private let file: String
    private var position = 0
    private var line = 1
    private var lineStart = 0

    /// The root's own key/value entries.
    private var root: [TOMLTable.Entry] = []
    /// Every table header's table, in file order.
    private var tables: [(name: String, header: SourceLocation, isArrayElement: Bool, table: TOMLTable)] = []
    /// Which table new keys go into: nil for the root, else an index into `tables`.
    private var current: Int?
    /// First location of every root-level name (keys and headers).
    private var rootNames: [String: (location: SourceLocation, kind: RootKind)] = [:]
    /// Keys seen in the current table, for duplicate detection.
    private var currentKeys: [String: SourceLocation] = [:]

    private enum RootKind { case value, table, arrayOfTables }

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

    private mutating func parseHeader() throws(BoardError) {
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

    private mutating func parseKeyValue() throws(BoardError) {
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
    private mutating func endOfLine(key: String?) throws(BoardError) {
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

    private mutating func skipComment() throws(BoardError) {
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

    private mutating func parseKey() throws(BoardError) -> String {
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

    // MARK: Values

    private mutating func parseValue(key: String, depth: Int) throws(BoardError) -> TOMLNode {
        let start = location()
        guard let byte = peek() else { throw error("expected a value, found the end of the file", key: key) }
        switch byte {
        case UInt8(ascii: "\""):
            return TOMLNode(.string(try parseBasicString(key: key)), at: start)
        case UInt8(ascii: "'"):
            return TOMLNode(.string(try parseLiteralString(key: key)), at: start)
        case UInt8(ascii: "["):
            return TOMLNode(try parseArray(key: key, depth: depth + 1), at: start)
        case UInt8(ascii: "{"):
            throw error("inline tables are not supported in board files; use a [table]", key: key)
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
            throw error("expected a value after '='", key: key)
        default:
            return TOMLNode(try parseScalarToken(key: key), at: start)
        }
    }

    private mutating func parseArray(key: String, depth: Int) throws(BoardError) -> TOMLValue {
        if depth > TOML.maximumNesting {
            throw error("arrays nested more than \(TOML.maximumNesting) deep", key: key)
        }
        let open = location()
        advance()  // [
        var elements: [TOMLNode] = []
        while true {
            try skipArraySpace(key: key, open: open)
            if peek() == UInt8(ascii: "]") { advance(); return .array(elements) }
            elements.append(try parseValue(key: key, depth: depth))
            try skipArraySpace(key: key, open: open)
            guard let byte = peek() else { break }
            if byte == UInt8(ascii: ",") { advance(); continue }
            if byte == UInt8(ascii: "]") { advance(); return .array(elements) }
            throw error("expected ',' or ']' in the array\(found())", key: key)
        }
        throw error("unterminated array (the '[' at \(open) has no ']')", key: key)
    }

    /// Whitespace, newlines and comments between array elements.
    private mutating func skipArraySpace(key: String, open: SourceLocation) throws(BoardError) {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): advance()
            case UInt8(ascii: "\n"): newline()
            case UInt8(ascii: "\r") where peek(1) == UInt8(ascii: "\n"): advance(); newline()
            case UInt8(ascii: "#"): try skipComment()
            default: return
            }
        }
        throw error("unterminated array (the '[' at \(open) has no ']')", key: key)
    }

    private mutating func parseBasicString(key: String?) throws(BoardError) -> String {
        let open = location()
        if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
            throw error("multi-line strings are not supported in board files; use an array of strings", key: key)
        }
        advance()
        var out: [UInt8] = []
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &out, key: key)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("unterminated string (the '\"' at \(open) has no closing '\"' on its line)", key: key, at: open)
            default:
                if isControl(byte) { throw error("control character \(describeCurrent()) in a string; write it as an escape", key: key) }
                out.append(byte)
                advance()
            }
        }
        throw error("unterminated string (the '\"' at \(open) has no closing '\"' on its line)", key: key, at: open)
    }

    private mutating func parseEscape(into out: inout [UInt8], key: String?) throws(BoardError) {
        let escapeLocation = location()
        advance()  // backslash
        guard let byte = peek() else { throw error("unterminated string (it ends after a '\\')", key: key, at: escapeLocation) }
        let simple: UInt8?
        switch byte {
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        default: simple = nil
        }
        if let simple {
            out.append(simple)
            advance()
            return
        }
        let digits: Int
        switch byte {
        case UInt8(ascii: "u"): digits = 4
        case UInt8(ascii: "U"): digits = 8
        default:
            throw error(
                "invalid escape '\\\(describeCurrent(quoted: false))' (allowed: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)",
                key: key, at: escapeLocation)
        }
        advance()
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = peek().flatMap(hexValue) else {
                throw error("'\\\(byte == UInt8(ascii: "u") ? "u" : "U")' needs exactly \(digits) hexadecimal digits", key: key, at: escapeLocation)
            }
            value = value << 4 | UInt32(digit)
            advance()
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw error("escape U+\(String(value, radix: 16, uppercase: true)) is not a Unicode scalar value", key: key, at: escapeLocation)
        }
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    private mutating func parseLiteralString(key: String?) throws(BoardError) -> String {
        let open = location()
        if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") {
            throw error("multi-line strings are not supported in board files; use an array of strings", key: key)
        }
        advance()
        let start = position
        while let byte = peek() {
            if byte == UInt8(ascii: "'") {
                let text = String(decoding: bytes[start..<position], as: UTF8.self)
                advance()
                return text
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            if isControl(byte) { throw error("control character \(describeCurrent()) in a string", key: key) }
            advance()
        }
        throw error("unterminated string (the \"'\" at \(open) has no closing \"'\" on its line)", key: key, at: open)
    }

    /// Booleans, integers and floats: a run of token characters, then its interpretation.
    private mutating func parseScalarToken(key: String) throws(BoardError) -> TOMLValue {
        let start = position
        let startLocation = location()
        while let byte = peek(), Self.isTokenByte(byte) { advance() }
        guard position > start else {
            throw error("expected a value (a string, number, boolean or array)\(found())", key: key)
        }
        let token = Array(bytes[start..<position])
        let text = String(decoding: token, as: UTF8.self)
        if text == "true" { return .boolean(true) }
        if text == "false" { return .boolean(false) }
        if let value = Self.number(token) { return value }
        let message: String
        if text.hasSuffix("inf") || text.hasSuffix("nan") {
            message = "'\(text)' is not allowed in board files (numbers must be finite)"
        } else if token.contains(UInt8(ascii: ":")) || (token.count >= 8 && token[4] == UInt8(ascii: "-") && token.first.map(isDigit) == true) {
            message = "dates and times are not supported in board files; write '\(text)' as a string"
        } else if Self.looksNumeric(token) {
            message = "'\(text)' is not a valid number (or is out of range)"
        } else {
            message = "'\(text)' is not a value; strings need double quotes: \"\(text)\""
        }
        throw error(message, key: key, at: startLocation)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    private static func looksNumeric(_ token: [UInt8]) -> Bool {
        guard let first = token.first else { return false }
        return isDigit(first) || first == UInt8(ascii: "+") || first == UInt8(ascii: "-") || first == UInt8(ascii: ".")
    }

    /// Interprets a token as a TOML integer or float, or returns nil.
    static func number(_ token: [UInt8]) -> TOMLValue? {
        if token.count > 2, token[0] == UInt8(ascii: "0") {
            let radix: Int?
            switch token[1] {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: radix = nil
            }
            if let radix {
                guard let digits = digitRun(token[2...], radix: radix) else { return nil }
                return integer(digits, radix: radix, negative: false).map(TOMLValue.integer)
            }
        }
        var body = token[...]
        var negative = false
        if let sign = body.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        // Integer part, then optional fraction and exponent.
        var index = body.startIndex
        while index < body.endIndex, isDigit(body[index]) || body[index] == UInt8(ascii: "_") { index += 1 }
        guard let integerDigits = digitRun(body[body.startIndex..<index], radix: 10) else { return nil }
        if integerDigits.count > 1, integerDigits.first == UInt8(ascii: "0") { return nil }  // no leading zeros
        if index == body.endIndex {
            return integer(integerDigits, radix: 10, negative: negative).map(TOMLValue.integer)
        }
        var normalized: [UInt8] = negative ? [UInt8(ascii: "-")] : []
        normalized += integerDigits
        if body[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < body.endIndex, isDigit(body[index]) || body[index] == UInt8(ascii: "_") { index += 1 }
            guard let fraction = digitRun(body[fractionStart..<index], radix: 10) else { return nil }
            normalized.append(UInt8(ascii: "."))
            normalized += fraction
        }
        if index < body.endIndex, body[index] == UInt8(ascii: "e") || body[index] == UInt8(ascii: "E") {
            index += 1
            normalized.append(UInt8(ascii: "e"))
            if index < body.endIndex, body[index] == UInt8(ascii: "+") || body[index] == UInt8(ascii: "-") {
                normalized.append(body[index])
                index += 1
            }
            guard let exponent = digitRun(body[index...], radix: 10) else { return nil }
            normalized += exponent
            index = body.endIndex
        }
        guard index == body.endIndex, let value = Double(String(decoding: normalized, as: UTF8.self)), value.isFinite else {
            return nil
        }
        return .float(value)
    }

    /// The digits of `run` without `_` separators, or nil when it is empty, has a digit outside
    /// `radix` or misplaces an underscore (each `_` must sit between two digits).
    private static func digitRun(_ run: ArraySlice<UInt8>, radix: Int) -> [UInt8]? {
        var digits: [UInt8] = []
        var previousWasDigit = false
        for byte in run {
            if byte == UInt8(ascii: "_") {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
                continue
            }
            guard let value = hexValue(byte), Int(value) < radix else { return nil }
            digits.append(byte)
            previousWasDigit = true
        }
        guard previousWasDigit, !digits.isEmpty else { return nil }
        return digits
    }

    private static func integer(_ digits: [UInt8], radix: Int, negative: Bool) -> Int? {
        var value = 0
        for digit in digits {
            guard let d = hexValue(digit) else { return nil }
            let (shifted, o1) = value.multipliedReportingOverflow(by: radix)
            let (next, o2) = negative ? shifted.subtractingReportingOverflow(Int(d)) : shifted.addingReportingOverflow(Int(d))
            if o1 || o2 { return nil }
            value = next
        }
        return value
    }

    // MARK: Cursor

    private func peek(_ offset: Int = 0) -> UInt8? {
        let index = position + offset
        return index < bytes.count ? bytes[index] : nil
    }

    private mutating func advance() { position += 1 }

    /// Consumes a `\n` and starts a new line.
    private mutating func newline() {
        position += 1
        line += 1
        lineStart = position
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { advance() }
    }

    private func location() -> SourceLocation {
        var column = 1
        var index = lineStart
        let end = min(position, bytes.count)
        while index < end {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return SourceLocation(line: line, column: column)
    }

    private func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    /// The character at the cursor, for messages: `'x'` or `U+0000`.
    private func describeCurrent(quoted: Bool = true) -> String {
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
    private func found() -> String {
        guard let byte = peek() else { return ", found the end of the file" }
        if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return ", found the end of the line" }
        if byte == UInt8(ascii: " ") { return ", found a space" }
        return ", found \(describeCurrent())"
    }

    private func error(_ message: String, key: String? = nil, at location: SourceLocation? = nil) -> BoardError {
        BoardError(file: file, location: location ?? self.location(), key: key, message: message)
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
