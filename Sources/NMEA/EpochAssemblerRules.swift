/// The assembler's pure rules about single sentences: which untimed ones bring fix data, which
/// VTG gpsd believes, and the DOP values receivers mean.
extension EpochAssembler {
    /// Whether an untimed sentence changes what a fix reports (altitude, speed or course). GSA is left
    /// out: a series of GSA (one per constellation) has no count, so its first cannot be known to end an epoch.
    @inline(__always)
    static func bringsFixData(_ parsed: ParsedSentence) -> Bool {
        switch parsed.kind {
        // Any content counts, believed or not: a receiver whose VTG lacks its course while still
        // and carries it while moving must have its epochs wait for the VTG all along.
        case .vtg:
            let s = parsed.payload.load(as: VTG.self)
            return s.speedKnots != nil || s.speedKilometresPerHour != nil || s.courseTrue != nil
        case .pgrmz: return parsed.payload.load(as: PGRMZ.self).altitudeMetres != nil
        default: return false
        }
    }

    /// Merges the untimed sentences held since the last timed sentence, now that a timed sentence of
    /// the same second follows them (``UntimedAfterCycleEnd/leftOut``).
    @inline(never)
    mutating func releaseHeld() {
        if let vtg = heldVTG { mergeVTG(vtg) }
        if let pgrmz = heldPGRMZ {
            mergePGRMZ(pgrmz)
            if fix.mode != .unknown { stateMode = fix.mode }
        }
        heldVTG = nil
        heldPGRMZ = nil
    }

    /// Whether `short` is `long` written with fewer decimals (rounded half away from zero, or cut).
    static func isShortened(_ short: FixedDecimal, of long: FixedDecimal) -> Bool {
        guard short.scale < long.scale, long.scale - short.scale <= 18 else { return false }
        let divisor = FixedDecimal.powerOfTen(long.scale - short.scale)
        let (cut, rest) = long.significand.quotientAndRemainder(dividingBy: divisor)
        if cut == short.significand { return true }
        let rounded = rest.magnitude * 2 >= divisor.magnitude ? cut + (long.significand < 0 ? -1 : 1) : cut
        return rounded == short.significand
    }

    /// Whether gpsd takes a VTG's course and speed: both given, and the mode not N or E.
    static func believed(_ vtg: VTG) -> Bool {
        vtg.courseTrue != nil && vtg.speedKnots != nil && vtg.mode != .notValid && vtg.mode != .estimated
    }

    /// A DOP a receiver means: 0.01...89.99 (99.99, 99.00 and 0.00 are "invalid" markers),
    /// converted through `memo`.
    @inline(__always)
    static func dop(_ value: FixedDecimal?, _ memo: inout DecimalMemo) -> Double? {
        guard let decimal = value else { return nil }
        let value = memo.value(of: decimal) { $0.doubleValue }
        guard value >= 0.01, value <= 89.99 else { return nil }
        return value
    }
}
