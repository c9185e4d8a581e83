// Each decoded sentence type's fields read and stored, with the time it states for its epoch, in
// the parsed sentence handed back.
//
// Out of line, with the type's `parse` inlined: the payload is built and stored straight into the
// result (``SentencePayload``), so it is copied once, from the fields just read. Returning the
// payload to the parser to put in its result instead copied it twice more, with `memcpy`. They are
// free functions: a static method's unused metatype argument is dropped behind a thunk that copies
// the result again.

@inline(never)
func decodedRMC(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try RMC.parse(&f)
    return ParsedSentence(address: address, kind: .rmc, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .rmc, epochTime: value.time)
}

@inline(never)
func decodedGGA(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try GGA.parse(&f)
    return ParsedSentence(address: address, kind: .gga, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .gga, epochTime: value.time)
}

@inline(never)
func decodedGSA(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try GSA.parse(&f)
    return ParsedSentence(address: address, kind: .gsa, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .gsa, epochTime: nil)
}

@inline(never)
func decodedGSV(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try GSV.parse(&f)
    return ParsedSentence(address: address, kind: .gsv, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .gsv, epochTime: nil)
}

@inline(never)
func decodedVTG(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try VTG.parse(&f)
    return ParsedSentence(address: address, kind: .vtg, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .vtg, epochTime: nil)
}

@inline(never)
func decodedGLL(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try GLL.parse(&f)
    return ParsedSentence(address: address, kind: .gll, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .gll, epochTime: value.time)
}

@inline(never)
func decodedZDA(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try ZDA.parse(&f)
    return ParsedSentence(address: address, kind: .zda, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .zda, epochTime: value.time)
}

@inline(never)
func decodedGNS(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try GNS.parse(&f)
    return ParsedSentence(address: address, kind: .gns, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .gns, epochTime: value.time)
}

@inline(never)
func decodedGST(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try GST.parse(&f)
    return ParsedSentence(address: address, kind: .gst, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .gst, epochTime: value.time)
}

@inline(never)
func decodedGBS(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try GBS.parse(&f)
    return ParsedSentence(address: address, kind: .gbs, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .gbs, epochTime: value.time)
}

@inline(never)
func decodedHDT(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try HDT.parse(&f)
    return ParsedSentence(address: address, kind: .hdt, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .hdt, epochTime: nil)
}

@inline(never)
func decodedHDG(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try HDG.parse(&f)
    return ParsedSentence(address: address, kind: .hdg, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .hdg, epochTime: nil)
}

@inline(never)
func decodedTHS(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try THS.parse(&f)
    return ParsedSentence(address: address, kind: .ths, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .ths, epochTime: nil)
}

@inline(never)
func decodedTXT(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try TXT.parse(&f)
    return ParsedSentence(address: address, kind: .txt, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .txt, epochTime: nil)
}

@inline(never)
func decodedDTM(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try DTM.parse(&f)
    return ParsedSentence(address: address, kind: .dtm, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .dtm, epochTime: nil)
}

@inline(never)
func decodedPGRMZ(_ f: inout FieldReader, _ address: SentenceAddress) throws(NMEAError) -> ParsedSentence {
    let value = try PGRMZ.parse(&f)
    return ParsedSentence(address: address, kind: .pgrmz, payload: SentencePayload(value),
                          unreadableFields: UnreadableFields(f.unreadable), type: .proprietary, epochTime: nil)
}
