#if canImport(Glibc)
import Glibc
#endif
import BoardConfig
import EnginePlatforms
import FieldLocation
@testable import FieldLocationDaemon
import FieldLocationWire
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import Logging
import SimulatedHardware
import Synchronization
import Testing

/// A background client's visit in progress survives a daemon restart: its arrival is kept as wall
/// time and put on the new daemon's monotonic clock, so the departure after the restart closes the
/// same visit (one history entry, the arrival's date kept) instead of a second arrival.
@Suite("Visits across a daemon restart")
struct VisitResumeTests {
    /// A wall clock that follows the running engine's clock from an offset (injected: no real time).
    final class Wall: Sendable {
        private let state = Mutex<(clock: ManualClock, base: Double)>((ManualClock(), 0))
        func follow(_ clock: ManualClock, wallAtClockZero: Double) { state.withLock { $0 = (clock, wallAtClockZero) } }
        func now() -> Double { state.withLock { $0.base + Double($0.clock.now().nanoseconds) / 1e9 } }
    }

    static func server(directory: String, clock: ManualClock, track: Trajectory, wall: Wall) async throws -> (LocationEngine, ClientSocketServer) {
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), stateDirectory: directory,
                                                  clock: clock, trajectory: track, receiverTracking: false)
        var configuration = ClientSocketConfiguration()
        configuration.path = csSocketPath()
        configuration.wallClock = { wall.now() }
        var logger = Logger(label: "visit-resume-tests")
        logger.logLevel = .warning
        let server = ClientSocketServer(engine: engine, configuration: configuration, logger: logger)
        try await server.start()
        return (engine, server)
    }

    static func journal(_ directory: String) throws -> [String: Any] {
        let path = EventJournal.path(directory: directory, client: BackgroundMonitoringTests.persistentName)
        guard let data = FileManager.default.contents(atPath: path),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw CSFailure("no journal at \(path)") }
        return object
    }

    @Test("A restart during a visit keeps its arrival: the departure after it closes the same visit")
    func visitInProgressSurvivesRestart() async throws {
        let directory = NSTemporaryDirectory() + "fieldloc-visit-resume-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wall = Wall()
        let epoch = 1_800_000_000.0
        let place = (latitude: 47.3769, longitude: 8.5417)

        // The first daemon: the unit stays 20 minutes; the client asks for visits and goes.
        let clock1 = ManualClock()
        wall.follow(clock1, wallAtClockZero: epoch)
        let stay = Trajectory.legs([.init(duration: 1200, speed: 0, course: 0), .init(duration: 300, speed: 1.4, course: 180)],
                                   latitude: place.latitude, longitude: place.longitude)
        let (engine1, server1) = try await Self.server(directory: directory, clock: clock1, track: stay, wall: wall)
        try await BackgroundMonitoringTests.askForVisitsAndLeave(server1)
        // Ten minutes in: the arrival is queued, its date kept as wall time.
        engine1.advance(by: .seconds(600))
        let before = try Self.journal(directory)
        let history1 = try #require(before["history"] as? [[String: Any]])
        #expect(history1.count == 1 && history1.first?["departedAt"] == nil, "\(history1)")
        let arrivedAt1 = try #require((history1.first?["arrivedAt"] as? NSNumber)?.doubleValue)
        let arrivalDate = try #require((before["arrivalDate"] as? NSNumber)?.doubleValue)
        // Wall time = epoch + the first clock's seconds: the arrival's wall time is its instant's.
        #expect(abs(arrivalDate - (epoch + arrivedAt1 / 1e9)) < 1e-3, "arrivalDate \(arrivalDate), arrivedAt \(arrivedAt1)")
        let arrivalTime = (history1.first?["arrivalTime"] as? NSNumber)?.doubleValue
        engine1.stop()
        await server1.stop()

        // The daemon restarts a minute later on a monotonic clock that reads 5000 s; the unit is still
        // there for ten minutes, then walks away.
        let clock2 = ManualClock(start: MonotonicInstant(nanoseconds: 5_000_000_000_000))
        wall.follow(clock2, wallAtClockZero: epoch + 600 + 60 - 5000)
        let rest = Trajectory.legs([.init(duration: 600, speed: 0, course: 0), .init(duration: 300, speed: 1.4, course: 180)],
                                   latitude: place.latitude, longitude: place.longitude)
        let (engine2, server2) = try await Self.server(directory: directory, clock: clock2, track: rest, wall: wall)
        #expect(server2.persistentClients == [BackgroundMonitoringTests.persistentName])
        engine2.advance(by: .seconds(1200))

        // On reconnect: the arrival and its departure, no second arrival.
        let client = try CSUnixClient(path: server2.configuration.path)
        let reply = try BackgroundMonitoringTests.register(client)
        #expect(reply["pending"] as? Int == 2, "\(reply)")
        var visits: [[String: Any]] = []
        while visits.count < 2 {
            let m = try client.message(seconds: 60)
            if m["type"] as? String == "event", let event = m["event"] as? [String: Any], let visit = event["visit"] as? [String: Any] {
                visits.append(visit)
            }
        }
        #expect(visits[0]["departedAt"] == nil && visits[1]["departedAt"] != nil, "\(visits)")
        // The departure's arrival is the same moment, on the new clock: 5000 s - (660 s - arrival).
        let resumed = try #require((visits[1]["arrivedAt"] as? NSNumber)?.doubleValue)
        #expect(abs(resumed - (5_000e9 - (660e9 - arrivedAt1))) < 1e6, "resumed arrivedAt \(resumed), first \(arrivedAt1)")
        #expect((visits[1]["arrivalTime"] as? NSNumber)?.doubleValue == arrivalTime)
        try client.send(#"{"id":3,"op":"visits","client":1}"# + "\n")
        let history = try #require(try client.reply(id: 3, seconds: 60)["visits"] as? [[String: Any]])
        #expect(history.count == 1 && history.first?["departedAt"] != nil, "\(history)")
        #expect(try Self.journal(directory)["arrivalDate"] == nil)
        engine2.stop()
        await server2.stop()
    }
}
