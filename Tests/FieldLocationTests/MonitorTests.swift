import Beacons
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import Synchronization
import Testing

/// ``Monitor``: named, persisted conditions (circle, polygon, beacon identity) with assumed initial
/// states, unmonitored conditions, and an events sequence that replays what was not acknowledged.
@Suite("Monitor (CLMonitor)")
struct MonitorTests {
    static let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let centre = (latitude: 47.3769, longitude: 8.5417)

    /// A fresh state folder and a wall clock the test moves.
    final class Fixture: Sendable {
        let folder = NSTemporaryDirectory() + "fieldloc-monitor-" + UUID().uuidString
        let clock = Mutex(1_780_000_000.0)
        var wallClock: @Sendable () -> Double { { [self] in self.clock.withLock { $0 } } }
        func open(_ name: String = "site", maximumPending: Int = 512) throws -> Monitor {
            try Monitor(named: name, directory: folder, maximumPending: maximumPending, wallClock: wallClock)
        }
        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// A 5 m fix `north` metres north of the centre at second `t`.
    static func fix(north: Double, t: Double, accuracy: Double = 5) -> Location {
        Location(latitude: centre.latitude + north / 111_195, longitude: centre.longitude, horizontalAccuracy: accuracy,
                 receivedAt: MonotonicInstant(nanoseconds: UInt64(t * 1e9)), timestamp: 1_780_000_000 + t)
    }

    static var square: RegionPolygon {
        let d = 0.002
        return RegionPolygon(vertices: [GeoPoint(latitude: centre.latitude - d, longitude: centre.longitude - d),
                                        GeoPoint(latitude: centre.latitude - d, longitude: centre.longitude + d),
                                        GeoPoint(latitude: centre.latitude + d, longitude: centre.longitude + d),
                                        GeoPoint(latitude: centre.latitude + d, longitude: centre.longitude - d)])
    }

    @Test("assuming: an event only when the determined state differs from the assumed one; records follow")
    func assumedStates() throws {
        let f = Fixture()
        let monitor = try f.open()
        try monitor.add(.circle(latitude: Self.centre.latitude, longitude: Self.centre.longitude, radius: 200), identifier: "yard", assuming: .unsatisfied)
        try monitor.add(.polygon(Self.square), identifier: "block", assuming: .satisfied)
        try monitor.add(.circle(latitude: Self.centre.latitude, longitude: Self.centre.longitude, radius: 50), identifier: "gate")
        #expect(monitor.record(for: "yard")?.lastEvent.state == .unsatisfied && monitor.record(for: "yard")?.lastEvent.seq == 0)
        try monitor.process(Self.fix(north: 0, t: 1))
        // yard: inside, assumed unsatisfied -> event; block: inside, assumed satisfied -> none; gate: unknown -> satisfied.
        // (one fix's events come in identifier order)
        #expect(monitor.pendingEvents.map { "\($0.identifier) \($0.state.rawValue)" } == ["gate satisfied", "yard satisfied"])
        try monitor.process(Self.fix(north: 1_000, t: 2))
        #expect(monitor.pendingEvents.map { "\($0.identifier) \($0.state.rawValue)" }
            == ["gate satisfied", "yard satisfied", "block unsatisfied", "gate unsatisfied", "yard unsatisfied"])
        #expect(monitor.pendingEvents.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(monitor.record(for: "block")?.lastEvent.state == .unsatisfied)
        #expect(monitor.record(for: "nothing") == nil)
        // A fix too coarse to tell changes nothing (the region monitor's hysteresis).
        try monitor.process(Self.fix(north: 0, t: 3, accuracy: 400))
        #expect(monitor.pendingEvents.count == 5)
    }

    @Test("persisted: a reopened monitor has the conditions, records and unacknowledged events; seq goes on")
    func survivesReopen() async throws {
        let f = Fixture()
        do {
            let monitor = try f.open()
            try monitor.add(.circle(latitude: Self.centre.latitude, longitude: Self.centre.longitude, radius: 200), identifier: "yard")
            try monitor.process(Self.fix(north: 0, t: 1))
            try monitor.process(Self.fix(north: 1_000, t: 2))
            try monitor.process(Self.fix(north: 0, t: 3))
        }
        let path = Monitor.path(directory: f.folder, name: "site")
        #expect(FileManager.default.fileExists(atPath: path))
        let reopened = try f.open()
        #expect(reopened.identifiers == ["yard"])
        #expect(reopened.record(for: "yard")?.lastEvent.state == .satisfied && reopened.record(for: "yard")?.lastEvent.seq == 3)
        // The consumer takes two events: asking for the second acknowledges the first.
        var iterator = reopened.events.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.seq == 1 && first?.state == .satisfied && second?.seq == 2 && second?.state == .unsatisfied)
        #expect(reopened.pendingEvents.map(\.seq) == [2, 3], "the second is not acknowledged until the next is asked for")
        // After a restart the same state is no new event; a crossing continues the numbering.
        let third = try f.open()
        #expect(third.pendingEvents.map(\.seq) == [2, 3])
        try third.process(Self.fix(north: 0, t: 10))
        #expect(third.pendingEvents.map(\.seq) == [2, 3])
        try third.process(Self.fix(north: 1_000, t: 11))
        #expect(third.pendingEvents.map(\.seq) == [2, 3, 4])
        try third.acknowledge(through: 3)
        #expect(try f.open().pendingEvents.map(\.seq) == [4])
    }

    @Test("events: the replay first, then live events in order, each once")
    func replayThenLive() async throws {
        let f = Fixture()
        let monitor = try f.open()
        try monitor.add(.circle(latitude: Self.centre.latitude, longitude: Self.centre.longitude, radius: 200), identifier: "yard")
        try monitor.process(Self.fix(north: 0, t: 1))
        let consumer = Task { () -> [UInt64] in
            var seen: [UInt64] = []
            for await event in monitor.events {
                seen.append(event.seq)
                if seen.count == 4 { break }
            }
            return seen
        }
        // Live events while the consumer runs (it got the replayed one first).
        for (k, north) in [1_000.0, 0, 1_000].enumerated() { try monitor.process(Self.fix(north: north, t: Double(2 + k))) }
        #expect(await consumer.value == [1, 2, 3, 4])
        #expect(monitor.pendingEvents.map(\.seq) == [4], "the last one is acknowledged by the next consumer's request")
        var again = monitor.events.makeAsyncIterator()
        #expect(await again.next()?.seq == 4)
    }

    @Test("beacon identity: satisfied with evidence, unmonitored without Bluetooth (with the reason), decided again after")
    func beaconCondition() throws {
        let f = Fixture()
        let monitor = try f.open()
        try monitor.add(.beacon(BeaconIdentityConstraint(uuid: Self.uuid, major: 7)), identifier: "dock", assuming: .unsatisfied)
        let heard = BeaconPresence(lastHeard: 100, recentSeconds: 5)
        try monitor.processBeacons(at: 100) { $0.major == 7 ? heard : BeaconPresence(lastHeard: nil, recentSeconds: 0) }
        #expect(monitor.pendingEvents.map(\.state) == [.satisfied])
        try monitor.setBluetoothAvailable(false)
        let off = try #require(monitor.pendingEvents.last)
        #expect(off.state == .unmonitored && off.reason == "Bluetooth is not available")
        try monitor.processBeacons(at: 101) { _ in heard }
        #expect(monitor.pendingEvents.count == 2, "no beacon events while Bluetooth is off")
        try monitor.setBluetoothAvailable(true)
        try monitor.processBeacons(at: 200) { _ in BeaconPresence(lastHeard: nil, recentSeconds: 0) }
        try monitor.processBeacons(at: 211) { _ in BeaconPresence(lastHeard: nil, recentSeconds: 0) }
        #expect(monitor.pendingEvents.map(\.state) == [.satisfied, .unmonitored, .unsatisfied])
        #expect(throws: Monitor.MonitorError.self) {
            try monitor.add(.beacon(BeaconIdentityConstraint(uuid: Self.uuid)), identifier: "")
        }
    }

    @Test("too many conditions and no authorisation: unmonitored with the reason; a removal makes room")
    func unmonitored() throws {
        let f = Fixture()
        let monitor = try f.open()
        for i in 0...Monitor.maximumConditions {
            try monitor.add(.circle(latitude: Self.centre.latitude, longitude: Self.centre.longitude, radius: 200 + Double(i)),
                            identifier: String(format: "c%02d", i))
        }
        let last = String(format: "c%02d", Monitor.maximumConditions)
        #expect(monitor.pendingEvents.map(\.identifier) == [last])
        #expect(monitor.pendingEvents.first?.reason == "more than \(Monitor.maximumConditions) conditions")
        try monitor.process(Self.fix(north: 0, t: 1))
        #expect(monitor.pendingEvents.count == 1 + Monitor.maximumConditions, "the unmonitored one has no event")
        try monitor.remove("c00")
        try monitor.process(Self.fix(north: 0, t: 2))
        #expect(monitor.record(for: last)?.lastEvent.state == .satisfied)
        try monitor.setAuthorized(false)
        #expect(monitor.identifiers.allSatisfy { monitor.record(for: $0)?.lastEvent.state == .unmonitored })
        #expect(monitor.pendingEvents.last?.reason == "location is not authorised")
        let before = monitor.pendingEvents.count
        try monitor.process(Self.fix(north: 1_000, t: 3))
        #expect(monitor.pendingEvents.count == before)
    }

    @Test("bounded: the oldest unacknowledged events are dropped and counted; a damaged file is refused with its path")
    func boundAndDamage() throws {
        let f = Fixture()
        let monitor = try f.open(maximumPending: 3)
        try monitor.add(.circle(latitude: Self.centre.latitude, longitude: Self.centre.longitude, radius: 200), identifier: "yard")
        for k in 0..<6 { try monitor.process(Self.fix(north: k % 2 == 0 ? 0 : 1_000, t: Double(k))) }
        #expect(monitor.pendingEvents.map(\.seq) == [4, 5, 6] && monitor.dropped == 3)
        let path = Monitor.path(directory: f.folder, name: "site")
        try Data("{\"version\":1,\"name\":\"site\",\"nextSeq\":2,\"dropped\":0,\"conditions\":[],\"pending\":[{\"seq\":5,\"identifier\":\"a\",\"state\":\"satisfied\",\"date\":0}]}".utf8)
            .write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: Monitor.MonitorError.self) { try f.open() }
        #expect(error?.description.contains(path) == true && error?.description.contains("pending[0]") == true, "\(String(describing: error))")
    }
}
