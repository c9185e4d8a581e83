import ArgumentParser
import BoardConfig
import FieldLocation
import Foundation
import Heading
import HardwareInterfaces
import LinuxHardware

extension FieldLoc {
    /// `fieldloc watch`: fixes and headings from a board as JSON lines.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a board and print its fixes and headings as JSON lines.",
            discussion: """
            Opens the board's receiver and sensors (the default board 'sim' simulates both, on a virtual
            clock, so its minutes pass in moments), runs the receiver's NMEA through the NMEA engine and
            the sensors through their drivers and the heading engine, and prints one JSON line per fix
            (class FIX) and per heading (class HEADING). True heading appears once a fix gives the
            position for the World Magnetic Model. A stored calibration for the board's magnetometer is
            applied when there is one (fieldloc calibrate --board NAME --save).
            """)

        @Option(help: "Board: a built-in name (default sim) or a board file.")
        var board: String = BoardCatalog.defaultBoardName

        @Option(help: "How long: 30s, 5m, 1h.")
        var duration: String = "30s"

        @Option(name: .customLong("heading-rate"), help: "Headings per second (0 for none).")
        var headingRate: Double = 1

        @Option(name: .customLong("state-dir"), help: "Folder of stored calibrations.")
        var stateDirectory: String?

        func validate() throws {
            guard Simulate.seconds(duration) != nil else { throw ValidationError("--duration '\(duration)' is not like 30s, 5m or 1h") }
            guard headingRate.isFinite, (0...100).contains(headingRate) else { throw ValidationError("--heading-rate must be 0 to 100") }
        }

        func run() throws {
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            let seconds = Simulate.seconds(duration) ?? 30
            var watch: BoardWatch
            do {
                // A simulated receiver's energy ledger ends the output as a POWER line.
                watch = BoardWatch(board: description, platform: try BoardHardware.enginePlatform(for: description, linux: LinuxPlatform()))
            } catch {
                throw ValidationError(error.description)
            }
            watch.headingRate = headingRate
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
