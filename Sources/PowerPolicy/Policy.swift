/// Where the receiver sleeps between fixes.
public enum SleepState: String, Sendable, Hashable {
    /// Software standby: RAM and RTC kept, woken by a UART byte; fast hot start.
    case standby
    /// Hardware backup: supply cut, V_BCKP keeps RTC and ephemerides; hot start after boot.
    case backup
}

/// What the receiver should do.
public enum ReceiverAction: Sendable, Hashable, CustomStringConvertible {
    /// Tracking continuously at `rate` Hz.
    case continuous(rate: Double)
    /// Receiver-managed cyclic tracking at 1 Hz (u-blox PSMCT).
    case cyclicTracking
    /// A fix every `period` seconds: wake, stay on for `onTime`, sleep in `sleep`.
    case periodic(period: Double, onTime: Double, sleep: SleepState)
    /// No fixes; wait in `sleep`.
    case idle(SleepState)

    /// A short state name for energy accounts: continuous, cyclic, periodic, idle.
    public var stateName: String {
        switch self {
        case .continuous: return "continuous"
        case .cyclicTracking: return "cyclic"
        case .periodic: return "periodic"
        case .idle: return "idle"
        }
    }

    public var description: String {
        switch self {
        case .continuous(let rate): return "continuous \(rate) Hz"
        case .cyclicTracking: return "cyclic tracking 1 Hz"
        case .periodic(let period, let onTime, let sleep):
            return "periodic every \(wholeNumberText(period)) s (\(wholeNumberText(onTime)) s on, \(sleep.rawValue) between)"
        case .idle(let sleep): return "idle (\(sleep.rawValue))"
        }
    }
}

/// What the magnetometer should do.
public enum MagnetometerAction: Sendable, Hashable, CustomStringConvertible {
    /// Continuous at `rate` Hz, high resolution.
    case continuous(rate: Double)
    /// Continuous low-power mode at `rate` Hz.
    case lowPower(rate: Double)
    /// Single-shot reads every `period` seconds, powered down between.
    case singleShot(period: Double)
    /// Powered down.
    case powerDown

    public var description: String {
        switch self {
        case .continuous(let rate): return "continuous \(rate) Hz"
        case .lowPower(let rate): return "low-power \(rate) Hz"
        case .singleShot(let period): return "single-shot every \(period) s"
        case .powerDown: return "power-down"
        }
    }
}

/// The policy's answer: what each part does now, and why.
public struct PowerDecision: Sendable, Hashable {
    /// The receiver's mode.
    public var receiver: ReceiverAction
    /// The magnetometer's mode.
    public var magnetometer: MagnetometerAction
    /// Whether the accelerometer watches for motion (wake-on-motion while idle or paused).
    public var motionDetection: Bool
    /// The sampling period the demand requires, seconds (`nil` for continuous).
    public var samplingPeriod: Double?
    /// Seconds of continuous tracking to schedule now to refresh ephemerides, if any.
    public var ephemerisUpkeep: Double?
    /// Whether location updates are paused for stillness.
    public var paused: Bool
    /// Tracking seconds per hour that keeping ephemerides fresh costs in this mode's steady
    /// state (30 s an hour for periodic schedules and for idling with location demand).
    public var upkeepPerHour: Double
    /// The client whose demand set the schedule.
    public var governingClient: String?
    /// Why, in words (for logs and the status readout).
    public var reasons: [String]
    /// The activity the receiver's dynamic model is set for: the most dynamic of the clients that
    /// want locations (``ActivityType/merged(_:)``); `nil` when none does.
    public var activity: ActivityType? = nil
    /// Whether motion detection may be left to the accelerometer chip's own motion latch, read
    /// every few seconds: no client wants locations, so no position is served on the strength of
    /// a stillness verdict until one comes (a paused client keeps fine-grained sampling: it is
    /// waiting for the motion to resume it).
    public var motionLatchSuffices = false

    /// The mean receiver current this decision costs in its steady state with `profile`, mA:
    /// the schedule plus ``upkeepPerHour`` of tracking spread over the hour.
    public func meanCurrent(_ profile: ReceiverProfile) -> Double {
        let upkeep = upkeepPerHour * profile.tracking / 3600
        switch receiver {
        case .continuous(let rate):
            // Higher rates cost a little more processing; data sheets give 1 Hz only.
            return profile.tracking * (rate > 1 ? 1.1 : 1)
        case .cyclicTracking:
            return profile.cyclicTracking ?? profile.tracking
        case .periodic(let period, let onTime, let sleep):
            let sleepCurrent = sleep == .standby ? profile.standby : profile.backup
            let on = min(onTime, period)
            return (on * profile.acquisition + (period - on) * sleepCurrent) / period + upkeep
        case .idle(let sleep):
            return (sleep == .standby ? profile.standby : profile.backup) + upkeep
        }
    }
}

/// A pure state machine from demand and state to actions: which receiver mode and rate, where
/// it sleeps between fixes, ephemeris upkeep, the magnetometer's mode.
///
/// For each client with an accuracy budget `A`, the period is the longest that keeps the
/// believed position within budget while the unit moves at `v`:
/// `T = min((A − e95) / (0.95 v), 0.5 · distanceFilter / v, T_max)`, with `v`
/// from recent fixes, the accelerometer and the activity's priors, and `e95` the expected 95 %
/// fix error (5 m tracking, 15 m for the first fix after a wake); a client with an update
/// interval has that period instead (shortened only by its distance filter while moving). The
/// most demanding client wins.
/// `T` then picks a rung: continuous, cyclic tracking (1-10 s, where the receiver has it and the
/// fix is good), periodic with software standby (below the receiver's crossover period) or
/// hardware backup (above it), or idle when the unit is still.
public struct PowerPolicy: Sendable {
    /// The receiver's energy facts.
    public var profile: ReceiverProfile
    /// Ephemeris older than this triggers an upkeep window, seconds (GPS refreshes every 2 h).
    public var ephemerisRefreshAge: Double = 7200
    /// Continuous tracking needed to collect ephemerides, seconds.
    public var upkeepDuration: Double = 30
    /// Stillness after which the unit counts as stationary for scheduling, seconds.
    public var stationaryAfter: Double = 20

    /// The longest time from a start or wake to the first fix that still counts as a hot start
    /// (ephemerides usable), seconds: halfway between the profile's slower hot start and its warm start.
    public var hotStartLimit: Double {
        (max(profile.hotStartFromBackup, profile.hotStartFromStandby) + profile.warmStart) / 2
    }

    /// Creates a policy for a receiver.
    public init(profile: ReceiverProfile) { self.profile = profile }

    /// The speed to plan with, m/s.
    func planningSpeed(_ state: PolicyState, _ activity: ActivityType) -> Double {
        if state.moving == false && state.stillFor >= stationaryAfter { return 0 }
        if let speed = state.recentSpeed, let age = state.timeSinceFix, age < 600 {
            return max(speed, activity.speedFloor)
        }
        return activity.speedCap
    }

    /// The period one client needs (`nil` = continuous, `.infinity` = no fix needed now).
    func period(for demand: ClientDemand, state: PolicyState) -> Double? {
        guard let accuracy = demand.desiredAccuracy else { return .infinity }
        if demand.oneShot { return nil }
        let v = planningSpeed(state, demand.activity)
        if demand.significantChangesOnly {
            return v == 0 ? .infinity : min(300, 0.5 * 500 / v)
        }
        if let interval = demand.updateInterval, interval > 0, interval.isFinite {
            // The client's own period (a logger's one fix every five minutes): kept when still too.
            if let d = demand.distanceFilter, d > 0, v > 0 { return min(interval, 0.5 * d / v) }
            return interval
        }
        if v == 0 && state.timeSinceFix == nil {
            // Still, but with no location at all yet: one fix is needed (a wake now), then idle.
            return accuracy.budget == nil ? nil : accuracy.maximumPeriod
        }
        if v == 0 && accuracy != .bestForNavigation {
            // Still: the last fix stays exact, so no level needs a new one until the unit moves
            // (wake on motion). Best for navigation keeps tracking: it is meant for external power.
            return .infinity
        }
        guard let budget = accuracy.budget else { return nil }
        let e95 = budget <= 10 ? 5.0 : 15.0
        var t = max(0, budget - e95) / (0.95 * v)
        if let d = demand.distanceFilter, d > 0 { t = min(t, 0.5 * d / v) }
        // Below the level's shortest periodic period the ladder moves to the next faster rung by
        // itself (cyclic tracking from 1 to 10 s, continuous below 1 s).
        return min(t, accuracy.maximumPeriod)
    }

    /// Whether this client's updates are paused for stillness (it allows pausing, has had a fix, and
    /// the unit has been still for its activity's pause time).
    public func isPaused(_ demand: ClientDemand, state: PolicyState) -> Bool {
        // A client that has no location yet is never paused: it gets its first fix.
        guard demand.pausesAutomatically, demand.desiredAccuracy != nil, !demand.significantChangesOnly, !demand.oneShot,
              state.timeSinceFix != nil, let after = demand.activity.pauseAfter else { return false }
        return state.moving == false && state.stillFor >= after
    }

    /// Decides what the hardware does for the merged demand of every client.
    public func decide(_ demands: [ClientDemand], state: PolicyState) -> PowerDecision {
        var reasons: [String] = []
        let location = demands.filter { $0.desiredAccuracy != nil }
        let active = location.filter { !isPaused($0, state: state) }
        let paused = !location.isEmpty && active.isEmpty
        var period: Double? = .infinity
        var governing: String? = nil
        var bestForNavigation = false
        for demand in active {
            if demand.desiredAccuracy == .bestForNavigation { bestForNavigation = true }
            let p = self.period(for: demand, state: state)
            if p == nil || (period != nil && p! < period!) {
                period = p
                governing = demand.client
            }
        }
        let receiver: ReceiverAction
        var upkeep: Double? = nil
        let ephemerisStale = state.ephemerisAge.map { $0 >= ephemerisRefreshAge } ?? true
        if location.isEmpty {
            receiver = .idle(.backup)
            reasons.append("no client wants locations")
        } else if paused {
            receiver = .idle(.backup)
            reasons.append("paused: still for \(Int(state.stillFor)) s")
            if ephemerisStale && state.ephemerisAge != nil { upkeep = upkeepDuration }
        } else if bestForNavigation {
            receiver = .continuous(rate: min(profile.navigationRate, profile.maximumRate))
            reasons.append("best for navigation: continuous at the navigation rate")
        } else if let t = period {
            if t.isInfinite {
                receiver = .idle(.backup)
                reasons.append("stationary: no fix needed until the unit moves")
                if ephemerisStale && state.ephemerisAge != nil { upkeep = upkeepDuration }
            } else if t < 1 {
                // Faster than 1 Hz buys no accuracy at these levels (only best for navigation asks for rate).
                receiver = .continuous(rate: 1)
                reasons.append("period below 1 s: continuous 1 Hz")
            } else if t < 10 {
                let fixGood = state.satellitesUsed >= 5
                if profile.cyclicTracking != nil && fixGood {
                    receiver = .cyclicTracking
                    reasons.append("period \(Int(t)) s: cyclic tracking")
                } else {
                    receiver = .continuous(rate: 1)
                    reasons.append(profile.cyclicTracking == nil
                        ? "period \(Int(t)) s, but \(profile.name) has no cyclic tracking: continuous 1 Hz"
                        : "period \(Int(t)) s, but cyclic tracking waits for a fix with 5 or more satellites")
                }
            } else {
                var t = t
                if state.failedAcquisitions >= 2 {
                    let backoff = Double(1 << min(state.failedAcquisitions - 1, 6))
                    t = min(3600, t * backoff)
                    reasons.append("\(state.failedAcquisitions) failed acquisitions: backing off to \(Int(t)) s")
                }
                let sleep: SleepState = t >= profile.crossoverPeriod ? .backup : .standby
                let onTime: Double
                if ephemerisStale {
                    // The next wake is a warm start; its long tracking window refreshes the ephemerides.
                    onTime = profile.warmStart
                    reasons.append("ephemerides missing or stale: the next wake is a warm start of \(wholeNumberText(profile.warmStart)) s")
                } else {
                    onTime = sleep == .standby ? profile.hotStartFromStandby : profile.hotStartFromBackup
                }
                receiver = .periodic(period: t, onTime: onTime, sleep: sleep)
                reasons.append("period \(wholeNumberText(t)) s: \(sleep.rawValue) between fixes (crossover \(wholeNumberText(profile.crossoverPeriod)) s)")
            }
        } else {
            receiver = .continuous(rate: 1)
            reasons.append("accuracy best: continuous 1 Hz")
        }
        if upkeep != nil { reasons.append("ephemerides are older than \(Int(ephemerisRefreshAge / 60)) min: \(Int(upkeepDuration)) s of tracking to refresh them") }

        // Heading: the most demanding heading client sets the magnetometer.
        let heading = demands.filter(\.wantsHeading)
        let magnetometer: MagnetometerAction
        if heading.isEmpty {
            magnetometer = .powerDown
        } else {
            let finest = heading.map { $0.headingFilter ?? 1 }.min() ?? 1
            if bestForNavigation || finest <= 5 {
                magnetometer = .continuous(rate: 20)
            } else if finest <= 30 {
                magnetometer = .lowPower(rate: 10)
            } else {
                magnetometer = .singleShot(period: 1)
            }
        }
        let idle: Bool
        if case .idle = receiver { idle = true } else { idle = false }
        var upkeepPerHour = 0.0
        if case .periodic = receiver { upkeepPerHour = upkeepDuration }
        if idle && !location.isEmpty { upkeepPerHour = upkeepDuration }
        return PowerDecision(receiver: receiver, magnetometer: magnetometer,
                             motionDetection: idle || paused || !location.isEmpty,
                             samplingPeriod: period.flatMap { $0.isInfinite ? nil : $0 },
                             ephemerisUpkeep: upkeep, paused: paused, upkeepPerHour: upkeepPerHour,
                             governingClient: governing, reasons: reasons, activity: .merged(location),
                             motionLatchSuffices: location.isEmpty)
    }
}

/// A rounded whole number as text, without an `Int` conversion that could trap on an infinite or
/// huge value (those print as Swift prints the `Double`). Shared with LocationServices.
package func wholeNumberText(_ x: Double) -> String {
    let r = x.rounded()
    return abs(r) < 1e15 ? String(Int(r)) : String(r)
}
