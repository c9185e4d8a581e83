/// The epoch assembler's reset of its fix at each change of time.
extension Fix {
    /// Sets every property to the value in `empty` except ``satellites``, which is left as it is.
    ///
    /// The satellite table is about 1.3 of the fix's 1.8 kilobytes, and the assembler overwrites it
    /// at the end of every epoch, so copying it at the start too would be wasted. `Fix` holds only
    /// plain values (no references: `_isPOD` says so, and `FixResetTests` checks it), so the bytes
    /// before and after the table are copied as bytes; were that ever not so, the whole fix is
    /// assigned and the table kept.
    @inline(__always)
    mutating func reset(from empty: UnsafePointer<Fix>) {
        guard _isPOD(Fix.self), let tableStart = MemoryLayout<Fix>.offset(of: \.satellites) else {
            let kept = satellites
            self = empty.pointee
            satellites = kept
            return
        }
        let tableEnd = tableStart &+ MemoryLayout<SatelliteList>.size
        let size = MemoryLayout<Fix>.size
        withUnsafeMutableBytes(of: &self) { target in
            guard let to = target.baseAddress else { return }
            let from = UnsafeRawPointer(empty)
            to.copyMemory(from: from, byteCount: tableStart)
            (to + tableEnd).copyMemory(from: from + tableEnd, byteCount: size &- tableEnd)
        }
    }
}
