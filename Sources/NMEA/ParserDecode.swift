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

@inline(never)
func decodedRMC(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try RMC.parse(&f)
        return ParsedSentence(address: address, kind: .rmc, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .rmc, epochTime: value.time)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedGGA(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try GGA.parse(&f)
        return ParsedSentence(address: address, kind: .gga, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .gga, epochTime: value.time)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedGSA(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try GSA.parse(&f)
        return ParsedSentence(address: address, kind: .gsa, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .gsa, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedGSV(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try GSV.parse(&f)
        return ParsedSentence(address: address, kind: .gsv, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .gsv, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedVTG(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try VTG.parse(&f)
        return ParsedSentence(address: address, kind: .vtg, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .vtg, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedGLL(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try GLL.parse(&f)
        return ParsedSentence(address: address, kind: .gll, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .gll, epochTime: value.time)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedZDA(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try ZDA.parse(&f)
        return ParsedSentence(address: address, kind: .zda, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .zda, epochTime: value.time)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedGNS(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try GNS.parse(&f)
        return ParsedSentence(address: address, kind: .gns, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .gns, epochTime: value.time)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedGST(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try GST.parse(&f)
        return ParsedSentence(address: address, kind: .gst, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .gst, epochTime: value.time)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedGBS(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try GBS.parse(&f)
        return ParsedSentence(address: address, kind: .gbs, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .gbs, epochTime: value.time)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedHDT(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try HDT.parse(&f)
        return ParsedSentence(address: address, kind: .hdt, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .hdt, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedHDG(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try HDG.parse(&f)
        return ParsedSentence(address: address, kind: .hdg, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .hdg, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedTHS(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try THS.parse(&f)
        return ParsedSentence(address: address, kind: .ths, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .ths, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedTXT(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try TXT.parse(&f)
        return ParsedSentence(address: address, kind: .txt, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .txt, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedDTM(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try DTM.parse(&f)
        return ParsedSentence(address: address, kind: .dtm, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .dtm, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

@inline(never)
func decodedPGRMZ(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    do throws(NMEAError) {
        let value = try PGRMZ.parse(&f)
        return ParsedSentence(address: address, kind: .pgrmz, payload: SentencePayload(value),
                              unreadableFields: UnreadableFields(f.unreadable), type: .proprietary, epochTime: nil)
    } catch {
        return ParsedSentence(failure: error, address: address)
    }
}

/// A sentence passed through with its field count (for this decoder the reader's `fieldCount` is
/// the number of commas after the address) and its kind from its type.
@inline(never)
func decodedPassThrough(_ f: inout FieldReader, _ address: SentenceAddress) -> ParsedSentence {
    let kind: SentenceKind = switch f.sentence {
    case .encapsulated: .encapsulated
    case .proprietary: .proprietary
    default: .other
    }
    return ParsedSentence(address: address, kind: kind, payload: SentencePayload(PassThrough(address: address, fieldCount: f.fieldCount)),
                          unreadableFields: UnreadableFields(), type: f.sentence, epochTime: nil)
}
