/// A part whose energy is counted.
public enum PowerComponent: String, Sendable, Hashable, CaseIterable, Codable {
    /// The GNSS receiver's supply rail.
    case receiver
    /// The magnetometer.
    case magnetometer
    /// The accelerometer.
    case accelerometer
    /// The Bluetooth radio while it scans for beacons.
    case bluetooth
}

/// Charge drawn per component and state over time: the integral of current, in mAh, with the
/// time spent in each state.
public struct EnergyLedger: Sendable, Hashable {
    /// One component's account in one state.
    public struct Entry: Sendable, Hashable {
        /// Charge, mAh.
        public var charge: Double = 0
        /// Time, seconds.
        public var seconds: Double = 0

        /// An empty account.
        public init() {}
    }

    /// Accounts by component, then by state name.
    public private(set) var entries: [PowerComponent: [String: Entry]] = [:]

    /// An empty ledger.
    public init() {}

    /// Adds `seconds` at `current` mA in `state` to `component`. Negative or non-finite inputs are ignored.
    public mutating func add(_ component: PowerComponent, state: String, current: Double, seconds: Double) {
        guard current.isFinite, seconds.isFinite, current >= 0, seconds > 0 else { return }
        var entry = entries[component]?[state] ?? Entry()
        entry.charge += current * seconds / 3600
        entry.seconds += seconds
        entries[component, default: [:]][state] = entry
    }

    /// Total charge of one component, mAh.
    public func charge(_ component: PowerComponent) -> Double {
        entries[component]?.values.reduce(0) { $0 + $1.charge } ?? 0
    }

    /// Total charge of every component, mAh.
    public var totalCharge: Double { PowerComponent.allCases.reduce(0) { $0 + charge($1) } }

    /// Total time counted for one component, seconds.
    public func seconds(_ component: PowerComponent) -> Double {
        entries[component]?.values.reduce(0) { $0 + $1.seconds } ?? 0
    }

    /// Mean current of one component over the time counted for it, mA.
    public func meanCurrent(_ component: PowerComponent) -> Double {
        let s = seconds(component)
        return s > 0 ? charge(component) * 3600 / s : 0
    }
}

/// Charge attributed to the clients whose demand caused it: each stretch of a component's charge
/// is split evenly among the clients that wanted that component then (locations for the receiver,
/// headings for the sensors); a stretch nobody wanted (the receiver idle or in backup) goes to
/// ``unattributed``. Passive clients add no demand, so they are charged nothing. The charges
/// always sum to the charge counted.
public struct ClientEnergyLedger: Sendable, Hashable {
    /// The account of charge no client's demand caused.
    public static let unattributed = "(no client)"

    /// Charge by client name, mAh.
    public private(set) var charges: [String: Double] = [:]

    /// An empty ledger.
    public init() {}

    /// Splits `charge` mAh evenly among `clients` (each counted once), or charges it to
    /// ``unattributed`` when there are none. Negative or non-finite charges are ignored.
    public mutating func add(_ charge: Double, among clients: [String]) {
        guard charge.isFinite, charge > 0 else { return }
        let owners = Array(Set(clients))
        if owners.isEmpty {
            charges[Self.unattributed, default: 0] += charge
            return
        }
        let share = charge / Double(owners.count)
        for owner in owners { charges[owner, default: 0] += share }
    }

    /// The charge of one client, mAh (0 for a client never charged).
    public func charge(of client: String) -> Double { charges[client] ?? 0 }

    /// The sum of every account, mAh.
    public var total: Double { charges.values.reduce(0, +) }

    /// The accounts, the largest first (ties by name), with `clients` that were never charged
    /// (passive ones, say) listed at 0.
    public func accounts(including clients: [String] = []) -> [(client: String, charge: Double)] {
        var all = charges
        for c in clients where all[c] == nil { all[c] = 0 }
        return all.map { (client: $0.key, charge: $0.value) }
            .sorted { $0.charge != $1.charge ? $0.charge > $1.charge : $0.client < $1.client }
    }
}
