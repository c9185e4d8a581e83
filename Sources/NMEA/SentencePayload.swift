/// Which case of ``Sentence`` a parsed sentence holds.
enum SentenceKind: UInt8, Sendable {
    case rmc, gga, gsa, gsv, vtg, gll, zda, gns, gst, gbs, hdt, hdg, ths, txt, dtm, pgrmz
    case proprietary, encapsulated, other
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

    @inline(__always)
    init() {}

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
    init(_ kind: SentenceKind, _ payload: SentencePayload) {
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
        case .proprietary: self = .proprietary(payload.load(as: PassThrough.self))
        case .encapsulated: self = .encapsulated(payload.load(as: PassThrough.self))
        case .other: self = .other(payload.load(as: PassThrough.self))
        }
    }

    /// The sentence's kind and payload bytes.
    var stored: (SentenceKind, SentencePayload) {
        switch self {
        case .rmc(let s): return (.rmc, SentencePayload(s))
        case .gga(let s): return (.gga, SentencePayload(s))
        case .gsa(let s): return (.gsa, SentencePayload(s))
        case .gsv(let s): return (.gsv, SentencePayload(s))
        case .vtg(let s): return (.vtg, SentencePayload(s))
        case .gll(let s): return (.gll, SentencePayload(s))
        case .zda(let s): return (.zda, SentencePayload(s))
        case .gns(let s): return (.gns, SentencePayload(s))
        case .gst(let s): return (.gst, SentencePayload(s))
        case .gbs(let s): return (.gbs, SentencePayload(s))
        case .hdt(let s): return (.hdt, SentencePayload(s))
        case .hdg(let s): return (.hdg, SentencePayload(s))
        case .ths(let s): return (.ths, SentencePayload(s))
        case .txt(let s): return (.txt, SentencePayload(s))
        case .dtm(let s): return (.dtm, SentencePayload(s))
        case .pgrmz(let s): return (.pgrmz, SentencePayload(s))
        case .proprietary(let s): return (.proprietary, SentencePayload(s))
        case .encapsulated(let s): return (.encapsulated, SentencePayload(s))
        case .other(let s): return (.other, SentencePayload(s))
        }
    }
}
