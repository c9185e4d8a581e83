/// A decimal number exactly as the receiver wrote it: an integer significand and a power-of-ten scale.
///
/// `"-123.456"` is stored as `significand == -123456`, `scale == 3`, so no digit the receiver sent is
/// lost or invented by a binary floating-point conversion. Convert explicitly with ``doubleValue``.
/// Empty NMEA fields are represented as `nil` by the parser, never as a `FixedDecimal`.
public struct FixedDecimal: Sendable, Hashable, CustomStringConvertible {
    /// The digits as an integer (sign included).
    public var significand: Int64
    /// How many of the digits are fractional (0...18).
    public var scale: UInt8

    /// Creates a decimal from its significand and scale.
    public init(significand: Int64, scale: UInt8) {
        self.significand = significand
        self.scale = min(scale, 18)
    }

    /// Creates a decimal whose scale is already known to be at most 18 (the parser's digit limit).
    @inline(__always)
    init(exactSignificand significand: Int64, scale: UInt8) {
        self.significand = significand
        self.scale = scale
    }

    /// The value as a `Double` (the nearest binary value to the decimal).
    @inlinable
    public var doubleValue: Double {
        Double(significand) / Double(FixedDecimal.powerOfTen(scale))
    }

    /// The value truncated toward zero to an integer.
    public var integerPart: Int64 {
        significand / FixedDecimal.powerOfTen(scale)
    }

    /// 10^exponent for exponent 0...18 (computed; no table, so no lazy global to reach).
    @inlinable
    static func powerOfTen(_ exponent: UInt8) -> Int64 {
        var value: Int64 = 1
        var remaining = min(exponent, 18)
        while remaining > 0 {
            value &*= 10
            remaining &-= 1
        }
        return value
    }

    /// The decimal written back with the receiver's digits, for example `"-123.456"`.
    public var description: String {
        let negative = significand < 0
        let magnitude = significand.magnitude
        var digits = String(magnitude)
        let scale = Int(self.scale)
        if scale > 0 {
            if digits.count <= scale {
                digits = String(repeating: "0", count: scale - digits.count + 1) + digits
            }
            let split = digits.index(digits.endIndex, offsetBy: -scale)
            digits = String(digits[..<split]) + "." + String(digits[split...])
        }
        return negative ? "-" + digits : digits
    }
}
