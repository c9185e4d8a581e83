/// Number formatting into raw bytes, for writers that fill one reusable buffer (``FixJSONWriter``).
///
/// ``writeDouble(_:to:)`` writes exactly what `Double.description` (and so `"\(value)"`) gives: the
/// shortest digits that read back as the same `Double`, the closest to it when several are as short,
/// in fixed notation from 0.0001 up to 2^53 and exponential notation outside. Values from 0.0001 to
/// 10^15 (all a fix carries in practice) are converted here: decimals of up to three fraction digits
/// by a division that reads them back, others by exact integer arithmetic (the value rounded to 15,
/// then 16, then 17 significant digits, the first that reads back being the shortest).
/// Others take the standard library's conversion through a `TextOutputStream` (no `String` is built
/// for them unless the text is longer than fifteen bytes).
enum DecimalText {
    /// The most bytes ``writeDouble(_:to:)`` writes (`-1.7976931348623157e+308` is 24).
    static let maximumDoubleLength = 32
    /// The most bytes ``writeInteger(_:to:)`` writes (`-9223372036854775808` is 20).
    static let maximumIntegerLength = 20

    /// Powers of ten up to 10^20 as 128-bit integers.
    private static let powers: InlineArray<21, UInt128> = {
        var table = InlineArray<21, UInt128>(repeating: 1)
        for index in 1..<21 { table[index] = table[index - 1] * 10 }
        return table
    }()

    /// Two ASCII digits for each of 0...99.
    private static let pairs: InlineArray<200, UInt8> = {
        var table = InlineArray<200, UInt8>(repeating: 0)
        for value in 0..<100 {
            table[2 * value] = 0x30 + UInt8(value / 10)
            table[2 * value + 1] = 0x30 + UInt8(value % 10)
        }
        return table
    }()

    /// Writes `value` as `value.description` spells it; returns the number of bytes written (at most
    /// ``maximumDoubleLength``).
    static func writeDouble(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let magnitude = value.magnitude
        if magnitude == 0 {
            // "0.0" or "-0.0".
            var p = out
            if value.sign == .minus { p.pointee = 0x2D; p += 1 }
            p[0] = 0x30; p[1] = 0x2E; p[2] = 0x30
            return out.distance(to: p) + 3
        }
        guard magnitude >= 0.0001, magnitude < 1e15 else { return writeByStandardLibrary(value, to: out) }
        var p = out
        if value.sign == .minus { p.pointee = 0x2D; p += 1 }
        if magnitude < 1e9 {
            // Short decimals first (what receivers send: 83.1, 1.25): the fewest fraction digits, up
            // to three, whose integer reads back as the value. The products stay far below 2^53, so
            // adding one half and truncating finds the nearest integer (a value next to a half-way
            // point has no such decimal anyway), and the division of two exact doubles rounds as
            // reading the decimal would.
            var power = 1.0
            for fractionDigits in 0...3 {
                let nearest = UInt64(magnitude * power + 0.5)
                if Double(nearest) / power == magnitude {
                    return out.distance(to: p) + writeFixed(nearest, scale: fractionDigits, to: p)
                }
                power *= 10
            }
        }
        // magnitude = significand * 2^-shift exactly; it is normal, so the significand has 53 bits.
        let significand = UInt128(magnitude.significandBitPattern | 1 << 52)
        let shift = 52 - Int(magnitude.exponent)    // 3...66
        // The decimal exponent: floor(log10(magnitude)), from an estimate corrected on the exact value.
        var exponent10 = (Int(magnitude.exponent) * 78_913) >> 18
        while true {
            let scale = 16 - exponent10
            guard scale >= 0, scale <= 20 else { return writeByStandardLibrary(value, to: out) }
            let whole = (significand * powers[scale]) >> UInt128(shift)
            if whole >= powers[17] { exponent10 += 1 } else if whole < powers[16] { exponent10 -= 1 } else { break }
        }
        // 15 significant digits first: when the shortest has 15 or fewer, rounding to 15 gives it
        // (padded with zeros); otherwise the nearest 16-digit value if it reads back, else 17 digits.
        var digits: UInt64 = 0
        var scale = 0
        for count in 15...17 {
            scale = count - 1 - exponent10         // 0...20 (the exponent is -4...14)
            let exact = significand * powers[scale]  // the value times 10^scale, times 2^shift
            let candidate = roundedShift(exact, shift)
            if count == 17 || readsBack(candidate, exact: exact, shift: shift, scale: scale, significand: significand) {
                digits = UInt64(truncatingIfNeeded: candidate)
                break
            }
        }
        while scale > 0, digits % 10 == 0 {
            digits /= 10
            scale -= 1
        }
        return out.distance(to: p) + writeFixed(digits, scale: scale, to: p)
    }

    /// Writes `digits / 10^scale` in fixed notation, with at least one fraction digit (`100.0`, `0.05`).
    @inline(__always)
    private static func writeFixed(_ digits: UInt64, scale: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var p = out
        let divisor = UInt64(truncatingIfNeeded: powers[scale])
        let integerPart = digits / divisor
        p += writeUnsigned(integerPart, to: p)
        p.pointee = 0x2E
        p += 1
        if scale == 0 {
            p.pointee = 0x30
            p += 1
        } else {
            var fraction = digits % divisor
            // The fraction's `scale` digits, leading zeros included, written from the right.
            var index = scale
            while index > 0 {
                index -= 1
                p[index] = 0x30 + UInt8(truncatingIfNeeded: fraction % 10)
                fraction /= 10
            }
            p += scale
        }
        return out.distance(to: p)
    }

    /// `value / 2^shift` rounded to the nearest integer, ties to even.
    @inline(__always)
    private static func roundedShift(_ value: UInt128, _ shift: Int) -> UInt128 {
        guard shift > 0 else { return value }
        let quotient = value >> UInt128(shift)
        let remainder = value & ((1 << UInt128(shift)) - 1)
        let half: UInt128 = 1 << UInt128(shift - 1)
        if remainder > half || (remainder == half && quotient & 1 == 1) { return quotient + 1 }
        return quotient
    }

    /// Whether `candidate / 10^scale` reads back (rounding to nearest, ties to even) as the double
    /// `significand * 2^-shift`, whose value times 10^scale times 2^shift is `exact`.
    @inline(__always)
    private static func readsBack(_ candidate: UInt128, exact: UInt128, shift: Int, scale: Int,
                                  significand: UInt128) -> Bool {
        let scaled = candidate << UInt128(shift)
        let unit = powers[scale]
        let even = significand & 1 == 0
        if scaled >= exact {
            // Above the value: within half the gap to the next double.
            let twice = (scaled - exact) << 1
            return twice < unit || (twice == unit && even)
        }
        // Below: the gap to the previous double is half as wide when the significand is 2^52.
        let difference = exact - scaled
        let times = significand == 1 << 52 ? difference << 2 : difference << 1
        return times < unit || (times == unit && even)
    }

    /// The standard library's conversion, for magnitudes outside 0.0001..<10^15 (and non-finite values).
    @inline(never)
    private static func writeByStandardLibrary(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var sink = ByteSink(start: out)
        value.write(to: &sink)
        return sink.count
    }

    /// Receives the standard library's text; it is never longer than ``maximumDoubleLength``.
    private struct ByteSink: TextOutputStream {
        let start: UnsafeMutablePointer<UInt8>
        var count = 0

        mutating func write(_ string: String) {
            for byte in string.utf8 where count < DecimalText.maximumDoubleLength {
                start[count] = byte
                count += 1
            }
        }
    }

    /// Writes `value` in decimal; returns the number of bytes written.
    static func writeInteger(_ value: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value < 0 {
            out.pointee = 0x2D
            return 1 + writeUnsigned(value.magnitude, to: out + 1)
        }
        return writeUnsigned(UInt(value), to: out)
    }

    /// Writes `value` in decimal; returns the number of bytes written.
    @inline(__always)
    static func writeUnsigned(_ value: some FixedWidthInteger & UnsignedInteger, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var value = UInt64(value)
        var length = 1
        var bound: UInt64 = 10
        while length < 20, value >= bound {
            length += 1
            if length == 20 { break }
            bound &*= 10
        }
        var index = length
        while value >= 100 {
            let pair = Int(value % 100)
            value /= 100
            index -= 2
            out[index] = pairs[2 * pair]
            out[index + 1] = pairs[2 * pair + 1]
        }
        if value >= 10 {
            let pair = Int(value)
            out[index - 2] = pairs[2 * pair]
            out[index - 1] = pairs[2 * pair + 1]
        } else {
            out[index - 1] = 0x30 + UInt8(truncatingIfNeeded: value)
        }
        return length
    }

    /// Writes `value` (0...99) as two digits.
    @inline(__always)
    static func writeTwoDigits(_ value: Int, to out: UnsafeMutablePointer<UInt8>) {
        out[0] = pairs[2 * value]
        out[1] = pairs[2 * value + 1]
    }
}
