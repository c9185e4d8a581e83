// Writing gpsd-style JSON: fixed-decimal numbers without exponents, escaped strings, and objects
// whose optional members are simply left out when unknown (gpsd never prints null, NaN or inf).

/// Number and string formatting shared by the report encoders.
public enum GPSDNumber {
    /// `value` with exactly `digits` decimals (0...9), as C's `%.<digits>f` prints it (gpsd's format):
    /// plain decimal, rounded to nearest with exact ties to even, never an exponent, no `-0.000`. Returns `nil` for NaN and infinities (gpsd omits those members).
    ///
    /// Magnitudes too large for the requested decimals to fit in 64 bits keep fewer significant
    /// decimals (padded with zeros); beyond 9e18 the integer part is written out digit by digit.
    public static func fixed(_ value: Double, _ digits: Int) -> String? {
        guard value.isFinite else { return nil }
        let wanted = min(max(digits, 0), 9)
        var kept = wanted
        var scale = power10(kept)
        while kept > 0, (value.magnitude * scale).rounded() >= 9e18 {
            kept -= 1
            scale = power10(kept)
        }
        let scaled = roundedProduct(value.magnitude, scale)
        let padding = String(repeating: "0", count: wanted - kept)
        guard scaled < 9e18 else {
            return (value < 0 ? "-" : "") + integerDigits(value.magnitude) + (wanted > 0 ? "." + padding : "")
        }
        let integer = UInt64(scaled)
        let unit = UInt64(scale)
        var text = (value < 0 && integer != 0 ? "-" : "") + String(integer / unit)
        if wanted > 0 {
            let fraction = kept > 0 ? String(integer % unit) : ""
            text += "." + String(repeating: "0", count: kept - fraction.count) + fraction + padding
        }
        return text
    }

    /// `magnitude * scale` rounded to an integer as printf rounds the exact decimal value: to nearest,
    /// exact ties to even. The product's own rounding error (recovered exactly with a fused multiply-add)
    /// decides when the rounded product lands on a tie that the exact product does not.
    static func roundedProduct(_ magnitude: Double, _ scale: Double) -> Double {
        let product = magnitude * scale
        let down = product.rounded(.down)
        guard product - down == 0.5 else { return product.rounded() }
        let error = (-product).addingProduct(magnitude, scale)
        if error != 0 { return error > 0 ? down + 1 : down }
        return down.truncatingRemainder(dividingBy: 2) == 0 ? down : down + 1
    }

    static func power10(_ n: Int) -> Double {
        var scale = 1.0
        for _ in 0..<n { scale *= 10 }
        return scale
    }

    /// The integer digits of a finite value >= 9e18 (an integer in binary floating point), written out
    /// from Swift's shortest round-trip form (`1.2345e+19` becomes `12345000000000000000`).
    static func integerDigits(_ value: Double) -> String {
        let text = value.description.utf8
        guard let e = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
            let whole = text.prefix { $0 != UInt8(ascii: ".") }
            return String(decoding: whole, as: UTF8.self)
        }
        let mantissa = text[..<e].filter { $0 != UInt8(ascii: ".") }
        let exponentText = String(decoding: text[text.index(after: e)...], as: UTF8.self)
        let exponent = Int(exponentText.hasPrefix("+") ? String(exponentText.dropFirst()) : exponentText) ?? 0
        // One digit sits before the decimal point, so the number has exponent + 1 integer digits.
        let zeros = max(0, exponent + 1 - mantissa.count)
        return String(decoding: mantissa.prefix(exponent + 1), as: UTF8.self) + String(repeating: "0", count: zeros)
    }

    /// Appends ``fixed(_:_:)``'s text for a finite `value` to `bytes`, without building a string
    /// in the common case (the scaled value fits in 64 bits).
    static func appendFixed(_ value: Double, _ digits: Int, to bytes: inout [UInt8]) {
        let wanted = min(max(digits, 0), 9)
        let scale = power10(wanted)
        // The cases fixed(_:_:) writes with all the decimals asked for.
        guard value.isFinite, (value.magnitude * scale).rounded() < 9e18 else {
            if let text = fixed(value, digits) { bytes.append(contentsOf: text.utf8) }
            return
        }
        let integer = UInt64(roundedProduct(value.magnitude, scale))
        let unit = UInt64(scale)
        if value < 0 && integer != 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(integer / unit, minimum: 1, to: &bytes)
        if wanted > 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(integer % unit, minimum: wanted, to: &bytes)
        }
    }

    /// Appends `value` in decimal (a leading `-` when negative).
    static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, minimum: 1, to: &bytes)
    }

    /// Appends the decimal digits of `value`, zero-padded on the left to at least `minimum` digits.
    static func appendDigits(_ value: UInt64, minimum: Int, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 24 digits, little end first
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            while count < minimum && count < buffer.count {
                buffer[count] = UInt8(ascii: "0")
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// Appends ``quoted(_:)``'s text: plain printable ASCII straight, anything else through it.
    static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        var plain = true
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        guard plain else {
            bytes.append(contentsOf: quoted(text).utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string literal, quotes included: `"` and `\` escaped, control characters as
    /// `\n`-style or `\u00XX` escapes; other characters (UTF-8) are kept as they are.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Builds one JSON object member by member into UTF-8 bytes; `add` ignores `nil` (and non-finite
/// numbers), so optional report fields need no `if` at the call site. Numbers, integers and plain
/// strings are written straight into the bytes (no intermediate strings); nested objects (SKY's
/// satellites) go into the same bytes through ``addObjects(_:count:_:)``.
struct GPSDObjectWriter {
    private(set) var bytes: [UInt8]
    private var empty = true

    /// An object that starts with `"class":"<name>"`, as every gpsd report does.
    init(class name: String) {
        bytes = []
        bytes.reserveCapacity(256)
        bytes.append(UInt8(ascii: "{"))
        add("class", name)
    }

    /// An object with class `name` written into `storage`'s allocation (taken over, `storage` is
    /// left empty): after its bytes when `appending`, else in place of them, so that a caller can
    /// reuse one allocation report after report.
    init(class name: String, taking storage: inout [UInt8], appending: Bool) {
        bytes = []
        swap(&bytes, &storage)
        if !appending { bytes.removeAll(keepingCapacity: true) }
        bytes.append(UInt8(ascii: "{"))
        add("class", name)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// An object without a class member (the entries of SKY's `satellites` array).
    init() {
        bytes = [UInt8(ascii: "{")]
    }

    private mutating func key(_ key: StaticString) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        empty = false
    }

    /// A member whose value is already JSON text (a number, array or object).
    mutating func add(_ name: StaticString, raw: String?) {
        guard let raw else { return }
        key(name)
        bytes.append(contentsOf: raw.utf8)
    }

    mutating func add(_ name: StaticString, _ value: Double?, digits: Int) {
        guard let value, value.isFinite else { return }
        key(name)
        GPSDNumber.appendFixed(value, digits, to: &bytes)
    }

    mutating func add<I: BinaryInteger>(_ name: StaticString, _ value: I?) {
        guard let value else { return }
        key(name)
        if let small = Int64(exactly: value) {
            GPSDNumber.appendInteger(small, to: &bytes)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    mutating func add(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        GPSDNumber.appendQuoted(value, to: &bytes)
    }

    mutating func add(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    /// A member holding an array of JSON texts.
    mutating func add(_ name: StaticString, array elements: [String]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: element.utf8)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A member holding an array of `count` objects, the `index`th written by `write` into a
    /// writer on these same bytes (`[` `{...}` `,` ... `]`).
    mutating func addObjects(_ name: StaticString, count: Int, _ write: (inout GPSDObjectWriter, Int) -> Void) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        var element = GPSDObjectWriter(bytes: [])
        swap(&element.bytes, &bytes)
        for index in 0..<count {
            if index > 0 { element.bytes.append(UInt8(ascii: ",")) }
            element.bytes.append(UInt8(ascii: "{"))
            element.empty = true
            write(&element, index)
            element.bytes.append(UInt8(ascii: "}"))
        }
        swap(&element.bytes, &bytes)
        bytes.append(UInt8(ascii: "]"))
    }

    /// Closes the object and hands its bytes over (the writer is left empty).
    mutating func finish() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &bytes)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The finished object text.
    var json: String {
        var copy = self
        return String(decoding: copy.finish(), as: UTF8.self)
    }
}
