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

    /// The value as a `Double` (the nearest binary value to the decimal).
    @inlinable
    public var doubleValue: Double {
        Double(significand) / FixedDecimal.powersOfTen[Int(scale)]
    }

    /// The value truncated toward zero to an integer.
    public var integerPart: Int64 {
        significand / Int64(FixedDecimal.integerPowersOfTen[Int(scale)])
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

    @usableFromInline
    static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    ]
    @usableFromInline
    static let integerPowersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000,
    ]
}
