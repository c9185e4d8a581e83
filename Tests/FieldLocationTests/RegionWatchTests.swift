import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import LocationAPI
import LocationServices
import Testing

/// `fieldloc regions watch`: a client's persisted regions monitored on the `sim` board's engine, their
/// events printed as text or JSON lines as they happen.
@Suite("regions watch")
struct RegionWatchTests {
    /// A state folder holding `app`'s regions: `yard` around the walk's start (left after about two
    /// minutes) and `lease`, far away, lapsing 30 s after monitoring starts.
    func stateFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "fieldloc-regions-watch-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var monitor = RegionMonitor()
        #expect(monitor.add(CircularRegion(identifier: "yard", latitude: 47.3769, longitude: 8.5417, radius: 200), wallClock: Date().timeIntervalSince1970) == nil)
        var lease = CircularRegion(identifier: "lease", latitude: 47.5, longitude: 8.7, radius: 300)
        lease.expiresAfter = 30
        #expect(monitor.add(lease, wallClock: Date().timeIntervalSince1970) == nil)
        try RegionStore.save(monitor, to: RegionStore.path(directory: folder, client: "app"))
        return folder
    }

    @Test("text: determined, then expiry at 30 s, then the exit, in the order they happened")
    func text() throws {
        let folder = try stateFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), stateDirectory: folder)
        var lines: [String] = []
        let summary = try RegionWatch(client: "app").run(engine: engine, duration: .seconds(300)) { lines.append($0) }
        #expect(summary.regions == 2 && summary.problems.isEmpty && summary.events == lines.count)
        let events = lines.map { line in line.split(separator: " ").dropFirst(line.hasPrefix("20") ? 1 : 0).prefix(3).joined(separator: " ") }
        #expect(events == ["determined outside lease", "determined inside yard", "expiry lease", "exit yard at"], "\(lines)")
        #expect(lines.first?.hasPrefix("2026-05-01T12:00:") == true, "\(lines)")
        #expect(engine.clientCount == 0, "the watch's client is gone after the run")
    }

    @Test("--json: one object per event with its class, event, state, region, time and position")
    func json() throws {
        let folder = try stateFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), stateDirectory: folder)
        var lines: [String] = []
        _ = try RegionWatch(client: "app", json: true).run(engine: engine, duration: .seconds(300)) { lines.append($0) }
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.allSatisfy { $0["class"] as? String == "REGION" })
        #expect(objects.map { $0["event"] as? String ?? "?" } == ["determined", "determined", "expiry", "exit"])
        #expect(objects.first?["state"] as? String == "outside" && objects.first?["region"] as? String == "lease")
        let exit = try #require(objects.last)
        #expect(exit["time"] is String && exit["lat"] is Double && exit["lon"] is Double && exit["accuracy"] is Double)
        #expect(objects[2]["lat"] == nil, "an expiry has no position")
    }

    @Test("a client without regions watches nothing; a broken regions file is reported with its path")
    func emptyAndBroken() throws {
        let folder = NSTemporaryDirectory() + "fieldloc-regions-watch-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), stateDirectory: folder)
        let none = try RegionWatch(client: "nobody").run(engine: engine, duration: .seconds(10)) { _ in }
        #expect(none.regions == 0 && none.events == 0 && none.problems.isEmpty)
        let path = RegionStore.path(directory: folder, client: "broken")
        try "{ not json".write(toFile: path, atomically: true, encoding: .utf8)
        let broken = try RegionWatch(client: "broken").run(engine: engine, duration: .seconds(10)) { _ in }
        #expect(broken.problems.contains { $0.contains(path) }, "\(broken.problems)")
    }
}
