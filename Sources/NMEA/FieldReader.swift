/// Reads the comma-separated fields of one sentence in order, from borrowed bytes, without allocating.
///
/// `base` holds the fields after the address (the bytes between the address's comma and `*`).
/// Field numbers count from 1, as in NMEA documents.
struct FieldReader {
    let base: UnsafeRawBufferPointer
    let sentence: SentenceType
    /// Start of the next field; `base.count + 1` once every field has been read.
    private(set) var position: Int
    /// The number of the field that `next()` returns.
    private(set) var fieldNumber: Int = 1

    init(_ base: UnsafeRawBufferPointer, sentence: SentenceType) {
        self.base = base
        self.sentence = sentence
        self.position = 0
    }

    /// Whether a further field exists (possibly empty).
    var hasMore: Bool { position <= base.count }

    /// The byte range of the next field, or `nil` when the sentence has no further fields.
    @inline(__always)
    mutating func next() -> Range<Int>? {
        guard position <= base.count else { return nil }
        let start = position
        var end = start
        while end < base.count, base[end] != 0x2C { end &+= 1 }
        position = end &+ 1
        fieldNumber &+= 1
        return start..<end
    }

    @inline(__always)
    func fail(_ problem: FieldProblem) -> NMEAError {
        .badField(sentence: sentence, field: fieldNumber &- 1, problem: problem)
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
        guard let range = raw() else { return nil }
        return try parseDecimal(range)
    }

    @inline(__always)
    func parseDecimal(_ range: Range<Int>) throws(NMEAError) -> FixedDecimal {
        var index = range.lowerBound
        var negative = false
        let first = base[index]
        if first == 0x2D || first == 0x2B {
            negative = first == 0x2D
            index &+= 1
        }
        var value: UInt64 = 0
        var significantDigits = 0
        var scale = 0
        var seenPoint = false
        var anyDigit = false
        while index < range.upperBound {
            let byte = base[index]
            if byte == 0x2E, !seenPoint {
                seenPoint = true
            } else {
                let digit = byte &- 0x30
                guard digit < 10 else { throw fail(.notANumber(offset: index - range.lowerBound)) }
                anyDigit = true
                if value != 0 || digit != 0 { significantDigits &+= 1 }
                if seenPoint { scale &+= 1 }
                guard significantDigits <= 18, scale <= 18 else { throw fail(.tooManyDigits) }
                value = value &* 10 &+ UInt64(digit)
            }
            index &+= 1
        }
        guard anyDigit else { throw fail(.notANumber(offset: 0)) }
        let signed = Int64(value)  // at most 18 digits: always fits
        return FixedDecimal(significand: negative ? -signed : signed, scale: UInt8(scale))
    }

    /// The next field as a whole number (digits only, optional sign).
    @inline(__always)
    mutating func integer() throws(NMEAError) -> Int? {
        guard let range = raw() else { return nil }
        return try parseInteger(range)
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
            throw NMEAError.badField(sentence: sentence, field: fieldNumber - 2, problem: .outOfRange)
        }
        // Minutes must be below 60.
        guard value.integerPart % 100 < 60 else {
            throw NMEAError.badField(sentence: sentence, field: fieldNumber - 2, problem: .outOfRange)
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
