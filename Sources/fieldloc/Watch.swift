import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import Heading
import LinuxHardware

extension FieldLoc {
    /// `fieldloc watch`: fixes and headings from a board as JSON lines.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a board and print its fixes and headings as JSON lines.",
            discussion: """
            Opens the board's receiver and sensors (the default board 'sim' simulates both, on a virtual \
            clock, so its minutes pass in moments), runs the receiver's NMEA through the NMEA engine and \
            the sensors through their drivers and the heading engine, and prints one JSON line per fix \
            (class FIX) and per heading (class HEADING). True heading appears once a fix gives the \
            position for the World Magnetic Model. A stored calibration for the board's magnetometer is \
            applied when there is one (fieldloc calibrate --board NAME --save).

            --interval SECONDS asks for one fix each interval (the receiver sleeps between them) and \
            prints only those. When fixes stop for longer than the watch's fix-loss timeout, a line \
            {"class":"STATUS","status":"fix lost","mode":1,...} says so, and {"class":"STATUS", \
            "status":"fix recovered",...} comes before the next fix; both carry "flags", the diagnostic \
            flags (locationUnavailable, receiverSilent, paused, ...). On a simulated board, \
            --scenario outage takes the sky away for 20 s, 30 s after the start (default duration 90 s).
            """)

        @Option(help: "Board: a built-in name (default sim) or a board file.")
        var board: String = BoardCatalog.defaultBoardName

        @Option(help: "How long: 30s, 5m, 1h (default 30s; 90s with --scenario outage).")
        var duration: String?

        @Option(help: "Seconds between fixes (the receiver sleeps between them); default: every epoch.")
        var interval: Double?

        @Option(help: "A simulated board's sky: 'outage' (20 s without sky, 30 s after the start).")
        var scenario: String?

        @Option(name: .customLong("heading-rate"), help: "Headings per second (0 for none).")
        var headingRate: Double = 1

        @Option(name: .customLong("state-dir"), help: "Folder of stored calibrations.")
        var stateDirectory: String?

        /// The sky outage of `--scenario outage`: seconds after the start, and how long.
        static let outage = (start: 30.0, seconds: 20.0)

        func validate() throws {
            if let duration, Simulate.seconds(duration) == nil { throw ValidationError("--duration '\(duration)' is not like 30s, 5m or 1h") }
            if let interval, !(interval.isFinite && interval > 0) { throw ValidationError("--interval must be a positive number of seconds") }
            if let scenario, scenario != "outage" { throw ValidationError("--scenario '\(scenario)' is unknown: the one scenario is 'outage'") }
            guard headingRate.isFinite, (0...100).contains(headingRate) else { throw ValidationError("--heading-rate must be 0 to 100") }
        }

        func run() throws {
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            let seconds = Simulate.seconds(duration ?? (scenario == nil ? "30s" : "90s")) ?? 30
            var watch: BoardWatch
            do {
                // A simulated receiver's energy ledger ends the output as a POWER line.
                let platform = try BoardHardware.enginePlatform(for: description, linux: LinuxPlatform())
                if scenario != nil {
                    guard let receiver = (platform as? SimulatedEnginePlatform)?.receiver else {
                        throw ValidationError("--scenario needs a simulated board (--board sim); \(description.name) is real hardware")
                    }
                    receiver.addSkyOutage(from: Self.outage.start, seconds: Self.outage.seconds)
                }
                watch = BoardWatch(board: description, platform: platform)
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError("\(error)")
            }
            watch.headingRate = headingRate
            watch.updateInterval = interval
            if let mag = description.magnetometer {
                let store = CalibrationStore(directory: stateDirectory ?? CalibrationStore.defaultDirectory())
                let path = store.path(board: description.name, sensor: mag.chip.rawValue)
                if let stored = try? store.load(board: description.name, sensor: mag.chip.rawValue) {
                    watch.calibration = try? stored.calibration(file: path)
                }
            }
            let result = Result { () throws(HardwareError) -> BoardWatch.Summary in
                try watch.run(duration: .seconds(seconds)) { print($0) }
            }
            switch result {
            case .success(let summary):
                let warnings = summary.warnings.isEmpty ? "" : "; " + summary.warnings.joined(separator: "; ")
                FileHandle.standardError.write(Data("\(summary.fixes) fixes, \(summary.headings) headings\(warnings)\n".utf8))
            case .failure(let error):
                throw ValidationError(error.description)
            }
        }
    }
}
