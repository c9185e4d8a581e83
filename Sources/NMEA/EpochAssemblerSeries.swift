/// A new GSV series replaces the satellites of the series before it: finding them by a key kept
/// beside the sky table, eight satellites a comparison, and moving the others down in blocks.
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
    /// satellite `i`), eight keys a comparison. Static, with the keys by address: a method of
    /// the assembler that does not mutate it is called with a copy of the whole assembler.
    private static func seriesMask(_ keys: UnsafeRawPointer, of system: Constellation?, signalID: UInt8?, held: Int) -> UInt64 {
        var mask: UInt64 = 0
        if let system {
            let signal = Self.signalKey(signalID)
            let own = Self.systemCode(system) << 9 | signal
            // A GPS series also holds its SBAS and QZSS satellites.
            let sbas = system == .gps ? Self.systemCode(.sbas) << 9 | signal : own
            let qzss = system == .gps ? Self.systemCode(.qzss) << 9 | signal : own
            let a = SIMD8<UInt16>(repeating: own), b = SIMD8<UInt16>(repeating: sbas), c = SIMD8<UInt16>(repeating: qzss)
            var block = 0
            while block &* 8 < held {
                let lanes = keys.loadUnaligned(fromByteOffset: block &* 16, as: SIMD8<UInt16>.self)
                mask |= Self.bits((lanes .== a) .| (lanes .== b) .| (lanes .== c)) &<< UInt64(block &* 8)
                block &+= 1
            }
        } else {
            // No system: the satellites with none, whatever their signal.
            var block = 0
            while block &* 8 < held {
                let lanes = keys.loadUnaligned(fromByteOffset: block &* 16, as: SIMD8<UInt16>.self)
                mask |= Self.bits((lanes &>> 9) .== SIMD8(repeating: 0)) &<< UInt64(block &* 8)
                block &+= 1
            }
        }
        return mask & SatelliteList.live(held)
    }

    /// Eight lanes' matches as eight bits, lane `i` at bit `i`: each lane's 0 or 1 (bits 0, 16, 32
    /// and 48 of each half) gathered by one multiplication per half into bits 48-51.
    @inline(__always)
    private static func bits(_ match: SIMDMask<SIMD8<Int16>>) -> UInt64 {
        let ones = unsafeBitCast(SIMD8<UInt16>().replacing(with: 1, where: match), to: (UInt64, UInt64).self)
        let gather: UInt64 = 1 << 48 | 1 << 33 | 1 << 18 | 1 << 3
        return (ones.0 &* gather) &>> 48 & 0xF | ((ones.1 &* gather) &>> 48 & 0xF) &<< 4
    }
}
