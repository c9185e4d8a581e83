/// The last value converted from a receiver's decimal, kept for the next sentence with the same
/// digits: a receiver repeats a position, a DOP, a speed or a course in several sentences of an
/// epoch (RMC, GGA and GLL one position; each GSA of a series the same three DOPs; RMC and VTG one
/// speed and course), and its DOPs often from one epoch to the next. A conversion divides by a
/// power of ten (and a position by 100 and 60 too), and a division takes as long as a hundred
/// simpler instructions; a repeated value then costs two comparisons. The value is the
/// conversion's own, so what the assembler reports does not change.
struct DecimalMemo: Sendable {
    private var significand: Int64 = 0
    /// No decimal has this scale (at most 18), so the first lookup converts.
    private var scale: UInt8 = 0xFF
    private var negative = false
    private var value: Double = 0

    /// `convert(decimal)`, converted again only when `decimal` (and `negative`) differ from the last.
    @inline(__always)
    mutating func value(of decimal: FixedDecimal, negative: Bool = false, _ convert: (FixedDecimal) -> Double) -> Double {
        if decimal.significand == significand, decimal.scale == scale, negative == self.negative { return value }
        let converted = convert(decimal)
        significand = decimal.significand
        scale = decimal.scale
        self.negative = negative
        value = converted
        return converted
    }

    /// A coordinate's signed degrees (``Coordinate/degrees``).
    @inline(__always)
    mutating func degrees(of coordinate: Coordinate) -> Double {
        value(of: coordinate.degreesMinutes, negative: coordinate.isNegative) { _ in coordinate.degrees }
    }
}

/// The assembler's memos, one per value a receiver repeats.
struct AssemblerMemos: Sendable {
    var latitude = DecimalMemo()
    var longitude = DecimalMemo()
    var pdop = DecimalMemo()
    var hdop = DecimalMemo()
    var vdop = DecimalMemo()
    var speed = DecimalMemo()
    var course = DecimalMemo()
}
