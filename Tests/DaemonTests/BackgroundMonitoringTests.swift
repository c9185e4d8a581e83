#if canImport(Glibc)
import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import Glibc
#endif
import Beacons
import BoardConfig
import FieldLocation
@testable import FieldLocationDaemon
import FieldLocationClient
import FieldLocationWire
import Foundation
import HardwareInterfaces
import LocationServices
import Logging
import SimulatedHardware
import Testing

/// Monitoring while disconnected (issue 21, item 4): a persistent client authorised `always` keeps
/// its regions monitored while it is away; its events are queued on disk, survive a daemon restart
/// (and a `kill -9` of the real `fieldlocd`), are delivered in order on reconnect, and leave the
/// queue only when acknowledged.
@Suite("Monitoring while disconnected")
struct BackgroundMonitoringTests {
    /// Three regions around the sim board's walk (Zurich), each with a different dwell time: the
    /// first fix determines all three (in identifier order), then each reports its dwell in turn.
    static let regionRequests = [
        #"{"id":2,"op":"monitor","client":1,"region":{"identifier":"a","latitude":47.3769,"longitude":8.5417,"radius":50000,"notifyOnEntry":true,"notifyOnExit":true,"dwellTime":5}}"#,
        #"{"id":3,"op":"monitor","client":1,"region":{"identifier":"b","latitude":47.3769,"longitude":8.5417,"radius":50000,"notifyOnEntry":true,"notifyOnExit":true,"dwellTime":10}}"#,
        #"{"id":4,"op":"monitor","client":1,"region":{"identifier":"c","latitude":47.3769,"longitude":8.5417,"radius":50000,"notifyOnEntry":true,"notifyOnExit":true,"dwellTime":20}}"#,
    ]
    static let expected = ["determined a", "determined b", "determined c", "dwell a", "dwell b", "dwell c"]

    static var persistentName: String { "uid\(getuid())-field" }

    /// `kind identifier` of a queued region event (from the wire or from the journal file).
    static func describe(_ event: [String: Any]?) -> String {
        let region = event?["region"] as? [String: Any]
        let kind = region?["kind"] as? String ?? "?"
        let identifier = (region?["region"] as? [String: Any])?["identifier"] as? String ?? "?"
        return "\(kind) \(identifier)"
    }

    /// The journal file's events as (seq, description).
    static func journal(_ directory: String) throws -> [(UInt64, String)] {
        let path = EventJournal.path(directory: directory, client: persistentName)
        guard let data = FileManager.default.contents(atPath: path),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let events = object["events"] as? [[String: Any]] else { throw CSFailure("no readable journal at \(path)") }
        return events.map { (UInt64(($0["seq"] as? Int) ?? 0), describe($0["event"] as? [String: Any])) }
    }

    /// Registers client 1 as persistent `field`; returns the reply.
    static func register(_ client: CSUnixClient) throws -> [String: Any] {
        _ = try client.message() // hello
        try client.send(#"{"id":1,"op":"register","client":1,"name":"app","persistent":"field"}"# + "\n")
        let reply = try client.reply(id: 1)
        #expect(reply["ok"] as? Bool == true, "\(reply)")
        return reply
    }

    /// A persistent client that registers, asks for visits and hangs up; returns once the server
    /// has seen it go.
    static func askForVisitsAndLeave(_ server: ClientSocketServer) async throws {
        let client = try CSUnixClient(path: server.configuration.path)
        _ = try register(client)
        var request = ClientRequest(op: "services", client: 1)
        request.id = 2
        var services = ClientServices()
        services.visits = true
        request.services = Checked(services)
        let line = try #require(ClientSocketCodec.line(request, encoder: ClientSocketCodec.encoder()))
        try client.send(String(decoding: line, as: UTF8.self))
        #expect(try client.reply(id: 2, seconds: 60)["ok"] as? Bool == true)
        client.hangUp()
        #expect(await csWait(seconds: 60) { server.statistics.connected == 0 })
    }

    /// The next `count` event lines as (seq, description).
    static func events(_ client: CSUnixClient, count: Int) throws -> [(UInt64, String)] {
        var out: [(UInt64, String)] = []
        while out.count < count {
            let m = try client.message()
            guard m["type"] as? String == "event" else { continue }
            out.append((UInt64((m["seq"] as? Int) ?? 0), describe(m["event"] as? [String: Any])))
        }
        return out
    }

    static func server(directory: String, path: String) async throws -> (LocationEngine, ClientSocketServer) {
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), stateDirectory: directory)
        var configuration = ClientSocketConfiguration()
        configuration.path = path
        var logger = Logger(label: "background-monitoring-tests")
        logger.logLevel = .warning
        let server = ClientSocketServer(engine: engine, configuration: configuration, logger: logger)
        try await server.start()
        return (engine, server)
    }

    @Test("Events while disconnected survive a daemon restart, come in order on reconnect, and leave only when acknowledged")
    func queuedAcrossRestart() async throws {
        let directory = NSTemporaryDirectory() + "fieldloc-background-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // The first daemon: the client registers, adds its regions and goes before any fix.
        let (engine1, server1) = try await Self.server(directory: directory, path: csSocketPath())
        do {
            let client = try CSUnixClient(path: server1.configuration.path)
            let first = try Self.register(client)
            #expect(first["pending"] as? Int == 0 && first["dropped"] as? Int == 0)
            for (offset, line) in Self.regionRequests.enumerated() {
                try client.send(line + "\n")
                #expect(try client.reply(id: offset + 2)["ok"] as? Bool == true)
            }
            // The journal exists before any event, so that a restart finds the client.
            let path = EventJournal.path(directory: directory, client: Self.persistentName)
            #expect(await csWait(seconds: 5) { FileManager.default.fileExists(atPath: path) })
            client.hangUp()
            #expect(await csWait(seconds: 5) { server1.statistics.connected == 0 })
        }
        #expect(server1.persistentClients == [Self.persistentName])
        // Still monitored while disconnected: a minute of fixes gives the six events, on disk.
        engine1.advance(by: .seconds(60))
        let stored = try Self.journal(directory)
        #expect(stored.map(\.1) == Self.expected)
        #expect(stored.map(\.0) == [1, 2, 3, 4, 5, 6])

        // The daemon dies before delivering (nothing more of the first one is used), and a second
        // one starts on the same state folder: the client is monitored again at once.
        let (_, server2) = try await Self.server(directory: directory, path: csSocketPath())
        #expect(server2.persistentClients == [Self.persistentName])

        // Reconnect: all six, in order, after the reply; none acknowledged.
        do {
            let client = try CSUnixClient(path: server2.configuration.path)
            #expect(try Self.register(client)["pending"] as? Int == 6)
            let delivered = try Self.events(client, count: 6)
            #expect(delivered.map(\.0) == stored.map(\.0))
            #expect(delivered.map(\.1) == stored.map(\.1))
            client.hangUp()
            #expect(await csWait(seconds: 5) { server2.statistics.connected == 0 })
        }
        // Not acknowledged, so delivered again; acknowledge the first three.
        do {
            let client = try CSUnixClient(path: server2.configuration.path)
            #expect(try Self.register(client)["pending"] as? Int == 6)
            #expect(try Self.events(client, count: 6).map(\.0) == [1, 2, 3, 4, 5, 6])
            try client.send(#"{"id":9,"op":"ack","client":1,"seq":3}"# + "\n")
            #expect(try client.reply(id: 9)["ok"] as? Bool == true)
            // The acknowledgement is written in the background.
            #expect(await csWait(seconds: 5) { (try? Self.journal(directory).map(\.0)) == [4, 5, 6] })
            client.hangUp()
            #expect(await csWait(seconds: 5) { server2.statistics.connected == 0 })
        }
        do {
            let client = try CSUnixClient(path: server2.configuration.path)
            #expect(try Self.register(client)["pending"] as? Int == 3)
            let rest = try Self.events(client, count: 3)
            #expect(rest.map(\.1) == Array(Self.expected.suffix(3)))
            try client.send(#"{"id":10,"op":"ack","client":1,"seq":6}"# + "\n")
            #expect(try client.reply(id: 10)["ok"] as? Bool == true)
            #expect(await csWait(seconds: 5) { (try? Self.journal(directory).isEmpty) == true })
            // A second connection registering the name while this one holds it is served as before,
            // without the queue.
            let other = try CSUnixClient(path: server2.configuration.path)
            _ = try other.message()
            try other.send(#"{"id":1,"op":"register","client":1,"name":"app","persistent":"field"}"# + "\n")
            let second = try other.reply(id: 1)
            #expect(second["ok"] as? Bool == true && second["pending"] == nil)
        }
        await server2.stop()
        await server1.stop()
        engine1.stop()
    }

    @Test("RemoteLocationProvider hands the queued events to its sink in order and acknowledges each after the sink ran")
    func providerAcknowledges() async throws {
        let directory = NSTemporaryDirectory() + "fieldloc-background-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (engine, server) = try await Self.server(directory: directory, path: csSocketPath())
        do {
            let provider = try RemoteLocationProvider(path: server.configuration.path, timeout: csReplyTimeout)
            let id = provider.register(name: "app", persistentName: "field") { _ in }.id
            for identifier in ["a", "b"] {
                let region = CircularRegion(identifier: identifier, latitude: 47.3769, longitude: 8.5417, radius: 50_000,
                                            notifyOnEntry: true, notifyOnExit: true, dwellTime: identifier == "a" ? 5 : 10)
                #expect(provider.startMonitoring(id, region) == nil)
            }
            provider.close()
            // Generous deadlines: in a full test run on two cores, the server's work waits behind
            // other suites' (seen to take more than 5 s there; under a second alone).
            #expect(await csWait(seconds: 30) { server.statistics.connected == 0 })
        }
        engine.advance(by: .seconds(40))
        let stored = try Self.journal(directory)
        #expect(stored.map(\.1) == ["determined a", "determined b", "dwell a", "dwell b"])
        let received = CSEvents()
        let provider = try RemoteLocationProvider(path: server.configuration.path, timeout: csReplyTimeout)
        _ = provider.register(name: "app", persistentName: "field") { event in
            // The event is still queued while the sink runs: the acknowledgement comes after it.
            received.add(event, queuedNow: (try? Self.journal(directory).count) ?? -1)
        }
        #expect(await csWait(seconds: 30) { received.count == 4 && ((try? Self.journal(directory).isEmpty) ?? false) })
        #expect(received.kinds == stored.map(\.1))
        #expect(received.queuedWhileHandled.allSatisfy { $0 >= 1 })
        provider.close()
        await server.stop()
    }

    @Test("A region's expiry and beacon-region events while disconnected are queued on disk with the others and delivered on reconnect")
    func expiryAndBeaconEventsQueued() async throws {
        let directory = NSTemporaryDirectory() + "fieldloc-background-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (engine, server) = try await Self.server(directory: directory, path: csSocketPath())
        do {
            let provider = try RemoteLocationProvider(path: server.configuration.path, timeout: csReplyTimeout)
            let id = provider.register(name: "app", persistentName: "field") { _ in }.id
            var lapsing = CircularRegion(identifier: "site", latitude: 47.3769, longitude: 8.5417, radius: 50_000)
            lapsing.expiresAfter = 30
            #expect(provider.startMonitoring(id, lapsing) == nil)
            let uuid = try #require(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
            #expect(provider.startMonitoring(id, BeaconRegion(identifier: "dock", constraint: BeaconIdentityConstraint(uuid: uuid, major: 1, minor: 1))) == nil)
            provider.close()
            #expect(await csWait(seconds: 30) { server.statistics.connected == 0 })
        }
        engine.advance(by: .seconds(60))
        // On disk, with their own keys.
        let path = EventJournal.path(directory: directory, client: Self.persistentName)
        let data = try #require(FileManager.default.contents(atPath: path))
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let keys = (file["events"] as? [[String: Any]] ?? []).compactMap { ($0["event"] as? [String: Any])?.keys.sorted().first }
        #expect(keys.contains("regionExpired") && keys.contains("beaconRegion") && keys.contains("region"), "\(keys)")
        // Delivered on reconnect, in order, each once.
        let received = QueuedKinds()
        let provider = try RemoteLocationProvider(path: server.configuration.path, timeout: csReplyTimeout)
        _ = provider.register(name: "app", persistentName: "field") { received.add($0) }
        #expect(await csWait(seconds: 30) { received.all.count == keys.count && ((try? Self.journal(directory).isEmpty) ?? false) },
                "\(received.all) against \(keys)")
        #expect(received.all == keys)
        provider.close()
        await server.stop()
    }

    @Test("Visits go on while disconnected: arrival and departure are queued, delivered on reconnect, and kept in the visit history")
    func visitsWhileDisconnected() async throws {
        let directory = NSTemporaryDirectory() + "fieldloc-background-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let track = Trajectory.legs([.init(duration: 300, speed: 1.4, course: 0), .init(duration: 1200, speed: 0, course: 0),
                                     .init(duration: 300, speed: 1.4, course: 180)], latitude: 47.3769, longitude: 8.5417)
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), stateDirectory: directory,
                                                  clock: ManualClock(), trajectory: track, receiverTracking: false)
        var configuration = ClientSocketConfiguration()
        configuration.path = csSocketPath()
        var logger = Logger(label: "background-monitoring-tests")
        logger.logLevel = .warning
        let server = ClientSocketServer(engine: engine, configuration: configuration, logger: logger)
        try await server.start()
        try await Self.askForVisitsAndLeave(server)
        let engineID = try #require(server.persistentClients.first.flatMap { _ in (1...100).first { engine.services($0) != nil } })
        #expect(engine.services(engineID)?.visits == true && engine.services(engineID)?.updatingLocation == false)
        engine.advance(by: .seconds(1800))
        let client = try CSUnixClient(path: configuration.path)
        #expect(try Self.register(client)["pending"] as? Int == 2)
        var visits: [[String: Any]] = []
        while visits.count < 2 {
            let m = try client.message()
            if m["type"] as? String == "event", let event = m["event"] as? [String: Any], let visit = event["visit"] as? [String: Any] {
                visits.append(visit)
            }
        }
        #expect(visits[0]["departedAt"] == nil && visits[1]["departedAt"] != nil)
        try client.send(#"{"id":3,"op":"visits","client":1}"# + "\n")
        let history = try #require(try client.reply(id: 3)["visits"] as? [[String: Any]])
        #expect(history.count == 1 && history.first?["departedAt"] != nil)
        await server.stop()
    }

    @Test("The queue is bounded: the oldest events are dropped and counted; seq numbers go on; the visit history keeps a stay once")
    func journalBound() throws {
        let directory = NSTemporaryDirectory() + "fieldloc-journal-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = EventJournal.path(directory: directory, client: "uid7-x")
        #expect(path.hasSuffix("/pending-uid7-x.json"))
        var journal = EventJournal(path: path, client: "uid7-x", capacity: 3)
        let region = CircularRegion(identifier: "r", latitude: 1, longitude: 2, radius: 100)
        let location = Location(latitude: 1, longitude: 2, horizontalAccuracy: 5, receivedAt: MonotonicInstant(nanoseconds: 1))
        for _ in 0..<5 { _ = journal.append(.region(RegionEvent(.enter, region: region, location: location))) }
        #expect(journal.append(.paused) == nil)
        let arrival = (time: Double?.none, at: MonotonicInstant(nanoseconds: 5))
        _ = journal.append(.visit(Visit(latitude: 1, longitude: 2, horizontalAccuracy: 10, arrival: arrival, departure: nil)))
        let visit = Visit(latitude: 1, longitude: 2, horizontalAccuracy: 10, arrival: arrival, departure: (nil, MonotonicInstant(nanoseconds: 9)))
        _ = journal.append(.visit(visit))
        #expect(journal.events.map(\.seq) == [5, 6, 7])
        #expect(journal.dropped == 4)
        #expect(journal.history == [visit])
        try journal.save()
        var loaded = try EventJournal.load(path, capacity: 3)
        #expect(loaded.events == journal.events && loaded.dropped == 4 && loaded.history == [visit])
        let removed = loaded.acknowledge(through: 6)
        #expect(removed)
        #expect(loaded.events.map(\.seq) == [7])
        #expect(loaded.append(.region(RegionEvent(.exit, region: region, location: location)))?.seq == 8)
        // A damaged file is refused with its path.
        try Data("{\"version\":1}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: EventJournal.JournalError.self) { try EventJournal.load(path) }
        do { _ = try EventJournal.load(path) } catch { #expect(error.description.hasPrefix(path)) }
    }
}

/// The same through the real `fieldlocd`: SIGKILL between the events and their delivery.
@Suite("Monitoring while disconnected: fieldlocd killed")
struct BackgroundMonitoringKillTests {
    static let daemonBuilt = Programs.fieldlocd != nil

    /// Starts `fieldlocd` on the sim board with `folder` as its state folder and `socket` as its client socket.
    static func start(folder: URL, socket: String) async throws -> Programs.Running {
        let binary = try #require(Programs.fieldlocd)
        let port = try Programs.freePort()
        let process = try Programs.Running(binary, ["--board", "sim", "--speed", "20", "--port", "\(port)", "--state-dir", folder.path,
                                                    "--client-socket", socket], folder: folder)
        let up = await csWait(seconds: 20) { (try? CSUnixClient(path: socket)) != nil }
        if !up { await process.stop(seconds: 3) }
        try #require(up, "fieldlocd did not open \(socket) within 20 s: \(process.stderr.suffix(800))")
        return process
    }

    @Test("kill -9 of fieldlocd after the events are queued and before they are delivered: after the restart every one comes, in order",
          .enabled(if: daemonBuilt, "needs the built fieldlocd (swift build --product fieldlocd, or set FIELDLOCD_BINARY)"))
    func killBetweenEventAndDelivery() async throws {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = csSocketPath()
        let first = try await Self.start(folder: folder, socket: socket)
        do {
            let client = try CSUnixClient(path: socket)
            _ = try BackgroundMonitoringTests.register(client)
            for (offset, line) in BackgroundMonitoringTests.regionRequests.enumerated() {
                try client.send(line + "\n")
                #expect(try client.reply(id: offset + 2)["ok"] as? Bool == true)
            }
            client.hangUp()
        }
        // The daemon goes on monitoring; once at least four events are on disk, SIGKILL.
        let queued = await csWait(seconds: 180) { ((try? BackgroundMonitoringTests.journal(folder.path))?.count ?? 0) >= 4 }
        kill(-first.pid, SIGKILL)
        #expect(await first.wait(seconds: 10))
        try #require(queued, "fewer than four events queued within 180 s: \(first.stderr.suffix(800))")
        let stored = try BackgroundMonitoringTests.journal(folder.path)
        #expect(stored.map(\.1) == Array(BackgroundMonitoringTests.expected.prefix(stored.count)))
        #expect(stored.map(\.0) == (1...UInt64(stored.count)).map { $0 })

        let second = try await Self.start(folder: folder, socket: socket)
        defer { kill(-second.pid, SIGKILL) }
        let client = try CSUnixClient(path: socket)
        let pending = try #require(try BackgroundMonitoringTests.register(client)["pending"] as? Int)
        #expect(pending >= stored.count)
        let delivered = try BackgroundMonitoringTests.events(client, count: pending)
        // 0 lost, order kept: what was on disk at the kill comes first, as it was.
        #expect(delivered.prefix(stored.count).map(\.0) == stored.map(\.0))
        #expect(delivered.prefix(stored.count).map(\.1) == stored.map(\.1))
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0.0 < $1.0 })
        let last = try #require(delivered.last?.0)
        try client.send(#"{"id":20,"op":"ack","client":1,"seq":\#(last)}"# + "\n")
        #expect(try client.reply(id: 20)["ok"] as? Bool == true)
        await second.stop(seconds: 5)
        print("figure: kill -9 with \(stored.count) events queued; \(delivered.count) delivered after the restart, 0 lost, in order")
    }
}

/// Events a sink received, with how many were still queued on disk while each was handled.
final class CSEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var kinds_: [String] = []
    private var queued: [Int] = []
    func add(_ event: EngineEvent, queuedNow: Int) {
        guard case .region(let e) = event else { return }
        let kind: String
        switch e.kind {
        case .determined: kind = "determined"
        case .enter: kind = "enter"
        case .exit: kind = "exit"
        case .dwell: kind = "dwell"
        }
        lock.withLock {
            kinds_.append("\(kind) \(e.region.identifier)")
            queued.append(queuedNow)
        }
    }
    var count: Int { lock.withLock { kinds_.count } }
    var kinds: [String] { lock.withLock { kinds_ } }
    var queuedWhileHandled: [Int] { lock.withLock { queued } }
}

/// The kinds of queued events as a sink receives them (`region`, `regionExpired`, `beaconRegion`, `visit`).
final class QueuedKinds: @unchecked Sendable {
    private let lock = NSLock()
    private var kinds: [String] = []
    func add(_ event: EngineEvent) {
        let kind: String
        switch event {
        case .region: kind = "region"
        case .regionExpired: kind = "regionExpired"
        case .beaconRegion: kind = "beaconRegion"
        case .visit: kind = "visit"
        default: return
        }
        lock.withLock { kinds.append(kind) }
    }
    var all: [String] { lock.withLock { kinds } }
}
