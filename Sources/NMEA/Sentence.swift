/// One decoded NMEA 0183 sentence. Every payload is a value type with no references to the input bytes.
public enum Sentence: Sendable {
    case rmc(RMC)
    case gga(GGA)
    case gsa(GSA)
    case gsv(GSV)
    case vtg(VTG)
    case gll(GLL)
    case zda(ZDA)
    case gns(GNS)
    case gst(GST)
    case gbs(GBS)
    case hdt(HDT)
    case hdg(HDG)
    case ths(THS)
    case txt(TXT)
    case dtm(DTM)
    /// Garmin's proprietary altitude sentence, decoded because receivers use it instead of GGA's altitude.
    case pgrmz(PGRMZ)
    /// A proprietary (`$P...`) sentence, passed through.
    case proprietary(UndecodedSentence)
    /// An encapsulated (`!...`, for example AIS) sentence, passed through.
    case encapsulated(UndecodedSentence)
    /// A standard sentence of a type not decoded here, passed through.
    case other(UndecodedSentence)

    /// The type of the sentence.
    @inline(__always)
    public var type: SentenceType {
        switch self {
        case .rmc: return .rmc
        case .gga: return .gga
        case .gsa: return .gsa
        case .gsv: return .gsv
        case .vtg: return .vtg
        case .gll: return .gll
        case .zda: return .zda
        case .gns: return .gns
        case .gst: return .gst
        case .gbs: return .gbs
        case .hdt: return .hdt
        case .hdg: return .hdg
        case .ths: return .ths
        case .txt: return .txt
        case .dtm: return .dtm
        case .pgrmz, .proprietary: return .proprietary
        case .encapsulated: return .encapsulated
        case .other: return .otherStandard
        }
    }
}

/// A parsed sentence together with its address (talker and type).
public struct ParsedSentence: Sendable {
    /// The address field, for example `GNRMC`.
    public let address: SentenceAddress
    /// The decoded content (built from the stored payload at each read).
    public var sentence: Sentence { Sentence(kind, payload, address: address) }
    /// The case of ``sentence`` and its fields, as the parser stored them (see ``SentencePayload``).
    @usableFromInline let kind: SentenceKind
    let payload: SentencePayload
    /// The optional fields that could not be read and are absent from ``sentence`` (see
    /// ``NMEAParserOptions/toleratesUnreadableFields``). Empty for nearly every sentence.
    public let unreadableFields: UnreadableFields
    /// ``Sentence/type`` and ``Sentence/epochTime`` of ``sentence``, set by the parser from the
    /// payload it decoded: reading them from the enum copies the whole enum (about 150 bytes).
    let sentenceType: SentenceType
    let epochTime: TimeOfDay?

    @inline(__always)
    init(address: SentenceAddress, kind: SentenceKind, payload: SentencePayload, unreadableFields: UnreadableFields,
         type: SentenceType, epochTime: TimeOfDay?) {
        self.address = address
        self.kind = kind
        self.payload = payload
        self.unreadableFields = unreadableFields
        sentenceType = type
        self.epochTime = epochTime
    }

    /// A sentence whose fields could not be decoded: `error` kept in the payload, for the parser's
    /// callers to throw (see `ParserDecode.swift`).
    @inline(__always)
    init(failure error: NMEAError, address: SentenceAddress) {
        self.init(address: address, kind: .failed, payload: SentencePayload(error), unreadableFields: UnreadableFields(),
                  type: .otherStandard, epochTime: nil)
    }

    /// The error of a sentence whose kind is `failed`.
    @usableFromInline
    func failure() -> NMEAError {
        payload.load(as: NMEAError.self)
    }

    /// The talker (`GP`, `GN`, ...), or `nil` for proprietary sentences.
    public var talker: Talker? { address.talker }
}

/// A set of field numbers (1...64, counted after the address as NMEA documents do) that could not be
/// read and were taken as absent.
public struct UnreadableFields: Sendable, Hashable, Sequence {
    /// Bit `n - 1` for field `n`.
    public let bits: UInt64

    /// A set from its bits (bit `n - 1` for field `n`); the empty set by default.
    public init(_ bits: UInt64 = 0) { self.bits = bits }

    /// Whether no field was unreadable.
    public var isEmpty: Bool { bits == 0 }
    /// How many fields were unreadable.
    public var count: Int { bits.nonzeroBitCount }
    /// Whether field `number` was unreadable.
    public func contains(_ number: Int) -> Bool { number >= 1 && number <= 64 && bits & (1 << UInt64(number - 1)) != 0 }

    /// The field numbers, in increasing order.
    public func makeIterator() -> Iterator { Iterator(rest: bits) }

    /// Iterates over the field numbers.
    public struct Iterator: IteratorProtocol {
        var rest: UInt64
        /// The next field number, or `nil` after the last.
        public mutating func next() -> Int? {
            guard rest != 0 else { return nil }
            let bit = rest.trailingZeroBitCount
            rest &= rest &- 1
            return bit + 1
        }
    }
}
