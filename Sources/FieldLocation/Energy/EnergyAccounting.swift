import HardwareInterfaces
import PowerPolicy

/// What one receiver cost between two ticks is priced by: the decision in force for it, its own
/// profile, whether it was there (its port open) and whether the engine commands it.
struct ReceiverCharge {
    /// The decision in force for it during the stretch; `nil` before its first.
    var decision: PowerDecision?
    /// Its model's power figures.
    var profile: ReceiverProfile
    /// Whether its port was open: an absent receiver (an unplugged USB dongle) costs the unit nothing.
    var present = true
    /// Whether the engine commands it; one it cannot (generic NMEA, `passive`) tracks as it
    /// runs: continuously.
    var commanded = true

    /// The state name and mean current (mA) it is charged at, `nil` when nothing is charged.
    var price: (state: String, current: Double)? {
        guard present, let decision else { return nil }
        guard commanded else { return ("continuous", profile.tracking) }
        return (decision.receiver.stateName, decision.meanCurrent(profile))
    }
}

/// The receiver's charge estimated from the policy's decisions: each stretch between two ticks is
/// charged at the mean current of the decision in force during it (the receiver profile's
/// data-sheet currents). A platform that measures the receiver (a simulated one keeps a ledger)
/// is asked instead; see ``EnginePlatform/measuredReceiverEnergy()``.
///
/// Each stretch's charge is also attributed to the clients whose demand was in force during it
/// (``ClientEnergyLedger``): the platform's measured charge when it has one, so the clients' charges
/// sum to the total a status readout shows, else the estimate.
///
/// Input: the decision in force, the demands behind it and the instant of each tick. Output: an
/// ``EnergyLedger`` and a ``ClientEnergyLedger``.
///
/// Only the thread that advances the engine touches it (see `LocationEngine`).
struct EnergyAccounting {
    /// The receiver profile whose currents price each mode.
    let profile: ReceiverProfile
    /// The charge so far.
    private(set) var ledger = EnergyLedger()
    /// The charge so far by client.
    private(set) var byClient = ClientEnergyLedger()
    /// Each receiver's own charge so far, the board's first first (``tick(at:receivers:demands:measured:)``).
    private(set) var receiverLedgers: [EnergyLedger] = []
    private var lastTick: MonotonicInstant?
    /// The demands in force since the last tick.
    private var demands: [ClientDemand] = []
    /// Per component, the charge already attributed (of the measured ledger when there is one).
    private var attributed: [PowerComponent: Double] = [:]

    init(profile: ReceiverProfile) { self.profile = profile }

    /// A tick at `now`: the time since the previous tick is charged to `previous`, the decision
    /// that was in force during it (nothing before the first decision), and the charge counted
    /// since (`measured`, the platform's ledger, when it has one) to the clients of the demands
    /// in force during it; `demands` are the ones in force from now on.
    mutating func tick(at now: MonotonicInstant, previous: PowerDecision?, demands next: [ClientDemand] = [],
                       measured: EnergyLedger? = nil) {
        tick(at: now, receivers: [ReceiverCharge(decision: previous, profile: profile)], demands: next, measured: measured)
    }

    /// A tick at `now` on a board whose receivers each had a decision of their own: each receiver's
    /// stretch is charged at its own decision and profile (see ``ReceiverCharge``), to its own
    /// ledger and to the total; the rest as ``tick(at:previous:demands:measured:)``.
    mutating func tick(at now: MonotonicInstant, receivers: [ReceiverCharge], demands next: [ClientDemand] = [],
                       measured: EnergyLedger? = nil) {
        if receiverLedgers.count < receivers.count {
            receiverLedgers += Array(repeating: EnergyLedger(), count: receivers.count - receiverLedgers.count)
        }
        if let last = lastTick {
            let seconds = (now - last).secondsDouble
            for (index, receiver) in receivers.enumerated() {
                guard let price = receiver.price else { continue }
                ledger.add(.receiver, state: price.state, current: price.current, seconds: seconds)
                receiverLedgers[index].add(.receiver, state: price.state, current: price.current, seconds: seconds)
            }
        }
        attribute(measured ?? ledger)
        demands = next
        lastTick = now
    }

    /// The clients' charges with what `now` (the platform's ledger as of now; `nil` for the
    /// estimate, which grows only at ticks) counted since the last tick attributed to the demands
    /// in force, so they sum to that ledger's total.
    func byClient(upTo now: EnergyLedger?) -> ClientEnergyLedger {
        var copy = self
        copy.attribute(now ?? ledger)
        return copy.byClient
    }

    /// Attributes the charge `source` counted beyond what is attributed already to the demands in force.
    private mutating func attribute(_ source: EnergyLedger) {
        for component in PowerComponent.allCases {
            let total = source.charge(component)
            let delta = total - attributed[component, default: 0]
            guard delta > 0 else { continue }
            attributed[component] = total
            let owners = demands.filter { component == .receiver ? $0.desiredAccuracy != nil : $0.wantsHeading }
            byClient.add(delta, among: owners.map { Self.owner(of: $0.client) })
        }
    }

    /// The client a demand belongs to: its name without the service in brackets (`fleet#3
    /// (regions)` is `fleet#3`'s).
    static func owner(of demand: String) -> String {
        guard let bracket = demand.firstRange(of: " (") else { return demand }
        return String(demand[..<bracket.lowerBound])
    }
}
