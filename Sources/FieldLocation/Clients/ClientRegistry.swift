import Beacons
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import PowerPolicy

/// The engine's clients and observers: registration, each client's services, their demands
/// merged into the policy's input, and what each client receives (per-client delivery filters,
/// one-shot requests, batches, significant changes, visits, regions).
///
/// Any thread may call it (see the thread and lock rule in `LocationEngine`).
///
/// Inputs: locations, headings, the policy's state, events to broadcast. Outputs: ``ClientDemand``
/// values for the policy, and ``EngineEvent`` values handed to each client's sink.
final class ClientRegistry: @unchecked Sendable {
    typealias Sink = @Sendable (EngineEvent) -> Void

    /// One client's state.
    final class Record {
        let name: String
        var services = ClientServices()
        var sink: Sink
        var filter = UpdateFilter()
        var significant = SignificantChangeFilter()
        var headingFilter = HeadingFilter()
        var visitDetector = VisitDetector()
        var regions: RegionMonitor
        var regionFile: String?
        var batcher: DeferredBatcher?
        var paused = false
        var request: (since: MonotonicInstant, deadline: MonotonicInstant, best: Location?, firstFix: MonotonicInstant?)?
        /// Fix loss of standard updates (see `FixLoss.swift`).
        var loss = FixLossState()
        /// When standard updates last delivered (the minimum update interval counts from it).
        var lastDeliveredAt: MonotonicInstant?
        /// Whether standard updates owe the client a fresh fix at full accuracy (it was just
        /// granted): a one-shot demand until one is delivered, whatever the schedule.
        var owedFullAccuracy = false
        /// Beacon regions (see `ClientBeacons.swift`).
        var beaconRegions = BeaconRegionMonitor()
        /// When standard updates started (their `updateDuration` counts from it) and how many
        /// deliveries they made since (their `maximumUpdates`).
        var updatesStartedAt: MonotonicInstant?
        var updatesDelivered = 0
        /// While standard updates hold their first delivery for an accurate fix
        /// (``ClientServices/accurateFirstFixWait``): the most accurate fix held so far.
        var holdingFirstFix = false
        var heldFirstFix: Location?
        /// Whether the receiver's drained buffer went to this client's batch (see `ClientReceiverLog.swift`).
        var receiverLogDelivered = false
        init(name: String, regions: RegionMonitor, regionFile: String?, sink: @escaping Sink) {
            self.name = name
            self.regions = regions
            self.regionFile = regionFile
            self.sink = sink
        }
    }

    /// Folder of persisted regions; `nil` keeps nothing.
    let stateDirectory: String?
    /// Guards `clients`, `observers` and `nextID` (touched only in the registry's own files).
    let lock = NSLock()
    var clients: [Int: Record] = [:]
    private var observers: [Int: @Sendable (EngineObservation) -> Void] = [:]
    /// The observers handed the receiver's frames.
    private var frameObservers: Set<Int> = []
    /// The observers handed raw sensor samples and advertising reports.
    private var rawInputObservers: Set<Int> = []
    private var nextID = 1
    /// The fixes drained from the receiver's own buffer at start, and when (see `ClientReceiverLog.swift`).
    var receiverLog: (locations: [Location], drainedAt: MonotonicInstant)?

    /// UTC seconds since 1970, for region expiry dates (the monotonic clock places the deadlines).
    let wallClock: @Sendable () -> Double

    /// Called after every change to what the clients may demand (a client comes or goes, its
    /// services change, a one-shot request starts or ends, its regions change), outside the lock:
    /// the engine's run loop ticks at once instead of at its next deadline.
    let demandChanged: @Sendable () -> Void

    init(stateDirectory: String?, wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
         demandChanged: @escaping @Sendable () -> Void = {}) {
        self.stateDirectory = stateDirectory
        self.wallClock = wallClock
        self.demandChanged = demandChanged
    }

    // MARK: registration

    /// Registers a client; with a `persistentName` its regions are loaded from the state folder.
    func register(name: String, persistentName: String?, now: MonotonicInstant = .zero, sink: @escaping Sink) -> (id: Int, problems: [String]) {
        var problems: [String] = []
        var monitor = RegionMonitor()
        var file: String? = nil
        var loaded = false
        if let persistentName, let directory = stateDirectory {
            let path = RegionStore.path(directory: directory, client: persistentName)
            file = path
            do {
                monitor = try RegionStore.load(path) ?? RegionMonitor()
                monitor.restarted(now: now.seconds, wallClock: wallClock())
                loaded = true
            } catch {
                problems.append(error.description)
            }
        }
        var beaconRegions: [BeaconRegion] = []
        // The same file: when it could not be read for the circular regions, its problem is already said.
        if let file, loaded {
            do { beaconRegions = try RegionStore.loadBeaconRegions(file) } catch { problems.append(error.description) }
        }
        let id = lock.withLock {
            let id = nextID
            nextID += 1
            let record = Record(name: name, regions: monitor, regionFile: file, sink: sink)
            record.beaconRegions = BeaconRegionMonitor(regions: beaconRegions)
            clients[id] = record
            return id
        }
        demandChanged()
        return (id, problems)
    }

    /// Removes a client; a batch it was holding is delivered first.
    func unregister(_ id: Int) {
        let record = lock.withLock { clients.removeValue(forKey: id) }
        if let record, let batch = record.batcher?.flush() { record.sink(.locations(batch.batch)) }
        if record != nil { demandChanged() }
    }

    /// Adds an observer; ids are shared with clients.
    func observe(_ handler: @escaping @Sendable (EngineObservation) -> Void) -> Int {
        lock.withLock {
            let id = nextID
            nextID += 1
            observers[id] = handler
            return id
        }
    }

    /// Removes an observer.
    func removeObserver(_ id: Int) {
        lock.withLock {
            observers.removeValue(forKey: id)
            frameObservers.remove(id)
            rawInputObservers.remove(id)
        }
    }

    /// Whether observer `id` is handed the receiver's frames.
    func setObserver(_ id: Int, wantsFrames: Bool) {
        lock.withLock {
            guard observers[id] != nil else { return }
            if wantsFrames { frameObservers.insert(id) } else { frameObservers.remove(id) }
        }
    }

    /// Whether some observer wants the receiver's frames.
    var wantsFrames: Bool { lock.withLock { !frameObservers.isEmpty } }

    /// Whether observer `id` is handed raw sensor samples and advertising reports.
    func setObserver(_ id: Int, wantsRawInputs: Bool) {
        lock.withLock {
            guard observers[id] != nil else { return }
            if wantsRawInputs { rawInputObservers.insert(id) } else { rawInputObservers.remove(id) }
        }
    }

    /// Whether some observer wants raw sensor samples and advertising reports.
    var wantsRawInputs: Bool { lock.withLock { !rawInputObservers.isEmpty } }

    /// Hands an observation to every observer (frames only to those that want them).
    func notify(_ observation: EngineObservation) {
        let handlers = lock.withLock { () -> [@Sendable (EngineObservation) -> Void] in
            switch observation {
            case .frames: return frameObservers.compactMap { observers[$0] }
            case .sensorSample, .advert: return rawInputObservers.compactMap { observers[$0] }
            default: break
            }
            return Array(observers.values)
        }
        for h in handlers { h(observation) }
    }

    /// Clients registered.
    var count: Int { lock.withLock { clients.count } }

    /// The clients now (one tick's demands and housekeeping work on the same list).
    func snapshot() -> [(Int, Record)] { lock.withLock { clients.map { ($0.key, $0.value) } } }

    // MARK: services

    /// Changes a client's services at `now`. Turning standard updates on resets its filter (the next
    /// fresh fix is delivered) and starts its expiry (``ClientServices/maximumUpdates``,
    /// ``ClientServices/updateDuration``), as does changing either limit.
    func update(_ id: Int, now: MonotonicInstant? = nil, _ change: (inout ClientServices) -> Void) {
        var flushed: (sink: Sink, batch: [Location])?
        var logBatches: (sink: Sink, batches: [[Location]])?
        lock.withLock {
            guard let c = clients[id] else { return }
            let was = c.services
            change(&c.services)
            let s = c.services
            if s.updatingLocation && !was.updatingLocation {
                c.filter.reset()
                c.paused = false
                c.loss = FixLossState()
                c.lastDeliveredAt = nil
                c.holdingFirstFix = s.accurateFirstFixWait != nil
                c.heldFirstFix = nil
            }
            if s.accurateFirstFixWait == nil { c.holdingFirstFix = false }
            if s.updatingLocation && (!was.updatingLocation || s.maximumUpdates != was.maximumUpdates
                                      || s.updateDuration != was.updateDuration) {
                c.updatesStartedAt = now
                c.updatesDelivered = 0
            }
            // Full accuracy granted: the client's last location was coarse, so the next fresh fix
            // goes to it (a still unit would otherwise give none until it moves).
            if was.reducedAccuracy && !s.reducedAccuracy && s.updatingLocation {
                c.filter.reset()
                c.owedFullAccuracy = true
            }
            if !s.updatingLocation { c.owedFullAccuracy = false }
            c.filter.distanceFilter = s.distanceFilter
            c.filter.maximumAge = s.maximumAge
            c.headingFilter.headingFilter = s.headingFilter
            let batching = s.deferral != nil || s.batchingMaximumDelay != nil
            if batching {
                var b = c.batcher ?? DeferredBatcher()
                b.untilTraveled = s.deferral?.distance
                b.timeout = s.deferral?.timeout
                b.maximumDelay = s.batchingMaximumDelay
                c.batcher = b
            } else if let b = c.batcher {
                var copy = b
                if let batch = copy.flush() { flushed = (c.sink, batch.batch) }
                c.batcher = nil
            }
            if !s.significantChanges { c.significant = SignificantChangeFilter() }
            if !s.visits { c.visitDetector = VisitDetector() }
            if let due = handOverReceiverLog(c, now: now) { logBatches = (c.sink, due) }
        }
        if let flushed { flushed.sink(.locations(flushed.batch)) }
        if let logBatches { for batch in logBatches.batches { logBatches.sink(.locations(batch)) } }
        demandChanged()
    }

    /// The services a client runs.
    func services(_ id: Int) -> ClientServices? { lock.withLock { clients[id]?.services } }

    /// A one-shot request from `now` until `now + timeout`.
    func requestLocation(_ id: Int, now: MonotonicInstant, timeout: Duration) {
        lock.withLock { clients[id]?.request = (now, now.advanced(by: timeout), nil, nil) }
        demandChanged()
    }

    /// Delivers a client's held batch now (batching goes on); nothing when none is held.
    func flushBatch(_ id: Int) {
        let flushed: (sink: Sink, batch: [Location])? = lock.withLock {
            guard let c = clients[id], var b = c.batcher, let batch = b.flush() else { return nil }
            c.batcher = b
            return (c.sink, batch.batch)
        }
        if let flushed { flushed.sink(.locations(flushed.batch)) }
    }

    /// Resumes a client's visit in progress from before a restart (see ``VisitDetector/resume(_:)``).
    func resumeVisit(_ id: Int, _ visit: Visit) {
        lock.withLock { clients[id]?.visitDetector.resume(visit) }
    }

    /// Ends a client's one-shot request without an answer (its demand goes with it).
    func cancelRequest(_ id: Int) {
        lock.withLock { clients[id]?.request = nil }
        demandChanged()
    }

    // MARK: regions

    /// Starts monitoring a region for a client; returns why not, or `nil`.
    func startMonitoring(_ id: Int, _ region: CircularRegion, now: MonotonicInstant = .zero) -> LocationError? {
        let wall = wallClock()
        return changeRegions(id, region: region.identifier) { c in
            c.regions.add(region, now: now.seconds, wallClock: wall).map { .refused($0) } ?? .changed
        }
    }

    /// Stops monitoring a region; returns a storage error, if any.
    func stopMonitoring(_ id: Int, identifier: String) -> LocationError? {
        changeRegions(id, region: identifier, refuseGoneClient: false) { $0.regions.remove(identifier) ? .changed : .unchanged }
    }

    /// What a change to a client's regions did.
    enum RegionChange { case changed, unchanged, refused(String) }

    /// Changes a client's regions (circular or beacon) under the lock, then saves both kinds to the
    /// client's regions file atomically; returns why the change was refused or the save failed.
    /// A client that is gone refuses the change when `refuseGoneClient` (adding), else nothing happens.
    func changeRegions(_ id: Int, region identifier: String, refuseGoneClient: Bool = true,
                       _ change: (Record) -> RegionChange) -> LocationError? {
        let result: (problem: String?, changed: Bool, save: (RegionMonitor, String, [BeaconRegion])?) = lock.withLock {
            guard let c = clients[id] else { return (refuseGoneClient ? "client gone" : nil, false, nil) }
            switch change(c) {
            case .refused(let problem): return (problem, false, nil)
            case .unchanged: return (nil, false, nil)
            case .changed: return (nil, true, c.regionFile.map { (c.regions, $0, c.beaconRegions.regions) })
            }
        }
        if let problem = result.problem { return .regionMonitoringFailure(region: identifier, reason: problem) }
        if result.changed { demandChanged() }
        if let (monitor, file, beacons) = result.save {
            do { try RegionStore.save(monitor, beaconRegions: beacons, to: file) } catch {
                return .regionMonitoringFailure(region: identifier, reason: error.description)
            }
        }
        return nil
    }

    /// A client's monitored regions.
    func monitoredRegions(_ id: Int) -> [CircularRegion] { lock.withLock { clients[id]?.regions.regions ?? [] } }

    /// Every client's regions with their states (client name, region identifier), by client id then region.
    func regionStates(fresh: Location?) -> [RegionOverview] {
        lock.withLock {
            clients.keys.sorted().flatMap { id -> [RegionOverview] in
                guard let client = clients[id] else { return [] }
                return client.regions.regions.map {
                    RegionOverview(client: client.name, identifier: $0.identifier,
                                   state: client.regions.state(of: $0.identifier, location: fresh))
                }
            }
        }
    }

    /// The state of a client's region, from the monitor or `fresh`, a recent location.
    func state(_ id: Int, of identifier: String, fresh: Location?) -> RegionState {
        lock.withLock { clients[id]?.regions.state(of: identifier, location: fresh) ?? .unknown }
    }

    /// A client's region's last event and its time.
    func record(_ id: Int, for identifier: String) -> RegionRecord? {
        lock.withLock { clients[id]?.regions.record(for: identifier) }
    }
}
