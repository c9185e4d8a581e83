/// An Eddystone-URL frame: a compressed URL (a scheme prefix byte, then printable ASCII where the
/// bytes 0x00-0x0D stand for common endings such as `.com/`), kept encoded so that parsing
/// allocates nothing; ``url`` expands it.
public struct EddystoneURL: Hashable, Sendable {
    /// The most encoded bytes after the scheme (the frame is at most 20 bytes).
    public static let maximumEncodedLength = 17

    /// The scheme prefixes, by their byte.
    public static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    /// The expansions, by their byte 0x00-0x0D.
    public static let expansions = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                                    ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]

    /// Calibrated transmit power at 0 m, dBm.
    public var txPower: Int8
    /// The scheme prefix byte (0-3).
    public var scheme: UInt8
    /// How many encoded bytes follow the scheme.
    public var encodedLength: Int
    // The encoded bytes, eight per word, the first in the top bits.
    private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)

    /// Validates and keeps an encoded URL; `nil` for an unknown scheme, more than 17 bytes, or a
    /// reserved byte (0x0E-0x20, 0x7F-0xFF).
    public init?(txPower: Int8, scheme: UInt8, encoded: UnsafeRawBufferPointer) {
        guard scheme < 4, encoded.count <= Self.maximumEncodedLength else { return nil }
        self.txPower = txPower
        self.scheme = scheme
        encodedLength = encoded.count
        for index in 0..<encoded.count {
            let byte = encoded[index]
            guard byte <= 0x0D || (byte >= 0x21 && byte <= 0x7E) else { return nil }
            let shift = UInt64(56 - 8 * (index % 8))
            switch index / 8 {
            case 0: words.0 |= UInt64(byte) << shift
            case 1: words.1 |= UInt64(byte) << shift
            default: words.2 |= UInt64(byte) << shift
            }
        }
    }

    /// The encoded byte at `index` (0 ..< ``encodedLength``).
    public func encodedByte(_ index: Int) -> UInt8 {
        let word = index < 8 ? words.0 : index < 16 ? words.1 : words.2
        return UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * (index % 8)))
    }

    /// The URL, expanded (`https://www.example.com/a`).
    public var url: String {
        var text = Self.schemes[Int(scheme)]
        for index in 0..<encodedLength {
            let byte = encodedByte(index)
            if byte <= 0x0D {
                text += Self.expansions[Int(byte)]
            } else {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return text
    }
}

extension EddystoneURL {
    public static func == (a: EddystoneURL, b: EddystoneURL) -> Bool {
        a.txPower == b.txPower && a.scheme == b.scheme && a.encodedLength == b.encodedLength
            && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(txPower)
        hasher.combine(scheme)
        hasher.combine(encodedLength)
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
    }
}
