import NMEA
import ReceiverProtocols

extension ReceiverExecutor {
    /// Receiver-side batching (u-blox M8, the board's `batch`): at the first wake after the
    /// engine starts, what the receiver kept while nobody read it is drained and handed to
    /// ``onBatchDrained`` (fixes with their own times, oldest first); then batching is switched
    /// on, and again after each loss of configuration, so the receiver keeps fixes through the
    /// host's next absence. The first drain of a receiver that never batched finds no buffer (no
    /// MON-BATCH): not a failure. Other generations and families are not asked.
    func serviceBatching() {
        guard let size = batchSize, let ublox = driver as? UBloxDriver, ublox.generation == .m8 else { return }
        if !batchDrained {
            batchDrained = true
            do {
                let drain = try ublox.drainBatch()
                let fixes = drain.entries.compactMap(\.fix)
                batchedFixesDrained += fixes.count
                if !fixes.isEmpty { onBatchDrained?(fixes) }
            } catch {
                if case .noAcknowledgement = error {} else { failures.append(error) }
            }
        }
        if !batchEnabled {
            batchEnabled = true
            attempt { () throws(ReceiverError) in try ublox.enableBatching(bufferSize: size) }
        }
    }
}

extension ReceiverExecutor {
    /// At shutdown, with batching on: wakes the receiver if a duty cycle had it asleep (and
    /// switches batching on again if a backup cleared it), empties
    /// the buffer (its fixes were delivered live; the next start then drains only the time the
    /// host was away) and returns `true`: the receiver is to be left tracking. `false` without batching.
    func keepsTrackingForBatch() -> Bool {
        guard batchSize != nil, let ublox = driver as? UBloxDriver, ublox.generation == .m8 else { return false }
        if cyclic { setCyclic(false) }
        wake()
        serviceBatching()  // switched on again if a backup took it
        do { _ = try ublox.drainBatch() } catch { failures.append(error) }
        return true
    }
}
