import ArgumentParser
import Beacons
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LinuxHardware
import Synchronization

extension FieldLoc {
    /// `fieldloc beacons`: the beacons a board's Bluetooth radio ranges, live.
    struct BeaconsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "beacons",
            abstract: "Range Bluetooth LE beacons (iBeacon, AltBeacon) with a board's radio and print them.",
            discussion: """
            Scans with the adapter the board file names (bluetooth = "hci0") and prints, once a second, \
            every beacon of the ranged UUIDs: proximity (immediate, near, far, unknown), the estimated \
            distance in metres and the smoothed RSSI. With --json, one object per ranging update: \
            {"beacons":[{"uuid":…,"major":…,"minor":…,"proximity":"near","accuracy_m":…,"rssi":…}]}. \
            The default board 'sim' walks past the beacons its board file places (on a virtual clock, \
            so its minutes pass in moments); its UUIDs are ranged unless --uuid names others. \
            'fieldloc beacons calibrate' fits a site's path-loss exponent and 1 m power to RSSI at \
            known distances; 'fieldloc beacons estimate' ranges recorded RSSI with the same model.
            """,
            subcommands: [Calibrate.self, Estimate.self])

        @Option(help: "Board: a built-in name (default sim) or a board file.")
        var board: String = BoardCatalog.defaultBoardName

        @Option(help: "How long: 30s, 5m, 1h (default 60s).")
        var duration: String = "60s"

        @Option(help: "A proximity UUID to range (repeatable); default: the simulated board's beacons.")
        var uuid: [String] = []

        @Flag(help: "One JSON object per ranging update.")
        var json = false

        func validate() throws {
            if Simulate.seconds(duration) == nil { throw ValidationError("--duration '\(duration)' is not like 30s, 5m or 1h") }
            for text in uuid where BeaconUUID(text) == nil {
                throw ValidationError("--uuid '\(text)' is not a UUID (8-4-4-4-12 hexadecimal digits)")
            }
        }

        func run() throws {
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            var uuids = uuid.compactMap(BeaconUUID.init)
            if uuids.isEmpty {
                uuids = Array(Set((description.simulation?.beacons ?? []).compactMap { BeaconUUID($0.uuid) })).sorted()
            }
            guard !uuids.isEmpty else { throw ValidationError("name the beacons' proximity UUID: --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") }
            let engine: LocationEngine
            do { engine = try LocationEngine.open(board: description, linux: LinuxPlatform()) } catch { throw ValidationError(error.description) }
            if let problem = engine.rangingProblem { throw ValidationError("\(description.name): \(problem)") }
            let json = self.json
            let clock = engine.clock
            let failures = Mutex<[String]>([])
            let client = engine.register(name: "fieldloc beacons") { event in
                switch event {
                case .beacons(let beacons, _):
                    if json {
                        print(BeaconText.jsonLine(beacons))
                    } else {
                        for line in BeaconText.lines(beacons, at: clock.now().seconds) { print(line) }
                    }
                case .rangingFailed(let constraint, let error):
                    failures.withLock { $0.append("\(constraint): \(error)") }
                    FileHandle.standardError.write(Data("ranging \(constraint) failed: \(error)\n".utf8))
                default: break
                }
            }.id
            for u in uuids {
                if let error = engine.startRangingBeacons(client, satisfying: BeaconIdentityConstraint(uuid: u)) {
                    throw ValidationError(error.description)
                }
            }
            let seconds = Simulate.seconds(duration) ?? 60
            if case .manual = engine.platform.pacing {
                engine.advance(by: .seconds(seconds))
            } else {
                engine.runInBackground()
                Thread.sleep(forTimeInterval: Double(seconds))
                engine.stop()
            }
            engine.unregister(client)
            engine.shutdown()
            let counters = engine.advertCounters
            let rejected = AdvertRejection.allCases.filter { counters[$0] > 0 }.map { "\($0): \(counters[$0])" }
            FileHandle.standardError.write(Data(("\(counters.seen) adverts, \(counters.beacons) beacon frames, \(counters.other) other, "
                + "\(counters.rejected) malformed" + (rejected.isEmpty ? "" : " (" + rejected.joined(separator: ", ") + ")") + "\n").utf8))
            if !failures.withLock({ $0.isEmpty }) { throw ExitCode(1) }
        }
    }
}
