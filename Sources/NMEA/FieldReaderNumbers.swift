/// Numbers: decimals, integers and their bounded forms.
extension FieldReader {
    // MARK: Numbers

    /// The next field as a decimal number.
    @inline(__always)
    mutating func decimal() throws(NMEAError) -> FixedDecimal? {
        try decimalAndWholePart()?.value
    }

    /// The next field as a decimal number, with its digits before the point as an integer
    /// (the value truncated toward zero, as ``FixedDecimal/integerPart``).
    @inline(__always)
    mutating func decimalAndWholePart() throws(NMEAError) -> (value: FixedDecimal, whole: Int64)? {
        // One pass for the common shape (digits with at most one point, no sign): the field is
        // scanned and converted together. Anything else takes the general path.
        let first = position
        guard first <= count else { return nil }
        var offset = first
        var value: UInt64 = 0
        var whole: UInt64 = 0
        var point = -1
        while offset < count {
            let byte = byte(offset)
            let digit = byte &- 0x30
            if digit < 10 {
                value = value &* 10 &+ UInt64(digit)
            } else if byte == 0x2E && point < 0 {
                point = offset
                whole = value
            } else {
                break
            }
            offset &+= 1
        }
        if offset < count, byte(offset) != 0x2C { return try decimalGeneral(from: first) }
        position = offset &+ 1
        if offset == first { return nil }
        var digits = offset &- first
        var scale = 0
        if point < 0 {
            whole = value
        } else {
            digits &-= 1
            scale = offset &- point &- 1
        }
        guard digits > 0 else { throw fail(.notANumber(offset: 0)) }
        // At most 18 digits: the significand then always fits in Int64.
        guard digits <= 18 else { throw fail(.tooManyDigits) }
        return (FixedDecimal(exactSignificand: Int64(truncatingIfNeeded: value), scale: UInt8(truncatingIfNeeded: scale)),
                Int64(truncatingIfNeeded: whole))
    }

    /// ``decimalAndWholePart()`` for the long numbers of coordinates (`ddmm.mmmmm`): the digits
    /// before and after the point are taken eight bytes at a time, without a branch per digit, when
    /// the field is not among the last eight bytes. Any other shape is read by
    /// ``decimalAndWholePart()``, with the same result.
    @inline(__always)
    mutating func longDecimalAndWholePart() throws(NMEAError) -> (value: FixedDecimal, whole: Int64)? {
        let first = position
        if first &+ 8 <= count {
            let head = word(at: first)
            let (wholeDigits, whole) = FieldReader.digitRun(head)
            let point = first &+ wholeDigits
            // Digits, a point, then more digits and a comma or the end.
            if wholeDigits < 8, UInt8(truncatingIfNeeded: head &>> UInt64(truncatingIfNeeded: 8 &* wholeDigits)) == 0x2E,
               point &+ 9 <= count
            {
                let tail = word(at: point &+ 1)
                let (scale, digits) = FieldReader.digitRun(tail)
                let end = point &+ 1 &+ scale
                if scale < 8, wholeDigits &+ scale > 0,
                   end == count || UInt8(truncatingIfNeeded: tail &>> UInt64(truncatingIfNeeded: 8 &* scale)) == 0x2C
                {
                    position = end &+ 1
                    let significand = whole &* UInt64(truncatingIfNeeded: FixedDecimal.powerOfTen(UInt8(truncatingIfNeeded: scale))) &+ digits
                    return (FixedDecimal(exactSignificand: Int64(truncatingIfNeeded: significand), scale: UInt8(truncatingIfNeeded: scale)),
                            Int64(truncatingIfNeeded: whole))
                }
            }
        }
        let (value, next) = try readDecimal(from: first)
        position = next
        return value
    }

    /// ``decimalAndWholePart()`` out of line, on a copy: the value and where the field ended.
    @inline(never)
    func readDecimal(from first: Int) throws(NMEAError) -> ((value: FixedDecimal, whole: Int64)?, Int) {
        var reader = self
        reader.position = first
        return (try reader.decimalAndWholePart(), reader.position)
    }

    /// Eight bytes from `offset`, the first in the low byte.
    @inline(__always)
    func word(at offset: Int) -> UInt64 {
        UInt64(littleEndian: start.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The number of leading ASCII digits in `word` (its first byte the low one) and their value.
    @inline(__always)
    static func digitRun(_ word: UInt64) -> (length: Int, value: UInt64) {
        let t = word ^ 0x3030_3030_3030_3030   // digits become 0...9
        let nonDigit = (((t & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080
        let length = nonDigit.trailingZeroBitCount &>> 3
        // The digits moved to the top bytes with zeros below them (leading zeros), then combined
        // in pairs, fours and eights by multiplications.
        var v = length == 0 ? 0 : t &<< UInt64(truncatingIfNeeded: 64 &- 8 &* length)
        v = (v &* 10) &+ (v &>> 8)
        v = (((v & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 &<< 32)))
            &+ (((v &>> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 &<< 32)))) &>> 32
        return (length, v)
    }


    /// The general path of ``decimal()``: a sign, or anything the one-pass reader does not handle.
    @inline(__always)
    mutating func decimalGeneral(from first: Int) throws(NMEAError) -> (value: FixedDecimal, whole: Int64)? {
        let (value, next) = try readDecimalGeneral(from: first)
        position = next
        return value
    }

    // The out-of-line general paths work on a copy and return where the field ended, so that the
    // reader itself never has to be in memory (its position stays in a register on the hot path).
    @inline(never)
    func readDecimalGeneral(from first: Int) throws(NMEAError) -> ((value: FixedDecimal, whole: Int64)?, Int) {
        var reader = self
        // A minus sign before the one-pass shape (a negative geoid separation, for one): read by
        // the one-pass reader after the sign and negated. Only a number is taken so; anything else
        // (no digits, an error) is read below, which gives the same values and errors.
        if first &+ 1 < count, byte(first) == 0x2D, byte(first &+ 1) &- 0x30 < 10 || byte(first &+ 1) == 0x2E {
            reader.position = first &+ 1
            if let (value, whole) = try? reader.decimalAndWholePart() {
                return ((FixedDecimal(exactSignificand: 0 &- value.significand, scale: value.scale), 0 &- whole),
                        reader.position)
            }
        }
        reader.position = first
        guard let range = reader.next(), !range.isEmpty else { return (nil, reader.position) }
        let value = try reader.parseDecimal(range)
        return ((value, value.integerPart), reader.position)
    }

    /// Digits with at most one decimal point, from `start` up to `limit` or the first other byte.
    struct DecimalScan {
        var value: UInt64 = 0
        var digits = 0
        var point = -1
        /// Where scanning stopped: `limit`, or the offset of the first byte that is not part of the number.
        var stop = 0

        func decimal(negative: Bool, reader: FieldReader) throws(NMEAError) -> FixedDecimal {
            guard digits > 0 else { throw reader.fail(.notANumber(offset: 0)) }
            // At most 18 digits: the significand then always fits in Int64.
            guard digits <= 18 else { throw reader.fail(.tooManyDigits) }
            let signed = Int64(truncatingIfNeeded: value)
            return FixedDecimal(significand: negative ? -signed : signed, scale: UInt8(point < 0 ? 0 : digits &- point))
        }
    }

    func scanDecimal(from first: Int, to limit: Int) -> DecimalScan {
        var scan = DecimalScan()
        var offset = first
        while offset < limit {
            let byte = byte(offset)
            let digit = byte &- 0x30
            if digit < 10 {
                scan.value = scan.value &* 10 &+ UInt64(digit)
                scan.digits &+= 1
            } else if byte == 0x2E && scan.point < 0 {
                scan.point = scan.digits
            } else {
                break
            }
            offset &+= 1
        }
        scan.stop = offset
        return scan
    }

    func parseDecimal(_ range: Range<Int>) throws(NMEAError) -> FixedDecimal {
        var first = range.lowerBound
        var negative = false
        let sign = byte(first)
        if sign == 0x2D || sign == 0x2B {
            negative = sign == 0x2D
            first &+= 1
        }
        let scan = scanDecimal(from: first, to: range.upperBound)
        guard scan.stop == range.upperBound else { throw fail(.notANumber(offset: scan.stop - range.lowerBound)) }
        return try scan.decimal(negative: negative, reader: self)
    }

    /// The next field as a whole number (digits only, optional sign).
    @inline(__always)
    mutating func integer() throws(NMEAError) -> Int? {
        // One pass for plain digit strings; signs and errors take the general path.
        let first = position
        // One, two or three digits and a comma (satellite numbers, elevations, azimuths, SNRs,
        // counts) without a loop; an empty field likewise.
        if first &+ 3 < count {
            let b0 = byte(first)
            let d0 = b0 &- 0x30
            if d0 < 10 {
                let b1 = byte(first &+ 1)
                let d1 = b1 &- 0x30
                if d1 < 10 {
                    let b2 = byte(first &+ 2)
                    if b2 == 0x2C {
                        position = first &+ 3
                        return Int(d0) &* 10 &+ Int(d1)
                    }
                    let d2 = b2 &- 0x30
                    if d2 < 10, byte(first &+ 3) == 0x2C {
                        position = first &+ 4
                        return Int(d0) &* 100 &+ Int(d1) &* 10 &+ Int(d2)
                    }
                } else if b1 == 0x2C {
                    position = first &+ 2
                    return Int(d0)
                }
            } else if b0 == 0x2C {
                position = first &+ 1
                return nil
            }
        }
        guard first <= count else { return nil }
        var offset = first
        var value = 0
        while offset < count {
            let byte = byte(offset)
            let digit = byte &- 0x30
            if digit < 10 {
                value = value &* 10 &+ Int(digit)
            } else if byte == 0x2C {
                break
            } else {
                return try integerGeneral(from: first)
            }
            offset &+= 1
        }
        position = offset &+ 1
        if offset == first { return nil }
        guard offset &- first <= 12 else { throw fail(.tooManyDigits) }
        return value
    }

    @inline(__always)
    mutating func integerGeneral(from first: Int) throws(NMEAError) -> Int? {
        let (value, next) = try readIntegerGeneral(from: first)
        position = next
        return value
    }

    @inline(never)
    func readIntegerGeneral(from first: Int) throws(NMEAError) -> (Int?, Int) {
        var reader = self
        reader.position = first
        guard let range = reader.next(), !range.isEmpty else { return (nil, reader.position) }
        return (try reader.parseInteger(range), reader.position)
    }

    func parseInteger(_ range: Range<Int>) throws(NMEAError) -> Int {
        var index = range.lowerBound
        var negative = false
        if byte(index) == 0x2D || byte(index) == 0x2B {
            negative = byte(index) == 0x2D
            index &+= 1
        }
        guard index < range.upperBound else { throw fail(.notANumber(offset: 0)) }
        guard range.upperBound - index <= 12 else { throw fail(.tooManyDigits) }
        var value = 0
        while index < range.upperBound {
            let digit = byte(index) &- 0x30
            guard digit < 10 else { throw fail(.notANumber(offset: index - range.lowerBound)) }
            value = value &* 10 &+ Int(digit)
            index &+= 1
        }
        return negative ? -value : value
    }

    /// The next field as a whole number within `bounds`.
    @inline(__always)
    mutating func integer(in bounds: ClosedRange<Int>) throws(NMEAError) -> Int? {
        guard let value = try integer() else { return nil }
        guard value >= bounds.lowerBound, value <= bounds.upperBound else { throw fail(.outOfRange) }
        return value
    }
}
