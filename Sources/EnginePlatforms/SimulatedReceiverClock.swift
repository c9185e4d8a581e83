import FieldLocation
import HardwareInterfaces
import SimulatedHardware

extension LocationEngine {
    /// Runs a simulated board's receiver on UTC: at `instant` of the engine's manual clock its UTC is
    /// `utcNanoseconds` (nanoseconds since 1970), and from there it follows the manual clock, dates
    /// included (``ReceiverEmulator/setUTC(_:at:)``). Returns whether the board has a simulated
    /// receiver to set. Without it the receiver keeps its own calendar (a fixed 2026 date), which
    /// the manual-clock tests rely on.
    @discardableResult
    public func setSimulatedReceiverUTC(_ utcNanoseconds: Int64, at instant: MonotonicInstant) -> Bool {
        guard let receiver = simulatedReceiver else { return false }
        receiver.setUTC(utcNanoseconds, at: instant)
        return true
    }
}
