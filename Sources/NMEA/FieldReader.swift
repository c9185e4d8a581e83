/// Reads the comma-separated fields of one sentence in order, from borrowed bytes, without allocating.
///
/// `base` holds the fields after the address (the bytes between the address's comma and `*`).
/// Field numbers count from 1, as in NMEA documents.
///
/// The hot readers (`decimal`, `integer`, `character`, `time`, ...) take one pass over the bytes of
/// the field for the shapes receivers send; anything else (a sign, a stray character, an error) goes
/// to an out-of-line general path that reads the field again from its start, so the result and the
/// error (field number included) are the same either way. The reader keeps only its position: the
/// number of the field being read, needed only for errors, is counted from the position when an
/// error is built.
struct FieldReader {
    /// The first byte of the fields (never dereferenced when `count` is 0).
    let start: UnsafeRawPointer
    /// The number of bytes of the fields.
    let count: Int
    let sentence: SentenceType
    /// The number of fields (a sentence with no comma after the address has one, empty, field).
    /// Known from the parser's single pass over the sentence; only GSA, GSV and VTG ask.
    let fieldCount: Int
    /// Start of the next field; `count + 1` once every field has been read.
    private(set) var position = 0
    /// Whether an unreadable optional field refuses the sentence (the strict reading) instead of
    /// becoming absent. See ``tolerant(width:_:)``.
    let strict: Bool
    /// The optional fields that could not be read and were taken as absent: bit `n - 1` for field
    /// `n` (fields 1...64; later ones are not recorded).
    private(set) var unreadable: UInt64 = 0

    /// A reader over `base` whose field count is already known.
    @inline(__always)
    init(start: UnsafeRawPointer, count: Int, fieldCount: Int, sentence: SentenceType, strict: Bool = false) {
        self.start = start
        self.count = count
        self.fieldCount = fieldCount
        self.sentence = sentence
        self.strict = strict
    }

    /// A reader over `base`, counting its fields.
    init(_ base: UnsafeRawBufferPointer, sentence: SentenceType) {
        self.init(start: base.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!, count: base.count,
                  fieldCount: FieldReader.countCommas(base) &+ 1, sentence: sentence)
    }

    /// The fields' bytes.
    var base: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    /// The index (0-based) of the field that `next()` returns, which is also the number (1-based)
    /// of the last field read: every field read so far ended at a comma, except a last one that
    /// ended at the end of the bytes.
    var index: Int {
        if position > count { return FieldReader.countCommas(base) &+ 1 }
        return FieldReader.countCommas(UnsafeRawBufferPointer(start: start, count: position))
    }

    @inline(__always)
    func byte(_ offset: Int) -> UInt8 { start.load(fromByteOffset: offset, as: UInt8.self) }

    /// The number of commas in `bytes`, eight bytes at a time.
    @inline(__always)
    static func countCommas(_ bytes: UnsafeRawBufferPointer) -> Int {
        var commas = 0
        var offset = 0
        while offset &+ 8 <= bytes.count {
            commas &+= commaCount(commaMask(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
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

    /// The number of commas flagged in a `commaMask`: its high bits moved to the bottom of each byte
    /// and summed by one multiplication (no `popcnt`, which the baseline x86-64 target lacks).
    @inline(__always)
    static func commaCount(_ mask: UInt64) -> Int {
        Int(truncatingIfNeeded: ((mask &>> 7) &* 0x0101_0101_0101_0101) &>> 56)
    }

    /// Whether a further field exists (possibly empty).
    var hasMore: Bool { position <= count }

    /// The byte length of the last field.
    var lastFieldLength: Int {
        var first = count
        while first > 0, byte(first &- 1) != 0x2C { first &-= 1 }
        return count &- first
    }

    /// The byte range of the next field, or `nil` when the sentence has no further fields.
    @inline(__always)
    mutating func next() -> Range<Int>? {
        let first = position
        guard first <= count else { return nil }
        var end = first
        while end < count, byte(end) != 0x2C { end &+= 1 }
        position = end &+ 1
        return first..<end
    }

    @inline(never)
    func fail(_ problem: FieldProblem) -> NMEAError {
        .badField(sentence: sentence, field: index, problem: problem)
    }

    @inline(__always)
    mutating func skip() { _ = next() }

    /// Reads an optional field (or a pair, `width` 2, such as a coordinate and its hemisphere) with
    /// `read`. When it cannot be read (not a number, out of range, an unknown letter), the field is
    /// absent rather than the sentence refused: the failing field is recorded in ``unreadable`` and
    /// reading goes on after the `width` fields. A tolerated field is never turned into a value: it
    /// is `nil`. In the strict reading the error propagates instead.
    @inline(__always)
    mutating func tolerant<T>(width: Int = 1, _ read: (inout FieldReader) throws(NMEAError) -> T?) throws(NMEAError) -> T? {
        let first = position
        do throws(NMEAError) {
            return try read(&self)
        } catch {
            try drop(error, from: first, width: width)
            return nil
        }
    }

    /// The next field as an optional decimal: unreadable, it is absent (see ``tolerant(width:_:)``).
    @inline(__always)
    mutating func optionalDecimal() throws(NMEAError) -> FixedDecimal? {
        try tolerant { (f) throws(NMEAError) in try f.decimal() }
    }

    /// The next field as an optional whole number within `bounds`: unreadable or out of range, absent.
    @inline(__always)
    mutating func optionalInteger(in bounds: ClosedRange<Int>) throws(NMEAError) -> Int? {
        try tolerant { (f) throws(NMEAError) in try f.integer(in: bounds) }
    }

    /// The next field as an optional mode indicator: an unknown letter is absent.
    @inline(__always)
    mutating func optionalMode() throws(NMEAError) -> ModeIndicator? {
        try tolerant { (f) throws(NMEAError) in try f.modeIndicator() }
    }

    /// The next two fields as an optional E/W-signed value (a variation or deviation): absent when
    /// the value or its letter cannot be read (SiRF III puts its mode letter there).
    @inline(__always)
    mutating func optionalEastWest() throws(NMEAError) -> FixedDecimal? {
        try tolerant(width: 2) { (f) throws(NMEAError) in try f.signedByLetter(negativeLetter: 0x57, positiveLetter: 0x45) }
    }

    /// The next four fields as an optional position (latitude, hemisphere, longitude, hemisphere):
    /// both coordinates, or neither when either cannot be read (half a position is no position).
    @inline(__always)
    mutating func optionalPosition() throws(NMEAError) -> (latitude: Coordinate?, longitude: Coordinate?) {
        let latitude = try tolerant(width: 2) { (f) throws(NMEAError) in try f.coordinate(latitude: true) }
        let longitude = try tolerant(width: 2) { (f) throws(NMEAError) in try f.coordinate(latitude: false) }
        guard let latitude, let longitude else { return (nil, nil) }
        return (latitude, longitude)
    }

    /// The error path of ``tolerant(width:_:)``: notes the field and skips past the `width` fields.
    @inline(never)
    mutating func drop(_ error: NMEAError, from first: Int, width: Int) throws(NMEAError) {
        if strict { throw error }
        if case .badField(_, let field, _) = error, field >= 1, field <= 64 {
            unreadable |= 1 &<< UInt64(field &- 1)
        }
        position = first
        for _ in 0..<width { skip() }
    }

    /// Marks field `number` unreadable (for fields whose parts are read by hand); throws the field
    /// error in the strict reading.
    @inline(never)
    mutating func noteUnreadable(field number: Int, _ problem: FieldProblem) throws(NMEAError) {
        if strict { throw NMEAError.badField(sentence: sentence, field: number, problem: problem) }
        if number >= 1, number <= 64 { unreadable |= 1 &<< UInt64(number &- 1) }
    }

    /// The next field as raw bytes, or `nil` if empty or absent.
    @inline(__always)
    mutating func raw() -> Range<Int>? {
        guard let range = next(), !range.isEmpty else { return nil }
        return range
    }

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
                    let significand = whole &* FieldReader.powerOfTen(scale) &+ digits
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

    /// 10^exponent for 0...7.
    @inline(__always)
    static func powerOfTen(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1_000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        default: return 10_000_000
        }
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
        // Two digits and a comma (satellite numbers, elevations, SNRs, counts) without a loop.
        if first &+ 2 < count {
            let tens = byte(first) &- 0x30
            let ones = byte(first &+ 1) &- 0x30
            if tens < 10, ones < 10, byte(first &+ 2) == 0x2C {
                position = first &+ 3
                return Int(tens) &* 10 &+ Int(ones)
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

    // MARK: Letters

    /// The next field as a single character, or `nil` if empty.
    @inline(__always)
    mutating func character() throws(NMEAError) -> UInt8? {
        let first = position
        if first < count {
            let byte = byte(first)
            if byte == 0x2C {
                position = first &+ 1
                return nil
            }
            let after = first &+ 1
            guard after == count || self.byte(after) == 0x2C else { return try characterGeneral() }
            position = after &+ 1
            return byte
        }
        if first == count { position = first &+ 1 }
        return nil
    }

    /// A field of more than one character: an error, once the field is read.
    @inline(__always)
    mutating func characterGeneral() throws(NMEAError) -> UInt8? {
        let (value, next) = try readCharacterGeneral()
        position = next
        return value
    }

    @inline(never)
    func readCharacterGeneral() throws(NMEAError) -> (UInt8?, Int) {
        var reader = self
        guard let range = reader.raw() else { return (nil, reader.position) }
        guard range.count == 1 else { throw reader.fail(.unexpectedValue(byte(range.lowerBound))) }
        return (byte(range.lowerBound), reader.position)
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
