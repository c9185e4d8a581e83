import HardwareInterfaces
import LocationAPI
import LocationServices

extension ClientRegistry {
    /// Removes the regions whose expiry has come by `now` (the engine's clock): each client hears
    /// `.regionExpired` for each, and its regions file is saved without them.
    func expireRegions(_ records: [(Int, Record)], at now: MonotonicInstant) {
        var out: [(Sink, EngineEvent)] = []
        var saves: [(RegionMonitor, String)] = []
        lock.withLock {
            for (_, c) in records {
                guard let next = c.regions.nextExpiry, next <= now.seconds else { continue }
                let lapsed = c.regions.expire(now: now.seconds)
                for region in lapsed { out.append((c.sink, .regionExpired(region))) }
                if !lapsed.isEmpty, let file = c.regionFile { saves.append((c.regions, file)) }
            }
        }
        // As for state changes, a failed save is not reported here (the next change saves again).
        for (monitor, file) in saves { try? RegionStore.save(monitor, to: file) }
        for (sink, event) in out { sink(event) }
    }
}

extension LocationProvider {
    /// No records (a provider that keeps none).
    public func record(_ id: Int, for identifier: String) -> RegionRecord? { nil }
}
