import ArgumentParser
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import LocationAPI
import Foundation
import PowerPolicy
import SimulatedHardware

extension FieldLoc {
    /// `fieldloc simulate`: the location engine on a simulated board on a virtual clock, with one client.
    struct Simulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the location engine on a simulated board with one client and report energy and accuracy.",
            discussion: """
            The engine runs as on hardware (power policy, receiver driver, NMEA engine, motion from the \
            simulated accelerometer) on a virtual clock, for one client asking for --accuracy (and \
            --distance-filter); the energy is the simulated receiver's own ledger. Seconds of wall time \
            for an hour of simulated time. Prints mean current, energy, the energy of the same scenario at \
            'best' (continuous), the 95th percentile error of the delivered locations against the truth \
            (what an application believes, sampled every second), and locations delivered.
            """)

        @Option(help: "walk, drive or stationary.")
        var scenario: String = "walk"

        @Option(help: "Duration: 3600, 90s, 45m, 1h.")
        var duration: String = "1h"

        @Option(help: "bestForNavigation, best, nearestTenMeters, hundredMeters, kilometer, threeKilometers, reduced.")
        var accuracy: String = "best"

        @Option(help: "Receiver model: m10, neo-m8n, mt3339.")
        var receiver: String = "m10"

        @Option(name: .customLong("distance-filter"), help: "Metres between deliveries.")
        var distanceFilter: Double?

        @Option(help: "A track to follow instead of a scenario: CSV (time_s,lat_deg,lon_deg) or GPX.")
        var track: String?

        @Option(help: "Random seed of the receiver's error.")
        var seed: UInt64 = 1

        @Flag(help: "Print JSON.")
        var json = false

        @Option(name: .customLong("aided-start"),
                help: "Instead of the scenario: the receiver's time to first fix after this long in backup (6h), without and with aiding.")
        var aidedStart: String?

        func validate() throws {
            guard DesiredAccuracy(rawValue: accuracy) != nil else {
                throw ValidationError("--accuracy '\(accuracy)' is not one of \(DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard ReceiverProfile.named[receiver] != nil else {
                throw ValidationError("--receiver '\(receiver)' is not one of \(ReceiverProfile.named.keys.sorted().joined(separator: ", "))")
            }
            if let aidedStart, Self.seconds(aidedStart) == nil {
                throw ValidationError("--aided-start '\(aidedStart)' is not like 3600, 90s, 45m or 6h (1 s to 48 h)")
            }
            guard Self.seconds(duration) != nil else { throw ValidationError("--duration '\(duration)' is not like 3600, 90s, 45m or 1h (1 s to 48 h)") }
            if let d = distanceFilter, !(d.isFinite && d >= 0) { throw ValidationError("--distance-filter must be a non-negative number of metres") }
            if track == nil && !["walk", "drive", "stationary"].contains(scenario) {
                throw ValidationError("--scenario '\(scenario)' is not walk, drive or stationary")
            }
        }

        static func seconds(_ text: String) -> Int? {
            let units: [(String, Int)] = [("h", 3600), ("m", 60), ("s", 1)]
            var value: Double? = Double(text)
            var factor = 1
            for (suffix, f) in units where text.hasSuffix(suffix) {
                value = Double(text.dropLast())
                factor = f
                break
            }
            guard let v = value, v.isFinite, v * Double(factor) >= 1, v * Double(factor) <= 172_800 else { return nil }
            return Int(v * Double(factor))
        }

        func run() throws {
            guard let profile = ReceiverProfile.named[receiver], let level = DesiredAccuracy(rawValue: accuracy),
                  let seconds = Self.seconds(duration) else { return }
            if let aidedStart, let sleep = Self.seconds(aidedStart) {
                return try runAidedStart(profile: profile, sleepSeconds: sleep)
            }
            let trajectory: Trajectory
            var name = scenario
            if let track {
                guard let data = FileManager.default.contents(atPath: track) else { throw ValidationError("cannot read \(track)") }
                let text = String(decoding: data, as: UTF8.self)
                do {
                    trajectory = track.lowercased().hasSuffix(".gpx") ? try Trajectory.gpx(text, file: track) : try Trajectory.csv(text, file: track)
                } catch {
                    throw ValidationError(error.description)
                }
                name = (track as NSString).lastPathComponent
            } else {
                guard let t = Trajectory.scenario(scenario, seconds: seconds) else { return }
                trajectory = t
            }
            let activity: ActivityType = scenario == "drive" ? .automotiveNavigation : .fitness
            func simulate(_ accuracy: DesiredAccuracy) throws -> EngineSimulation.Result {
                var sim = EngineSimulation(trajectory: trajectory, scenario: name, profile: profile, desiredAccuracy: accuracy,
                                           distanceFilter: distanceFilter, activity: activity)
                sim.seed = seed
                sim.stillBeforeStart = scenario == "stationary" ? 600 : 0  // parked for 10 minutes before the start
                do {
                    return try sim.run()
                } catch {
                    throw ValidationError("the simulated board: \(error)")
                }
            }
            let result = try simulate(level)
            let continuous = level == .best ? result : try simulate(.best)
            let out = SimulationReport(result: result, continuousEnergy: continuous.energy)
            print(json ? out.json : out.text)
        }

        /// `--aided-start`: the trial twice (system clock not synchronised, then synchronised).
        func runAidedStart(profile: ReceiverProfile, sleepSeconds: Int) throws {
            let trial = AidedStartTrial(profile: profile, sleepHours: Double(sleepSeconds) / 3600)
            let runs: [AidedStartTrial.Result]
            do {
                runs = [try trial.run(synchronised: false), try trial.run(synchronised: true)]
            } catch {
                throw ValidationError("the simulated board: \(error)")
            }
            func ttff(_ h: UnitHealth) -> Double? { h.timeToFirstFix }
            if json {
                let items = zip(["unaided", "aided"], runs).map { name, r in
                    "\"\(name)\":{\"ttff_s\":\(ttff(r.health).map { String($0) } ?? "null"),\"aided\":\(r.health.lastAcquisitionAided),"
                        + "\"aiding\":[\(r.aidingReceived.map { "\"\($0)\"" }.joined(separator: ","))]}"
                }
                print("{\"receiver\":\"\(profile.name)\",\"sleep_s\":\(sleepSeconds),\(items.joined(separator: ","))}")
                return
            }
            print("\(profile.name), emulated: time to first fix after \(aidedStart ?? "") in backup (data sheet: warm \(Int(profile.warmStart)) s, aided \(profile.aidedStart.map { "\(Int($0)) s" } ?? "none"))")
            for (name, r) in zip(["without aiding (clock not synchronised)", "with aiding (clock synchronised)"], runs) {
                let t = ttff(r.health).map { FixText.fixed($0, 1) + " s" } ?? "no fix"
                let given = r.aidingReceived.isEmpty ? "nothing sent" : r.aidingReceived.joined(separator: ", ")
                print("  \(name): TTFF \(t)\(r.health.lastAcquisitionAided ? " (aided)" : ""); \(given)")
            }
        }
    }
}
