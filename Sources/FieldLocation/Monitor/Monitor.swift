import Beacons
import FieldLocationStore
import Foundation
import LocationAPI
import LocationServices
import Synchronization

/// A named, persisted set of conditions and their states, modelled on Core Location's `CLMonitor`.
///
/// Open one by name (``init(named:directory:maximumPending:wallClock:)``): its conditions, their
/// records and the events not yet consumed live in `monitor-NAME.json` in the state folder, written
/// atomically (``AtomicFile``: temporary file, `fsync`, `rename`, `fsync` of the folder) **before** an
/// event is handed to any consumer, so a `kill -9` at any point leaves the last completed write and
/// an event a consumer saw is on disk.
///
/// Conditions are circles, polygons (checked by ``RegionMonitor``, with its accuracy hysteresis) and
/// beacon identities (checked by ``BeaconRegionMonitor``, with its entry evidence and exit timeout).
/// ``add(_:identifier:assuming:)`` takes the state to assume until one is determined: an event comes
/// only when a determined state differs from the condition's last one. A condition that cannot be
/// monitored (no Bluetooth for a beacon, more than ``maximumConditions``, no authorisation) is
/// ``State/unmonitored``, with the reason in its event.
///
/// ``events`` first replays the events no consumer has acknowledged (including those that happened
/// while nobody was listening, or before a restart), then streams new ones. An event is acknowledged
/// when its consumer asks for the next one (or through ``acknowledge(through:)``): delivery is at
/// least once, and a repeat carries the same `seq`.
///
/// The monitor is fed by its owner: ``process(_:)`` with each location, ``processBeacons(at:presence:)``
/// with beacon presence, ``setBluetoothAvailable(_:)`` and ``setAuthorized(_:)``. Open one monitor
/// object per name per process.
public final class Monitor: Sendable {
    /// The most conditions monitored (Core Location's `CLMonitor` allows 20); later ones are unmonitored.
    public static let maximumConditions = 20

    struct Stored: Codable, Sendable {
        var identifier: String
        var condition: Condition
        var lastEvent: Event
    }

    struct File: Codable, Sendable {
        var version = 1
        var name: String
        var nextSeq: UInt64 = 1
        var dropped: UInt64 = 0
        /// In the order they were added.
        var conditions: [Stored] = []
        /// Events not yet acknowledged, oldest first.
        var pending: [Event] = []
    }

    struct Shared: Sendable {
        var file: File
        var maximumPending: Int
        /// Events saved but not yet handed to the consumers (a save failed before).
        var unannounced: [Event] = []
        var regions = RegionMonitor()
        var beacons = BeaconRegionMonitor()
        var bluetooth = true
        var authorized = true
        var consumers: [Int: AsyncStream<Event>.Continuation] = [:]
        /// Consumers that are functions (``attach(_:)``).
        var handlers: [Int: @Sendable (Event) -> Void] = [:]
        var nextConsumer = 0
    }

    /// The monitor's name.
    public let name: String
    /// Its file.
    public let path: String
    /// The most unacknowledged events kept; more drop the oldest (counted in ``dropped``).
    public let maximumPending: Int
    let wallClock: @Sendable () -> Double
    let state: Mutex<Shared>

    /// The file of monitor `name` in `directory` (`monitor-NAME.json`, the name's characters other than
    /// letters, digits, `-` and `_` as `_`).
    public static func path(directory: String, name: String) -> String {
        let regions = RegionStore.path(directory: directory, client: name)
        return directory + "/monitor-" + String((regions as NSString).lastPathComponent.dropFirst("regions-".count))
    }

    /// Opens the monitor `name` in `directory`, creating it when there is no file. `wallClock` gives
    /// UTC seconds since 1970 for the events' dates. A damaged file is refused with its path and what is wrong.
    public init(named name: String, directory: String, maximumPending: Int = 512,
                wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws(MonitorError) {
        let path = Self.path(directory: directory, name: name)
        let limit = max(1, maximumPending)
        var file = File(name: name)
        if FileManager.default.fileExists(atPath: path) {
            file = try Self.load(path)
        }
        var s = Shared(file: file, maximumPending: limit)
        _ = Self.reconcile(&s, date: wallClock(), quiet: true)
        self.name = name
        self.path = path
        self.maximumPending = limit
        self.wallClock = wallClock
        state = Mutex(s)
    }

    static func load(_ path: String) throws(MonitorError) -> File {
        guard let data = FileManager.default.contents(atPath: path) else { throw MonitorError(path: path, reason: "cannot be read") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw MonitorError(path: path, reason: "not a monitor file: \(DecodingProblem.describe(error))")
        }
        guard file.version == 1 else { throw MonitorError(path: path, reason: "version \(file.version) is not 1") }
        var previous: UInt64 = 0
        for (i, event) in file.pending.enumerated() {
            guard event.seq > previous, event.seq < file.nextSeq else {
                throw MonitorError(path: path, reason: "pending[\(i)]: seq \(event.seq) is out of order (after \(previous), next \(file.nextSeq))")
            }
            previous = event.seq
        }
        for (i, stored) in file.conditions.enumerated() {
            if let problem = stored.condition.validate(identifier: stored.identifier) {
                throw MonitorError(path: path, reason: "conditions[\(i)]: \(problem)")
            }
        }
        return file
    }

    // MARK: Conditions

    /// The identifiers of the conditions, in the order they were added.
    public var identifiers: [String] { state.withLock { $0.file.conditions.map(\.identifier) } }

    /// The record of a condition (its condition and last event), `nil` when there is none.
    public func record(for identifier: String) -> Record? {
        state.withLock { s in
            s.file.conditions.first { $0.identifier == identifier }.map { Record(condition: $0.condition, lastEvent: $0.lastEvent) }
        }
    }

    /// The number the next event gets (one more than the last event's).
    public var nextSeq: UInt64 { state.withLock { $0.file.nextSeq } }

    /// Events dropped because more than ``maximumPending`` were unacknowledged.
    public var dropped: UInt64 { state.withLock { $0.file.dropped } }

    /// The events not yet acknowledged, oldest first.
    public var pendingEvents: [Event] { state.withLock { $0.file.pending } }

    /// Adds (or replaces) a condition, assuming `assumed` until a state is determined, and saves.
    /// A condition that cannot be monitored gets an ``State/unmonitored`` event at once.
    public func add(_ condition: Condition, identifier: String, assuming assumed: State = .unknown) throws(MonitorError) {
        if let problem = condition.validate(identifier: identifier) { throw MonitorError(path: nil, reason: problem) }
        let date = wallClock()
        try change(save: true) { s in
            let stored = Stored(identifier: identifier, condition: condition,
                                lastEvent: Event(seq: 0, identifier: identifier, state: assumed, date: date))
            if let i = s.file.conditions.firstIndex(where: { $0.identifier == identifier }) {
                s.regions.remove(identifier)
                s.beacons.remove(identifier)
                s.file.conditions[i] = stored
            } else {
                s.file.conditions.append(stored)
            }
            return Self.reconcile(&s, date: date, quiet: false)
        }
    }

    /// Removes a condition and saves; returns whether there was one. Its pending events stay queued.
    @discardableResult
    public func remove(_ identifier: String) throws(MonitorError) -> Bool {
        var removed = false
        let date = wallClock()
        try change(save: true) { s in
            guard let i = s.file.conditions.firstIndex(where: { $0.identifier == identifier }) else { return [] }
            s.file.conditions.remove(at: i)
            s.regions.remove(identifier)
            s.beacons.remove(identifier)
            removed = true
            return Self.reconcile(&s, date: date, quiet: false)
        }
        return removed
    }

    // MARK: Inputs

    /// Feeds a location: circle and polygon conditions change state with it.
    public func process(_ location: Location) throws(MonitorError) {
        let date = wallClock()
        try change { s in
            guard s.authorized else { return [] }
            let changes = s.regions.update(location).compactMap { e -> (String, State)? in
                switch e.kind {
                case .enter: return (e.region.identifier, .satisfied)
                case .exit: return (e.region.identifier, .unsatisfied)
                case .determined(let r): return r == .unknown ? nil : (e.region.identifier, r == .inside ? .satisfied : .unsatisfied)
                case .dwell: return nil
                }
            }
            return Self.apply(changes, to: &s, date: date)
        }
    }

    /// Feeds beacon presence at `now` (seconds on the scanner's clock): beacon conditions change
    /// state with it (see ``BeaconRegionMonitor`` for the entry evidence and exit timeout).
    public func processBeacons(at now: Double, presence: (BeaconIdentityConstraint) -> BeaconPresence) throws(MonitorError) {
        let date = wallClock()
        try change { s in
            guard s.authorized, s.bluetooth else { return [] }
            let changes = s.beacons.update(at: now, presence: presence).compactMap { e -> (String, State)? in
                switch e.kind {
                case .enter: return (e.region.identifier, .satisfied)
                case .exit: return (e.region.identifier, .unsatisfied)
                case .determined(let r): return r == .unknown ? nil : (e.region.identifier, r == .inside ? .satisfied : .unsatisfied)
                }
            }
            return Self.apply(changes, to: &s, date: date)
        }
    }

    /// Whether Bluetooth can scan: without it, beacon conditions are unmonitored.
    public func setBluetoothAvailable(_ available: Bool) throws(MonitorError) {
        let date = wallClock()
        try change { s in
            guard s.bluetooth != available else { return [] }
            s.bluetooth = available
            if !available { s.beacons.scanningStopped() }
            return Self.reconcile(&s, date: date, quiet: false)
        }
    }

    /// Whether location is authorised: without it, every condition is unmonitored.
    public func setAuthorized(_ authorized: Bool) throws(MonitorError) {
        let date = wallClock()
        try change { s in
            guard s.authorized != authorized else { return [] }
            s.authorized = authorized
            return Self.reconcile(&s, date: date, quiet: false)
        }
    }
}
