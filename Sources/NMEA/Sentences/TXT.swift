/// Up to 64 bytes of text held inline (no heap allocation), for TXT messages (NMEA allows 61).
public struct InlineText: Sendable, Hashable, CustomStringConvertible {
    public static let capacity = 64
    var storage: InlineArray<64, UInt8>
    /// The number of bytes held.
    public private(set) var count: Int
    /// Whether the source text was longer than ``capacity`` and was cut.
    public private(set) var truncated: Bool

    init() {
        storage = InlineArray(repeating: 0)
        count = 0
        truncated = false
    }

    init(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        self.init()
        for index in range {
            guard count < InlineText.capacity else { truncated = true; break }
            storage[count] = bytes[index]
            count += 1
        }
    }

    /// The text as a `String` (invalid UTF-8 is repaired).
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for index in 0..<count { bytes.append(storage[index]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func == (a: InlineText, b: InlineText) -> Bool {
        guard a.count == b.count, a.truncated == b.truncated else { return false }
        for index in 0..<a.count where a.storage[index] != b.storage[index] { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        for index in 0..<count { hasher.combine(storage[index]) }
    }
}

/// TXT: text transmission (receiver banners, antenna status, warnings).
///
/// `$GPTXT,xx,yy,zz,text*hh`
public struct TXT: Sendable, Hashable {
    public var totalMessages: Int?
    public var messageNumber: Int?
    /// 00 error, 01 warning, 02 notice, 07 user.
    public var textIdentifier: Int?
    public var text: InlineText

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> TXT {
        var s = TXT(text: InlineText())
        s.totalMessages = try f.integer()
        s.messageNumber = try f.integer()
        s.textIdentifier = try f.integer()
        // The text runs to the end: a receiver that puts commas inside it loses nothing.
        if f.hasMore {
            let start = f.position
            s.text = InlineText(f.base, start..<f.base.count)
        }
        return s
    }
}

/// A short code of up to 8 ASCII characters held in one word (datum codes such as `W84`).
public struct ShortCode: Sendable, Hashable, CustomStringConvertible {
    var packed: UInt64 = 0
    /// The number of characters (longer fields keep their first 8).
    public private(set) var count: Int = 0

    init() {}

    init(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        for index in range.prefix(8) {
            packed |= UInt64(bytes[index]) << (8 * UInt64(count))
            count += 1
        }
    }

    public var description: String {
        String(decoding: (0..<count).map { UInt8(truncatingIfNeeded: packed >> (8 * UInt64($0))) }, as: UTF8.self)
    }
}

/// DTM: datum reference. `$GPDTM,ccc,a,x.x,a,x.x,a,x.x,ccc*hh`
public struct DTM: Sendable, Hashable {
    /// Local datum code (`W84`, `W72`, `S85`, `P90`, `999` user defined).
    public var localDatum: ShortCode
    public var subdivision: ShortCode
    /// Latitude offset, minutes; south is negative.
    public var latitudeOffsetMinutes: FixedDecimal?
    /// Longitude offset, minutes; west is negative.
    public var longitudeOffsetMinutes: FixedDecimal?
    /// Altitude offset, metres.
    public var altitudeOffset: FixedDecimal?
    public var referenceDatum: ShortCode

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> DTM {
        var s = DTM(localDatum: ShortCode(), subdivision: ShortCode(), referenceDatum: ShortCode())
        if let range = f.raw() { s.localDatum = ShortCode(f.base, range) }
        if let range = f.raw() { s.subdivision = ShortCode(f.base, range) }
        s.latitudeOffsetMinutes = try f.signedByLetter(negativeLetter: 0x53, positiveLetter: 0x4E)
        s.longitudeOffsetMinutes = try f.signedByLetter(negativeLetter: 0x57, positiveLetter: 0x45)
        s.altitudeOffset = try f.decimal()
        if let range = f.raw() { s.referenceDatum = ShortCode(f.base, range) }
        return s
    }
}
