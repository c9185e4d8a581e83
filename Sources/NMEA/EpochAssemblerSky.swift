/// The end of an epoch's sky: the satellites in view (the fix's own table) with their used flags.
///
/// The used flags live in the assembler's sky table itself and say what the used set in
/// `markedBits` says: a satellite added by GSV is marked from that set as it is added, and at the end
/// of an epoch the table is marked again only when the latest GSA series names a different set. A
/// receiver that keeps its satellites from one epoch to the next (most epochs) then costs one
/// comparison of two small bit sets instead of a lookup per satellite in view.
extension EpochAssembler {
    /// Marks each satellite of the sky (the epoch's fix's table) used when the latest GSA series
    /// named it with its system, or without one. The series is kept as a set of bits as GSA
    /// adds to it, one per (system + 1, PRN) for PRNs below 256 (all real ones); larger PRNs are
    /// looked for one by one.
    ///
    /// Every index here is in range by construction (at most 48 series entries and 64 satellites; a
    /// system code is at most 7, so a bit number is below 2,048), so the tables are read without
    /// bounds checks: this runs at every epoch.
    mutating func markUsedSatellites() {
        let changed = withUnsafePointer(to: &usedBits) { now in
            withUnsafePointer(to: &markedBits) { marked in Self.differ(now, marked) }
        }
        if usedLarge || markedLarge || changed {
            // A copy of the small series table, read through a span: a subscript of an inline array
            // copies the whole array at each access.
            let used = self.used
            markSky(usedBits, series: used.span, count: min(usedCount, 48), anyLarge: usedLarge)
            markedBits = usedBits
            markedLarge = usedLarge
        }
    }

    /// Whether a satellite is in a used set (the one the sky was last marked from, for a satellite
    /// added to the sky between two ends of epochs), given as its 32 words.
    @inline(__always)
    static func isUsed(_ prn: UInt16, _ constellation: Constellation?, in bits: Span<UInt64>) -> Bool {
        guard prn < 256 else { return false }
        let code = Int(Self.systemCode(constellation)) & 7
        // Both bit numbers share their low six bits with the PRN's.
        let words = bits[unchecked: (code << 8 | Int(prn)) >> 6] | bits[unchecked: Int(prn) >> 6]
        return words >> UInt64(prn & 63) & 1 != 0
    }

    /// Sets every used flag of the sky table from `usedBits` (and, for PRNs of 256 or more, from the
    /// series itself).
    private mutating func markSky(_ usedBits: InlineArray<32, UInt64>, series: Span<UInt32>, count usedCount: Int,
                                  anyLarge: Bool) {
        let lookup = usedBits.span
        let count = min(sky.count, SatelliteList.capacity)
        var table = sky.storage.mutableSpan
        for index in 0..<count {
            let prn = table[unchecked: index].prn
            let constellation = table[unchecked: index].constellation
            if prn < 256 {
                table[unchecked: index].used = Self.isUsed(prn, constellation, in: lookup)
            } else if anyLarge {
                let key = UInt32(Self.systemCode(constellation)) << 16 | UInt32(prn)
                var found = false
                for slot in 0..<usedCount where series[unchecked: slot] == key || series[unchecked: slot] == UInt32(prn) {
                    found = true
                    break
                }
                table[unchecked: index].used = found
            } else {
                table[unchecked: index].used = false
            }
        }
    }

    /// Whether two used sets differ.
    @inline(__always)
    private static func differ(_ a: UnsafePointer<InlineArray<32, UInt64>>, _ b: UnsafePointer<InlineArray<32, UInt64>>) -> Bool {
        let left = UnsafeRawPointer(a).assumingMemoryBound(to: UInt64.self)
        let right = UnsafeRawPointer(b).assumingMemoryBound(to: UInt64.self)
        var difference: UInt64 = 0
        for index in 0..<32 { difference |= left[index] ^ right[index] }
        return difference != 0
    }
}
