import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import LinuxHardware
import LocationServices

extension FieldLoc {
    /// `fieldloc regions`: the regions a manager (by its name) monitors, as persisted.
    struct Regions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add, list and remove monitored regions (persisted per manager name).",
            discussion: """
            Regions live in the state folder, one file per manager name (regions-NAME.json), written atomically. \
            A LocationManager created with that name (or the daemon's clients of that name) monitors them again \
            after a restart.
            """,
            subcommands: [Add.self, List.self, Remove.self, Watch.self])

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
            static let configuration = CommandConfiguration(
                abstract: "Monitor a circular region (LAT LON RADIUS) or a polygon (--polygon).",
                discussion: """
                A polygon's edges are great-circle arcs (geodesics); its vertices are "lat,lon;lat,lon;..." and a '|' \
                starts a hole. --expires takes a duration from now (90s, 45m, 2h, 7d) or an ISO 8601 date with a zone; \
                the region is removed with an expiry event when it lapses.
                """)
            @Argument(help: "Identifier (replaces a region of the same identifier).") var identifier: String
            @Argument(help: "Centre latitude, degrees (a circle).") var latitude: Double?
            @Argument(help: "Centre longitude, degrees (a circle).") var longitude: Double?
            @Argument(help: "Radius, metres (a circle).") var radius: Double?
            @Option(help: "Polygon vertices \"lat,lon;lat,lon;...\" (a '|' starts a hole), instead of a circle.") var polygon: String?
            @Option(help: "When the region lapses: a duration (2h, 45m, 7d) or an ISO 8601 date.") var expires: String?
            @Option(help: "Seconds inside before a dwell event.") var dwell: Double?
            @Flag(help: "Do not report entries.") var noEntry = false
            @Flag(help: "Do not report exits.") var noExit = false
            @OptionGroup var options: Options

            func run() throws {
                var monitor = try options.load()
                var region: CircularRegion
                if let polygon {
                    guard latitude == nil else { throw ValidationError("give either LAT LON RADIUS or --polygon, not both") }
                    let outline: RegionPolygon
                    do { outline = try RegionPolygon(parsing: polygon) } catch { throw ValidationError("--polygon: \(error)") }
                    region = CircularRegion(identifier: identifier, polygon: outline,
                                            notifyOnEntry: !noEntry, notifyOnExit: !noExit, dwellTime: dwell)
                } else {
                    guard let latitude, let longitude, let radius else {
                        throw ValidationError("a circle needs LAT LON RADIUS (or give --polygon)")
                    }
                    region = CircularRegion(identifier: identifier, latitude: latitude, longitude: longitude, radius: radius,
                                            notifyOnEntry: !noEntry, notifyOnExit: !noExit, dwellTime: dwell)
                }
                let now = Date().timeIntervalSince1970
                if let expires {
                    do { region.expiresAt = try RegionExpiryText.parse(expires, now: now) } catch { throw ValidationError(error.description) }
                }
                if let problem = monitor.add(region, wallClock: now) { throw ValidationError(problem) }
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
                    let expiry = entry.expiryDate.map { ",\"expiresAt\":\($0)" } ?? ""
                    if let polygon = r.polygon {
                        if json {
                            print("{\"identifier\":\(JSONText.quote(r.identifier)),\"polygon\":\(JSONText.quote(polygon.text)),\"lat\":\(r.latitude),\"lon\":\(r.longitude),\"radius\":\(r.radius),\"state\":\"\(entry.state.rawValue)\"\(expiry)}")
                        } else {
                            print("\(r.identifier)\tpolygon \(polygon.vertices.count) vertices\t\(polygon.text)\t\(entry.state.rawValue)")
                        }
                        continue
                    }
                    if json {
                        print("{\"identifier\":\(JSONText.quote(r.identifier)),\"lat\":\(r.latitude),\"lon\":\(r.longitude),\"radius\":\(r.radius),\"state\":\"\(entry.state.rawValue)\"\(expiry)}")
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

        struct Watch: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Run a board and print the region events of a client's regions as they happen.",
                discussion: """
                Monitors the regions persisted for --client (as a LocationManager of that name does) on the \
                board's engine (the default board 'sim' runs on a virtual clock, so its minutes pass in moments) \
                and prints one line per event: determined (with the state), enter, exit, dwell and expiry. \
                With --json, one object per line: {"class":"REGION","event":"enter","region":"yard","time":..., \
                "lat":...,"lon":...,"accuracy":...}. The engine saves the regions' states back to the file.
                """)
            @OptionGroup var options: Options
            @OptionGroup var session: BoardRunOptions

            func run() throws {
                let engine = try session.openEngine(stateDirectory: options.stateDirectory ?? CalibrationStore.defaultDirectory())
                let watch = RegionWatch(client: options.client, json: session.json)
                let summary: RegionWatch.Summary
                do {
                    // Written at once (not buffered), so a pipe sees each event as it happens.
                    summary = try watch.run(engine: engine, duration: session.runDuration) { line in
                        FileHandle.standardOutput.write(Data((line + "\n").utf8))
                    }
                } catch { throw CommandFailure(error.description) }
                for problem in summary.problems { FileHandle.standardError.write(Data("fieldloc: \(problem)\n".utf8)) }
                if summary.regions == 0 && summary.problems.isEmpty {
                    FileHandle.standardError.write(Data("fieldloc: no regions for \(options.client) (\(options.path)); add some with fieldloc regions add\n".utf8))
                }
            }
        }
    }
}
