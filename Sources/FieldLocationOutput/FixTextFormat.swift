/// Numbers as text with a fixed count of decimals, for every text and JSON output (the one-line
/// summary of a fix, ``FixText/line(_:)``, is in FieldLocationOutput).
public enum FixText {
    /// `value` with exactly `digits` decimals (no Foundation formatting).
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return String(value) }
        let integer = Int64(scaled)
        let whole = integer / Int64(scale)
        let fraction = integer % Int64(scale)
        var text = (value < 0 && integer != 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let f = String(fraction)
            text += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return text
    }
}
