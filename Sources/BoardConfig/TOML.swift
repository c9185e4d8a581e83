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
