import Beacons
import FieldLocation
import FieldLocationStore
import FieldLocationWire
import HardwareInterfaces
import Foundation
import LocationAPI
import LocationServices

/// The persisted queue of a background-monitored client's region, region-expiry, beacon-region and
/// visit events, with its visit
/// history: one file per persistent client in the daemon's state folder
/// (`pending-uid1000-NAME.json`), rewritten atomically (``AtomicFile``: temporary file, `fsync`,
/// `rename`, `fsync` of the folder) before an event is handed to the connection, so that an event
/// the engine produced is on disk before anybody can see it, and a `kill -9` at any point leaves the
/// last completed write.
///
/// Events are numbered (`seq`, from 1, never reused) and leave the queue only when the client
/// acknowledges them (``acknowledge(through:)``). The queue is bounded (``capacity``): when full, the
/// oldest event is dropped and counted (``dropped``), and the client is told the count when it
/// registers again.
///
/// Not thread-safe: ``PersistentSession`` holds it under its lock.
struct EventJournal {
    /// One queued event.
    struct Entry: Codable, Equatable {
        /// Its number.
        var seq: UInt64
        /// The event (a `region` or `visit` event).
        var event: QueuedEvent
    }

    /// A queued event in its wire form: one key of `region`, `visit`, `regionExpired` (the region
    /// that lapsed) or `beaconRegion`.
    struct QueuedEvent: Codable, Equatable {
        var region: RegionEvent?
        var visit: Visit?
        var regionExpired: CircularRegion?
        var beaconRegion: BeaconRegionEvent?

        init?(_ event: EngineEvent) {
            switch event {
            case .region(let e): region = e
            case .visit(let v): visit = v
            case .regionExpired(let r): regionExpired = r
            case .beaconRegion(let e): beaconRegion = e
            default: return nil
            }
        }

        /// Whether the engine's event is one a background-monitored client must not lose.
        static func isQueued(_ event: EngineEvent) -> Bool {
            switch event {
            case .region, .visit, .regionExpired, .beaconRegion: return true
            default: return false
            }
        }

        /// The engine event, or `nil` for an entry with none of the keys.
        var engineEvent: EngineEvent? {
            if let region { return .region(region) }
            if let visit { return .visit(visit) }
            if let regionExpired { return .regionExpired(regionExpired) }
            if let beaconRegion { return .beaconRegion(beaconRegion) }
            return nil
        }
    }

    /// The file's form.
    struct File: Codable {
        var version = 1
        /// The persistent name (`uid1000-NAME`).
        var client: String
        /// Whether visits are monitored while the client is away.
        var visits: Bool
        /// The next event's number.
        var nextSeq: UInt64
        /// Events dropped because the queue was full (since the file was created).
        var dropped: UInt64
        var events: [Entry]
        /// The most recent visits, oldest first (a departure replaces its arrival).
        var history: [Visit]
        /// When the visit in progress (the history's last, not departed) arrived: UTC seconds since
        /// 1970 on the daemon's wall clock, so a restarted daemon (a new monotonic clock) resumes it.
        var arrivalDate: Double?
    }

    /// The most events queued; more drop the oldest.
    static let defaultCapacity = 512
    /// The most visits kept in the history.
    static let historyLimit = 100

    /// The file.
    let path: String
    private(set) var file: File
    /// The most events queued.
    var capacity: Int

    /// The file of a persistent client in `directory`.
    static func path(directory: String, client: String) -> String {
        let regions = RegionStore.path(directory: directory, client: client)
        let name = (regions as NSString).lastPathComponent.replacingOccurrences(of: "regions-", with: "pending-")
        return directory + "/" + name
    }

    /// A new, empty journal (not yet written).
    init(path: String, client: String, capacity: Int = Self.defaultCapacity) {
        self.path = path
        self.capacity = max(1, capacity)
        file = File(client: client, visits: false, nextSeq: 1, dropped: 0, events: [], history: [])
    }

    /// Why a journal file cannot be read or written.
    struct JournalError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "\(path): \(reason)" }
    }

    /// Loads a journal file. Errors name the file and what is wrong.
    static func load(_ path: String, capacity: Int = Self.defaultCapacity) throws(JournalError) -> EventJournal {
        guard let data = FileManager.default.contents(atPath: path) else { throw JournalError(path: path, reason: "cannot be read") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw JournalError(path: path, reason: "not an event journal: \(ClientSocketCodec.describe(error))")
        }
        guard file.version == 1 else { throw JournalError(path: path, reason: "version \(file.version) is not 1") }
        var previous: UInt64 = 0
        for (index, entry) in file.events.enumerated() {
            guard entry.seq > previous, entry.seq < file.nextSeq else {
                throw JournalError(path: path, reason: "events[\(index)]: seq \(entry.seq) is out of order (after \(previous), next \(file.nextSeq))")
            }
            guard entry.event.engineEvent != nil else { throw JournalError(path: path, reason: "events[\(index)]: none of 'region', 'visit', 'regionExpired' or 'beaconRegion'") }
            previous = entry.seq
        }
        var journal = EventJournal(path: path, client: file.client, capacity: capacity)
        journal.file = file
        return journal
    }

    /// The queued events, oldest first.
    var events: [Entry] { file.events }
    /// Events dropped because the queue was full.
    var dropped: UInt64 { file.dropped }
    /// The visit history, oldest first.
    var history: [Visit] { file.history }
    /// Whether visits are monitored while the client is away.
    var visits: Bool {
        get { file.visits }
        set { file.visits = newValue }
    }

    /// Queues an event (dropping and counting the oldest when full) and records a visit in the
    /// history; returns the entry, or `nil` for an event that is not queued (not a region or visit).
    /// The caller saves.
    mutating func append(_ event: EngineEvent) -> Entry? {
        guard let queued = QueuedEvent(event) else { return nil }
        let entry = Entry(seq: file.nextSeq, event: queued)
        file.nextSeq += 1
        file.events.append(entry)
        if file.events.count > capacity {
            let excess = file.events.count - capacity
            file.events.removeFirst(excess)
            file.dropped += UInt64(excess)
        }
        if let visit = queued.visit {
            if let last = file.history.last, last.arrivedAt == visit.arrivedAt, last.latitude == visit.latitude,
               last.longitude == visit.longitude {
                file.history[file.history.count - 1] = visit
            } else {
                file.history.append(visit)
            }
            if file.history.count > Self.historyLimit { file.history.removeFirst(file.history.count - Self.historyLimit) }
        }
        return entry
    }

    /// The wall time of the visit in progress's arrival (`nil` when none is in progress).
    var arrivalDate: Double? {
        get { file.arrivalDate }
        set { file.arrivalDate = newValue }
    }

    /// The visit in progress (the history's last when it has not departed and its arrival's wall
    /// time is known) with its arrival moved to a new clock: `arrivedAt` (the same visit, found
    /// again after a restart). The caller saves.
    mutating func resumeVisit(arrivedAt: MonotonicInstant) -> Visit? {
        guard file.arrivalDate != nil, var visit = file.history.last, visit.departedAt == nil else { return nil }
        visit.arrivedAt = arrivedAt
        file.history[file.history.count - 1] = visit
        return visit
    }

    /// Removes the events numbered up to `seq`; returns whether any went. The caller saves.
    mutating func acknowledge(through seq: UInt64) -> Bool {
        let before = file.events.count
        file.events.removeAll { $0.seq <= seq }
        return file.events.count != before
    }

    /// Writes the journal atomically.
    func save() throws(JournalError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(file) } catch { throw JournalError(path: path, reason: "cannot encode: \(error)") }
        do { try AtomicFile.write(data, to: path, mode: 0o600) } catch { throw JournalError(path: path, reason: error.description) }
    }

    /// Removes the file (the client left with nothing to monitor and nothing queued).
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
