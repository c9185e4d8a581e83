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

/// Builds one JSON object member by member; `add` ignores `nil` (and non-finite numbers), so optional
/// report fields need no `if` at the call site.
struct GPSDObjectWriter {
    private var text = "{"
    private var empty = true

    /// An object that starts with `"class":"<name>"`, as every gpsd report does.
    init(class name: String) { add("class", name) }

    /// An object without a class member (the entries of SKY's `satellites` array).
    init() {}

    private mutating func key(_ key: String) {
        text += (empty ? "\"" : ",\"") + key + "\":"
        empty = false
    }

    /// A member whose value is already JSON text (a number, array or object).
    mutating func add(_ name: String, raw: String?) {
        guard let raw else { return }
        key(name)
        text += raw
    }

    mutating func add(_ name: String, _ value: Double?, digits: Int) {
        add(name, raw: value.flatMap { GPSDNumber.fixed($0, digits) })
    }

    mutating func add<I: BinaryInteger>(_ name: String, _ value: I?) {
        add(name, raw: value.map { String($0) })
    }

    mutating func add(_ name: String, _ value: String?) {
        add(name, raw: value.map(GPSDNumber.quoted))
    }

    mutating func add(_ name: String, _ value: Bool?) {
        add(name, raw: value.map { $0 ? "true" : "false" })
    }

    /// A member holding an array of JSON texts.
    mutating func add(_ name: String, array elements: [String]) {
        add(name, raw: "[" + elements.joined(separator: ",") + "]")
    }

    /// The finished object text.
    var json: String { text + "}" }
}
