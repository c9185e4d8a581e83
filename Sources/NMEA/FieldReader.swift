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
    /// The number of bytes that may be loaded from `start`: at least `count` (a sentence's `*hh`
    /// follows its fields).
    let readable: Int
    let sentence: SentenceType
    /// The number of fields (a sentence with no comma after the address has one, empty, field);
    /// for an undecoded sentence, the number of commas after the address. Known from the
    /// parser's single pass over the sentence; only GSA, GSV, VTG and undecoded sentences ask.
    let fieldCount: Int
    /// Start of the next field; `count + 1` once every field has been read.
    var position = 0
    /// Whether an unreadable optional field refuses the sentence (the strict reading) instead of
    /// becoming absent. See ``tolerant(width:_:)``.
    let strict: Bool
    /// The optional fields that could not be read and were taken as absent: bit `n - 1` for field
    /// `n` (fields 1...64; later ones are not recorded).
    var unreadable: UInt64 = 0

    /// A reader over `base` whose field count is already known.
    @inline(__always)
    init(start: UnsafeRawPointer, count: Int, fieldCount: Int, sentence: SentenceType, strict: Bool = false,
         readable: Int? = nil) {
        self.start = start
        self.count = count
        self.readable = max(readable ?? count, count)
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
    mutating func skip() {
        // A one-letter field (a unit such as `M`) and its comma, without the scan.
        let first = position
        if first &+ 1 < count, byte(first &+ 1) == 0x2C, byte(first) != 0x2C {
            position = first &+ 2
            return
        }
        _ = next()
    }

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
    @inline(__always)
    mutating func drop(_ error: NMEAError, from first: Int, width: Int) throws(NMEAError) {
        (position, unreadable) = try dropping(error, from: first, width: width)
    }

    /// ``drop(_:from:width:)`` out of line, on a copy: the position after the `width` fields and
    /// the unreadable fields with the failing one added. (Not mutating: a call that took the reader's
    /// address would keep the reader in memory on the hot paths too.)
    @inline(never)
    func dropping(_ error: NMEAError, from first: Int, width: Int) throws(NMEAError) -> (position: Int, unreadable: UInt64) {
        if strict { throw error }
        var reader = self
        if case .badField(_, let field, _) = error, field >= 1, field <= 64 {
            reader.unreadable |= 1 &<< UInt64(field &- 1)
        }
        reader.position = first
        for _ in 0..<width { reader.skip() }
        return (reader.position, reader.unreadable)
    }

    /// Marks field `number` unreadable (for fields whose parts are read by hand); throws the field
    /// error in the strict reading.
    @inline(__always)
    mutating func noteUnreadable(field number: Int, _ problem: FieldProblem) throws(NMEAError) {
        unreadable = try noting(field: number, problem)
    }

    /// ``noteUnreadable(field:_:)`` out of line: the unreadable fields with `number` added.
    @inline(never)
    func noting(field number: Int, _ problem: FieldProblem) throws(NMEAError) -> UInt64 {
        if strict { throw NMEAError.badField(sentence: sentence, field: number, problem: problem) }
        if number >= 1, number <= 64 { return unreadable | 1 &<< UInt64(number &- 1) }
        return unreadable
    }

    /// The next field as raw bytes, or `nil` if empty or absent.
    @inline(__always)
    mutating func raw() -> Range<Int>? {
        guard let range = next(), !range.isEmpty else { return nil }
        return range
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
        // Spelled out: `ModeIndicator(rawValue:)` is a call.
        switch byte {
        case 0x41: return .autonomous
        case 0x44: return .differential
        case 0x45: return .estimated
        case 0x46: return .floatRTK
        case 0x4D: return .manual
        case 0x4E: return .notValid
        case 0x50: return .precise
        case 0x52: return .rtk
        case 0x53: return .simulator
        default: throw fail(.unexpectedValue(byte))
        }
    }

    /// The next field as a NMEA 4.10 navigational status.
    @inline(__always)
    mutating func navigationalStatus() throws(NMEAError) -> NavigationalStatus? {
        guard let byte = try character() else { return nil }
        guard let status = NavigationalStatus(rawValue: byte) else { throw fail(.unexpectedValue(byte)) }
        return status
    }

}
