import HardwareInterfaces
import PowerPolicy

/// The receiver's charge estimated from the policy's decisions: each stretch between two ticks is
/// charged at the mean current of the decision in force during it (the receiver profile's
/// data-sheet currents). A platform that measures the receiver (a simulated one keeps a ledger)
/// is asked instead; see ``EnginePlatform/measuredReceiverEnergy()``.
///
/// Input: the decision in force and the instant of each tick. Output: an ``EnergyLedger``.
///
/// Only the thread that advances the engine touches it (see `LocationEngine`).
struct EnergyAccounting {
    /// The receiver profile whose currents price each mode.
    let profile: ReceiverProfile
    /// The charge so far.
    private(set) var ledger = EnergyLedger()
    private var lastTick: MonotonicInstant?

    init(profile: ReceiverProfile) { self.profile = profile }

    /// A tick at `now`: the time since the previous tick is charged to `previous`, the decision
    /// that was in force during it (nothing before the first decision).
    mutating func tick(at now: MonotonicInstant, previous: PowerDecision?) {
        if let last = lastTick, let previous {
            ledger.add(.receiver, state: previous.receiver.stateName, current: previous.meanCurrent(profile),
                       seconds: (now - last).secondsDouble)
        }
        lastTick = now
    }
}
