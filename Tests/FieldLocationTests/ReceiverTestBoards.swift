import BoardConfig
import EnginePlatforms
@testable import FieldLocation
import HardwareInterfaces
import SimulatedHardware

/// The simulated boards of the receiver tests: one receiver of a given family and model (the
/// emulator runs the same model) at the test place, and the engine over it on a manual clock.
enum ReceiverTestBoards {
    /// A simulated board whose receiver is `family` (board spelling) `model`; `wake` is the
    /// receiver's wake key when given.
    static func board(family: String, model: String, scenario: String = "walk", wake: String? = "uart-byte") throws -> BoardDescription {
        try BoardLoader.load(text: """
            name = "t"
            title = "test"
            simulated = true
            [receiver]
            baud = 9600
            family = "\(family)"
            model = "\(model)"
            \(wake.map { "wake = \"\($0)\"" } ?? "")
            [sim]
            latitude = 47.3769
            longitude = 8.5417
            altitude = 408.0
            scenario = "\(scenario)"
            receiver_model = "\(model)"
            """, file: "t.toml")
    }

    /// The engine over `board`'s simulated hardware and its receiver emulator; `synchronised` says
    /// whether the platform's system clock counts as synchronised (for aiding).
    static func engine(_ board: BoardDescription, clock: ManualClock = ManualClock(), receiverAwake: Bool = true,
                       synchronised: Bool = false) throws -> (LocationEngine, ReceiverEmulator) {
        let sim = try BoardHardware.simulatedBoard(for: board, clock: clock, receiverTracking: receiverAwake)
        var platform = SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver)
        platform.systemClockSynchronised = synchronised
        return (LocationEngine(board: board, platform: platform, stateDirectory: nil, receiverAwake: receiverAwake), sim.receiver)
    }
}
