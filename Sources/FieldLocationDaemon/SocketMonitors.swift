import Beacons
import FieldLocation
import FieldLocationWire
import Foundation
import LocationAPI
import LocationServices
import Logging
import Synchronization

/// The ``Monitor``s opened over the client socket (op `monitorOpen`), by name (`uid1000-NAME`): each
/// lives in the state folder's `monitors` folder (`monitor-uid1000-NAME.json`), and has an engine
/// client of its own that monitors its conditions as regions and beacon regions, so its conditions
/// keep being decided while no connection holds it and across daemon restarts (the monitors in the
/// folder are opened again when the daemon starts). An event is saved (atomically, with `fsync`)
/// before it is sent, and stays queued until the client acknowledges it (op `monitorAck`).
final class SocketMonitors: Sendable {
    /// One open monitor.
    final class Entry: Sendable {
        let monitor: Monitor
        private let engineClient = Mutex<Int?>(nil)
        /// The connection holding the monitor and its handler's number.
        let holder = Mutex<(connectionID: Int, handler: Int)?>(nil)

        init(monitor: Monitor) { self.monitor = monitor }

        /// The engine client deciding the conditions.
        var engineID: Int? {
            get { engineClient.withLock { $0 } }
            set { engineClient.withLock { $0 = newValue } }
        }
    }

    let engine: LocationEngine
    let logger: Logger
    let wallClock: @Sendable () -> Double
    private let entries = Mutex<[String: Entry]>([:])

    init(engine: LocationEngine, logger: Logger, wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.engine = engine
        self.logger = logger
        self.wallClock = wallClock
    }

    /// The folder of the socket's monitors in the state folder `directory`.
    static func directory(_ directory: String) -> String { directory + "/monitors" }

    /// The open monitors' names (for tests and statistics).
    var names: [String] { entries.withLock { Array($0.keys).sorted() } }

    /// The monitor `name`: the open one, or the one in the state folder (created when there is none).
    func entry(_ name: String) throws(LocationError) -> Entry {
        if let existing = entries.withLock({ $0[name] }) { return existing }
        guard let state = engine.stateDirectory else {
            throw .regionMonitoringDenied("fieldlocd has no state folder, where monitors are kept")
        }
        let folder = Self.directory(state)
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
            throw .hardware(.other, "cannot create the monitors' folder \(folder): \(error.localizedDescription)")
        }
        let monitor: Monitor
        do { monitor = try Monitor(named: name, directory: folder, wallClock: wallClock) } catch {
            throw .hardware(.other, "monitor \(name): \(error.description)")
        }
        return start(monitor)
    }

    /// Registers the engine client of a monitor just opened and hands it the conditions.
    private func start(_ monitor: Monitor) -> Entry {
        let entry = Entry(monitor: monitor)
        let logger = self.logger
        let registration = engine.register(name: "monitor:\(monitor.name)", persistentName: nil) { event in
            Self.decide(event, monitor: monitor, logger: logger)
        }
        entry.engineID = registration.id
        let winner = entries.withLock { e -> Entry in
            if let existing = e[monitor.name] { return existing }
            e[monitor.name] = entry
            return entry
        }
        guard winner === entry else {
            engine.unregister(registration.id)
            return winner
        }
        for (identifier, condition) in monitor.conditions { watch(condition, identifier: identifier, in: entry) }
        return entry
    }

    /// An engine event of a monitor's client: a region or beacon-region state, or a region the engine
    /// stopped monitoring.
    private static func decide(_ event: EngineEvent, monitor: Monitor, logger: Logger) {
        do {
            switch event {
            case .region(let e):
                switch e.kind {
                case .enter: try monitor.determine(e.region.identifier, .satisfied)
                case .exit: try monitor.determine(e.region.identifier, .unsatisfied)
                case .determined(let r) where r != .unknown: try monitor.determine(e.region.identifier, r == .inside ? .satisfied : .unsatisfied)
                default: break
                }
            case .beaconRegion(let e):
                switch e.kind {
                case .enter: try monitor.determine(e.region.identifier, .satisfied)
                case .exit: try monitor.determine(e.region.identifier, .unsatisfied)
                case .determined(let r) where r != .unknown: try monitor.determine(e.region.identifier, r == .inside ? .satisfied : .unsatisfied)
                default: break
                }
            case .error(.regionMonitoringFailure(let region, let reason)):
                try monitor.markUnmonitored(region, reason: reason)
            default:
                break
            }
        } catch {
            logger.error("monitor \(monitor.name): \(error)")
        }
    }

    /// Has the engine monitor a condition (unless the monitor made it unmonitored); a refusal makes it unmonitored.
    private func watch(_ condition: MonitorCondition, identifier: String, in entry: Entry) {
        guard let id = entry.engineID, entry.monitor.record(for: identifier)?.lastEvent.state != .unmonitored else { return }
        let refusal: LocationError?
        switch condition {
        case .beacon(let constraint):
            refusal = engine.startMonitoring(id, BeaconRegion(identifier: identifier, constraint: constraint))
        case .circle, .polygon:
            guard let region = condition.region(identifier: identifier) else { return }
            refusal = engine.startMonitoring(id, region)
        }
        if let refusal {
            do { try entry.monitor.markUnmonitored(identifier, reason: refusal.message) } catch {
                logger.error("monitor \(entry.monitor.name): \(error)")
            }
        }
    }

    /// Stops the engine monitoring a condition.
    private func unwatch(_ condition: MonitorCondition, identifier: String, in entry: Entry) {
        guard let id = entry.engineID else { return }
        if condition.isBeacon {
            _ = engine.stopMonitoring(id, beaconRegion: identifier)
        } else {
            _ = engine.stopMonitoring(id, identifier: identifier)
        }
    }

    /// Adds (or replaces) a condition of monitor `entry`.
    func add(_ condition: MonitorCondition, identifier: String, assuming: MonitorState, to entry: Entry) throws(LocationError) {
        let old = entry.monitor.record(for: identifier)?.condition
        do { try entry.monitor.add(condition, identifier: identifier, assuming: assuming) } catch {
            throw error.path == nil ? .invalidArgument("monitorAdd: \(error.reason)") : .hardware(.other, "monitorAdd: \(error.description)")
        }
        if let old { unwatch(old, identifier: identifier, in: entry) }
        watch(condition, identifier: identifier, in: entry)
    }

    /// Removes a condition of monitor `entry`; returns whether there was one.
    func remove(_ identifier: String, from entry: Entry) throws(LocationError) -> Bool {
        guard let old = entry.monitor.record(for: identifier)?.condition else { return false }
        unwatch(old, identifier: identifier, in: entry)
        do { return try entry.monitor.remove(identifier) } catch { throw .hardware(.other, "monitorRemove: \(error.description)") }
    }

    /// Gives monitor `entry` to connection `connectionID`: its queued events, then each new one, go
    /// to `deliver`. Refused while another connection holds it.
    func attach(_ entry: Entry, connectionID: Int, deliver: @escaping @Sendable (MonitorEvent) -> Void) throws(LocationError) {
        try entry.holder.withLock { h throws(LocationError) in
            if let h, h.connectionID != connectionID {
                throw .invalidArgument("monitorOpen: monitor \(entry.monitor.name) is open on another connection")
            }
            if let h { entry.monitor.detach(h.handler) }
            h = (connectionID, entry.monitor.attach(deliver))
        }
    }

    /// Connection `connectionID` lets monitor `name` go (closed it or went away); the conditions stay monitored.
    func detach(_ name: String, connectionID: Int) {
        guard let entry = entries.withLock({ $0[name] }) else { return }
        entry.holder.withLock { h in
            guard let held = h, held.connectionID == connectionID else { return }
            entry.monitor.detach(held.handler)
            h = nil
        }
    }

    /// Opens the monitors in the state folder again (the daemon started): their conditions are
    /// monitored at once, their queued events wait for the client. Returns problems (a file that
    /// cannot be read is left in place and named).
    @discardableResult
    func restore() -> [String] {
        guard let state = engine.stateDirectory else { return [] }
        let folder = Self.directory(state)
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        struct Named: Decodable { var name: String }
        var problems: [String] = []
        for file in files.sorted() where file.hasPrefix("monitor-") && file.hasSuffix(".json") {
            let path = folder + "/" + file
            guard let data = FileManager.default.contents(atPath: path),
                  let name = try? JSONDecoder().decode(Named.self, from: data).name,
                  Monitor.path(directory: folder, name: name) == path else {
                problems.append("\(path): not a monitor file of this folder; skipped")
                continue
            }
            do {
                let monitor = try Monitor(named: name, directory: folder, wallClock: wallClock)
                _ = start(monitor)
                logger.info("monitor \(name) restored (\(monitor.identifiers.count) conditions, \(monitor.pendingEvents.count) events queued)")
            } catch {
                problems.append(error.description)
            }
        }
        for problem in problems { logger.error("cannot restore a monitor: \(problem)") }
        return problems
    }
}
