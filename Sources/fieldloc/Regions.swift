import ArgumentParser
import FieldLocation
import Foundation
import LocationServices

extension FieldLoc {
    /// `fieldloc regions`: the regions a manager (by its name) monitors, as persisted.
    struct Regions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add, list and remove monitored regions (persisted per manager name).",
            discussion: """
            Regions live in the state folder, one file per manager name (regions-NAME.json), written atomically.
            A LocationManager created with that name (or the daemon's clients of that name) monitors them again
            after a restart.
            """,
            subcommands: [Add.self, List.self, Remove.self])

        struct Options: ParsableArguments {
            @Option(help: "The manager name the regions belong to.")
            var client: String = "default"

            @Option(name: .customLong("state-dir"), help: "State folder (default: $FIELDLOC_STATE_DIR, $XDG_STATE_HOME/fieldloc, ~/.local/state/fieldloc).")
            var stateDirectory: String?

            var path: String { RegionStore.path(directory: stateDirectory ?? CalibrationStore.defaultDirectory(), client: client) }

            func load() throws -> RegionMonitor {
                do { return try RegionStore.load(path) ?? RegionMonitor() } catch { throw CommandFailure(error.description) }
            }

            func save(_ monitor: RegionMonitor) throws {
                do { try RegionStore.save(monitor, to: path) } catch { throw CommandFailure(error.description) }
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Monitor a circular region.")
            @Argument(help: "Identifier (replaces a region of the same identifier).") var identifier: String
            @Argument(help: "Centre latitude, degrees.") var latitude: Double
            @Argument(help: "Centre longitude, degrees.") var longitude: Double
            @Argument(help: "Radius, metres.") var radius: Double
            @Option(help: "Seconds inside before a dwell event.") var dwell: Double?
            @Flag(help: "Do not report entries.") var noEntry = false
            @Flag(help: "Do not report exits.") var noExit = false
            @OptionGroup var options: Options

            func run() throws {
                var monitor = try options.load()
                let region = CircularRegion(identifier: identifier, latitude: latitude, longitude: longitude, radius: radius,
                                            notifyOnEntry: !noEntry, notifyOnExit: !noExit, dwellTime: dwell)
                if let problem = monitor.add(region) { throw ValidationError(problem) }
                try options.save(monitor)
                print("monitoring \(region) for \(options.client) (\(options.path))")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List monitored regions with their last state.")
            @OptionGroup var options: Options
            @Flag(help: "JSON lines.") var json = false

            func run() throws {
                let monitor = try options.load()
                for entry in monitor.entries.values.sorted(by: { $0.region.identifier < $1.region.identifier }) {
                    let r = entry.region
                    if json {
                        print("{\"identifier\":\(JSONText.quote(r.identifier)),\"lat\":\(r.latitude),\"lon\":\(r.longitude),\"radius\":\(r.radius),\"state\":\"\(entry.state.rawValue)\"}")
                    } else {
                        print("\(r.identifier)\t\(r.latitude)\t\(r.longitude)\t\(r.radius) m\t\(entry.state.rawValue)")
                    }
                }
                if monitor.entries.isEmpty && !json { print("no regions for \(options.client) (\(options.path))") }
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Stop monitoring a region.")
            @Argument(help: "Identifier.") var identifier: String
            @OptionGroup var options: Options

            func run() throws {
                var monitor = try options.load()
                guard monitor.remove(identifier) else { throw ValidationError("no region '\(identifier)' for \(options.client) (\(options.path))") }
                try options.save(monitor)
                print("removed \(identifier)")
            }
        }
    }
}
