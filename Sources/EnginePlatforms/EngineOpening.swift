import BoardConfig
import FieldLocation
import HardwareInterfaces
import SimulatedHardware

extension LocationEngine {
    /// The simulated receiver of a `sim` board (energy ledger, power state), else `nil`.
    public var simulatedReceiver: ReceiverEmulator? { (platform as? SimulatedEnginePlatform)?.receiver }
    /// The simulated platform of a `sim` board (for fault injection in tests), else `nil`.
    public var simulatedPlatform: SimulatedPlatform? { (platform as? SimulatedEnginePlatform)?.platform }

    /// Opens a board on the platform its board file asks for: a simulated one on its simulated
    /// platform (see ``simulated(board:stateDirectory:clock:trajectory:receiverTracking:)``), a real one on `linux`.
    public static func open(board: BoardDescription, stateDirectory: String? = nil,
                            linux: @autoclosure () -> any HardwarePlatform) throws(HardwareError) -> LocationEngine {
        LocationEngine(board: board, platform: try BoardHardware.enginePlatform(for: board, linux: linux()),
                       stateDirectory: stateDirectory)
    }

    /// A simulated board on `clock` (a fresh manual clock by default), optionally following a
    /// scripted trajectory with the receiver asleep at the start (`receiverTracking` false); `seed`
    /// is the random seed of the simulated receiver's position error.
    public static func simulated(board: BoardDescription, stateDirectory: String? = nil, clock: ManualClock = ManualClock(),
                                 trajectory: Trajectory? = nil, receiverTracking: Bool = true,
                                 seed: UInt64 = 1) throws(HardwareError) -> LocationEngine {
        let sim = try BoardHardware.simulatedBoard(for: board, clock: clock, trajectory: trajectory, receiverTracking: receiverTracking,
                                                   seed: seed)
        return LocationEngine(board: board, platform: SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver, beaconScanner: sim.beaconScanner),
                              stateDirectory: stateDirectory, receiverAwake: receiverTracking)
    }
}
