/// How strictly the parser treats checksums.
public struct NMEAParserOptions: Sendable, Hashable {
    /// When `true` (the default) a sentence without `*hh` is rejected with ``NMEAError/missingChecksum``.
    /// Some receivers send none; set `false` for them. A checksum that is present is always checked.
    public var requireChecksum: Bool

    public init(requireChecksum: Bool = true) { self.requireChecksum = requireChecksum }
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

/// A stateless NMEA 0183 sentence parser over borrowed bytes. It allocates nothing.
public enum NMEAParser {
    /// Parses one sentence: the bytes from `$` or `!` up to (not including) the line terminator.
    ///
    /// - Throws: ``NMEAError`` saying what is wrong and, for field errors, which field and why.
    public static func parse(_ sentence: Span<UInt8>, options: NMEAParserOptions = NMEAParserOptions())
        throws(NMEAError) -> ParsedSentence
    {
        try sentence.withUnsafeBufferPointer { (buffer) throws(NMEAError) -> ParsedSentence in
            try parse(UnsafeRawBufferPointer(buffer), options: options)
        }
    }

    /// Validates only the delimiter, checksum and address of a sentence, without decoding its fields.
    public static func validate(_ sentence: Span<UInt8>, options: NMEAParserOptions = NMEAParserOptions())
        throws(NMEAError) -> SentenceAddress
    {
        try sentence.withUnsafeBufferPointer { (buffer) throws(NMEAError) -> SentenceAddress in
            let bytes = UnsafeRawBufferPointer(buffer)
            let layout = try check(bytes, options: options)
            return try address(bytes, layout)
        }
    }

    @inline(__always)
    static func check(_ bytes: UnsafeRawBufferPointer, options: NMEAParserOptions) throws(NMEAError) -> SentenceLayout {
        guard let layout = SentenceLayout(bytes) else { throw .missingStartDelimiter }
        if let star = layout.star {
            guard let high = NMEAChecksum.hexValue(bytes[star + 1]), let low = NMEAChecksum.hexValue(bytes[star + 2])
            else { throw .malformedChecksum }
            let found = high << 4 | low
            let calculated = xorChecksum(bytes, from: 1, to: star)
            guard calculated == found else { throw .checksumMismatch(calculated: calculated, found: found) }
        } else {
            // A `*` that is not followed by exactly two characters is a malformed checksum.
            for index in 1..<bytes.count where bytes[index] == 0x2A { throw .malformedChecksum }
            if options.requireChecksum { throw .missingChecksum }
        }
        return layout
    }

    @inline(__always)
    static func address(_ bytes: UnsafeRawBufferPointer, _ layout: SentenceLayout) throws(NMEAError) -> SentenceAddress {
        guard let address = SentenceAddress(UnsafeRawBufferPointer(rebasing: bytes[layout.address]), delimiter: bytes[0])
        else { throw .malformedAddress }
        return address
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, options: NMEAParserOptions) throws(NMEAError) -> ParsedSentence {
        let layout = try check(bytes, options: options)
        let address = try address(bytes, layout)
        let fields = UnsafeRawBufferPointer(rebasing: bytes[layout.fields])
        var passThrough: PassThrough {
            PassThrough(address: address, fieldCount: layout.hasFields ? FieldReader.countCommas(fields) + 1 : 0)
        }
        if address.delimiter == 0x21 { return ParsedSentence(address: address, sentence: .encapsulated(passThrough)) }
        if address.isProprietary {
            // PGRMZ: Garmin altitude.
            if address.count == 5, address[1] == 0x47, address[2] == 0x52, address[3] == 0x4D, address[4] == 0x5A {
                var reader = FieldReader(fields, sentence: .proprietary)
                return ParsedSentence(address: address, sentence: .pgrmz(try PGRMZ.parse(&reader)))
            }
            return ParsedSentence(address: address, sentence: .proprietary(passThrough))
        }
        guard address.count == 5 else { return ParsedSentence(address: address, sentence: .other(passThrough)) }
        let typeStart = layout.address.lowerBound + 2
        let code = UInt32(bytes[typeStart]) << 16 | UInt32(bytes[typeStart + 1]) << 8 | UInt32(bytes[typeStart + 2])
        switch code {
        case 0x52_4D_43: // RMC
            var reader = FieldReader(fields, sentence: .rmc)
            return ParsedSentence(address: address, sentence: .rmc(try RMC.parse(&reader)))
        case 0x47_47_41: // GGA
            var reader = FieldReader(fields, sentence: .gga)
            return ParsedSentence(address: address, sentence: .gga(try GGA.parse(&reader)))
        case 0x47_53_41: // GSA
            var reader = FieldReader(fields, sentence: .gsa)
            return ParsedSentence(address: address, sentence: .gsa(try GSA.parse(&reader)))
        case 0x47_53_56: // GSV
            var reader = FieldReader(fields, sentence: .gsv)
            return ParsedSentence(address: address, sentence: .gsv(try GSV.parse(&reader)))
        case 0x56_54_47: // VTG
            var reader = FieldReader(fields, sentence: .vtg)
            return ParsedSentence(address: address, sentence: .vtg(try VTG.parse(&reader)))
        case 0x47_4C_4C: // GLL
            var reader = FieldReader(fields, sentence: .gll)
            return ParsedSentence(address: address, sentence: .gll(try GLL.parse(&reader)))
        case 0x5A_44_41: // ZDA
            var reader = FieldReader(fields, sentence: .zda)
            return ParsedSentence(address: address, sentence: .zda(try ZDA.parse(&reader)))
        case 0x47_4E_53: // GNS
            var reader = FieldReader(fields, sentence: .gns)
            return ParsedSentence(address: address, sentence: .gns(try GNS.parse(&reader)))
        case 0x47_53_54: // GST
            var reader = FieldReader(fields, sentence: .gst)
            return ParsedSentence(address: address, sentence: .gst(try GST.parse(&reader)))
        case 0x47_42_53: // GBS
            var reader = FieldReader(fields, sentence: .gbs)
            return ParsedSentence(address: address, sentence: .gbs(try GBS.parse(&reader)))
        case 0x48_44_54: // HDT
            var reader = FieldReader(fields, sentence: .hdt)
            return ParsedSentence(address: address, sentence: .hdt(try HDT.parse(&reader)))
        case 0x48_44_47: // HDG
            var reader = FieldReader(fields, sentence: .hdg)
            return ParsedSentence(address: address, sentence: .hdg(try HDG.parse(&reader)))
        case 0x54_48_53: // THS
            var reader = FieldReader(fields, sentence: .ths)
            return ParsedSentence(address: address, sentence: .ths(try THS.parse(&reader)))
        case 0x54_58_54: // TXT
            var reader = FieldReader(fields, sentence: .txt)
            return ParsedSentence(address: address, sentence: .txt(try TXT.parse(&reader)))
        case 0x44_54_4D: // DTM
            var reader = FieldReader(fields, sentence: .dtm)
            return ParsedSentence(address: address, sentence: .dtm(try DTM.parse(&reader)))
        default:
            return ParsedSentence(address: address, sentence: .other(passThrough))
        }
    }
}

/// XOR of `bytes[from..<to]`, eight bytes at a time.
@inline(__always)
func xorChecksum(_ bytes: UnsafeRawBufferPointer, from: Int, to: Int) -> UInt8 {
    var index = from
    var wide: UInt64 = 0
    while index &+ 8 <= to {
        wide ^= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index &+= 8
    }
    wide ^= wide >> 32
    wide ^= wide >> 16
    wide ^= wide >> 8
    var sum = UInt8(truncatingIfNeeded: wide)
    while index < to {
        sum ^= bytes[index]
        index &+= 1
    }
    return sum
}
