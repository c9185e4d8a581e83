/// The two-letter talker identifier at the start of a standard sentence's address.
public struct Talker: Sendable, Hashable, CustomStringConvertible {
    /// The two ASCII letters packed big-endian (`"GP"` is `0x4750`).
    public let rawValue: UInt16

    /// Creates a talker from its two ASCII bytes.
    public init(_ first: UInt8, _ second: UInt8) { rawValue = UInt16(first) << 8 | UInt16(second) }

    public static let gps = Talker(0x47, 0x50)            // GP
    public static let glonass = Talker(0x47, 0x4C)        // GL
    public static let galileo = Talker(0x47, 0x41)        // GA
    public static let beidou = Talker(0x47, 0x42)         // GB
    public static let beidouLegacy = Talker(0x42, 0x44)   // BD
    public static let qzss = Talker(0x47, 0x51)           // GQ
    public static let qzssLegacy = Talker(0x51, 0x5A)     // QZ
    public static let navic = Talker(0x47, 0x49)          // GI
    public static let combined = Talker(0x47, 0x4E)       // GN

    /// The constellation this talker speaks for, or `nil` for combined (`GN`) and non-GNSS talkers.
    public var constellation: Constellation? {
        @inline(__always) get {
            switch self {
            case .gps: return .gps
            case .glonass: return .glonass
            case .galileo: return .galileo
            case .beidou, .beidouLegacy: return .beidou
            case .qzss, .qzssLegacy: return .qzss
            case .navic: return .navic
            default: return nil
            }
        }
    }

    /// Whether this is a satellite receiver's talker (`GP`, `GL`, `GA`, `GB`, `BD`, `GQ`, `QZ`, `GI`,
    /// `GN`), as opposed to an instrument's or an integrated system's (`II`, `IN`, `EC`, ...).
    public var isSatelliteReceiver: Bool { self == .combined || constellation != nil }

    public var description: String {
        String(decoding: [UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)], as: UTF8.self)
    }
}

/// A satellite navigation system.
public enum Constellation: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case gps, glonass, galileo, beidou, qzss, navic, sbas

    /// The lower-case name used in machine-readable output (metrics labels, the sky view on the
    /// wire): `gps`, `glonass`, `galileo`, `beidou`, `qzss`, `navic`, `sbas`.
    public var code: String {
        switch self {
        case .gps: return "gps"
        case .glonass: return "glonass"
        case .galileo: return "galileo"
        case .beidou: return "beidou"
        case .qzss: return "qzss"
        case .navic: return "navic"
        case .sbas: return "sbas"
        }
    }

    /// The constellation named by an NMEA 4.10 system ID (GSA field 18, GSV/GBS signal context).
    public init?(systemID: Int) {
        switch systemID {
        case 1: self = .gps
        case 2: self = .glonass
        case 3: self = .galileo
        case 4: self = .beidou
        case 5: self = .qzss
        case 6: self = .navic
        default: return nil
        }
    }

    /// The constellation a satellite number in the NMEA numbering belongs to, given the talker's hint.
    ///
    /// NMEA 2.x/3.x receivers number GPS 1-32, SBAS 33-64 and 120-158 (as 33-...), GLONASS 65-96 and
    /// BeiDou, QZSS, Galileo in vendor ranges; a talker that names one system wins over the number.
    public static func of(satellite: Int, talker: Talker?) -> Constellation? {
        if let system = talker?.constellation {
            if system == .gps, (33...64).contains(satellite) || (120...158).contains(satellite) { return .sbas }
            return system
        }
        switch satellite {
        case 1...32: return .gps
        case 33...64, 120...158: return .sbas
        case 65...96: return .glonass
        case 193...202: return .qzss
        case 201...263, 401...437: return .beidou
        case 301...336: return .galileo
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .gps: return "GPS"
        case .glonass: return "GLONASS"
        case .galileo: return "Galileo"
        case .beidou: return "BeiDou"
        case .qzss: return "QZSS"
        case .navic: return "NavIC"
        case .sbas: return "SBAS"
        }
    }
}

/// What a sentence is, from its address field.
public enum SentenceType: Sendable, Hashable, CustomStringConvertible {
    case rmc, gga, gsa, gsv, vtg, gll, zda, gns, gst, gbs, hdt, hdg, ths, txt, dtm
    /// A standard sentence of a type this parser passes through without decoding (for example `MWV`).
    case otherStandard
    /// A proprietary sentence (`$P...`).
    case proprietary
    /// An encapsulated sentence starting with `!` (AIS `VDM`/`VDO` and the like).
    case encapsulated

    public var description: String {
        switch self {
        case .rmc: return "RMC"
        case .gga: return "GGA"
        case .gsa: return "GSA"
        case .gsv: return "GSV"
        case .vtg: return "VTG"
        case .gll: return "GLL"
        case .zda: return "ZDA"
        case .gns: return "GNS"
        case .gst: return "GST"
        case .gbs: return "GBS"
        case .hdt: return "HDT"
        case .hdg: return "HDG"
        case .ths: return "THS"
        case .txt: return "TXT"
        case .dtm: return "DTM"
        case .otherStandard: return "other"
        case .proprietary: return "proprietary"
        case .encapsulated: return "encapsulated"
        }
    }

    /// Every sentence type the parser decodes into typed fields.
    public static let decoded: [SentenceType] = [
        .rmc, .gga, .gsa, .gsv, .vtg, .gll, .zda, .gns, .gst, .gbs, .hdt, .hdg, .ths, .txt, .dtm,
    ]
}

/// The address field of a sentence (`GPRMC`, `PGRME`, `AIVDM`), held inline: at most 15 characters.
public struct SentenceAddress: Sendable, Hashable, CustomStringConvertible {
    /// The first eight characters packed big-endian, zero padded.
    var low: UInt64
    /// Characters nine to fifteen packed big-endian, zero padded.
    var high: UInt64
    /// The number of characters.
    public let count: Int
    /// The start delimiter: `$` (0x24) or `!` (0x21).
    public let delimiter: UInt8

    /// The maximum length of an address this parser accepts.
    public static let maximumLength = 15

    init?(_ bytes: UnsafeRawBufferPointer, delimiter: UInt8) {
        let count = bytes.count
        guard count >= 1, count <= SentenceAddress.maximumLength else { return nil }
        var low: UInt64 = 0
        var high: UInt64 = 0
        var valid = true
        for index in 0..<count {
            let byte = bytes[index]
            valid = valid && ((byte &- 0x30) < 10 || (byte &- 0x41) < 26)
            if index < 8 { low = low << 8 | UInt64(byte) } else { high = high << 8 | UInt64(byte) }
        }
        guard valid else { return nil }
        // Left-align: the first character in the top byte, zero padded.
        if count < 8 { low <<= UInt64(8 &* (8 &- count)) }
        if count > 8 { high <<= UInt64(8 &* (16 &- count)) }
        self.low = low
        self.high = high
        self.count = count
        self.delimiter = delimiter
    }

    @inline(__always)
    init(low: UInt64, high: UInt64, count: Int, delimiter: UInt8) {
        self.low = low
        self.high = high
        self.count = count
        self.delimiter = delimiter
    }

    /// The address of `count` (1...8) characters held in the low bytes of `word`, the eight bytes
    /// after the delimiter loaded little-endian (bytes beyond the address are ignored); `nil` unless
    /// every character is an upper-case letter or a digit, as `init?(_:delimiter:)`.
    @inline(__always)
    init?(word: UInt64, count: Int, delimiter: UInt8) {
        let lanes: UInt64 = count >= 8 ? ~0 : (1 &<< UInt64(truncatingIfNeeded: 8 &* count)) &- 1
        // Bytes beyond the address become 'A', which passes the test below.
        let w = (word & lanes) | (0x4141_4141_4141_4141 & ~lanes)
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        // With every byte below 0x80, (b | 0x80) - lo keeps its high bit iff b >= lo, and
        // (hi | 0x80) - b keeps it iff b <= hi; no lane borrows from its neighbour.
        let digit = ((w | high) &- 0x30 &* ones) & ((0x39 &* ones | high) &- w)
        let upper = ((w | high) &- 0x41 &* ones) & ((0x5A &* ones | high) &- w)
        guard w & high == 0, (digit | upper) & high == high else { return nil }
        self.init(low: (word & lanes).byteSwapped, high: 0, count: count, delimiter: delimiter)
    }

    /// The character at `index` (0-based), as an ASCII byte.
    public subscript(index: Int) -> UInt8 {
        guard index >= 0, index < count else { return 0 }
        if index < 8 { return UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index))) }
        return UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index - 8)))
    }

    /// Whether this is a proprietary address (`P` followed by a manufacturer code).
    public var isProprietary: Bool { delimiter == 0x24 && self[0] == 0x50 }

    /// The talker of a standard or encapsulated sentence; `nil` for proprietary ones.
    public var talker: Talker? {
        @inline(__always) get {
            guard !isProprietary, count >= 2 else { return nil }
            return Talker(self[0], self[1])
        }
    }

    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for index in 0..<count { bytes.append(self[index]) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
