import HardwareInterfaces
import NMEA

/// The M8's data batching as the emulated receiver does it: UBX-CFG-BATCH switches it on with a
/// buffer of `bufSize` fixes; every epoch with a fix is kept (version 0 UBX-LOG-BATCH, with the
/// extra PVT fields when asked), whether or not anyone reads the port, and when the buffer is full
/// the oldest is dropped and counted; UBX-LOG-RETRIEVEBATCH sends UBX-MON-BATCH (if asked first)
/// and every kept fix, oldest first, and empties the buffer. The buffer lives in the receiver's
/// RAM: a power cut (the power-enable line low) loses it; standby keeps it.
struct EmulatedBatch {
    /// Fixes the buffer holds (`bufSize`).
    var capacity: Int
    /// Whether the velocity, heading and pDOP are kept (`extraPvt`).
    var extraPVT: Bool
    /// The kept LOG-BATCH payloads, oldest first.
    var entries: [[UInt8]] = []
    /// Fixes dropped since batching was switched on, and since the last MON-BATCH.
    var dropsAll = 0, dropsSinceStatus = 0
    /// The next `msgCnt`.
    var nextIndex = 0
}

extension ReceiverEmulator {
    /// The most fixes the emulated receiver's RAM holds (an M8 holds a few hundred with extra PVT).
    static let batchCapacityLimit = 600

    /// CFG-BATCH: switches batching on or off; `false` (ACK-NAK) for a bad payload or a buffer
    /// the RAM cannot hold. Switching on again keeps what is kept.
    func configureBatch(_ s: inout State, _ p: [UInt8]) -> Bool {
        guard p.count == 8, p[0] == 0 else { return false }
        guard p[1] & 0x01 != 0 else {
            s.batch = nil
            return true
        }
        let size = Int(p[2]) | Int(p[3]) << 8
        guard (1...Self.batchCapacityLimit).contains(size) else { return false }
        var batch = s.batch ?? EmulatedBatch(capacity: size, extraPVT: false)
        batch.capacity = size
        batch.extraPVT = p[1] & 0x04 != 0
        if batch.entries.count > size { batch.entries.removeFirst(batch.entries.count - size) }
        s.batch = batch
        return true
    }

    /// Keeps an epoch with a fix in the batch buffer.
    func keepInBatch(_ s: inout State, _ e: BinaryEpoch) {
        guard var batch = s.batch, e.hasFix, s.powered else { return }
        let pvt = navPVT(e, iTOW: 0, unixMilliseconds: e.unixMilliseconds)
        var p = LittleEndianWriter(100)
        p.u8(1, batch.extraPVT ? 0x01 : 0x00)
        p.u16(2, UInt16(truncatingIfNeeded: batch.nextIndex))
        // NAV-PVT's iTOW (0), year..valid (4...11), tAcc (12), nano (16), fixType, flags, flags2, numSV
        // (20...23), lon, lat, height, hMSL, hAcc, vAcc (24...47), velN/E/D, gSpeed, headMot
        // (48...67), sAcc, headAcc (68...75), pDOP (76): LOG-BATCH keeps them 4 bytes on.
        for k in 0..<48 { p.u8(k + 4, pvt[k]) }
        if batch.extraPVT {
            for k in 48..<78 { p.u8(k + 4, pvt[k]) }
        }
        batch.nextIndex += 1
        batch.entries.append(p.bytes)
        if batch.entries.count > batch.capacity {
            batch.entries.removeFirst()
            batch.dropsAll += 1
            batch.dropsSinceStatus += 1
        }
        s.batch = batch
    }

    /// LOG-RETRIEVEBATCH: MON-BATCH first when asked (flags bit 0), then every kept fix; the buffer empties.
    func retrieveBatch(_ s: inout State, _ p: [UInt8], at: MonotonicInstant) {
        guard var batch = s.batch, p.count == 4, p[0] == 0 else { return }
        if p[1] & 0x01 != 0 {
            var status = LittleEndianWriter(12)
            status.u16(4, UInt16(batch.entries.count))
            status.u16(6, UInt16(clamping: batch.dropsAll))
            status.u16(8, UInt16(clamping: batch.dropsSinceStatus))
            status.u16(10, UInt16(truncatingIfNeeded: batch.nextIndex))
            s.pending.append((at, ubxFrame(0x0A, 0x32, status.bytes)))
            batch.dropsSinceStatus = 0
        }
        for entry in batch.entries { s.pending.append((at, ubxFrame(0x21, 0x11, entry))) }
        batch.entries = []
        s.batch = batch
    }
}
