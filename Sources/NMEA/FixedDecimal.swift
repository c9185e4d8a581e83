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

    /// 10^exponent for exponent 0...18 (18 for anything larger): a switch the compiler turns into a
    /// constant table, with no lazy global to reach and no loop. Always inlined: left to itself the
    /// compiler calls it, five times a sentence, for one load.
    @inlinable @inline(__always)
    static func powerOfTen(_ exponent: UInt8) -> Int64 {
        switch exponent {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1_000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        case 8: return 100_000_000
        case 9: return 1_000_000_000
        case 10: return 10_000_000_000
        case 11: return 100_000_000_000
        case 12: return 1_000_000_000_000
        case 13: return 10_000_000_000_000
        case 14: return 100_000_000_000_000
        case 15: return 1_000_000_000_000_000
        case 16: return 10_000_000_000_000_000
        case 17: return 100_000_000_000_000_000
        default: return 1_000_000_000_000_000_000
        }
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
