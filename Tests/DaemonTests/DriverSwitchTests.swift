import FieldLocation
@testable import FieldLocationDaemon
import Foundation
import GPSDProtocol
import Logging
import Testing

/// gpsd names a device by the driver that decoded it: a log replayed from a u-blox or CASIC unit in
/// binary becomes `u-blox` / `CASIC` at its first binary fix, announced with a DEVICE report.
@Suite("gpsd driver switch on binary fixes", .serialized)
struct DriverSwitchTests {
    static func log(_ name: String) -> String? {
        Programs.shared.map { $0.appendingPathComponent("corpus/gpsd/\(name)").path }
    }

    /// Replays `name` into an in-process server and returns the DEVICE reports a JSON watcher saw
    /// and the driver `?DEVICES` gives at the end.
    static func replay(_ name: String, epochs: Int = 10) async throws -> (announced: [String], devices: String?) {
        let path = try #require(log(name))
        var logger = Logger(label: "fieldlocd-tests")
        logger.logLevel = .warning
        // 10 epochs a second, and the wait counts what the client saw: a loaded machine's reader keeps
        // up (a reader more than 256 KiB behind is dropped, as a slow gpsd client is).
        let feed = ReplayFeed(path: path, speed: 10, once: true, logger: logger)
        var configuration = GPSDServerConfiguration()
        configuration.port = 0
        let server = GPSDServer(configuration: configuration, feed: feed, logger: logger)
        let address = try await server.start()
        let port = try #require(address.port)
        let player = Task { try await feed.run() }
        defer { player.cancel() }
        let client = try LineClient(port: port)
        _ = client.readLine(seconds: 5)
        try client.send("?WATCH={\"enable\":true,\"json\":true}\n")
        var announced: [String] = []
        var timed = 0
        let lines = try client.readLines(seconds: 30) { line in
            if reportClass(line) == "TPV", (json(line)?["time"] as? String)?.isEmpty == false { timed += 1 }
            return timed > epochs
        }
        for line in lines where reportClass(line) == "DEVICE" {
            if let driver = json(line)?["driver"] as? String { announced.append(driver) }
        }
        try client.send("?DEVICES;\n")
        let answer = try client.readLines(seconds: 5) { reportClass($0) == "DEVICES" }.last
        let devices = answer.flatMap { json($0)?["devices"] as? [[String: Any]] }?.first?["driver"] as? String
        await server.stop()
        return (announced, devices)
    }

    @Test("a UBX log switches the device to u-blox, once, and ?DEVICES says so",
          .enabled(if: log("ublox-neo-m8l.log") != nil, "needs ../shared/corpus/gpsd"))
    func ublox() async throws {
        let seen = try await Self.replay("ublox-neo-m8l.log")
        #expect(seen.announced.filter { $0 == "u-blox" }.count == 1, "DEVICE reports: \(seen.announced)")
        #expect(seen.devices == "u-blox")
    }

    @Test("a CASIC log switches the device to CASIC",
          .enabled(if: log("quectel-l76k-binary.log") != nil, "needs ../shared/corpus/gpsd"))
    func casic() async throws {
        let seen = try await Self.replay("quectel-l76k-binary.log")
        #expect(seen.announced.contains("CASIC"), "DEVICE reports: \(seen.announced)")
        #expect(seen.devices == "CASIC")
    }

    @Test("an NMEA-only log stays NMEA0183 and announces nothing",
          .enabled(if: log("mt3339.log") != nil, "needs ../shared/corpus/gpsd"))
    func nmeaOnly() async throws {
        let seen = try await Self.replay("mt3339.log", epochs: 5)
        #expect(seen.announced.isEmpty, "DEVICE reports: \(seen.announced)")
        #expect(seen.devices == "NMEA0183")
    }
}
