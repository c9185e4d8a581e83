/// How strictly the parser treats checksums.
public struct NMEAParserOptions: Sendable, Hashable {
    /// When `true` (the default) a sentence without `*hh` is rejected with ``NMEAError/missingChecksum``.
    /// Some receivers send none; set `false` for them. A checksum that is present is always checked.
    public var requireChecksum: Bool
    /// When `true` (the default) an optional field that cannot be read (not a number, out of range,
    /// an unknown letter) is absent and the sentence keeps its other fields; the field is named in
    /// ``ParsedSentence/unreadableFields``. A sentence is refused only when a field it needs cannot
    /// be read (each sentence type's rule is in `QUIRKS.md`). `false` is the strict reading: any
    /// unreadable field refuses the sentence with ``NMEAError/badField(sentence:field:problem:)``.
    public var toleratesUnreadableFields: Bool

    public init(requireChecksum: Bool = true, toleratesUnreadableFields: Bool = true) {
        self.requireChecksum = requireChecksum
        self.toleratesUnreadableFields = toleratesUnreadableFields
    }
}

/// Where the parts of one sentence lie in its bytes.
struct SentenceLayout {
    /// The address field (after the delimiter, before the first comma).
    var address: Range<Int>
    /// The fields after the address's comma, up to `*` or the end. Empty when there are none.
    var fields: Range<Int>
    /// Whether the sentence had any field after the address (a comma after it).
    var hasFields: Bool
    /// The checksum's position (the index of `*`), if present.
    var star: Int?

    /// Splits a sentence without checking anything but its shape; `nil` if it has no delimiter.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2, bytes[0] == 0x24 || bytes[0] == 0x21 else { return nil }
        var end = bytes.count
        star = nil
        if end >= 4, bytes[end - 3] == 0x2A {
            star = end - 3
            end -= 3
        }
        var comma = 1
        while comma < end, bytes[comma] != 0x2C { comma &+= 1 }
        address = 1..<comma
        hasFields = comma < end
        fields = hasFields ? (comma + 1)..<end : end..<end
    }
}

/// What the parser's single pass over a sentence found: its address, where its fields lie and
/// how many there are. The checksum has been checked.
struct ScannedSentence {
    var address: SentenceAddress
    /// The offset of the first byte after the address's comma (the end when there is no comma).
    var fieldsStart: Int
    /// The offset of `*`, or the sentence's end when it has no checksum.
    var end: Int
    /// Commas between the delimiter and `end`, the address's comma included.
    var commas: Int
}

/// A stateless NMEA 0183 sentence parser over borrowed bytes. It allocates nothing.
public enum NMEAParser {
    /// The longest standard sentence decoded, `$` to checksum: gpsd's `NMEA_MAX` (130 bytes with the
    /// line end). Garmin GPS-10s sometimes send two sentences merged, fields lost, with a valid
    /// checksum; they are longer than this. Proprietary and encapsulated sentences are not limited.
    public static let maximumStandardLength = 128

    /// Parses one sentence: the bytes from `$` or `!` up to (not including) the line terminator.
    ///
    /// - Throws: ``NMEAError`` saying what is wrong and, for field errors, which field and why.
    ///
    /// Inlinable, and only a forwarding call: the result (about 190 bytes) is then built directly in
    /// the caller's memory. A non-inlinable static method is compiled as a thunk around a copy
    /// without its metatype argument, and the thunk copies the result once more.
    @inlinable
    public static func parse(_ sentence: Span<UInt8>, options: NMEAParserOptions = NMEAParserOptions())
        throws(NMEAError) -> ParsedSentence
    {
        // The span's memory stays valid and in place for the whole call (the span is borrowed), so
        // its address can be taken out of the closure; returning the large result through the
        // closure instead would copy it twice.
        let (start, count) = sentence.withUnsafeBufferPointer { ($0.baseAddress, $0.count) }
        let parsed = try parseSentence(start, count, requireChecksum: options.requireChecksum,
                                       strictFields: !options.toleratesUnreadableFields)
        // An error in the fields comes back in the result (see `ParserDecode.swift`).
        if case .failed = parsed.kind { throw parsed.failure() }
        return parsed
    }

    /// ``parse(_:options:)`` for the stream: the parser's body inlined into the caller (not called
    /// through `parseSentence`, one call boundary less a sentence, and the caller reads the parsed
    /// sentence where the decoder wrote it), with the framer's digest of the sentence when there is
    /// one (the XOR and the commas of every byte after the delimiter).
    @inline(__always)
    static func parse(_ sentence: Span<UInt8>, digest: SentenceDigest?, options: NMEAParserOptions) throws(NMEAError) -> ParsedSentence {
        // The span's memory stays in place for the whole call (see `parse(_:options:)`).
        let bytes = sentence.withUnsafeBytes { $0 }
        let parsed = try parse(bytes, options: options, digest: digest)
        if case .failed = parsed.kind { throw parsed.failure() }
        return parsed
    }

    /// Validates only the delimiter, checksum and address of a sentence, without decoding its fields.
    public static func validate(_ sentence: Span<UInt8>, options: NMEAParserOptions = NMEAParserOptions())
        throws(NMEAError) -> SentenceAddress
    {
        try sentence.withUnsafeBufferPointer { (buffer) throws(NMEAError) -> SentenceAddress in
            try scan(UnsafeRawBufferPointer(buffer), options: options).address
        }
    }

    /// Checks the delimiter, the checksum and the address in one pass over the bytes, which also
    /// finds the address's comma and counts the fields. Errors come in this order: delimiter,
    /// checksum (malformed, mismatched, missing), address.
    @inline(__always)
    static func scan(_ bytes: UnsafeRawBufferPointer, options: NMEAParserOptions,
                     digest: SentenceDigest? = nil) throws(NMEAError) -> ScannedSentence {
        let count = bytes.count
        guard count >= 2, let p = bytes.baseAddress else { throw .missingStartDelimiter }
        let delimiter = p.load(as: UInt8.self)
        guard delimiter == 0x24 || delimiter == 0x21 else { throw .missingStartDelimiter }
        let end: Int
        let pass: BodyPass
        if count >= 4, p.load(fromByteOffset: count &- 3, as: UInt8.self) == 0x2A {
            end = count &- 3
            let high = hexDigit(p.load(fromByteOffset: count &- 2, as: UInt8.self))
            let low = hexDigit(p.load(fromByteOffset: count &- 1, as: UInt8.self))
            guard high | low < 16 else { throw .malformedChecksum }
            if let digest {
                // The framer's digest covers `*hh` too: two hex digits (checked just above) and
                // the star, none of them a comma.
                let tail = p.load(fromByteOffset: end, as: UInt8.self) ^ p.load(fromByteOffset: end &+ 1, as: UInt8.self)
                    ^ p.load(fromByteOffset: end &+ 2, as: UInt8.self)
                pass = BodyPass(checksum: digest.xor ^ tail, commas: digest.commas)
            } else {
                pass = BodyPass(p, from: 1, to: end)
            }
            let found = high << 4 | low
            guard pass.checksum == found else { throw .checksumMismatch(calculated: pass.checksum, found: found) }
        } else {
            (end, pass) = try scanUnstarred(bytes, options: options, digest: digest)
        }
        // The address: usually fewer than eight characters, so its comma is in the eight bytes after
        // the delimiter (all before `end`: what follows `end` is `*hh`, and those are hex digits).
        if count >= 9 {
            let word = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
            let mask = FieldReader.commaMask(word)
            if mask != 0 {
                let length = mask.trailingZeroBitCount &>> 3
                guard length >= 1, let address = SentenceAddress(word: word, count: length, delimiter: delimiter)
                else { throw .malformedAddress }
                return ScannedSentence(address: address, fieldsStart: length &+ 2, end: end, commas: pass.commas)
            }
        }
        return try scanLongAddress(p, end: end, delimiter: delimiter, commas: pass.commas)
    }

    /// The address when it has eight characters or more, or the sentence is shorter than nine bytes.
    @inline(never)
    static func scanLongAddress(_ p: UnsafeRawPointer, end: Int, delimiter: UInt8, commas: Int) throws(NMEAError) -> ScannedSentence {
        let firstComma = BodyPass.firstComma(p, from: 1, to: end)
        guard let address = SentenceAddress(UnsafeRawBufferPointer(start: p + 1, count: firstComma &- 1), delimiter: delimiter)
        else { throw .malformedAddress }
        return ScannedSentence(address: address, fieldsStart: min(firstComma &+ 1, end), end: end, commas: commas)
    }

    /// The value of an ASCII hexadecimal digit (either case), or 0xFF.
    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt8 {
        let digit = byte &- 0x30
        if digit < 10 { return digit }
        let letter = (byte | 0x20) &- 0x61
        return letter < 6 ? letter &+ 10 : 0xFF
    }

    /// A sentence that does not end in `*hh`: the end of its fields and their pass.
    ///
    /// * Its first `*` followed by two hexadecimal digits is its checksum, and the bytes after them
    ///   up to the line end are data a logger appended (Android's GnssLogger writes
    ///   `NMEA,$GPGGA,...*63,1699400577561`: a wrapper before the `$`, which the framer counts as
    ///   stray bytes, and its own timestamp after the checksum). gpsd accepts such a line (its
    ///   lexer backs up over the trailing digits, finds no `*` and checks nothing); here the
    ///   checksum is still checked, and a wrong one still refuses the sentence. The stream counts
    ///   these sentences (``SentenceCounters/trailingData``).
    /// * A `*` without two hexadecimal digits after it is a malformed checksum.
    /// * With no `*` at all the sentence is rejected unless checksums are optional.
    @inline(never)
    static func scanUnstarred(_ bytes: UnsafeRawBufferPointer, options: NMEAParserOptions,
                              digest: SentenceDigest?) throws(NMEAError) -> (end: Int, pass: BodyPass) {
        let count = bytes.count
        let p = bytes.baseAddress.unsafelyUnwrapped
        guard let star = checksumStar(bytes) else {
            if options.requireChecksum { throw .missingChecksum }
            return (count, digest.map { BodyPass(checksum: $0.xor, commas: $0.commas) } ?? BodyPass(p, from: 1, to: count))
        }
        guard star &+ 2 < count else { throw .malformedChecksum }
        let high = hexDigit(bytes[star &+ 1])
        let low = hexDigit(bytes[star &+ 2])
        guard high | low < 16 else { throw .malformedChecksum }
        let pass = BodyPass(p, from: 1, to: star)
        let found = high << 4 | low
        guard pass.checksum == found else { throw .checksumMismatch(calculated: pass.checksum, found: found) }
        return (star, pass)
    }

    /// The index of the first `*` after the delimiter, or `nil`.
    @inline(__always)
    static func checksumStar(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 1
        while index < bytes.count {
            if bytes[index] == 0x2A { return index }
            index &+= 1
        }
        return nil
    }

    /// How many bytes follow a sentence's `*hh` (data a logger appended after the checksum, see
    /// `scanUnstarred`): 0 for a sentence that ends with its checksum or has none.
    @inline(never)
    public static func trailingDataLength(_ sentence: Span<UInt8>) -> Int {
        sentence.withUnsafeBytes { bytes in
            guard let star = checksumStar(bytes), star &+ 3 < bytes.count else { return 0 }
            return bytes.count &- star &- 3
        }
    }

    /// The parser's body: frame errors are thrown, an error in the fields comes back as a parsed
    /// sentence of kind `failed` (each caller throws it).
    @inline(__always)
    static func parse(_ bytes: UnsafeRawBufferPointer, options: NMEAParserOptions,
                      digest: SentenceDigest? = nil) throws(NMEAError) -> ParsedSentence {
        let scanned = try scan(bytes, options: options, digest: digest)
        let address = scanned.address
        let p = bytes.baseAddress.unsafelyUnwrapped
        let fields = p + scanned.fieldsStart
        let fieldBytes = scanned.end &- scanned.fieldsStart
        let strict = !options.toleratesUnreadableFields
        // The decoder is chosen first and called in one place, last: the caller then reads the
        // parsed sentence where the decoder wrote it (see `ParserDecode.swift`). An error in the
        // fields comes back as a parsed sentence of kind `failed`.
        var type = SentenceType.otherStandard
        var decode: (inout FieldReader, SentenceAddress) -> ParsedSentence = keptUndecoded
        var passes = true
        let letters = address.low
        // Quectel EC21/EC25 send QZSS and BeiDou satellites as $PQGSA/$PQGSV: standard GSA/GSV
        // under a proprietary-looking address (gpsd decodes them as GSA/GSV). QUIRKS.md Q-GSA-4.
        let quectelSatellites = address.count == 5 && letters >> 48 == 0x50_51
            && (letters >> 24 & 0xFF_FF_FF == 0x47_53_41 || letters >> 24 & 0xFF_FF_FF == 0x47_53_56)
        if address.delimiter == 0x21 {
            type = .encapsulated
        } else if letters >> 56 == 0x50, !quectelSatellites {   // P: proprietary
            type = .proprietary
            // PGRMZ: Garmin altitude.
            if address.count == 5, letters >> 24 == 0x50_47_52_4D_5A { (decode, passes) = (decodedPGRMZ, false) }
        } else if address.count == 5 {
            guard bytes.count <= maximumStandardLength else { throw .tooLong(length: bytes.count) }
            switch UInt32(truncatingIfNeeded: letters >> 24 & 0xFF_FF_FF) {
            case 0x52_4D_43: (type, decode, passes) = (.rmc, decodedRMC, false)   // RMC
            case 0x47_47_41: (type, decode, passes) = (.gga, decodedGGA, false)   // GGA
            case 0x47_53_41: (type, decode, passes) = (.gsa, decodedGSA, false)   // GSA
            case 0x47_53_56: (type, decode, passes) = (.gsv, decodedGSV, false)   // GSV
            case 0x56_54_47: (type, decode, passes) = (.vtg, decodedVTG, false)   // VTG
            case 0x47_4C_4C: (type, decode, passes) = (.gll, decodedGLL, false)   // GLL
            case 0x5A_44_41: (type, decode, passes) = (.zda, decodedZDA, false)   // ZDA
            case 0x47_4E_53: (type, decode, passes) = (.gns, decodedGNS, false)   // GNS
            case 0x47_53_54: (type, decode, passes) = (.gst, decodedGST, false)   // GST
            case 0x47_42_53: (type, decode, passes) = (.gbs, decodedGBS, false)   // GBS
            case 0x48_44_54: (type, decode, passes) = (.hdt, decodedHDT, false)   // HDT
            case 0x48_44_47: (type, decode, passes) = (.hdg, decodedHDG, false)   // HDG
            case 0x54_48_53: (type, decode, passes) = (.ths, decodedTHS, false)   // THS
            case 0x54_58_54: (type, decode, passes) = (.txt, decodedTXT, false)   // TXT
            case 0x44_54_4D: (type, decode, passes) = (.dtm, decodedDTM, false)   // DTM
            default: break
            }
        }
        // An undecoded sentence's reader counts the commas after the address (its field count); a
        // decoder's counts a sentence with none as one empty field.
        var f = FieldReader(start: fields, count: fieldBytes, fieldCount: passes ? scanned.commas : max(scanned.commas, 1),
                            sentence: type, strict: strict, readable: bytes.count &- scanned.fieldsStart)
        return decode(&f, address)
    }
}

/// The body of ``NMEAParser/parse(_:options:)``: a free function (no metatype argument to drop,
/// so the optimizer keeps it whole instead of wrapping it in a copying thunk).
/// With a `digest` (from ``NMEAFramer``, of the same bytes), the checksum and the commas are
/// taken from it instead of from a pass over the bytes. Errors of the sentence's frame (delimiter,
/// checksum, address, length) are thrown; an error in its fields comes back as a parsed sentence
/// of kind `failed`, which the callers throw.
@usableFromInline
func parseSentence(_ start: UnsafePointer<UInt8>?, _ count: Int, requireChecksum: Bool, strictFields: Bool,
                   digest: SentenceDigest? = nil) throws(NMEAError) -> ParsedSentence {
    try NMEAParser.parse(UnsafeRawBufferPointer(start: start, count: count),
                         options: NMEAParserOptions(requireChecksum: requireChecksum, toleratesUnreadableFields: !strictFields),
                         digest: digest)
}

/// One pass over `bytes[from..<to]` (the sentence between the delimiter and `*`), eight bytes at a
/// time: the XOR checksum and the number of commas.
struct BodyPass {
    var checksum: UInt8
    var commas: Int

    // Out of line: in its own function the loop keeps its constants in registers.
    @inline(never)
    init(_ p: UnsafeRawPointer, from: Int, to: Int) {
        var sum: UInt64 = 0
        var commas = 0
        let length = to &- from
        if length >= 16 {
            // Sixteen bytes at a time (SSE2, in the x86-64 baseline): XOR, and a per-lane count of
            // commas. Lanes stay below 128 (the two halves are added before the lanes are summed),
            // so longer sentences (not real ones, which stay below 300 bytes) go the long way.
            guard length <= 127 &* 16 else {
                self = BodyPass.long(p, from: from, to: to)
                return
            }
            let comma = SIMD16<UInt8>(repeating: 0x2C)
            let zero = SIMD16<UInt8>()
            let one = SIMD16<UInt8>(repeating: 1)
            var xor = SIMD16<UInt8>()
            var lanes = SIMD16<UInt8>()
            var block = p + from
            let last = p + (to &- 16)
            // Two blocks a turn while both are whole, then the one left, if any.
            while block + 16 <= last {
                let first = block.loadUnaligned(as: SIMD16<UInt8>.self)
                let second = (block + 16).loadUnaligned(as: SIMD16<UInt8>.self)
                xor ^= first ^ second
                lanes &+= one.replacing(with: 0, where: first .!= comma) &+ one.replacing(with: 0, where: second .!= comma)
                block += 32
            }
            if block <= last {
                let bytes = block.loadUnaligned(as: SIMD16<UInt8>.self)
                xor ^= bytes
                lanes &+= one.replacing(with: 0, where: bytes .!= comma)
                block += 16
            }
            let left = block.distance(to: last) &+ 16   // 0...15 bytes not yet taken
            if left > 0 {
                // The last sixteen bytes, less those already taken (zeroed: a zero byte neither
                // changes the XOR nor is a comma).
                let index = SIMD16<UInt8>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
                let taken = SIMD16<UInt8>(repeating: UInt8(truncatingIfNeeded: 16 &- left))
                let bytes = last.loadUnaligned(as: SIMD16<UInt8>.self).replacing(with: zero, where: index .< taken)
                xor ^= bytes
                lanes &+= one.replacing(with: 0, where: bytes .!= comma)
            }
            let counts = unsafeBitCast(lanes, to: (UInt64, UInt64).self)
            commas = BodyPass.sumOfLanes(counts.0 &+ counts.1)
            let halves = unsafeBitCast(xor, to: (UInt64, UInt64).self)
            sum = halves.0 ^ halves.1
            sum ^= sum &>> 32
            sum ^= sum &>> 16
            sum ^= sum &>> 8
        } else if length >= 8 {
            // One or two words; per-byte comma counts (0 or 1 per word) add up in eight byte lanes.
            var lanes: UInt64 = 0
            var word = p + from
            let last = p + (to &- 8)
            repeat {
                let bytes = UInt64(littleEndian: word.loadUnaligned(as: UInt64.self))
                sum ^= bytes
                lanes &+= FieldReader.commaMask(bytes) &>> 7
                word += 8
            } while word <= last
            let left = word.distance(to: last) &+ 8   // 0...7 bytes not yet taken
            if left > 0 {
                // The last eight bytes, less those already taken (shifted out at the low end:
                // the loads are little-endian, so earlier bytes are the low ones).
                let bytes = UInt64(littleEndian: last.loadUnaligned(as: UInt64.self)) &>> UInt64(truncatingIfNeeded: 64 &- 8 &* left)
                sum ^= bytes
                lanes &+= FieldReader.commaMask(bytes) &>> 7
            }
            commas = BodyPass.sumOfLanes(lanes)
            sum ^= sum &>> 32
            sum ^= sum &>> 16
            sum ^= sum &>> 8
        } else {
            var index = from
            while index < to {
                let byte = p.load(fromByteOffset: index, as: UInt8.self)
                sum ^= UInt64(byte)
                if byte == 0x2C { commas &+= 1 }
                index &+= 1
            }
        }
        checksum = UInt8(truncatingIfNeeded: sum)
        self.commas = commas
    }

    /// The same for any length, a word at a time.
    @inline(never)
    static func long(_ p: UnsafeRawPointer, from: Int, to: Int) -> BodyPass {
        var sum: UInt8 = 0
        var commas = 0
        var index = from
        while index &+ 8 <= to {
            let word = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            commas &+= FieldReader.commaCount(FieldReader.commaMask(word))
            var folded = word ^ (word &>> 32)
            folded ^= folded &>> 16
            folded ^= folded &>> 8
            sum ^= UInt8(truncatingIfNeeded: folded)
            index &+= 8
        }
        while index < to {
            let byte = p.load(fromByteOffset: index, as: UInt8.self)
            sum ^= byte
            if byte == 0x2C { commas &+= 1 }
            index &+= 1
        }
        return BodyPass(checksum: sum, commas: commas)
    }

    init(checksum: UInt8, commas: Int) {
        self.checksum = checksum
        self.commas = commas
    }

    /// The sum of the eight bytes of `lanes` (at most 8 x 255, so it fits the 16-bit lanes used).
    @inline(__always)
    static func sumOfLanes(_ lanes: UInt64) -> Int {
        let pairs = (lanes & 0x00FF_00FF_00FF_00FF) &+ ((lanes &>> 8) & 0x00FF_00FF_00FF_00FF)
        return Int(truncatingIfNeeded: (pairs &* 0x0001_0001_0001_0001) &>> 48)
    }

    /// The offset of the first comma in `bytes[from..<to]`, or `to`.
    @inline(__always)
    static func firstComma(_ p: UnsafeRawPointer, from: Int, to: Int) -> Int {
        var index = from
        while index &+ 8 <= to {
            let mask = FieldReader.commaMask(UInt64(littleEndian: p.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            if mask != 0 { return index &+ mask.trailingZeroBitCount &>> 3 }
            index &+= 8
        }
        while index < to, p.load(fromByteOffset: index, as: UInt8.self) != 0x2C { index &+= 1 }
        return index
    }
}
