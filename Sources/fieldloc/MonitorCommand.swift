import ArgumentParser
import Beacons
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationServices

extension FieldLoc {
    /// `fieldloc monitor`: a named monitor's conditions (circle, polygon, beacon identity) and events.
    struct MonitorCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "monitor",
            abstract: "Add, list and remove a named monitor's conditions, and print its events (as Core Location's CLMonitor).",
            discussion: """
            A monitor lives in the state folder as monitor-NAME.json, written atomically before any event is shown. \
            Its events stay queued until a consumer (fieldloc monitor events/watch, or Monitor.events) acknowledges them, \
            so the events that happened while nobody watched come first, also after a restart or a kill -9.
            """,
            subcommands: [Add.self, Remove.self, List.self, Events.self, Watch.self, Exercise.self])

        struct Options: ParsableArguments {
            @Option(help: "The monitor's name.") var name: String = "default"
            @Option(name: .customLong("state-dir"), help: "State folder (default: $FIELDLOC_STATE_DIR, $XDG_STATE_HOME/fieldloc, ~/.local/state/fieldloc).")
            var stateDirectory: String?

            var directory: String { stateDirectory ?? CalibrationStore.defaultDirectory() }

            func open() throws -> Monitor {
                do { return try Monitor(named: name, directory: directory) } catch { throw CommandFailure(error.description) }
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add (or replace) a condition: --circle, --polygon or --beacon.",
                discussion: """
                --circle "LAT,LON,RADIUS" (degrees, metres); --polygon "lat,lon;lat,lon;..." (a '|' starts a hole); \
                --beacon UUID[:MAJOR[:MINOR]]. --assuming is the state until one is determined: an event comes only \
                when the determined state differs.
                """)
            @Argument(help: "Identifier (replaces a condition of the same identifier).") var identifier: String
            @Option(help: "A circle \"LAT,LON,RADIUS\".") var circle: String?
            @Option(help: "A polygon \"lat,lon;lat,lon;...\".") var polygon: String?
            @Option(help: "A beacon identity UUID[:MAJOR[:MINOR]].") var beacon: String?
            @Option(help: "The state assumed until one is determined: unknown, satisfied or unsatisfied.") var assuming: String = "unknown"
            @OptionGroup var options: Options

            func condition() throws -> Monitor.Condition {
                guard [circle, polygon, beacon].compactMap({ $0 }).count == 1 else { throw ValidationError("give one of --circle, --polygon or --beacon") }
                if let circle {
                    let parts = circle.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                    guard parts.count == 3, let lat = parts[0], let lon = parts[1], let radius = parts[2] else {
                        throw ValidationError("--circle '\(circle)' is not LAT,LON,RADIUS")
                    }
                    return .circle(latitude: lat, longitude: lon, radius: radius)
                }
                if let polygon {
                    do { return .polygon(try RegionPolygon(parsing: polygon)) } catch { throw ValidationError("--polygon: \(error)") }
                }
                let parts = (beacon ?? "").split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                guard (1...3).contains(parts.count), let uuid = BeaconUUID(parts[0]) else { throw ValidationError("--beacon '\(beacon ?? "")': the UUID is not like E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") }
                let numbers = parts.dropFirst().map { UInt16($0) }
                if let bad = numbers.firstIndex(where: { $0 == nil }) {
                    throw ValidationError("--beacon '\(beacon ?? "")': \(bad == 0 ? "major" : "minor") '\(parts[bad + 1])' is not 0...65535")
                }
                switch numbers.count {
                case 0: return .beacon(BeaconIdentityConstraint(uuid: uuid))
                case 1: return .beacon(BeaconIdentityConstraint(uuid: uuid, major: numbers[0]!))
                default: return .beacon(BeaconIdentityConstraint(uuid: uuid, major: numbers[0]!, minor: numbers[1]!))
                }
            }

            func run() throws {
                guard let state = Monitor.State(rawValue: assuming), state != .unmonitored else {
                    throw ValidationError("--assuming '\(assuming)' is not unknown, satisfied or unsatisfied")
                }
                let condition = try condition()
                let monitor = try options.open()
                do { try monitor.add(condition, identifier: identifier, assuming: state) } catch { throw CommandFailure(error.description) }
                print("monitoring \(identifier): \(condition), assuming \(state.rawValue) (\(monitor.path))")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a condition (its queued events stay).")
            @Argument(help: "Identifier.") var identifier: String
            @OptionGroup var options: Options

            func run() throws {
                let monitor = try options.open()
                let removed: Bool
                do { removed = try monitor.remove(identifier) } catch { throw CommandFailure(error.description) }
                guard removed else { throw ValidationError("no condition '\(identifier)' in monitor \(options.name) (\(monitor.path))") }
                print("removed \(identifier)")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the conditions with their last event.")
            @OptionGroup var options: Options
            @Flag(help: "JSON lines.") var json = false

            func run() throws {
                let monitor = try options.open()
                for identifier in monitor.identifiers {
                    guard let record = monitor.record(for: identifier) else { continue }
                    if json {
                        print(#"{"identifier":"# + JSONText.quote(identifier) + #","condition":"# + JSONText.quote(record.condition.description)
                              + #","state":"# + JSONText.quote(record.lastEvent.state.rawValue) + #","seq":\#(record.lastEvent.seq)}"#)
                    } else {
                        print("\(identifier)\t\(record.condition)\t\(record.lastEvent.state.rawValue)\t#\(record.lastEvent.seq)")
                    }
                }
                if monitor.identifiers.isEmpty && !json { print("no conditions in monitor \(options.name) (\(monitor.path))") }
            }
        }

        struct Events: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print the monitor's queued events (oldest first) and acknowledge each once printed.",
                discussion: "With --json, one object per line: {\"class\":\"MONITOR\",\"monitor\":…,\"seq\":…,\"identifier\":…,\"state\":…,\"time\":…}.")
            @OptionGroup var options: Options
            @Flag(help: "JSON lines.") var json = false
            @Flag(help: "Do not acknowledge (the events stay queued).") var keep = false
            @Option(help: "At most this many events.") var limit: Int?

            func run() throws {
                let watch = MonitorWatch(monitor: try options.open(), json: json, acknowledge: !keep)
                do {
                    _ = try watch.drain(limit: limit ?? .max) { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
                } catch { throw CommandFailure(error.description) }
            }
        }

        struct Watch: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print the queued events, then run a board and print the monitor's events as its locations decide them.",
                discussion: "The default board 'sim' runs on a virtual clock, so its minutes pass in moments. Beacon conditions are not fed here.")
            @OptionGroup var options: Options
            @OptionGroup var session: BoardRunOptions

            func run() throws {
                let engine = try session.openEngine(stateDirectory: options.directory)
                let watch = MonitorWatch(monitor: try options.open(), json: session.json)
                do {
                    _ = try watch.run(engine: engine, duration: session.runDuration) {
                        FileHandle.standardOutput.write(Data(($0 + "\n").utf8))
                    }
                } catch { throw CommandFailure("\(error)") }
            }
        }

        /// The persistence trials' event source: a synthetic walk in and out of a circle and a beacon's
        /// presence coming and going, until the monitor has numbered `--until` events.
        struct Exercise: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Drive the monitor with a synthetic walk and beacon until it has made N events (for the crash trials).",
                discussion: """
                Adds the condition 'walk' (a 100 m circle at 0,0) and 'dock' (a beacon identity) when missing, then alternates \
                fixes inside and outside the circle and the beacon heard and not heard, one event at a time, each written \
                atomically before the next, until the monitor's events are numbered up to --until. Resumes where a killed run stopped.
                """,
                shouldDisplay: false)
            @OptionGroup var options: Options
            @Option(help: "Stop once this many events were made.") var until: UInt64 = 200

            func run() throws {
                let monitor = try options.open()
                let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
                do {
                    if monitor.record(for: "walk") == nil { try monitor.add(.circle(latitude: 0, longitude: 0, radius: 100), identifier: "walk") }
                    if monitor.record(for: "dock") == nil { try monitor.add(.beacon(BeaconIdentityConstraint(uuid: uuid, major: 1)), identifier: "dock") }
                    var t = 1.0
                    while monitor.nextSeq <= until {
                        t += 20
                        if monitor.nextSeq % 2 == 1 {
                            let inside = monitor.record(for: "walk")?.lastEvent.state != .satisfied
                            try monitor.process(Location(latitude: inside ? 0 : 0.02, longitude: 0, horizontalAccuracy: 5,
                                                         receivedAt: MonotonicInstant(nanoseconds: UInt64(t * 1e9))))
                        } else {
                            let heard = monitor.record(for: "dock")?.lastEvent.state != .satisfied
                            let presence = heard ? BeaconPresence(lastHeard: t, recentSeconds: 5) : BeaconPresence(lastHeard: nil, recentSeconds: 0)
                            try monitor.processBeacons(at: t) { _ in presence }
                        }
                    }
                } catch { throw CommandFailure(error.description) }
            }
        }
    }
}
