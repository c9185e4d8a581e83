import Dispatch
import FieldLocation
import FieldLocationWire
import Foundation
import LocationAPI
import LocationServices
import NIOCore
import Synchronization

/// A client of the local socket registered with a persistent name by a peer the access policy
/// authorises `always` (`uid1000-NAME`): its engine client outlives the connection, so the daemon
/// keeps monitoring its regions (and visits, when it asked for them) while it is away, as Core
/// Location keeps an app's regions while the app is not running.
///
/// Its region and visit events go through an ``EventJournal``: each is written to disk (atomically,
/// with `fsync`) before it is sent, is sent with its number (`seq`) while the client is connected,
/// and stays queued until the client acknowledges it (op `ack`). On reconnect (op `register` with the
/// same persistent name) the queued events are sent in order before any new one. Other events
/// (locations, headings, errors) go to the connected client only.
final class PersistentSession: Sendable {
    /// Where events go while the client is connected.
    struct Attachment {
        /// The connection's handler, on its event loop.
        let connection: NIOLoopBound<ClientSocketConnection>
        let loop: any EventLoop
        /// The client's number on that connection.
        let wireID: Int
        /// Identifies the connection (its hub id).
        let connectionID: Int
    }

    private struct State {
        var journal: EventJournal
        var engineID: Int?
        var attached: Attachment?
        /// Counts the journal's changes (a write carries the count it saw).
        var version: UInt64 = 0
    }

    /// Writes of the journal, in order of their versions: a write never replaces a newer one. Held
    /// without ``state``, so that the event loop never waits for an `fsync`.
    private struct Writer {
        var written: UInt64 = 0
        var problem: String?
    }

    /// The persistent name (`uid1000-NAME`).
    let name: String
    private let state: Mutex<State>
    private let writer = Mutex(Writer())
    /// Where the writes that nobody waits for are made (an acknowledgement, a new session's file).
    private let background = DispatchQueue(label: "fieldlocd.event-journal")
    private let now: @Sendable () -> UInt64
    private let wallClock: @Sendable () -> Double
    private let report: @Sendable (String) -> Void

    /// A session over `journal`; `now` stamps event lines (the engine's clock, ns), `wallClock` dates
    /// a visit's arrival (UTC seconds), `report` logs a journal that cannot be written.
    init(name: String, journal: EventJournal, now: @escaping @Sendable () -> UInt64,
         wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }, report: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.now = now
        self.wallClock = wallClock
        self.report = report
        // Version 1: a new session's file is written once (a restored one is rewritten, unchanged).
        state = Mutex(State(journal: journal, version: 1))
    }

    /// The engine client's id (set once registered).
    var engineID: Int? {
        get { state.withLock { $0.engineID } }
        set { state.withLock { $0.engineID = newValue } }
    }

    /// The engine sink: queues region, region-expiry, beacon-region and visit events (on disk
    /// first), sends what can be sent.
    func receive(_ event: EngineEvent) {
        let (attachment, lines): (Attachment?, [UInt8]) = state.withLock { s in
            if !EventJournal.QueuedEvent.isQueued(event) {
                guard let a = s.attached else { return (nil, []) }
                return (a, Self.line(event, seq: nil, wireID: a.wireID, now: now()))
            }
            guard let entry = s.journal.append(event) else { return (nil, []) }
            if case .visit(let visit) = event {
                // The arrival as wall time: the monotonic instant means nothing to a restarted daemon.
                let stamp = now()
                let ago = Double(stamp >= visit.arrivedAt.nanoseconds ? stamp - visit.arrivedAt.nanoseconds : 0) / 1e9
                s.journal.arrivalDate = visit.departedAt == nil ? wallClock() - ago : nil
            }
            s.version += 1
            guard let a = s.attached else { return (nil, []) }
            return (a, Self.line(event, seq: entry.seq, wireID: a.wireID, now: now()))
        }
        // On disk before it is sent (the engine's thread waits for the fsync).
        save()
        if let attachment, !lines.isEmpty { send(lines, to: attachment) }
    }

    /// Attaches a connection's client; the queued events are sent to it in order. Returns the count
    /// of events dropped while the queue was full, or `nil` when another connection holds the session.
    func attach(_ attachment: Attachment) -> (dropped: UInt64, pending: Int)? {
        let result: (UInt64, Int, [UInt8])? = state.withLock { s in
            guard s.attached == nil else { return nil }
            s.attached = attachment
            var bytes: [UInt8] = []
            let stamp = now()
            for entry in s.journal.events {
                guard let event = entry.event.engineEvent else { continue }
                bytes += Self.line(event, seq: entry.seq, wireID: attachment.wireID, now: stamp)
            }
            return (s.journal.dropped, s.journal.events.count, bytes)
        }
        guard let result else { return nil }
        if !result.2.isEmpty { send(result.2, to: attachment) }
        return (result.0, result.1)
    }

    /// Detaches connection `connectionID` (if it holds the session).
    func detach(connectionID: Int) {
        state.withLock { s in
            if s.attached?.connectionID == connectionID { s.attached = nil }
        }
    }

    /// Removes the events acknowledged (numbered up to `seq`); the journal is written in the
    /// background (a crash before that write only delivers them again).
    func acknowledge(through seq: UInt64) {
        let changed = state.withLock { s -> Bool in
            guard s.journal.acknowledge(through: seq) else { return false }
            s.version += 1
            return true
        }
        if changed { background.async { [self] in save() } }
    }

    /// Records whether visits are monitored while away (saved when it changes).
    func setVisits(_ on: Bool) {
        let changed = state.withLock { s -> Bool in
            guard s.journal.visits != on else { return false }
            s.journal.visits = on
            s.version += 1
            return true
        }
        if changed { background.async { [self] in save() } }
    }

    /// Whether visits are monitored while away.
    var visits: Bool { state.withLock { $0.journal.visits } }
    /// The queued events' numbers, oldest first.
    var pendingSeqs: [UInt64] { state.withLock { $0.journal.events.map(\.seq) } }
    /// The visit history, oldest first.
    var history: [Visit] { state.withLock { $0.journal.history } }
    /// Whether a connection holds the session.
    var attached: Bool { state.withLock { $0.attached != nil } }

    /// Writes the journal now (a new session's file); returns a storage problem.
    @discardableResult
    func saveNow() -> String? { save() }

    /// Writes a new session's file in the background.
    func saveLater() { background.async { [self] in save() } }

    /// Removes the journal's file (the session ends).
    func removeFile() {
        writer.withLock { w in
            // No write after this one: a pending one finds a newer version "on disk".
            w.written = .max
            w.problem = nil
            state.withLock { $0.journal }.remove()
        }
    }

    /// Writes the journal as it is now, unless a newer version is already on disk; returns a
    /// storage problem (logged once per problem).
    @discardableResult
    private func save() -> String? {
        writer.withLock { w -> String? in
            let (journal, version) = state.withLock { ($0.journal, $0.version) }
            guard version > w.written || w.problem != nil else { return nil }
            do {
                try journal.save()
                w.written = version
                w.problem = nil
                return nil
            } catch {
                let problem = "\(error)"
                if w.problem != problem { report("event journal: \(problem)") }
                w.problem = problem
                return problem
            }
        }
    }

    private func send(_ bytes: [UInt8], to attachment: Attachment) {
        let connection = attachment.connection
        attachment.loop.execute { connection.value.deliver(bytes) }
    }

    /// An event line for client `wireID`, with its number when queued.
    static func line(_ event: EngineEvent, seq: UInt64?, wireID: Int, now: UInt64) -> [UInt8] {
        let encoder = ClientSocketCodec.encoder()
        var bytes: [UInt8] = []
        for part in ClientEvent.parts(of: event.clipped) {
            var m = ClientMessage(type: "event")
            m.client = wireID
            m.event = part
            m.seq = seq
            m.now = now
            guard let line = ClientSocketCodec.line(m, encoder: encoder) else { return [] }
            bytes += line
        }
        return bytes
    }
}
