/// The values of a TOML document: strings, numbers, booleans, arrays and inline tables.
extension TOMLParser {
    // MARK: Values

    mutating func parseValue(key: String, depth: Int) throws(BoardError) -> TOMLNode {
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

    mutating func parseArray(key: String, depth: Int) throws(BoardError) -> TOMLValue {
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
    mutating func skipArraySpace(key: String, open: SourceLocation) throws(BoardError) {
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

    mutating func parseBasicString(key: String?) throws(BoardError) -> String {
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

    mutating func parseEscape(into out: inout [UInt8], key: String?) throws(BoardError) {
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

    mutating func parseLiteralString(key: String?) throws(BoardError) -> String {
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
    mutating func parseScalarToken(key: String) throws(BoardError) -> TOMLValue {
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

    static func isTokenByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    static func looksNumeric(_ token: [UInt8]) -> Bool {
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
    static func digitRun(_ run: ArraySlice<UInt8>, radix: Int) -> [UInt8]? {
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

    static func integer(_ digits: [UInt8], radix: Int, negative: Bool) -> Int? {
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
}

func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
