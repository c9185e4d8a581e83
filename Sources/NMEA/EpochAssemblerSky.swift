/// The end of an epoch's sky: the satellites in view copied into the fix with their used flags.
extension EpochAssembler {
    /// Copies the sky table into the epoch's fix, marking each satellite held that the
    /// latest GSA series used. A satellite is used when the series named it with its system, or
    /// without one. The series as a set of bits, one per (system + 1, PRN) for PRNs below 256 (all
    /// real ones), so marking costs one lookup per satellite; larger PRNs are looked for one by one.
    mutating func markUsedSatellites() {
        // Copies of the small tables, read through spans: a subscript of an inline array that is a
        // stored property copies the whole array at each access.
        let used = self.used
        let usedCount = self.usedCount
        let series = used.span
        var usedBits = InlineArray<32, UInt64>(repeating: 0)
        var anyLarge = false
        for slot in 0..<usedCount {
            let entry = series[slot]
            if entry & 0xFFFF < 256 {
                let bit = Int(entry >> 16) << 8 | Int(entry & 0xFF)
                usedBits[bit >> 6] |= 1 << UInt64(bit & 63)
            } else {
                anyLarge = true
            }
        }
        // The whole table in one block copy, then the used flags set in place.
        fix.satellites = sky
        let count = sky.count
        var table = fix.satellites.storage.mutableSpan
        for index in 0..<count {
            let prn = table[index].prn
            let code = UInt32(table[index].constellation.map { $0.rawValue &+ 1 } ?? 0)
            if prn < 256 {
                let withSystem = Int(code) << 8 | Int(prn)
                table[index].used = usedBits[withSystem >> 6] & 1 << UInt64(withSystem & 63) != 0
                    || usedBits[Int(prn) >> 6] & 1 << UInt64(prn & 63) != 0
            } else if anyLarge {
                let key = code << 16 | UInt32(prn)
                var found = false
                for slot in 0..<usedCount where series[slot] == key || series[slot] == UInt32(prn) {
                    found = true
                    break
                }
                table[index].used = found
            } else {
                table[index].used = false
            }
        }
    }
}
