/// A new GSV series replaces the satellites of the series before it: finding them by a key kept
/// beside the sky table, one integer comparison a satellite, and moving the others down in blocks.
extension EpochAssembler {
    /// A system as a small code: 0 for none, raw value + 1 otherwise (at most 7).
    @inline(__always)
    static func systemCode(_ system: Constellation?) -> UInt16 {
        UInt16(system.map { $0.rawValue &+ 1 } ?? 0)
    }

    /// A signal ID as the low nine bits of a key: the ID, or 0x100 for none.
    @inline(__always)
    static func signalKey(_ signalID: UInt8?) -> UInt16 {
        signalID.map { UInt16($0) } ?? 0x100
    }

    /// Removes the satellites a new GSV series replaces: those of `system` (for GPS, SBAS and QZSS
    /// too) with signal `signalID`; with no system, those with no constellation, or all of them when
    /// the talker is `GN` (`combined`).
    mutating func removeSkySeries(of system: Constellation?, combined: Bool, signalID: UInt8?) {
        if system == nil, combined {
            sky.remove(mask: ~0)
            return
        }
        let held = min(sky.count, SatelliteList.capacity)
        let mask = withUnsafePointer(to: &skyKeys) { keys in
            Self.seriesMask(UnsafeRawPointer(keys), of: system, signalID: signalID, held: held)
        }
        guard mask != 0 else { return }
        sky.remove(mask: mask)
        var keyTable = skyKeys.mutableSpan
        keyTable.withUnsafeMutableBufferPointer { table in
            SatelliteList.compact(UnsafeMutableRawPointer(table.baseAddress.unsafelyUnwrapped),
                                  stride: MemoryLayout<UInt16>.stride, count: held, removing: mask)
        }
    }

    /// The satellites of the first `held` whose keys (64 at `keys`) name the series (bit `i` for
    /// satellite `i`): one comparison a key, no branch. Static, with the keys by address: a method of
    /// the assembler that does not mutate it is called with a copy of the whole assembler.
    private static func seriesMask(_ keys: UnsafeRawPointer, of system: Constellation?, signalID: UInt8?, held: Int) -> UInt64 {
        let table = keys.assumingMemoryBound(to: UInt16.self)
        var mask: UInt64 = 0
        if let system {
            let signal = Self.signalKey(signalID)
            let own = Self.systemCode(system) << 9 | signal
            // A GPS series also holds its SBAS and QZSS satellites.
            let sbas = system == .gps ? Self.systemCode(.sbas) << 9 | signal : own
            let qzss = system == .gps ? Self.systemCode(.qzss) << 9 | signal : own
            for index in 0..<held {
                let key = table[index]
                let hit = (key == own) || (key == sbas) || (key == qzss)
                mask |= UInt64(hit ? 1 : 0) &<< UInt64(index)
            }
        } else {
            // No system: the satellites with none, whatever their signal.
            for index in 0..<held { mask |= UInt64(table[index] &>> 9 == 0 ? 1 : 0) &<< UInt64(index) }
        }
        return mask
    }
}
