import BoardConfig
import FieldLocation
import HardwareInterfaces
import LocationAPI
import PowerPolicy
import SimulatedHardware

/// The time to first fix of one emulated receiver after a long sleep, with and without aiding,
/// through the whole engine on a manual clock: a client takes fixes for two minutes (the receiver
/// collects its ephemerides), stops for ``sleepHours`` (the power policy puts the receiver in
/// backup through its power line), and asks again for 90 s. With a synchronised system clock the
/// wake after the sleep carries the time and the last fix to the receiver (``LocationEngine``'s
/// aiding rule); without one it carries nothing. The board is the `sim` board's receiver of the
/// profile's model, without its sensors (they play no part in a start).
public struct AidedStartTrial: Sendable {
    /// The receiver.
    public var profile: ReceiverProfile
    /// Hours without a client between the two runs.
    public var sleepHours: Double

    /// A trial of `profile` after `sleepHours` in backup.
    public init(profile: ReceiverProfile, sleepHours: Double = 6) {
        self.profile = profile
        self.sleepHours = sleepHours
    }

    /// What one run ended with: the engine's health counters and the aiding the emulated receiver took.
    public struct Result: Sendable {
        /// The health (``UnitHealth/timeToFirstFix``, ``UnitHealth/aidedTimeToFirstFix``, ...).
        public var health: UnitHealth
        /// The aiding the receiver received, as text (`time ±0.11 s`, `position ±216003.2 m`).
        public var aidingReceived: [String]
    }

    /// Runs the trial once, with the simulated system clock synchronised or not.
    public func run(synchronised: Bool) throws(HardwareError) -> Result {
        var board = try EngineSimulation.board(for: profile)
        board.sensors = []
        board.bluetooth = nil
        let sim = try BoardHardware.simulatedBoard(for: board, clock: ManualClock(), receiverTracking: true)
        var platform = SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver)
        platform.systemClockSynchronised = synchronised
        let engine = LocationEngine(board: board, platform: platform, stateDirectory: nil, receiverAwake: true)
        let id = engine.register(name: "aided-start") { _ in }.id
        engine.update(id) { $0.updatingLocation = true; $0.desiredAccuracy = .bestForNavigation }
        engine.advance(by: .seconds(120))
        engine.update(id) { $0.updatingLocation = false }
        engine.advance(by: .milliseconds(Int64((max(0, sleepHours) * 3_600_000).rounded())))
        engine.update(id) { $0.updatingLocation = true }
        engine.advance(by: .seconds(90))
        let result = Result(health: engine.health(), aidingReceived: sim.receiver.aidingReceived)
        engine.shutdown()
        return result
    }
}
