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
    case proprietary(PassThrough)
    /// An encapsulated (`!...`, for example AIS) sentence, passed through.
    case encapsulated(PassThrough)
    /// A standard sentence of a type not decoded here, passed through.
    case other(PassThrough)

    /// The type of the sentence.
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
    /// The decoded content.
    public let sentence: Sentence

    /// The talker (`GP`, `GN`, ...), or `nil` for proprietary sentences.
    public var talker: Talker? { address.talker }
}
