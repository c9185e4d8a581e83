// A small strict JSON reader (RFC 8259) for command arguments and for checking our own reports.
// It works on borrowed bytes, reads every byte through a bounds check, limits nesting, and reports
// errors with the byte offset where they were found.

/// A parsed JSON value. Object members keep their order (gpsd's reports have a meaningful order).
public enum GPSDJSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any JSON number, as the nearest `Double` (always finite).
    case number(Double)
    /// A string with its escapes decoded.
    case string(String)
    /// An array.
    case array([GPSDJSONValue])
    /// An object, members in their original order (duplicates kept).
    case object([GPSDJSONMember])

    /// The deepest nesting of arrays and objects accepted; the outermost container is depth 1.
    public static let maxDepth = 16

    /// The value of the last member named `key`, when this is an object that has one.
    public subscript(key: String) -> GPSDJSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The member names of an object, in order (empty for other values).
    public var keys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.key)
    }

    /// Parses one complete JSON text; only whitespace may surround the value.
    ///
    /// - Throws: ``GPSDJSONError`` with the byte offset of the first problem.
    public static func parse(_ bytes: Span<UInt8>) throws(GPSDJSONError) -> GPSDJSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(GPSDJSONError) -> GPSDJSONValue in
            var reader = GPSDByteReader(buffer)
            reader.skipJSONWhitespace()
            let value = try reader.parseValue(depth: 1)
            reader.skipJSONWhitespace()
            guard reader.current == nil else { throw reader.error(.trailingData) }
            return value
        }
    }

    /// Parses one complete JSON text held in any byte collection (for example `line.utf8`).
    public static func parse(_ bytes: some Collection<UInt8>) throws(GPSDJSONError) -> GPSDJSONValue {
        try parse(Array(bytes).span)
    }

    /// Compact JSON text for this value (numbers in Swift's shortest round-trip form, which may use
    /// an exponent: this is for tests and diagnostics, not for reports).
    public var jsonText: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return value.description
        case .string(let value): return GPSDNumber.quoted(value)
        case .array(let values): return "[" + values.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { GPSDNumber.quoted($0.key) + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }
}

/// One member of a JSON object.
public struct GPSDJSONMember: Sendable, Equatable {
    /// The member name.
    public var key: String
    /// The member value.
    public var value: GPSDJSONValue

    /// A member named `key` holding `value`.
    public init(key: String, value: GPSDJSONValue) {
        self.key = key
        self.value = value
    }
}

/// Why JSON text was rejected, and at which byte offset (counted from the start of the bytes given to
/// the parser: for a command argument, from the start of the client's line).
public struct GPSDJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Equatable {
        /// The text ended inside a value.
        case unexpectedEnd
        /// A byte that cannot appear here; `expected` says what could.
        case unexpectedByte(UInt8, expected: String)
        /// A number that breaks JSON's grammar or does not fit a `Double`.
        case invalidNumber
        /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`.
        case invalidEscape
        /// A `\u` escape without four hex digits, or a lone or reversed UTF-16 surrogate.
        case invalidUnicodeEscape
        /// String bytes that are not well-formed UTF-8.
        case invalidUTF8
        /// A raw control character (below 0x20) inside a string.
        case controlCharacter
        /// Arrays/objects nested deeper than ``GPSDJSONValue/maxDepth``.
        case tooDeep(limit: Int)
        /// More than whitespace after the value.
        case trailingData
        /// A known member with a value of the wrong type or out of range.
        case invalidValue(key: String, expected: String)
    }

    /// What was wrong.
    public var reason: Reason
    /// Byte offset of the problem.
    public var offset: Int

    /// An error for `reason` at byte `offset`.
    public init(_ reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The reason in words, then `at byte N`.
    public var description: String {
        let what: String
        switch reason {
        case .unexpectedEnd: what = "unexpected end of text"
        case .unexpectedByte(let byte, let expected):
            let shown = (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
            what = "unexpected \(shown), expected \(expected)"
        case .invalidNumber: what = "invalid number"
        case .invalidEscape: what = "invalid escape"
        case .invalidUnicodeEscape: what = "invalid \\u escape"
        case .invalidUTF8: what = "invalid UTF-8 in string"
        case .controlCharacter: what = "control character in string"
        case .tooDeep(let limit): what = "nesting deeper than \(limit)"
        case .trailingData: what = "text after the value"
        case .invalidValue(let key, let expected): what = "\"\(key)\" must be \(expected)"
        }
        return "\(what) at byte \(offset)"
    }
}

/// A cursor over borrowed bytes; every read is bounds-checked (`current` is `nil` past the end).
/// Only used inside `withUnsafeBufferPointer`, so the pointer never outlives the bytes.
struct GPSDByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var current: UInt8? { position >= 0 && position < bytes.count ? bytes[position] : nil }

    func error(_ reason: GPSDJSONError.Reason, at offset: Int? = nil) -> GPSDJSONError {
        GPSDJSONError(reason, offset: offset ?? position)
    }

    /// The error for the byte under the cursor (or the end of the text).
    func unexpected(_ expected: String) -> GPSDJSONError {
        guard let byte = current else { return error(.unexpectedEnd) }
        return error(.unexpectedByte(byte, expected: expected))
    }

    mutating func skipJSONWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    /// Consumes `byte` or throws naming what was expected.
    mutating func expect(_ byte: UInt8, _ expected: String) throws(GPSDJSONError) {
        guard current == byte else { throw unexpected(expected) }
        position += 1
    }

    mutating func parseValue(depth: Int) throws(GPSDJSONError) -> GPSDJSONValue {
        switch current ?? 0 {
        case UInt8(ascii: "{"):
            var offsets: [Int] = []
            return .object(try parseObject(depth: depth, valueOffsets: &offsets))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw unexpected("a value")
        }
    }

    /// An object at the cursor; `valueOffsets` receives where each member's value starts.
    mutating func parseObject(depth: Int, valueOffsets: inout [Int]) throws(GPSDJSONError) -> [GPSDJSONMember] {
        guard depth <= GPSDJSONValue.maxDepth else { throw error(.tooDeep(limit: GPSDJSONValue.maxDepth)) }
        try expect(UInt8(ascii: "{"), "'{'")
        var members: [GPSDJSONMember] = []
        skipJSONWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return members
        }
        while true {
            skipJSONWhitespace()
            guard current == UInt8(ascii: "\"") else { throw unexpected("a member name") }
            let key = try parseString()
            skipJSONWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipJSONWhitespace()
            valueOffsets.append(position)
            members.append(GPSDJSONMember(key: key, value: try parseValue(depth: depth + 1)))
            skipJSONWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return members
            }
            try expect(UInt8(ascii: ","), "',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(GPSDJSONError) -> [GPSDJSONValue] {
        guard depth <= GPSDJSONValue.maxDepth else { throw error(.tooDeep(limit: GPSDJSONValue.maxDepth)) }
        try expect(UInt8(ascii: "["), "'['")
        var values: [GPSDJSONValue] = []
        skipJSONWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return values
        }
        while true {
            skipJSONWhitespace()
            values.append(try parseValue(depth: depth + 1))
            skipJSONWhitespace()
            if current == UInt8(ascii: "]") {
                position += 1
                return values
            }
            try expect(UInt8(ascii: ","), "',' or ']'")
        }
    }

    mutating func literal(_ word: StaticString, _ value: GPSDJSONValue) throws(GPSDJSONError) -> GPSDJSONValue {
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard current == expected else { throw unexpected("'\(word)'") }
            position += 1
        }
        return value
    }

    mutating func digits() -> Int {
        let start = position
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        return position - start
    }

    /// A number by JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, finite as a Double.
    mutating func parseNumber() throws(GPSDJSONError) -> Double {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
        } else if digits() == 0 {
            throw error(.invalidNumber, at: start)
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error(.invalidNumber, at: start) }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error(.invalidNumber, at: start) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error(.invalidNumber, at: start) }
        return value
    }

    /// Four hex digits of a `\u` escape, the cursor just after the `u`.
    mutating func hex4() throws(GPSDJSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error(.unexpectedEnd) }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidUnicodeEscape)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// A string at the cursor (on its opening quote); escapes decoded, UTF-8 validated.
    mutating func parseString() throws(GPSDJSONError) -> String {
        let start = position
        try expect(UInt8(ascii: "\""), "'\"'")
        var out: [UInt8] = []
        while true {
            guard let byte = current else { throw error(.unexpectedEnd) }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: out, as: UTF8.self) else { throw error(.invalidUTF8, at: start) }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                try escape(into: &out)
            case 0x00..<0x20:
                throw error(.controlCharacter)
            default:
                out.append(byte)
                position += 1
            }
        }
    }

    /// One escape, the cursor just after the backslash.
    mutating func escape(into out: inout [UInt8]) throws(GPSDJSONError) {
        guard let byte = current else { throw error(.unexpectedEnd) }
        let escapeStart = position - 1
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var code = try hex4()
            if (0xD800...0xDBFF).contains(code) {
                // A high surrogate must be followed by `\u` and a low surrogate.
                guard current == UInt8(ascii: "\\") else { throw error(.invalidUnicodeEscape, at: escapeStart) }
                position += 1
                guard current == UInt8(ascii: "u") else { throw error(.invalidUnicodeEscape, at: escapeStart) }
                position += 1
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error(.invalidUnicodeEscape, at: escapeStart) }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw error(.invalidUnicodeEscape, at: escapeStart) }
            UTF8.encode(scalar) { out.append($0) }
        default:
            throw error(.invalidEscape, at: escapeStart)
        }
    }
}
