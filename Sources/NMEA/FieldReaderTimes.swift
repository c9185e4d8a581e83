/// Times, dates and the compound fields (a coordinate and its hemisphere, a value and its direction letter).
extension FieldReader {
    // MARK: Time and date

    /// The next field as a `hhmmss[.s...]` UTC time of day.
    @inline(__always)
    mutating func time() throws(NMEAError) -> TimeOfDay? {
        // One pass for six digits, optionally a point and fraction digits; anything else (an
        // empty field included) takes the general path.
        let first = position
        if first &+ 6 <= count, let h = twoDigits(at: first), let m = twoDigits(at: first &+ 2),
           let s = twoDigits(at: first &+ 4)
        {
            var offset = first &+ 6
            var nanos = 0
            if offset < count, byte(offset) != 0x2C {
                guard byte(offset) == 0x2E else { return try timeGeneral() }
                offset &+= 1
                var fraction = 0
                var digits = 0
                while offset < count {
                    let digit = byte(offset) &- 0x30
                    guard digit < 10 else { break }
                    if digits < 9 {
                        fraction = fraction &* 10 &+ Int(digit)
                        digits &+= 1
                    }
                    offset &+= 1
                }
                guard offset == count || byte(offset) == 0x2C else { return try timeGeneral() }
                nanos = fraction &* FieldReader.nanosecondScale(digits: digits)
            }
            position = offset &+ 1
            guard let time = TimeOfDay(hour: h, minute: m, second: s, nanosecond: nanos) else { throw fail(.badTime) }
            return time
        }
        return try timeGeneral()
    }

    /// 10^(9 - digits) for 0...9 fraction digits.
    @inline(__always)
    static func nanosecondScale(digits: Int) -> Int {
        switch digits {
        case 0: return 1_000_000_000
        case 1: return 100_000_000
        case 2: return 10_000_000
        case 3: return 1_000_000
        case 4: return 100_000
        case 5: return 10_000
        case 6: return 1_000
        case 7: return 100
        case 8: return 10
        default: return 1
        }
    }

    @inline(__always)
    mutating func timeGeneral() throws(NMEAError) -> TimeOfDay? {
        let (value, next) = try readTimeGeneral()
        position = next
        return value
    }

    @inline(never)
    func readTimeGeneral() throws(NMEAError) -> (TimeOfDay?, Int) {
        var reader = self
        return (try reader.timeGeneralBody(), reader.position)
    }

    mutating func timeGeneralBody() throws(NMEAError) -> TimeOfDay? {
        guard let range = raw() else { return nil }
        guard range.count >= 6 else { throw fail(.badTime) }
        let first = range.lowerBound
        guard let h = twoDigits(at: first), let m = twoDigits(at: first + 2), let s = twoDigits(at: first + 4)
        else { throw fail(.badTime) }
        var nanos = 0
        if range.count > 6 {
            guard byte(first + 6) == 0x2E else { throw fail(.badTime) }
            var multiplier = 100_000_000
            var index = first + 7
            while index < range.upperBound {
                let digit = byte(index) &- 0x30
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
        let first = position
        let end = first &+ 6
        if end <= count, end == count || byte(end) == 0x2C, let d = twoDigits(at: first),
           let m = twoDigits(at: first &+ 2), let y = twoDigits(at: first &+ 4)
        {
            position = end &+ 1
            guard d >= 1, d <= 31, m >= 1, m <= 12 else { throw fail(.badDate) }
            return (d, m, y)
        }
        return try shortDateGeneral()
    }

    @inline(__always)
    mutating func shortDateGeneral() throws(NMEAError) -> (day: Int, month: Int, year: Int)? {
        let (value, next) = try readShortDateGeneral()
        position = next
        return value
    }

    @inline(never)
    func readShortDateGeneral() throws(NMEAError) -> ((day: Int, month: Int, year: Int)?, Int) {
        var reader = self
        return (try reader.shortDateGeneralBody(), reader.position)
    }

    mutating func shortDateGeneralBody() throws(NMEAError) -> (day: Int, month: Int, year: Int)? {
        guard let range = raw() else { return nil }
        guard range.count == 6, let d = twoDigits(at: range.lowerBound), let m = twoDigits(at: range.lowerBound + 2),
              let y = twoDigits(at: range.lowerBound + 4), (1...31).contains(d), (1...12).contains(m)
        else { throw fail(.badDate) }
        return (d, m, y)
    }

    @inline(__always)
    func twoDigits(at index: Int) -> Int? {
        let a = byte(index) &- 0x30
        let b = byte(index &+ 1) &- 0x30
        guard a < 10, b < 10 else { return nil }
        return Int(a) &* 10 &+ Int(b)
    }

    // MARK: Compound fields

    /// Two fields: a `(d)ddmm.mmmm` value and its hemisphere letter (`N`/`S` or `E`/`W`).
    @inline(__always)
    mutating func coordinate(latitude: Bool) throws(NMEAError) -> Coordinate? {
        let parts = try longDecimalAndWholePart()
        let hemisphere = try character()
        guard let (value, whole) = parts else { return nil }
        let negative: Bool
        switch hemisphere {
        case 0x4E where latitude, 0x45 where !latitude: negative = false   // N, E
        case 0x53 where latitude, 0x57 where !latitude: negative = true    // S, W
        case nil: throw fail(.missing)
        case let other?: throw fail(.unexpectedValue(other))
        }
        let limit: Int64 = latitude ? 9000 : 18000
        // Minutes must be below 60.
        guard value.significand >= 0, whole <= limit, whole % 100 < 60 else { throw coordinateOutOfRange() }
        return Coordinate(degreesMinutes: value, isNegative: negative)
    }

    /// The value field (the one before the hemisphere letter just read) is out of range.
    @inline(never)
    func coordinateOutOfRange() -> NMEAError {
        .badField(sentence: sentence, field: index - 1, problem: .outOfRange)
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
