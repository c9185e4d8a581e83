import HardwareInterfaces
import LocationServices

extension ClientRegistry {
    /// How long after the drain the receiver's buffer is still handed to a client that starts
    /// batching: a client that comes later wants today's track, not the night's.
    static let receiverLogLifetime: Duration = .seconds(3600)

    /// Keeps the fixes drained from the receiver's own buffer (oldest first) and hands them to
    /// every client that batches or defers its locations now; clients that start doing so within
    /// ``receiverLogLifetime`` get them then. Each client gets them once, at the head of its batch.
    func receiverLogDrained(_ locations: [Location], now: MonotonicInstant) {
        guard !locations.isEmpty else { return }
        var deliveries: [(Sink, [[Location]])] = []
        lock.withLock {
            receiverLog = (locations, now)
            for c in clients.values {
                if let due = handOverReceiverLog(c, now: now) { deliveries.append((c.sink, due)) }
            }
        }
        for (sink, batches) in deliveries {
            for batch in batches { sink(.locations(batch)) }
        }
    }

    /// Under the lock: puts the receiver's buffer into client `c`'s batch if it runs batched or
    /// deferred location updates and has not had it; returns the batches that fell due on the way.
    func handOverReceiverLog(_ c: Record, now: MonotonicInstant?) -> [[Location]]? {
        guard let log = receiverLog, !c.receiverLogDelivered, c.services.updatingLocation, var batcher = c.batcher else { return nil }
        if let now, now - log.drainedAt > Self.receiverLogLifetime { return nil }
        c.receiverLogDelivered = true
        var due: [[Location]] = []
        for location in log.locations {
            if let batch = batcher.add(location) { due.append(batch.batch) }
        }
        c.batcher = batcher
        return due.isEmpty ? nil : due
    }
}
