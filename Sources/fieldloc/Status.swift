import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import FieldLocationTime
import Foundation
import GPSDWatch
import HardwareInterfaces
import LinuxHardware
import LocationAPI
import Synchronization

extension FieldLoc {
    /// `fieldloc status`: a live terminal readout of a board.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a board's live status: fix, time, position, accuracy, satellites, heading, power, warnings.",
            discussion: """
            Runs the board in this process (the default board 'sim' simulates receiver and sensors) and redraws \
            the screen every second: fix and UTC time, position with its accuracy, speed and course, the \
            satellites with signal bars, true and magnetic heading with accuracy and calibration quality, the \
            power policy's receiver mode and the energy used, the receiver, each service (location, heading, \
            time, beacons) with whether its device can be used and why not, and warnings. When the output is \
            not a terminal each frame is printed after the last. --once waits for the first fix (and heading), \
            prints one frame, and exits; with --json that frame is one JSON object for scripts.

            When a daemon (fieldlocd, or any gpsd) answers on 127.0.0.1:2947 and no --board is given, the \
            readout shows what it serves instead of opening the hardware (--daemon HOST:PORT to choose, \
            --daemon off to always run the board in this process).
            """)

        @Option(help: "Board: a built-in name (default sim) or a board file.")
        var board: String?

        @Option(help: "auto (a daemon on 127.0.0.1:2947 when one answers and no --board is given), off, or HOST:PORT.")
        var daemon: String = "auto"

        @Option(help: "Stop after this long (30s, 5m, 1h); default: until interrupted.")
        var duration: String?

        @Option(help: "Simulated boards only: run the simulation this many times faster than the wall clock.")
        var speed: Double = 1

        @Flag(help: "Wait for the first fix, print one status, exit.")
        var once = false

        @Flag(help: "With --once: one JSON object.")
        var json = false

        @Option(name: .customLong("state-dir"), help: "Folder of stored calibrations.")
        var stateDirectory: String?

        @Option(name: .customLong("sim-time-offset"),
                help: "Simulated boards only: run the simulated receiver on the system clock, SECONDS ahead, so the time readout has offsets.")
        var simTimeOffset: Double?

        @Option(name: .customLong("sim-time"),
                help: "Simulated boards only: start the simulated receiver's clock at this UTC instant (YYYY-MM-DDTHH:MM:SSZ) instead of the system's time, for tests.")
        var simTime: String?

        @Option(name: .customLong("ntrip"), help: "RTK corrections from ntrip://USER@HOST[:2101]/MOUNT (overrides the board's [ntrip]; password from --ntrip-password-file or $FIELDLOC_NTRIP_PASSWORD).")
        var ntrip: String?

        @Option(name: .customLong("ntrip-password-file"), help: "A file whose first line is the caster's password.")
        var ntripPasswordFile: String?

        func validate() throws {
            if let duration, Simulate.seconds(duration) == nil { throw ValidationError("--duration '\(duration)' is not like 30s, 5m or 1h") }
            guard speed.isFinite, speed > 0, speed <= 1000 else { throw ValidationError("--speed must be above 0 and at most 1000") }
            if json && !once { throw ValidationError("--json needs --once (the live readout is for people)") }
            _ = try simulatedTime()
            if daemon != "auto" && daemon != "off" && Self.endpoint(daemon) == nil {
                throw ValidationError("--daemon '\(daemon)' is not auto, off or HOST:PORT")
            }
        }

        /// The simulated board's clock the options ask for (``SimulatedSystemTime/choice(simTime:offsetSeconds:speed:)``).
        func simulatedTime() throws(ValidationError) -> SimulatedSystemTime {
            do {
                return try SimulatedSystemTime.choice(simTime: simTime, offsetSeconds: simTimeOffset, speed: speed)
            } catch {
                throw ValidationError(error.description)
            }
        }

        static func endpoint(_ text: String) -> (host: String, port: Int)? {
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port),
                  colon > text.startIndex else { return nil }
            return (String(text[..<colon]), port)
        }

        func run() async throws {
            if daemon != "off" {
                let target = Self.endpoint(daemon) ?? ("127.0.0.1", 2947)
                let explicit = daemon != "auto"
                if explicit || board == nil, await GPSDWatchClient.isReachable(host: target.host, port: target.port) {
                    return try await runAgainstDaemon(host: target.host, port: target.port)
                }
                if explicit { throw ValidationError("no daemon answers on \(daemon)") }
            }
            try await runInProcess()
        }

        /// The readout of what a daemon serves.
        func runAgainstDaemon(host: String, port: Int) async throws {
            let clock = SystemMonotonicClock()
            let start = clock.now()
            final class Shared: Sendable { let reader: Mutex<GPSDStatusReader>; init(_ r: GPSDStatusReader) { reader = Mutex(r) } }
            let shared = Shared(GPSDStatusReader(source: "\(host):\(port)"))
            let watcher = Task { @Sendable in
                try await GPSDWatchClient.watch(host: host, port: port) { line in
                    shared.reader.withLock { $0.read(line: line, at: clock.now()) }
                    return true
                }
            }
            defer { watcher.cancel() }
            func snapshot() -> StatusSnapshot {
                shared.reader.withLock { $0.snapshot(at: clock.now(), uptime: (clock.now() - start).secondsDouble) }
            }
            try await present(snapshot: snapshot, hasPosition: { snapshot().fix?.hasPosition ?? false },
                              waitForHeading: { snapshot().heading != nil })
        }

        /// Prints frames (or one, with --once) from `snapshot`.
        func present(snapshot: () -> StatusSnapshot, hasPosition: () -> Bool, waitForHeading: () -> Bool) async throws {
            let terminal = isatty(STDOUT_FILENO) == 1
            let start = Date()
            if once {
                let limit = 120 / speed + 5
                while !hasPosition() && Date().timeIntervalSince(start) < limit { try await Task.sleep(for: .milliseconds(50)) }
                let headingWait = Date()
                while !waitForHeading() && Date().timeIntervalSince(headingWait) < 3 { try await Task.sleep(for: .milliseconds(50)) }
                let s = snapshot()
                print(json ? StatusView.json(s) : StatusView.text(s), terminator: json ? "\n" : "")
                if !hasPosition() { throw ExitCode(2) }
                return
            }
            let seconds = duration.flatMap(Simulate.seconds).map(Double.init) ?? .infinity
            var frame = 0
            while Date().timeIntervalSince(start) < seconds {
                let text = StatusView.text(snapshot())
                guard Console.out(terminal ? "\u{1B}[H\u{1B}[2J" + text : text + "\n") else { return }  // the reader is gone
                frame += 1
                let next = start.addingTimeInterval(Double(frame))
                let wait = max(0, min(next.timeIntervalSinceNow, seconds - Date().timeIntervalSince(start)))
                try await Task.sleep(for: .milliseconds(Int64(wait * 1000)))
            }
        }

        /// The readout of a board run in this process.
        func runInProcess() async throws {
            let board = self.board ?? BoardCatalog.defaultBoardName
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            let engine: LocationEngine
            do {
                engine = try LocationEngine.open(board: description, stateDirectory: stateDirectory ?? CalibrationStore.defaultDirectory(),
                                                 linux: LinuxPlatform())
            } catch {
                throw ValidationError(error.description)
            }
            var calibrationCreated: String?
            if let mag = description.magnetometer {
                let store = CalibrationStore(directory: stateDirectory ?? CalibrationStore.defaultDirectory())
                if let stored = try? store.load(board: description.name, sensor: mag.chip.rawValue) {
                    engine.calibration = try? stored.calibration(file: store.path(board: description.name, sensor: mag.chip.rawValue))
                    calibrationCreated = stored.created
                }
            }
            do {
                _ = try CorrectionSetup.attach(to: engine, url: ntrip, passwordFile: ntripPasswordFile,
                                               environment: ProcessInfo.processInfo.environment)
            } catch {
                throw ValidationError(error.description)
            }
            let monitor = StatusMonitor(engine: engine)
            monitor.calibrationCreated = calibrationCreated
            let time = StatusTimeReadout(engine: engine, simulated: try simulatedTime())
            engine.runInBackground(speed: speed, started: time.started)
            defer { monitor.close(); time.close(); engine.shutdown() }
            try await present(snapshot: { time.fill(monitor.snapshot()) }, hasPosition: { monitor.hasPosition },
                              waitForHeading: { !engine.headingAvailable || engine.lastHeading?.trueHeading != nil })
        }
    }
}
