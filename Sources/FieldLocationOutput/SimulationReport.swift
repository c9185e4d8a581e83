import EnginePlatforms
import FieldLocation
import PowerPolicy
import SimulatedHardware

/// `fieldloc simulate` output: one ``EngineSimulation`` run of the engine, and the energy of the
/// same scenario at `best` (continuous tracking) to compare it with.
public struct SimulationReport: Sendable {
    /// The run.
    public var result: EngineSimulation.Result
    /// The same scenario at `best`, mAh.
    public var continuousEnergy: Double

    /// Creates a report.
    public init(result: EngineSimulation.Result, continuousEnergy: Double) {
        self.result = result
        self.continuousEnergy = continuousEnergy
    }

    /// Energy as a share of continuous.
    public var energyRatio: Double { continuousEnergy > 0 ? result.energy / continuousEnergy : 0 }

    /// One JSON object.
    public var json: String {
        let r = result
        let starts = StartKind.allCases.map { "\"\($0.rawValue)\":\(r.starts[$0] ?? 0)" }.joined(separator: ",")
        let states = r.timeInState.keys.sorted().map { "\"\($0)\":\(Int((r.timeInState[$0] ?? 0).rounded()))" }.joined(separator: ",")
        return "{\"scenario\":\"\(r.scenario)\",\"receiver\":\"\(r.receiver)\",\"accuracy\":\"\(r.accuracy.rawValue)\","
            + "\"duration_s\":\(Int(r.duration)),\"mean_current_mA\":\(FixText.fixed(r.meanCurrent, 4)),"
            + "\"energy_mAh\":\(FixText.fixed(r.energy, 4)),\"continuous_energy_mAh\":\(FixText.fixed(continuousEnergy, 4)),"
            + "\"energy_ratio\":\(FixText.fixed(energyRatio, 4)),\"backup_floor_mAh\":\(FixText.fixed(r.backupFloor, 4)),"
            + "\"energy_after_first_fix_mAh\":\(FixText.fixed(r.energyAfterFirstFix, 4)),\"backup_floor_after_first_fix_mAh\":\(FixText.fixed(r.backupFloorAfterFirstFix, 4)),"
            + "\"p95_error_m\":\(FixText.fixed(r.p95Error, 2)),\"p95_fix_error_m\":\(FixText.fixed(r.p95FixError, 2)),"
            + "\"fixes_delivered\":\(r.fixesDelivered),\"command_failures\":\(r.commandFailures.count),\"client_errors\":\(r.clientErrors.count),\"starts\":{\(starts)},\"seconds_in_state\":{\(states)}}"
    }

    /// Lines for a person.
    public var text: String {
        let r = result
        var out = "\(r.scenario), \(r.receiver), \(r.accuracy.rawValue), \(Int(r.duration)) s\n"
        out += "  mean current   \(FixText.fixed(r.meanCurrent, 3)) mA\n"
        out += "  energy         \(FixText.fixed(r.energy, 3)) mAh (\(FixText.fixed(energyRatio * 100, 1)) % of continuous \(FixText.fixed(continuousEnergy, 3)) mAh)\n"
        out += "  p95 error      \(FixText.fixed(r.p95Error, 1)) m believed, \(FixText.fixed(r.p95FixError, 1)) m at each fix\n"
        out += "  fixes          \(r.fixesDelivered) delivered; starts " + StartKind.allCases.map { "\($0.rawValue) \(r.starts[$0] ?? 0)" }.joined(separator: ", ") + "\n"
        out += "  time in state  " + r.timeInState.keys.sorted().map { "\($0) \(Int((r.timeInState[$0] ?? 0).rounded())) s" }.joined(separator: ", ")
        for failure in r.commandFailures { out += "\n  command failed \(failure)" }
        for error in r.clientErrors { out += "\n  client error   \(error)" }
        return out
    }
}
