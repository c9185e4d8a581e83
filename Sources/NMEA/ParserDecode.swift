// Each decoded sentence type's fields read and stored, with the time it states for its epoch, in
// the parsed sentence handed back.
//
// Out of line, with the type's `parse` inlined: the payload is built and stored straight into the
// result (``SentencePayload``), so it is copied once, from the fields just read. Returning the
// payload to the parser to put in its result instead copied it twice more, with `memcpy`. They are
// free functions: a static method's unused metatype argument is dropped behind a thunk that copies
// the result again.
//
// They do not throw: a field error comes back inside the parsed sentence (`ParsedSentence`'s
// `init(failure:address:)`), and the parser's callers throw it. The parser chooses the decoder
// and calls it in one place, last, so the caller reads the parsed sentence where the decoder wrote
// it. A throwing call's result, or the results of calls gathered after a switch, go through a
// temporary and are copied (about 220 bytes a sentence) just after the decoder wrote them, and
// the copy's wide loads stall on the decoder's narrower stores still in flight.

/// A decoder's body, inlined into each: `parse` reads the fields, and its value is stored as the
/// payload of a parsed sentence of `kind` and `type` with the time `time` gives; a field error
/// becomes a parsed sentence of kind `failed`.
@inline(__always)
private func decode<Payload>(_ f: inout FieldReader, _ address: SentenceAddress, _ kind: SentenceKind, _ type: SentenceType,
                             _ parse: (inout FieldReader) throws(NMEAError) -> Payload,
                             time: (Payload) -> TimeOfDay? = { _ in nil }) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try parse(&f)
        return ParsedSentence(address: address, kind: kind, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: type, epochTime: time(value))
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedRMC(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .rmc, .rmc, RMC.parse) { $0.time }
}

@inline(never)
func decodedGGA(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .gga, .gga, GGA.parse) { $0.time }
}

@inline(never)
func decodedGSA(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .gsa, .gsa, GSA.parse)
}

@inline(never)
func decodedGSV(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .gsv, .gsv, GSV.parse)
}

@inline(never)
func decodedVTG(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .vtg, .vtg, VTG.parse)
}

@inline(never)
func decodedGLL(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .gll, .gll, GLL.parse) { $0.time }
}

@inline(never)
func decodedZDA(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .zda, .zda, ZDA.parse) { $0.time }
}

@inline(never)
func decodedGNS(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .gns, .gns, GNS.parse) { $0.time }
}

@inline(never)
func decodedGST(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .gst, .gst, GST.parse) { $0.time }
}

@inline(never)
func decodedGBS(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .gbs, .gbs, GBS.parse) { $0.time }
}

@inline(never)
func decodedHDT(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .hdt, .hdt, HDT.parse)
}

@inline(never)
func decodedHDG(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .hdg, .hdg, HDG.parse)
}

@inline(never)
func decodedTHS(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .ths, .ths, THS.parse)
}

@inline(never)
func decodedTXT(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .txt, .txt, TXT.parse)
}

@inline(never)
func decodedDTM(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .dtm, .dtm, DTM.parse)
}

@inline(never)
func decodedPGRMZ(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    decode(&f, address, .pgrmz, .proprietary, PGRMZ.parse)
}

/// A sentence kept undecoded, with its field count (for this decoder the reader's `fieldCount` is
/// the number of commas after the address) and its kind from its type.
@inline(never)
func keptUndecoded(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    let kind: SentenceKind = switch f.sentence {
    case .encapsulated: .encapsulated
    case .proprietary: .proprietary
    default: .other
    }
    return ParsedSentence(address: address, kind: kind, payload: SentencePayload(UndecodedSentence(address: address, fieldCount: f.fieldCount)),
                          unreadableFields: UnreadableFields(), type: f.sentence, epochTime: nil)
}
