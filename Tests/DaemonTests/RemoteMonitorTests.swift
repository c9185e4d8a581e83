#if canImport(Glibc)
import Glibc
#endif
import Beacons
import BoardConfig
import FieldLocation
@testable import FieldLocationDaemon
import FieldLocationClient
import FieldLocationWire
import Foundation
import LocationAPI
import LocationServices
import Logging
import Synchronization
import Testing

/// A `Monitor` (Core Location's `CLMonitor`) over fieldlocd's client socket: conditions added from a
/// client process, their events queued on disk while it is away and replayed on reconnect, once, in
/// order; the monitor's records and queue survive a daemon restart.
@Suite("Monitor over the client socket")
struct RemoteMonitorTests {
    /// The sim board walks in Zurich: a circle around it is satisfied by the first fix, one at
    /// (0, 0) is not.
    static let zurich = MonitorCondition.circle(latitude: 47.3769, longitude: 8.5417, radius: 50_000)
    static let gulf = MonitorCondition.circle(latitude: 0, longitude: 0, radius: 1_000)

    static var daemonName: String { "uid\(getuid())-field" }

    /// The events the daemon holds queued for the monitor (read from its file).
    static func queued(_ directory: String) throws -> [UInt64] {
        try Monitor(named: daemonName, directory: SocketMonitors.directory(directory)).pendingEvents.map(\.seq)
    }

    /// Consumes a monitor's events in the background (each asked-for next event acknowledges the one before).
    final class Consumer: Sendable {
        final class Received: Sendable { let events = Mutex<[MonitorEvent]>([]) }
        let received = Received()
        let task: Task<Void, Never>

        /// Stops after `limit` events: the last one is then not acknowledged (nothing asks for the next).
        init(_ monitor: RemoteMonitor, limit: Int = .max) {
            let received = self.received
            task = Task {
                for await event in monitor.events {
                    if received.events.withLock({ $0.append(event); return $0.count }) >= limit { break }
                }
            }
        }

        var events: [MonitorEvent] { received.events.withLock { $0 } }
        var described: [String] { events.map { "#\($0.seq) \($0.identifier) \($0.state.rawValue)" } }
    }

    @Test("Conditions added remotely give events; one while away comes once on reconnect; a daemon restart keeps the records and the queue")
    func replayOnceAcrossReconnectAndRestart() async throws {
        let directory = NSTemporaryDirectory() + "fieldloc-remote-monitor-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // The first daemon (its engine advanced by the test, so nothing happens between steps).
        let (engine1, server1) = try await BackgroundMonitoringTests.server(directory: directory, path: csSocketPath())
        do {
            let provider = try RemoteLocationProvider(path: server1.configuration.path, timeout: csReplyTimeout)
            let monitor = try RemoteMonitor(named: "field", provider: provider)
            #expect(monitor.pendingAtOpen == 0)
            try monitor.add(Self.zurich, identifier: "home")
            let consumer = Consumer(monitor)
            engine1.advance(by: .seconds(30))
            #expect(await csWait(seconds: 60) { consumer.events.count >= 1 }, "\(consumer.described)")
            #expect(consumer.described == ["#1 home satisfied"])
            // Handled: asking for the next event acknowledged it (the daemon's queue empties).
            #expect(await csWait(seconds: 60) { (try? Self.queued(directory)) == [] })
            // A condition added just before the client goes is decided while it is away.
            try monitor.add(Self.gulf, identifier: "gulf")
            #expect(try monitor.identifiers() == ["home", "gulf"])
            provider.close()
            #expect(await csWait(seconds: 60) { server1.statistics.connected == 0 })
            consumer.task.cancel()
        }
        #expect(server1.monitorNames == [Self.daemonName])
        engine1.advance(by: .seconds(30))
        #expect(try Self.queued(directory) == [2])

        // Reconnect under the same name: the event from while it was away, once; then a new one.
        do {
            let provider = try RemoteLocationProvider(path: server1.configuration.path, timeout: csReplyTimeout)
            let monitor = try RemoteMonitor(named: "field", provider: provider)
            #expect(monitor.pendingAtOpen == 1)
            // This consumer handles two events and goes: the second stays queued.
            let consumer = Consumer(monitor, limit: 2)
            #expect(await csWait(seconds: 60) { consumer.events.count >= 1 }, "\(consumer.described)")
            #expect(consumer.described == ["#2 gulf unsatisfied"])
            try monitor.add(Self.zurich, identifier: "home2", assuming: .unsatisfied)
            engine1.advance(by: .seconds(30))
            #expect(await csWait(seconds: 60) { consumer.events.count >= 2 }, "\(consumer.described)")
            // #2 is not handed again (it was acknowledged when the next event was asked for).
            #expect(consumer.described == ["#2 gulf unsatisfied", "#3 home2 satisfied"])
            #expect(await csWait(seconds: 60) { (try? Self.queued(directory)) == [3] }, "\((try? Self.queued(directory)) ?? [])")
            let record = try monitor.record(for: "home")
            #expect(record?.lastEvent.state == .satisfied && record?.lastEvent.seq == 1)
            #expect(try monitor.record(for: "nothing") == nil)
            provider.close()
            #expect(await csWait(seconds: 60) { server1.statistics.connected == 0 })
            consumer.task.cancel()
        }
        engine1.stop()
        await server1.stop()

        // A second daemon on the same state folder: the monitor, its records and its queue (#3, never
        // acknowledged) are back; decided again, the conditions keep their states (no new event).
        let (engine2, server2) = try await BackgroundMonitoringTests.server(directory: directory, path: csSocketPath())
        #expect(server2.monitorNames == [Self.daemonName])
        engine2.advance(by: .seconds(30))
        #expect(try Self.queued(directory) == [3])
        do {
            let provider = try RemoteLocationProvider(path: server2.configuration.path, timeout: csReplyTimeout)
            let monitor = try RemoteMonitor(named: "field", provider: provider)
            #expect(monitor.pendingAtOpen == 1)
            #expect(try monitor.identifiers() == ["home", "gulf", "home2"])
            #expect(try monitor.record(for: "gulf")?.lastEvent.state == .unsatisfied)
            let consumer = Consumer(monitor, limit: 1)
            #expect(await csWait(seconds: 60) { consumer.events.count >= 1 }, "\(consumer.described)")
            #expect(consumer.described == ["#3 home2 satisfied"])
            #expect(try Self.queued(directory) == [3])
            try monitor.acknowledge(through: 3)
            #expect(try Self.queued(directory) == [])
            // Removing a condition stops it (the engine no longer monitors it) and keeps the others.
            #expect(try monitor.remove("gulf"))
            #expect(try !monitor.remove("gulf"))
            #expect(try monitor.identifiers() == ["home", "home2"])
            provider.close()
            #expect(await csWait(seconds: 60) { server2.statistics.connected == 0 })
            consumer.task.cancel()
        }
        engine2.stop()
        await server2.stop()
    }

    @Test("The wire: monitorOpen replies with the identifiers and counts, ops on a monitor not opened and bad conditions are refused, one connection holds a monitor")
    func wireOps() async throws {
        try await CSFixture.with { f in
            let client = try CSUnixClient(path: f.path)
            _ = try client.message() // hello
            try client.send(#"{"id":1,"op":"monitorAdd","monitor":"m","identifier":"a","condition":{"kind":"circle","latitude":0,"longitude":0,"radius":100}}"# + "\n")
            let notOpen = try client.reply(id: 1, seconds: 60)
            #expect(notOpen["ok"] as? Bool == false && (notOpen["error"] as? [String: Any])?["code"] as? String == "invalidArgument", "\(notOpen)")
            try client.send(#"{"id":2,"op":"monitorOpen","monitor":"m"}"# + "\n")
            let opened = try client.reply(id: 2, seconds: 60)
            #expect(opened["ok"] as? Bool == true && opened["identifiers"] as? [String] == [] && opened["pending"] as? Int == 0, "\(opened)")
            try client.send(#"{"id":3,"op":"monitorAdd","monitor":"m","identifier":"a","condition":{"kind":"circle","latitude":0,"longitude":0,"radius":-5}}"# + "\n")
            let bad = try client.reply(id: 3, seconds: 60)
            #expect(bad["ok"] as? Bool == false && (bad["error"] as? [String: Any])?["code"] as? String == "invalidArgument", "\(bad)")
            try client.send(#"{"id":4,"op":"monitorAdd","monitor":"m","identifier":"a","assuming":"satisfied","condition":{"kind":"circle","latitude":0,"longitude":0,"radius":100}}"# + "\n")
            #expect(try client.reply(id: 4, seconds: 60)["ok"] as? Bool == true)
            try client.send(#"{"id":5,"op":"monitorRecord","monitor":"m","identifier":"a"}"# + "\n")
            let record = try client.reply(id: 5, seconds: 60)["monitorRecord"] as? [String: Any]
            #expect((record?["lastEvent"] as? [String: Any])?["state"] as? String == "satisfied", "\(String(describing: record))")
            // Another connection cannot hold it meanwhile.
            let other = try CSUnixClient(path: f.path)
            _ = try other.message()
            try other.send(#"{"id":1,"op":"monitorOpen","monitor":"m"}"# + "\n")
            let held = try other.reply(id: 1, seconds: 60)
            #expect(held["ok"] as? Bool == false, "\(held)")
            // Once closed, it can.
            try client.send(#"{"id":6,"op":"monitorClose","monitor":"m"}"# + "\n")
            #expect(try client.reply(id: 6, seconds: 60)["ok"] as? Bool == true)
            try other.send(#"{"id":2,"op":"monitorOpen","monitor":"m"}"# + "\n")
            let reopened = try other.reply(id: 2, seconds: 60)
            #expect(reopened["ok"] as? Bool == true && reopened["identifiers"] as? [String] == ["a"], "\(reopened)")
        }
    }

    @Test("A client authorised only when in use gets regionMonitoringDenied for a monitor, through RemoteMonitor too")
    func whenInUseIsRefused() async throws {
        try await CSFixture.with(policy: "default = when-in-use\n") { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            defer { provider.close() }
            do throws(LocationError) {
                _ = try RemoteMonitor(named: "field", provider: provider)
                Issue.record("a when-in-use client opened a monitor")
            } catch {
                guard case .regionMonitoringDenied(let reason) = error else {
                    Issue.record("\(error) is not regionMonitoringDenied")
                    return
                }
                #expect(reason.contains("always"), "\(reason)")
            }
            #expect(f.server.monitorNames.isEmpty)
        }
    }

    @Test("A beacon-identity condition over the socket: the daemon's beacon-region monitoring satisfies it when the sim board's beacon is heard")
    func beaconCondition() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            defer { provider.close() }
            let monitor = try RemoteMonitor(named: "dock-watch", provider: provider)
            let uuid = try #require(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
            // The sim board's walk starts 40 m from beacon 1 (major 1, minor 1).
            try monitor.add(.beacon(BeaconIdentityConstraint(uuid: uuid, major: 1, minor: 1)), identifier: "dock")
            let consumer = Consumer(monitor)
            #expect(await csWait(seconds: 60) { consumer.events.contains { $0.identifier == "dock" && $0.state == .satisfied } },
                    "\(consumer.described)")
            // The record holds a decided state (the walk goes on, so it may have left the beacon since).
            let record = try monitor.record(for: "dock")
            #expect(record.map { $0.lastEvent.seq >= 1 && [.satisfied, .unsatisfied].contains($0.lastEvent.state) } == true, "\(String(describing: record))")
            consumer.task.cancel()
        }
    }

    @Test("A damaged monitor file is refused with its path and what is wrong, and left in place")
    func damagedFileRefused() async throws {
        try await CSFixture.with { f in
            let folder = SocketMonitors.directory(f.directory)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = Monitor.path(directory: folder, name: "uid\(getuid())-broken")
            try Data("{\"version\":1,\"name\":".utf8).write(to: URL(fileURLWithPath: path))
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            defer { provider.close() }
            do throws(LocationError) {
                _ = try RemoteMonitor(named: "broken", provider: provider)
                Issue.record("a damaged monitor file was opened")
            } catch {
                #expect(error.message.contains(path) && error.message.contains("not a monitor file"), "\(error)")
            }
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(f.server.monitorNames.isEmpty)
        }
    }
}
