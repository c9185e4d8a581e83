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
