#if canImport(Glibc)
import Glibc
#endif
import FieldLocation
@testable import FieldLocationDaemon
import FieldLocationClient
import Foundation
import LocationAPI
import LocationServices
import Synchronization
import Testing

/// A monitor over the client socket held by a real `fieldlocd` that is killed with SIGKILL while
/// the client is away: the monitor's file on the daemon's side keeps every event queued at the kill,
/// and the next daemon hands them to the reopened monitor first, with the same numbers and states.
@Suite("Monitor over the client socket across kill -9 of fieldlocd", .serialized)
struct RemoteMonitorKillTests {
    /// Circles around where the unit is when they are added (radius in metres): the sim board's walk
    /// at `--speed 20` (28 m/s) leaves each in turn, so events keep coming while the client is away
    /// however long the daemon took to start.
    static func conditions(around here: Location) -> [(String, MonitorCondition)] {
        [("home", RemoteMonitorTests.zurich), ("gulf", RemoteMonitorTests.gulf)]
            + [60.0, 120, 240, 480, 960, 1920].map {
                ("r\(Int($0))", .circle(latitude: here.latitude, longitude: here.longitude, radius: $0))
            }
    }

    /// The unit's position now, from a client of the daemon that asks for one fix.
    static func position(socket: String) async throws -> Location {
        let provider = try RemoteLocationProvider(path: socket, timeout: csReplyTimeout)
        defer { provider.close() }
        let seen = Mutex<Location?>(nil)
        let id = provider.register(name: "where", persistentName: nil) { event in
            if case .locations(let l) = event, let last = l.last { seen.withLock { $0 = last } }
        }.id
        provider.update(id) { $0.updatingLocation = true }
        let got = await csWait(seconds: 120) { seen.withLock { $0 } != nil }
        try #require(got, "no fix from fieldlocd within 120 s")
        return try #require(seen.withLock { $0 })
    }

    /// The events queued in the daemon's file for the monitor, as the monitor's own reader sees them.
    static func queued(_ folder: URL) throws -> [MonitorEvent] {
        try Monitor(named: RemoteMonitorTests.daemonName, directory: SocketMonitors.directory(folder.path)).pendingEvents
    }

    @Test("kill -9 of fieldlocd holding a socket monitor with events queued: after the restart every one comes first, as it was, and none is lost",
          .enabled(if: BackgroundMonitoringKillTests.daemonBuilt, "needs the built fieldlocd (swift build --product fieldlocd, or set FIELDLOCD_BINARY)"))
    func killWithQueuedMonitorEvents() async throws {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = csSocketPath()
        let first = try await BackgroundMonitoringKillTests.start(folder: folder, socket: socket)
        let conditions = Self.conditions(around: try await Self.position(socket: socket))
        do {
            // The client adds its conditions and goes without handling any event.
            let provider = try RemoteLocationProvider(path: socket, timeout: csReplyTimeout)
            let monitor = try RemoteMonitor(named: "field", provider: provider)
            for (identifier, condition) in conditions { try monitor.add(condition, identifier: identifier) }
            #expect(try monitor.identifiers() == conditions.map(\.0))
            provider.close()
        }
        // The daemon goes on deciding the conditions; once the walk has left a circle (a condition's
        // second event) and at least six events are queued, SIGKILL.
        let enough = await csWait(seconds: 180) {
            let events = (try? Self.queued(folder)) ?? []
            return events.count >= 6 && Set(events.map(\.identifier)).count < events.count
        }
        kill(-first.pid, SIGKILL)
        #expect(await first.wait(seconds: 10))
        let files = (try? FileManager.default.contentsOfDirectory(atPath: SocketMonitors.directory(folder.path))) ?? []
        try #require(enough, """
            no six events with a circle left queued within 180 s: queued \(Result { try Self.queued(folder) }), \
            monitor files \(files), fieldlocd: \(first.stderr.suffix(1500))
            """)
        let stored = try Self.queued(folder)
        #expect(stored.map(\.seq) == (1...UInt64(stored.count)).map { $0 }, "\(stored)")
        #expect(Set(stored.map(\.identifier)).isSubset(of: Set(conditions.map(\.0))))

        // A new daemon on the same state folder: the reopened monitor gets what was on disk first.
        let second = try await BackgroundMonitoringKillTests.start(folder: folder, socket: socket)
        defer { kill(-second.pid, SIGKILL) }
        let provider = try RemoteLocationProvider(path: socket, timeout: csReplyTimeout)
        let monitor = try RemoteMonitor(named: "field", provider: provider)
        #expect(monitor.pendingAtOpen >= stored.count)
        #expect(try monitor.identifiers() == conditions.map(\.0), "the conditions survive the kill")
        let consumer = RemoteMonitorTests.Consumer(monitor, limit: stored.count)
        #expect(await csWait(seconds: 60) { consumer.events.count >= stored.count }, "\(consumer.described)")
        let delivered = consumer.events
        // 0 lost, order kept: the same seqs, conditions, states and dates as on disk at the kill.
        #expect(delivered == stored, "delivered \(consumer.described), stored \(stored)")
        try monitor.acknowledge(through: stored.last?.seq ?? 0)
        #expect(await csWait(seconds: 60) { ((try? Self.queued(folder)) ?? []).allSatisfy { $0.seq > stored.last?.seq ?? 0 } })
        provider.close()
        consumer.task.cancel()
        await second.stop(seconds: 5)
        print("figure: socket monitor, kill -9 of fieldlocd with \(stored.count) events queued (\(consumer.described.joined(separator: ", "))); \(delivered.count) delivered after the restart, 0 lost, in order")
    }
}
