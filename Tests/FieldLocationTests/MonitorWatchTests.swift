import Beacons
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LocationServices
import Testing

/// `fieldloc monitor events` and `fieldloc monitor watch`: a monitor's queued events first, then the
/// events the `sim` board's walk causes, each acknowledged once printed.
@Suite("monitor watch")
struct MonitorWatchTests {
    func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "fieldloc-monitor-watch-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("the event queued before the watch comes first, then the walk's exit; both are acknowledged")
    func replayThenLive() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let monitor = try Monitor(named: "site", directory: folder, wallClock: { 1_780_000_000 })
        try monitor.add(.circle(latitude: 47.3769, longitude: 8.5417, radius: 200), identifier: "yard", assuming: .unsatisfied)
        try monitor.add(.circle(latitude: 47.5, longitude: 8.7, radius: 300), identifier: "far", assuming: .unsatisfied)
        // While nobody watches: a fix at the yard.
        try monitor.process(Location(latitude: 47.3769, longitude: 8.5417, horizontalAccuracy: 5, receivedAt: MonotonicInstant(nanoseconds: 1)))
        #expect(monitor.pendingEvents.map(\.seq) == [1])
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), stateDirectory: folder)
        var lines: [String] = []
        let count = try MonitorWatch(monitor: monitor).run(engine: engine, duration: .seconds(300)) { lines.append($0) }
        #expect(count == lines.count)
        let events = lines.map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
        #expect(events == ["#1 yard satisfied", "#2 yard unsatisfied"], "\(lines)")
        #expect(lines.first?.hasPrefix("2026-05-28T") == true, "\(lines)")
        #expect(monitor.pendingEvents.isEmpty, "printed events are acknowledged")
        #expect(try Monitor(named: "site", directory: folder).pendingEvents.isEmpty)
    }

    @Test("--json: one object per event; events --keep leaves them queued, --limit prints the oldest")
    func jsonAndKeep() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let monitor = try Monitor(named: "site", directory: folder, wallClock: { 1_780_000_000.5 })
        try monitor.add(.circle(latitude: 0, longitude: 0, radius: 100), identifier: "walk")
        try monitor.setBluetoothAvailable(false)
        try monitor.add(.beacon(.init(uuid: BeaconUUIDs.one)), identifier: "dock")
        for (k, lat) in [0.0, 0.02, 0.0].enumerated() {
            try monitor.process(Location(latitude: lat, longitude: 0, horizontalAccuracy: 5, receivedAt: MonotonicInstant(nanoseconds: UInt64(k + 1) * 1_000_000_000)))
        }
        var kept: [String] = []
        _ = try MonitorWatch(monitor: monitor, json: true, acknowledge: false).drain(limit: 2) { kept.append($0) }
        #expect(monitor.pendingEvents.count == 4)
        let objects = try kept.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.count == 2)
        #expect(objects[0]["class"] as? String == "MONITOR" && objects[0]["monitor"] as? String == "site")
        #expect(objects[0]["seq"] as? Int == 1 && objects[0]["identifier"] as? String == "dock" && objects[0]["state"] as? String == "unmonitored")
        #expect(objects[0]["reason"] as? String == "Bluetooth is not available")
        #expect(objects[1]["seq"] as? Int == 2 && objects[1]["state"] as? String == "satisfied" && objects[1]["reason"] == nil)
        #expect(objects[1]["time"] as? String == "2026-05-28T20:26:40.500Z")
        var rest: [String] = []
        let last = try MonitorWatch(monitor: monitor).drain { rest.append($0) }
        #expect(last == 4 && rest.count == 4 && monitor.pendingEvents.isEmpty)
    }
}

enum BeaconUUIDs {
    static let one = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
}
