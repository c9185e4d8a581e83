import BoardConfig
import EnginePlatforms
import FieldLocation
@testable import FieldLocationDaemon
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationAPI
import LocationServices
import Logging
import NMEA
import SimulatedHardware
import Synchronization
import Testing

/// One emulated receiver plugged in behind a pseudo-terminal, reached through a link of its own
/// (as udev's `/dev/serial/by-id` names stay while the tty behind them comes and goes). Unplugging
/// closes the pseudo-terminal (the engine's reads fail as a pulled USB adapter's do) and removes the
/// link; plugging in again is a new pair behind the same link.
final class PluggedReceiver: @unchecked Sendable {
    let link: String
    private let pair: PseudoTerminalPair
    /// Whether the pump runs (shared with its thread).
    final class Flag: Sendable {
        let value = Mutex(true)
    }
    private let running = Flag()
    private let stopped = DispatchSemaphore(value: 0)

    /// An MT3339 emulator with a fix already, at 1 Hz on whole UTC seconds; with `corrections`, an RTCM 3 frame reaches
    /// it every second, so its fixes are differential (GGA quality 2).
    init(link: String, seed: UInt64, corrections: Bool) throws {
        let clock = SystemMonotonicClock()
        self.link = link
        pair = try PseudoTerminalPair(clock: clock)
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pair.devicePath)
        let emulator = ReceiverEmulator(family: .mediatek, profile: .mt3339, trajectory: Trajectory.scenario("walk", seconds: 600)!,
                                        start: clock.now(), tracking: true, seed: seed)
        // On the system's UTC, as real receivers are: both name the same epochs by the same times
        // (a client's filter drops a fix not newer than the last one delivered).
        emulator.setUTC(Int64(Date().timeIntervalSince1970 * 1e9), at: clock.now())
        let (pair, running, stopped) = (pair, running, stopped)
        let frame = Self.rtcmFrame()
        Thread {
            var nextFrame = clock.now()
            while running.value.withLock({ $0 }) {
                let now = clock.now()
                if let bytes = try? pair.controller.readAvailable(deadline: now.advanced(by: .milliseconds(5))), !bytes.isEmpty {
                    emulator.receive(bytes, at: clock.now())
                }
                if corrections, clock.now() >= nextFrame {
                    emulator.receive(frame, at: clock.now())
                    nextFrame = clock.now().advanced(by: .seconds(1))
                }
                let out = emulator.transmit(upTo: clock.now())
                if !out.isEmpty { try? pair.controller.writeAll(out, deadline: clock.deadline(after: .seconds(1))) }
            }
            stopped.signal()
        }.start()
    }

    /// A reference station frame (1005) with a correct CRC-24Q.
    static func rtcmFrame() -> [UInt8] {
        let type: UInt16 = 1005
        let payload: [UInt8] = [UInt8(type >> 4), UInt8((type & 0xF) << 4)] + [UInt8](repeating: 0, count: 17)
        let frame: [UInt8] = [0xD3, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        return frame + CRC24Q.bytes(CRC24Q.compute(frame))
    }

    /// Pulls the receiver out: the pump stops, the pseudo-terminal closes, the link goes.
    func unplug() {
        guard running.value.withLock({ r in defer { r = false }; return r }) else { return }
        _ = stopped.wait(timeout: .now() + 5)
        pair.controller.close()
        try? FileManager.default.removeItem(atPath: link)
    }

    deinit { unplug() }
}

/// Collects the delivered locations with their sources.
final class SourceRecorder: LocationManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var all: [Location] = []
    private var failures: [String] = []
    var locations: [Location] { lock.withLock { all } }
    var errors: [String] { lock.withLock { failures } }
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) { lock.withLock { all += locations } }
    func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) { lock.withLock { failures.append("\(error)") } }

    /// Polls until `condition` holds of the locations, or `seconds` pass.
    func wait(seconds: Double, _ condition: ([Location]) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !condition(locations) {
            if Date() >= end { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}

@Suite("Several receivers as hot-pluggable sources, on pseudo-terminals", .serialized)
struct ReceiverSourcesTests {
    @Test("the differential receiver is chosen and named in fixes, TPV and ?DEVICES; unplugged, the other takes over within an epoch; plugged in again, it is chosen again")
    func failover() async throws {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let linkA = folder.appendingPathComponent("gnss-hat").path, linkB = folder.appendingPathComponent("gnss-dongle").path
        let a = try PluggedReceiver(link: linkA, seed: 1, corrections: false)
        defer { a.unplug() }
        let b = try PluggedReceiver(link: linkB, seed: 2, corrections: true)
        defer { b.unplug() }

        var board = BoardDescription(name: "two-receivers", title: "Two receivers", simulated: false,
                                     receiver: ReceiverDescription(uart: linkA, baudRate: .b9600, family: .genericNMEA, model: nil, wake: []),
                                     i2cBus: nil, sensors: [], gpio: nil, setupNotes: [], simulation: nil)
        board.otherReceivers = [ReceiverDescription(uart: linkB, baudRate: .b9600, family: .genericNMEA, model: nil, wake: [])]
        let engine = LocationEngine(board: board, platform: HardwareEnginePlatform(LinuxPlatform()))
        var logger = Logger(label: "fieldlocd-tests")
        logger.logLevel = .warning
        let feed = EngineFeed(engine: engine, logger: logger)
        var configuration = GPSDServerConfiguration()
        configuration.port = 0
        let server = GPSDServer(configuration: configuration, feed: feed, logger: logger)
        let port = try #require(try await server.start().port)
        engine.runInBackground()
        let manager = LocationManager(engine: engine)
        let recorder = SourceRecorder()
        manager.delegate = recorder
        manager.startUpdatingLocation()

        let outcome = try await DriverSwitchTests.offPool { () throws -> [String] in
            var problems: [String] = []
            func check(_ ok: Bool, _ what: String) { if !ok { problems.append(what) } }
            // Both report; B (differential) is chosen and every location after its first is B's.
            check(recorder.wait(seconds: 40) { $0.filter { $0.source == linkB }.count >= 3 }, "three locations from B: \(recorder.locations.map(\.source))")
            let first = recorder.locations
            check(first.allSatisfy { $0.source == linkA || $0.source == linkB }, "every location names its receiver: \(first.map(\.source))")
            if let firstB = first.firstIndex(where: { $0.source == linkB }) {
                check(first[firstB...].allSatisfy { $0.source == linkB && $0.fixType == .dgps }, "only B after B: \(first[firstB...].map { "\($0.source ?? "-") \($0.fixType) \($0.horizontalAccuracy) \($0.timestamp ?? 0) \($0.receivedAt.nanoseconds / 1_000_000)" })")
            }
            let status = engine.receiverSources
            check(status.map(\.device) == [linkA, linkB] && status.map(\.chosen) == [false, true] && status.allSatisfy(\.open),
                  "receiverSources: \(status)")

            // gpsd: TPV names B; ?DEVICES lists both, active.
            let client = try LineClient(port: port)
            _ = client.readLine(seconds: 5)
            try client.send("?WATCH={\"enable\":true,\"json\":true}\n")
            let tpv = try client.readLines(seconds: 10) { reportClass($0) == "TPV" && json($0)?["mode"] as? Int ?? 0 >= 2 }.last
            check(tpv.flatMap { json($0)?["device"] as? String } == linkB, "TPV device: \(tpv ?? "none")")
            try client.send("?DEVICES;\n")
            let devicesLine = try client.readLines(seconds: 5) { reportClass($0) == "DEVICES" }.last
            let devices = devicesLine.flatMap { json($0)?["devices"] as? [[String: Any]] } ?? []
            check(devices.compactMap { $0["path"] as? String } == [linkA, linkB], "DEVICES paths: \(devices)")
            // `fieldloc status` against the daemon: both receivers, B delivering its DGPS fixes.
            var reader = GPSDStatusReader(source: "127.0.0.1:\(port)")
            for line in [devicesLine, tpv].compactMap({ $0 }) { reader.read(line: Array(line.utf8), at: engine.clock.now()) }
            let remote = reader.snapshot(at: engine.clock.now(), uptime: 1).receivers
            check(remote.map(\.device) == [linkA, linkB] && remote.map(\.chosen) == [false, true] && remote.last?.lastFixType == .dgps,
                  "status through the daemon: \(remote)")
            check(devices.allSatisfy { $0["activated"] != nil && $0["driver"] as? String == "NMEA0183" }, "both active: \(devices)")

            // B unplugged mid-epoch (half a second after one of its fixes): A's next fix, at the next
            // whole second, is delivered within its epoch (1 s) of the unplug, with slack for a loaded
            // machine. Were B not dropped at once it would stay chosen until 1.5 epochs after its
            // last fix, and A's first location would come 1.5 s after the unplug.
            let lastB = recorder.locations.count
            _ = recorder.wait(seconds: 5) { $0.count > lastB }
            Thread.sleep(forTimeInterval: 0.5)
            let before = recorder.locations.count
            let unpluggedAt = engine.clock.now()
            b.unplug()
            check(recorder.wait(seconds: 10) { $0.dropFirst(before).contains { $0.source == linkA } }, "a location from A after the unplug")
            let after = recorder.locations.dropFirst(before)
            if let firstA = after.first(where: { $0.source == linkA }) {
                let delay = (firstA.receivedAt - unpluggedAt).secondsDouble
                check(delay <= 1.3, "A's first location \(delay) s after the unplug")
                print("failover: A's first location \(Int(delay * 1000)) ms after B was unplugged")
            }
            check(!after.contains { $0.source == linkB && $0.receivedAt > unpluggedAt.advanced(by: .milliseconds(100)) }, "nothing from B once unplugged")
            try client.send("?DEVICES;\n")
            let absent = try client.readLines(seconds: 5) { reportClass($0) == "DEVICES" }.last.flatMap { json($0)?["devices"] as? [[String: Any]] } ?? []
            check(absent.count == 2 && absent.last?["path"] as? String == linkB && absent.last?["activated"] == nil, "B listed without activation: \(absent)")
            check(engine.receiverSources.map(\.open) == [true, false], "B closed: \(engine.receiverSources)")

            // B plugged in again (a new tty behind the same name): opened without a restart and chosen again.
            let replugged = recorder.locations.count
            let again = try PluggedReceiver(link: linkB, seed: 3, corrections: true)
            defer { again.unplug() }
            check(recorder.wait(seconds: 30) { $0.dropFirst(replugged).filter { $0.source == linkB }.count >= 2 }, "locations from B again: \(engine.receiverSources), \(recorder.errors.suffix(5)), \(recorder.locations.dropFirst(replugged).map { $0.source ?? "-" })")
            check(engine.receiverSources.map(\.chosen) == [false, true], "B chosen again: \(engine.receiverSources)")
            return problems
        }
        manager.stopUpdatingLocation()
        engine.stop()
        await server.stop()
        engine.shutdown()
        #expect(outcome.isEmpty, "\(outcome)")
    }
}
