/// Which case of ``Sentence`` a parsed sentence holds; `failed` for a sentence whose fields could
/// not be decoded, holding the error (never handed out: the parser's callers throw it).
@usableFromInline
enum SentenceKind: UInt8, Sendable {
    case rmc, gga, gsa, gsv, vtg, gll, zda, gns, gst, gbs, hdt, hdg, ths, txt, dtm, pgrmz
    case proprietary, encapsulated, other
    case failed
}

/// A decoded sentence's fields as the bytes of its payload struct (every payload is a plain value:
/// numbers, optionals and inline arrays, no references).
///
/// ``ParsedSentence`` keeps its sentence this way, not as a ``Sentence``: reading an enum's payload
/// copies the whole enum (about 150 bytes, a `memcpy` call) and then the payload, at every
/// sentence, while a load from these bytes reads only the fields used. ``ParsedSentence/sentence``
/// builds the enum for callers that ask for it.
struct SentencePayload: Sendable {
    /// Room for the largest payload (GBS, 153 bytes), eight-byte aligned: twenty words, as a tuple
    /// (zeroed in place; an inline array's `init(repeating:)` was a call at every sentence).
    private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The bytes of `value`.
    @inline(__always)
    init<T>(_ value: T) {
        // Every payload type fits (`SentencePayloadTests` round-trips each one); this is decided
        // when the code is compiled, not at run time.
        withUnsafeMutableBytes(of: &words) { bytes in
            guard MemoryLayout<T>.size <= bytes.count else { return }
            bytes.storeBytes(of: value, as: T.self)
        }
    }

    /// The payload, read as `T` (the type it was made from).
    @inline(__always)
    func load<T>(as type: T.Type) -> T {
        withUnsafeBytes(of: words) { $0.load(as: T.self) }
    }
}

extension Sentence {
    /// The sentence held as `kind` in `payload`.
    init(_ kind: SentenceKind, _ payload: SentencePayload, address: SentenceAddress) {
        switch kind {
        case .rmc: self = .rmc(payload.load(as: RMC.self))
        case .gga: self = .gga(payload.load(as: GGA.self))
        case .gsa: self = .gsa(payload.load(as: GSA.self))
        case .gsv: self = .gsv(payload.load(as: GSV.self))
        case .vtg: self = .vtg(payload.load(as: VTG.self))
        case .gll: self = .gll(payload.load(as: GLL.self))
        case .zda: self = .zda(payload.load(as: ZDA.self))
        case .gns: self = .gns(payload.load(as: GNS.self))
        case .gst: self = .gst(payload.load(as: GST.self))
        case .gbs: self = .gbs(payload.load(as: GBS.self))
        case .hdt: self = .hdt(payload.load(as: HDT.self))
        case .hdg: self = .hdg(payload.load(as: HDG.self))
        case .ths: self = .ths(payload.load(as: THS.self))
        case .txt: self = .txt(payload.load(as: TXT.self))
        case .dtm: self = .dtm(payload.load(as: DTM.self))
        case .pgrmz: self = .pgrmz(payload.load(as: PGRMZ.self))
        case .proprietary: self = .proprietary(payload.load(as: UndecodedSentence.self))
        case .encapsulated: self = .encapsulated(payload.load(as: UndecodedSentence.self))
        case .other: self = .other(payload.load(as: UndecodedSentence.self))
        case .failed:
            // Never reached: a failed sentence is thrown as its error, not handed out. Its address
            // with no fields, should one be asked for.
            self = .other(UndecodedSentence(address: address, fieldCount: 0))
        }
    }
}
