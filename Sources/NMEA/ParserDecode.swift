// Each decoded sentence type's fields read and wrapped in its ``Sentence`` case, with the time it
// states for its epoch.
//
// Out of line, with the type's `parse` inlined: the payload is built straight into the enum handed
// back, and the parser moves that into its result once, in registers. Wrapping the payload in the
// parser instead (a `parse` returning the struct) built the enum in a local and copied it twice
// more, with `memcpy` (about 90 instructions a sentence). They are free functions: a static
// method's unused metatype argument is dropped behind a thunk that copies the result again.

@inline(never)
func wrappedRMC(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try RMC.parse(&f)
    return (.rmc(value), value.time)
}

@inline(never)
func wrappedGGA(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try GGA.parse(&f)
    return (.gga(value), value.time)
}

@inline(never)
func wrappedGSA(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try GSA.parse(&f)
    return (.gsa(value), nil)
}

@inline(never)
func wrappedGSV(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try GSV.parse(&f)
    return (.gsv(value), nil)
}

@inline(never)
func wrappedVTG(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try VTG.parse(&f)
    return (.vtg(value), nil)
}

@inline(never)
func wrappedGLL(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try GLL.parse(&f)
    return (.gll(value), value.time)
}

@inline(never)
func wrappedZDA(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try ZDA.parse(&f)
    return (.zda(value), value.time)
}

@inline(never)
func wrappedGNS(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try GNS.parse(&f)
    return (.gns(value), value.time)
}

@inline(never)
func wrappedGST(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try GST.parse(&f)
    return (.gst(value), value.time)
}

@inline(never)
func wrappedGBS(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try GBS.parse(&f)
    return (.gbs(value), value.time)
}

@inline(never)
func wrappedHDT(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try HDT.parse(&f)
    return (.hdt(value), nil)
}

@inline(never)
func wrappedHDG(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try HDG.parse(&f)
    return (.hdg(value), nil)
}

@inline(never)
func wrappedTHS(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try THS.parse(&f)
    return (.ths(value), nil)
}

@inline(never)
func wrappedTXT(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try TXT.parse(&f)
    return (.txt(value), nil)
}

@inline(never)
func wrappedDTM(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try DTM.parse(&f)
    return (.dtm(value), nil)
}

@inline(never)
func wrappedPGRMZ(_ f: inout FieldReader) throws(NMEAError) -> (Sentence, epochTime: TimeOfDay?) {
    let value = try PGRMZ.parse(&f)
    return (.pgrmz(value), nil)
}
