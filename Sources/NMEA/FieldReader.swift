/// Reads the comma-separated fields of one sentence in order, from borrowed bytes, without allocating.
///
/// `base` holds the fields after the address (the bytes between the address's comma and `*`).
/// Field numbers count from 1, as in NMEA documents.
struct FieldReader {
    let base: UnsafeRawBufferPointer
    let sentence: SentenceType
    /// Start of the next field; `base.count + 1` once every field has been read.
    private(set) var position = 0
    /// The index (0-based) of the field that `next()` returns.
    private(set) var index = 0

    init(_ base: UnsafeRawBufferPointer, sentence: SentenceType) {
        self.base = base
        self.sentence = sentence
    }

    /// The number of fields (a sentence with no comma after the address has one, empty, field).
    /// Counted on demand: only sentences whose layout depends on it (GSA, GSV, VTG) ask.
    var fieldCount: Int { FieldReader.countCommas(base) &+ 1 }

    /// The number of commas in `bytes`, eight bytes at a time.
    @inline(__always)
    static func countCommas(_ bytes: UnsafeRawBufferPointer) -> Int {
        var commas = 0
        var offset = 0
        while offset &+ 8 <= bytes.count {
            commas &+= commaMask(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)).nonzeroBitCount
            offset &+= 8
        }
        while offset < bytes.count {
            if bytes[offset] == 0x2C { commas &+= 1 }
            offset &+= 1
        }
        return commas
    }

    /// High bit set in each byte of `word` that is a comma (exact: no borrow between bytes).
    @inline(__always)
    static func commaMask(_ word: UInt64) -> UInt64 {
        let x = word ^ 0x2C2C_2C2C_2C2C_2C2C
        return ~(((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x | 0x7F7F_7F7F_7F7F_7F7F)
    }

    /// Whether a further field exists (possibly empty).
    var hasMore: Bool { position <= base.count }

    /// The byte length of the last field.
    var lastFieldLength: Int {
        var start = base.count
        while start > 0, base[start &- 1] != 0x2C { start &-= 1 }
        return base.count &- start
    }

    /// The byte range of the next field, or `nil` when the sentence has no further fields.
    @inline(__always)
    mutating func next() -> Range<Int>? {
        guard position <= base.count else { return nil }
        let start = position
        var end = start
        // Eight bytes at a time while no comma is in sight.
        while end &+ 8 <= base.count {
            let mask = FieldReader.commaMask(base.loadUnaligned(fromByteOffset: end, as: UInt64.self))
            if mask != 0 {
                end &+= mask.trailingZeroBitCount >> 3
                position = end &+ 1
                index &+= 1
                return start..<end
            }
            end &+= 8
        }
        while end < base.count, base[end] != 0x2C { end &+= 1 }
        position = end &+ 1
        index &+= 1
        return start..<end
    }

    @inline(__always)
    func fail(_ problem: FieldProblem) -> NMEAError {
        .badField(sentence: sentence, field: index, problem: problem)
    }

    @inline(__always)
    mutating func skip(_ count: Int = 1) {
        for _ in 0..<count { _ = next() }
    }

    /// The next field as raw bytes, or `nil` if empty or absent.
    @inline(__always)
    mutating func raw() -> Range<Int>? {
        guard let range = next(), !range.isEmpty else { return nil }
        return range
    }

    /// The next field as a decimal number.
    @inline(__always)
    mutating func decimal() throws(NMEAError) -> FixedDecimal? {
        // One pass for the common shape (digits with at most one point, no sign): the field is
        // scanned and converted together. Anything else takes the general path.
        guard position <= base.count else { return nil }
        let start = position
        let scan = scanDecimal(from: start, to: base.count)
        guard scan.stop == base.count || base[scan.stop] == 0x2C else {
            guard let range = next(), !range.isEmpty else { return nil }
            return try parseDecimal(range)
        }
        position = scan.stop &+ 1
        index &+= 1
        if scan.stop == start { return nil }
        return try scan.decimal(negative: false, reader: self)
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

    @inline(__always)
    func scanDecimal(from start: Int, to limit: Int) -> DecimalScan {
        var scan = DecimalScan()
        var offset = start
        while offset < limit {
            let byte = base[offset]
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

    @inline(__always)
    func parseDecimal(_ range: Range<Int>) throws(NMEAError) -> FixedDecimal {
        var start = range.lowerBound
        var negative = false
        let first = base[start]
        if first == 0x2D || first == 0x2B {
            negative = first == 0x2D
            start &+= 1
        }
        let scan = scanDecimal(from: start, to: range.upperBound)
        guard scan.stop == range.upperBound else { throw fail(.notANumber(offset: scan.stop - range.lowerBound)) }
        return try scan.decimal(negative: negative, reader: self)
    }

    /// The next field as a whole number (digits only, optional sign).
    @inline(__always)
    mutating func integer() throws(NMEAError) -> Int? {
        // One pass for plain digit strings; signs and errors take the general path.
        guard position <= base.count else { return nil }
        let start = position
        var offset = start
        var value = 0
        while offset < base.count {
            let byte = base[offset]
            let digit = byte &- 0x30
            if digit < 10 {
                value = value &* 10 &+ Int(digit)
            } else if byte == 0x2C {
                break
            } else {
                guard let range = next(), !range.isEmpty else { return nil }
                return try parseInteger(range)
            }
            offset &+= 1
        }
        position = offset &+ 1
        index &+= 1
        if offset == start { return nil }
        guard offset &- start <= 12 else { throw fail(.tooManyDigits) }
        return value
    }

    @inline(__always)
    func parseInteger(_ range: Range<Int>) throws(NMEAError) -> Int {
        var index = range.lowerBound
        var negative = false
        if base[index] == 0x2D || base[index] == 0x2B {
            negative = base[index] == 0x2D
            index &+= 1
        }
        guard index < range.upperBound else { throw fail(.notANumber(offset: 0)) }
        guard range.upperBound - index <= 12 else { throw fail(.tooManyDigits) }
        var value = 0
        while index < range.upperBound {
            let digit = base[index] &- 0x30
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
        guard bounds.contains(value) else { throw fail(.outOfRange) }
        return value
    }

    /// The next field as a single character, or `nil` if empty.
    @inline(__always)
    mutating func character() throws(NMEAError) -> UInt8? {
        guard let range = raw() else { return nil }
        guard range.count == 1 else { throw fail(.unexpectedValue(base[range.lowerBound])) }
        return base[range.lowerBound]
    }

    /// The next field as a single character that must convert with `make`.
    @inline(__always)
    mutating func flag<T>(_ make: (UInt8) -> T?) throws(NMEAError) -> T? {
        guard let byte = try character() else { return nil }
        guard let value = make(byte) else { throw fail(.unexpectedValue(byte)) }
        return value
    }

    /// The next field as `A` (true) / `V` (false).
    @inline(__always)
    mutating func validity() throws(NMEAError) -> Bool? {
        guard let byte = try character() else { return nil }
        switch byte {
        case 0x41: return true
        case 0x56: return false
        default: throw fail(.unexpectedValue(byte))
        }
    }

    /// The next field as a positioning mode indicator.
    @inline(__always)
    mutating func modeIndicator() throws(NMEAError) -> ModeIndicator? {
        guard let byte = try character() else { return nil }
        guard let mode = ModeIndicator(rawValue: byte) else { throw fail(.unexpectedValue(byte)) }
        return mode
    }

    /// The next field as a NMEA 4.10 navigational status.
    @inline(__always)
    mutating func navigationalStatus() throws(NMEAError) -> NavigationalStatus? {
        guard let byte = try character() else { return nil }
        guard let status = NavigationalStatus(rawValue: byte) else { throw fail(.unexpectedValue(byte)) }
        return status
    }

    /// The next field as a `hhmmss[.s...]` UTC time of day.
    @inline(__always)
    mutating func time() throws(NMEAError) -> TimeOfDay? {
        guard let range = raw() else { return nil }
        guard range.count >= 6 else { throw fail(.badTime) }
        let start = range.lowerBound
        guard let h = twoDigits(at: start), let m = twoDigits(at: start + 2), let s = twoDigits(at: start + 4)
        else { throw fail(.badTime) }
        var nanos = 0
        if range.count > 6 {
            guard base[start + 6] == 0x2E else { throw fail(.badTime) }
            var multiplier = 100_000_000
            var index = start + 7
            while index < range.upperBound {
                let digit = base[index] &- 0x30
                guard digit < 10 else { throw fail(.badTime) }
                nanos &+= Int(digit) &* multiplier
                multiplier /= 10
                index &+= 1
            }
        }
        guard let time = TimeOfDay(hour: h, minute: m, second: s, nanosecond: nanos) else { throw fail(.badTime) }
        return time
    }

    /// The next field as a `ddmmyy` date, returned as (day, month, two-digit year).
    @inline(__always)
    mutating func shortDate() throws(NMEAError) -> (day: Int, month: Int, year: Int)? {
        guard let range = raw() else { return nil }
        guard range.count == 6, let d = twoDigits(at: range.lowerBound), let m = twoDigits(at: range.lowerBound + 2),
              let y = twoDigits(at: range.lowerBound + 4), (1...31).contains(d), (1...12).contains(m)
        else { throw fail(.badDate) }
        return (d, m, y)
    }

    @inline(__always)
    func twoDigits(at index: Int) -> Int? {
        let a = base[index] &- 0x30
        let b = base[index &+ 1] &- 0x30
        guard a < 10, b < 10 else { return nil }
        return Int(a) &* 10 &+ Int(b)
    }

    /// Two fields: a `(d)ddmm.mmmm` value and its hemisphere letter (`N`/`S` or `E`/`W`).
    @inline(__always)
    mutating func coordinate(latitude: Bool) throws(NMEAError) -> Coordinate? {
        let value = try decimal()
        let hemisphere = try character()
        guard let value else { return nil }
        let negative: Bool
        switch hemisphere {
        case 0x4E where latitude, 0x45 where !latitude: negative = false   // N, E
        case 0x53 where latitude, 0x57 where !latitude: negative = true    // S, W
        case nil: throw fail(.missing)
        case let other?: throw fail(.unexpectedValue(other))
        }
        let limit: Int64 = latitude ? 9000 : 18000
        guard value.significand >= 0, value.integerPart <= limit else {
            throw NMEAError.badField(sentence: sentence, field: index - 1, problem: .outOfRange)
        }
        // Minutes must be below 60.
        guard value.integerPart % 100 < 60 else {
            throw NMEAError.badField(sentence: sentence, field: index - 1, problem: .outOfRange)
        }
        return Coordinate(degreesMinutes: value, isNegative: negative)
    }

    /// A decimal followed by a direction letter where `negativeLetter` makes it negative (e.g. `W`).
    @inline(__always)
    mutating func signedByLetter(negativeLetter: UInt8, positiveLetter: UInt8) throws(NMEAError) -> FixedDecimal? {
        let value = try decimal()
        let letter = try character()
        guard var value else { return nil }
        switch letter {
        case negativeLetter?: value.significand = -value.significand
        case positiveLetter?, nil: break
        case let other?: throw fail(.unexpectedValue(other))
        }
        return value
    }
}
