import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
@testable import FieldLocationDaemon
import Foundation
import GPSDProtocol
import Logging
import NMEA
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
        let feed = ReplayFeed(path: path, once: true, logger: logger)
        var configuration = GPSDServerConfiguration()
        configuration.port = 0
        let server = GPSDServer(configuration: configuration, feed: feed, logger: logger)
        let address = try await server.start()
        let port = try #require(address.port)
        // The test plays the log itself, on a thread of its own, one fix at a time, reading each fix's
        // reports before the next: no task of the cooperative pool (shared with every other suite)
        // and no timing are involved. The hub is the same one `fieldlocd --replay` feeds.
        let result = try await Self.offPool { () throws -> ([String], String?) in
            let client = try LineClient(port: port)
            _ = client.readLine(seconds: 5)
            try client.send("?WATCH={\"enable\":true,\"json\":true}\n")
            var seen = try client.readLines(seconds: 10) { reportClass($0) == "WATCH" }
            let stream = LogReplay(path: path).makeStream()
            var timed = 0
            playing: for line in try LogReplay(path: path).lines() {
                var fixes: [Fix] = []
                line.withUnsafeBufferPointer { stream.feed($0.span) { fixes.append($0) } }
                for fix in fixes {
                    server.publish(.fix(fix, ReplayFeed.monotonicNow()))
                    seen += try client.readLines(seconds: 10) { reportClass($0) == "TPV" }
                    if fix.time != nil { timed += 1 }
                    if timed > epochs { break playing }
                }
            }
            let announced = seen.filter { reportClass($0) == "DEVICE" }.compactMap { json($0)?["driver"] as? String }
            try client.send("?DEVICES;\n")
            let answer = try client.readLines(seconds: 5) { reportClass($0) == "DEVICES" }.last
            return (announced, answer.flatMap { json($0)?["devices"] as? [[String: Any]] }?.first?["driver"] as? String)
        }
        await server.stop()
        return (result.0, result.1)
    }

    /// Runs blocking `body` on a new thread and awaits its result.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
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
