import FieldLocation
import HardwareInterfaces
import Foundation
import LocationAPI
import LocationServices
import Logging
import Synchronization

/// The client socket's ``PersistentSession``s by persistent name: created when such a client first
/// registers, found again when it registers after a disconnect, restored from the state folder's
/// event journals when the daemon starts (so monitoring goes on across a daemon restart), ended
/// when the client has no region, no visit monitoring and nothing queued.
final class PersistentSessions: Sendable {
    let engine: LocationEngine
    let logger: Logger
    /// The most events queued per client.
    let capacity: Int
    /// Dates the arrival of a visit in progress (UTC seconds), so a restart resumes it.
    let wallClock: @Sendable () -> Double
    private let sessions = Mutex<[String: PersistentSession]>([:])

    init(engine: LocationEngine, logger: Logger, capacity: Int = EventJournal.defaultCapacity,
         wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.engine = engine
        self.logger = logger
        self.capacity = capacity
        self.wallClock = wallClock
    }

    /// The sessions now (for tests and statistics).
    var names: [String] { sessions.withLock { Array($0.keys).sorted() } }

    /// A session by persistent name.
    func session(_ name: String) -> PersistentSession? { sessions.withLock { $0[name] } }

    private func makeSession(name: String, journal: EventJournal) -> PersistentSession {
        let engine = self.engine
        let logger = self.logger
        return PersistentSession(name: name, journal: journal, now: { engine.clock.now().nanoseconds },
                                 wallClock: wallClock, report: { logger.error("\($0)") })
    }

    /// Registers the engine client of `session` with the regions stored under its name.
    private func registerEngineClient(_ session: PersistentSession, displayName: String) -> [String] {
        let registration = engine.register(name: displayName, persistentName: session.name, sink: { session.receive($0) })
        session.engineID = registration.id
        return registration.problems
    }

    /// Restores the sessions whose journals are in the state folder: their regions (and visits)
    /// are monitored again at once, their queued events wait for the client. Returns problems
    /// (a journal that cannot be read is left in place and named).
    @discardableResult
    func restore() -> [String] {
        guard let directory = engine.stateDirectory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var problems: [String] = []
        for file in names.sorted() where file.hasPrefix("pending-") && file.hasSuffix(".json") {
            let path = directory + "/" + file
            var journal: EventJournal
            do { journal = try EventJournal.load(path, capacity: capacity) } catch {
                problems.append(error.description)
                logger.error("cannot restore a background client: \(error)")
                continue
            }
            let name = journal.file.client
            guard session(name) == nil, EventJournal.path(directory: directory, client: name) == path else {
                problems.append("\(path): names client '\(name)', whose journal is another file; skipped")
                continue
            }
            // A visit in progress goes on: its arrival, kept as wall time, is put on this engine's clock.
            let resumed = journal.arrivalDate.flatMap { date -> Visit? in
                let now = engine.clock.now().nanoseconds
                let ago = max(0, wallClock() - date) * 1e9
                return journal.resumeVisit(arrivedAt: MonotonicInstant(nanoseconds: ago >= Double(now) ? 0 : now - UInt64(ago)))
            }
            let session = makeSession(name: name, journal: journal)
            problems += registerEngineClient(session, displayName: "background:\(name)")
            if let id = session.engineID {
                let visits = journal.visits
                engine.update(id) { $0.visits = visits }
                if visits, let resumed {
                    engine.resumeVisit(id, resumed)
                    session.saveLater()
                }
            }
            sessions.withLock { $0[name] = session }
            logger.info("monitoring \(name)'s regions in the background (\(journal.events.count) events queued)")
            endIfIdle(session)
        }
        return problems
    }

    /// The session of persistent client `name` for a connection's client: the existing one, or a
    /// new one with its engine client. `nil` while another client holds it (that client then
    /// registers as before: its regions persist, but it is not monitored in the background), or
    /// without a state folder.
    func open(name: String, displayName: String, attachment: PersistentSession.Attachment)
        -> (session: PersistentSession, problems: [String], dropped: UInt64, pending: Int)? {
        if let existing = session(name) {
            guard let counts = existing.attach(attachment) else { return nil }
            return (existing, [], counts.dropped, counts.pending)
        }
        guard let directory = engine.stateDirectory else { return nil }
        let path = EventJournal.path(directory: directory, client: name)
        var problems: [String] = []
        var journal = EventJournal(path: path, client: name, capacity: capacity)
        if FileManager.default.fileExists(atPath: path) {
            do { journal = try EventJournal.load(path, capacity: capacity) } catch {
                problems.append("\(error) (a new journal replaces it)")
            }
        }
        let session = makeSession(name: name, journal: journal)
        problems += registerEngineClient(session, displayName: displayName)
        session.saveLater()
        sessions.withLock { $0[name] = session }
        let counts = session.attach(attachment) ?? (0, 0)
        return (session, problems, counts.dropped, counts.pending)
    }

    /// The client left (disconnected or unregistered): its connection is detached, its services
    /// are cut to what is monitored in the background (regions, and visits if it ran them), and
    /// the session ends when nothing is left to monitor or deliver.
    func leave(_ session: PersistentSession, connectionID: Int) {
        session.detach(connectionID: connectionID)
        guard !session.attached, let id = session.engineID else { return }
        let visits = engine.services(id)?.visits ?? session.visits
        session.setVisits(visits)
        engine.update(id) { s in
            s = ClientServices()
            s.visits = visits
        }
        endIfIdle(session)
    }

    /// Ends a detached session with no region, no visit monitoring and no queued event.
    private func endIfIdle(_ session: PersistentSession) {
        guard !session.attached, let id = session.engineID else { return }
        guard engine.monitoredRegions(id).isEmpty, !session.visits, session.pendingSeqs.isEmpty else { return }
        engine.unregister(id)
        session.removeFile()
        sessions.withLock { $0[session.name] = nil }
    }
}
