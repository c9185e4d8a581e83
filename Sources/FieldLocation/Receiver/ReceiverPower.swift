import BoardConfig
import Devices
import PowerPolicy
import ReceiverProtocols

/// Power per receiver: each receiver of a board has its own policy (its model's figures, its
/// family's power modes) and gets its own decision for the clients' merged demand
/// (docs/RECEIVER-CONFIG.md, "Power per receiver").
extension ReceiverSubsystem {
    /// The power figures the policy decides `receiver`'s modes by: its model's row of the device
    /// catalogue, without cyclic tracking where its family has no receiver-managed power save
    /// (MediaTek, CASIC, generic NMEA: their 1-10 s periods run continuously at 1 Hz).
    static func powerProfile(of receiver: ReceiverDescription?) -> ReceiverProfile {
        let family = receiver?.family ?? .genericNMEA
        var profile = ReceiverModel.lookup(family: family, model: receiver?.model).powerProfile
        if !family.capabilities.powerModes.contains(.powerSave) { profile.cyclicTracking = nil }
        return profile
    }

    /// What its stretch since the last tick is charged by: the decision in force for it, its own
    /// profile, whether its port is open and whether the engine commands it.
    var charge: ReceiverCharge {
        ReceiverCharge(decision: decision, profile: policy.profile, present: port != nil, commanded: executor != nil)
    }

    /// Its power state for the sources listing: the decision's mode, and whether it is asleep
    /// now; `runs as it is` for a receiver the engine does not command.
    var powerState: String? {
        guard port != nil else { return nil }
        guard let executor else { return "runs as it is (not commanded)" }
        guard let decision else { return executor.awake ? "awake" : "asleep" }
        return "\(decision.receiver)\(executor.awake ? "" : ", asleep now")"
    }
}
