import ArgumentParser
import BoardConfig
import FieldLocation
import Foundation
import HardwareInterfaces
import LinuxHardware

extension FieldLoc {
    /// `fieldloc status`: a live terminal readout of a board.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a board's live status: fix, time, position, accuracy, satellites, heading, power, warnings.",
            discussion: """
            Runs the board in this process (the default board 'sim' simulates receiver and sensors) and redraws
            the screen every second: fix and UTC time, position with its accuracy, speed and course, the
            satellites with signal bars, true and magnetic heading with accuracy and calibration quality, the
            power policy's receiver mode and the energy used, the receiver, and warnings. When the output is
            not a terminal each frame is printed after the last. --once waits for the first fix (and heading),
            prints one frame, and exits; with --json that frame is one JSON object for scripts.
            """)

        @Option(help: "Board: a built-in name (default sim) or a board file.")
        var board: String = BoardCatalog.defaultBoardName

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

        func validate() throws {
            if let duration, Simulate.seconds(duration) == nil { throw ValidationError("--duration '\(duration)' is not like 30s, 5m or 1h") }
            guard speed.isFinite, speed > 0, speed <= 1000 else { throw ValidationError("--speed must be above 0 and at most 1000") }
            if json && !once { throw ValidationError("--json needs --once (the live readout is for people)") }
        }

        func run() throws {
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            let engine: LocationEngine
            do {
                engine = try LocationEngine.open(board: description, stateDirectory: stateDirectory ?? CalibrationStore.defaultDirectory(),
                                                 linux: LinuxPlatform())
            } catch {
                throw ValidationError(error.description)
            }
            if let mag = description.magnetometer {
                let store = CalibrationStore(directory: stateDirectory ?? CalibrationStore.defaultDirectory())
                if let stored = try? store.load(board: description.name, sensor: mag.chip.rawValue) {
                    engine.calibration = try? stored.calibration(file: store.path(board: description.name, sensor: mag.chip.rawValue))
                }
            }
            let monitor = StatusMonitor(engine: engine)
            engine.runInBackground(speed: speed)
            defer { monitor.close(); engine.shutdown() }
            let terminal = isatty(STDOUT_FILENO) == 1
            let start = Date()
            if once {
                // Up to 120 s of the board's time for a fix, then a heading sample or two.
                let limit = 120 / speed + 5
                while !monitor.hasPosition && Date().timeIntervalSince(start) < limit { Thread.sleep(forTimeInterval: 0.05) }
                if engine.headingAvailable {
                    let headingWait = Date()
                    while engine.lastHeading?.trueHeading == nil && Date().timeIntervalSince(headingWait) < 3 { Thread.sleep(forTimeInterval: 0.05) }
                }
                let snapshot = monitor.snapshot()
                print(json ? StatusView.json(snapshot) : StatusView.text(snapshot), terminator: json ? "\n" : "")
                if !monitor.hasPosition { throw ExitCode(2) }
                return
            }
            let seconds = duration.flatMap(Simulate.seconds).map(Double.init) ?? .infinity
            var frame = 0
            while Date().timeIntervalSince(start) < seconds {
                let text = StatusView.text(monitor.snapshot())
                FileHandle.standardOutput.write(Data((terminal ? "\u{1B}[H\u{1B}[2J" + text : text + "\n").utf8))
                frame += 1
                let next = start.addingTimeInterval(Double(frame))
                Thread.sleep(forTimeInterval: max(0, min(next.timeIntervalSinceNow, seconds - Date().timeIntervalSince(start))))
            }
        }
    }
}
