/// The assembler's cycle detector: which sentence ends a receiver's epochs, learned as gpsd learns it
/// (`nmea_parse`, "The end-of-cycle detector"), with the refinements of QUIRKS.md E-7 and E-12.
extension EpochAssembler {
    /// At a change of time: the last contributing sentence of the epoch that just ended is the cycle
    /// ender candidate. It is trusted once the same sentence has ended two epochs in a row, so a
    /// receiver whose epochs end with different sentences (half-second cycles with ZDA every other
    /// one) gets its fixes at the change of time instead of too early.
    /// An epoch that had a position also teaches the fix-epoch ender (QUIRKS.md E-12).
    mutating func learnEnder() {
        guard let last = lastContributor else { return }
        Self.learn(last, &ender, &enderConfirmations)
        if fix.mode >= .twoD, fix.latitude != nil { Self.learn(last, &fixEnder, &fixEnderConfirmations) }
        lastContributor = nil
        previousWasContributor = false
    }

    private static func learn(_ last: SentenceAddress, _ ender: inout SentenceAddress?, _ confirmations: inout Int) {
        if last == ender {
            if confirmations < 2 { confirmations += 1 }
        } else {
            ender = last
            confirmations = 0
        }
    }

    /// Whether the epoch, though its learned ender has come, is left to the change of time because a
    /// later sentence may still complete it (QUIRKS.md E-12). Cycles are learned while a receiver has no
    /// fix too (a duty-cycled receiver must report its first fix at once), but then some receivers send
    /// sentences with empty time fields (Quectel's `$GPRMC,,V` and `$GPGGA,,,,,,0`, so GNS is the only
    /// timed sentence), or a GGA whose too few satellites leave the mode to a later GSA (Garmin 25LP).
    /// So the first fixes wait: one with a position but no date yet (the RMC with the date may follow),
    /// and one whose position came with a "no fix" mode (the GSA may give the mode).
    var awaitsRestOfEpoch: Bool {
        guard fix.latitude != nil else { return false }
        return date == nil || fix.mode < .twoD
    }

    mutating func distrust(_ address: SentenceAddress) {
        if isDistrusted(address) { return }
        distrusted[distrustedNext] = address
        distrustedNext = (distrustedNext + 1) % 4
    }

    @inline(__always)
    func isDistrusted(_ address: SentenceAddress) -> Bool {
        for index in 0..<4 where distrusted[index] == address { return true }
        return false
    }
}
