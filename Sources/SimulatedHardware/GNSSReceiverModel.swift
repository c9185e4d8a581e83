import PowerPolicy
import RealModule

/// The power state of a simulated receiver.
public enum SimulatedReceiverState: String, Sendable, Hashable {
    /// No supply and no backup: everything is lost.
    case off
    /// Only V_BCKP: RTC and ephemerides kept.
    case backup
    /// Software standby: RAM and RTC kept.
    case standby
    /// Searching for the first fix after a wake.
    case acquiring
    /// Tracking continuously.
    case tracking
    /// Receiver-managed cyclic tracking.
    case cyclic
}

/// How a wake-up started, by what the receiver still knew.
public enum StartKind: String, Sendable, Hashable, CaseIterable {
    /// Valid ephemerides, time and position: seconds.
    case hot
    /// Almanac and time but stale ephemerides: about half a minute.
    case warm
    /// Nothing kept: about half a minute in open sky, longer elsewhere.
    case cold
}

/// A GNSS receiver's behaviour in time: power states with their currents, time to first fix from
/// what it kept (ephemeris age, RTC), ephemeris collection while tracking, and a position error
/// that behaves like a real one (a Gauss-Markov process of 1.5 m per axis with a one-minute
/// correlation, larger just after a wake and in cyclic tracking). It is driven second by second
/// by a simulation or by the serial-port receiver.
public struct GNSSReceiverModel: Sendable {
    /// The receiver's currents and start times.
    public let profile: ReceiverProfile
    /// The current state.
    public private(set) var state: SimulatedReceiverState
    /// Seconds since the start of the simulation.
    public private(set) var now: Double = 0
    /// When the ephemerides in memory were collected (seconds); `nil` when there are none.
    public private(set) var ephemerisCollectedAt: Double?
    /// Whether the RTC runs (lost when power and backup are both gone).
    public private(set) var clockValid: Bool
    /// When the current acquisition ends with a fix.
    public private(set) var acquiredAt: Double?
    /// How the current or last wake started.
    public private(set) var lastStart: StartKind?
    /// Starts of each kind so far.
    public private(set) var starts: [StartKind: Int] = [:]
    /// Whether the receiver grows its own orbit predictions from the ephemerides it collects
    /// (u-blox AssistNow Autonomous once enabled, MediaTek EASY always). Predictions grow only
    /// while it is on and the receiver tracks: switching it on at a wake helps the next start.
    public var predictionsEnabled = false {
        didSet { if predictionsEnabled && !oldValue && state == .tracking { predictionsCollectedAt = ephemerisCollectedAt } }
    }
    /// When the ephemerides the orbit predictions grew from were collected (seconds); `nil`: none.
    public private(set) var predictionsCollectedAt: Double?
    /// Whether the current or last start was shortened by aiding, and how many were.
    public private(set) var lastStartAided = false
    public private(set) var aidedStarts = 0
    /// When the current acquisition began (seconds), and what the host gave it: a time and a position.
    private var wokeAt: Double?
    private var positionGiven = false
    /// Seconds of uninterrupted tracking so far (for ephemeris collection).
    public private(set) var trackingFor: Double = 0
    /// Per-axis 1σ of the steady-state position error, metres: 1.5 m gives a horizontal CEP50
    /// of 1.8 m, inside the 1.5-2.5 m that the data sheets of these modules state for open sky.
    public var errorSigma = 1.5
    /// Correlation time of the error, seconds.
    public var errorCorrelation = 60.0
    /// How long an ephemeris set stays usable, seconds (GPS: about 4 h).
    public var ephemerisLifetime = 14_400.0
    /// Continuous tracking needed to collect ephemerides, seconds.
    public var ephemerisCollection = 30.0
    private var errorNorth = 0.0, errorEast = 0.0
    private var wakeError = 0.0
    private var random: SplitMix64

    /// Creates a receiver in `state`; `warm` gives it fresh ephemerides and a running clock.
    public init(profile: ReceiverProfile, state: SimulatedReceiverState = .backup, hasEphemeris: Bool = true, seed: UInt64 = 1) {
        self.profile = profile
        self.state = state
        self.clockValid = state != .off
        self.ephemerisCollectedAt = hasEphemeris ? 0 : nil
        self.random = SplitMix64(seed: seed)
    }

    /// Age of the ephemerides, seconds; `nil` when there are none.
    public var ephemerisAge: Double? { ephemerisCollectedAt.map { now - $0 } }

    /// Whether the receiver produces a fix this second.
    public var hasFix: Bool { state == .tracking || state == .cyclic }

    /// Whether the receiver is powered and awake.
    public var isAwake: Bool { state == .acquiring || state == .tracking || state == .cyclic }

    /// The current it draws now, mA.
    public var current: Double {
        switch state {
        case .off: return 0
        case .backup: return profile.backup
        case .standby: return profile.standby
        case .acquiring: return profile.acquisition
        case .tracking: return profile.tracking
        case .cyclic: return profile.cyclicTracking ?? profile.tracking
        }
    }

    /// Wakes the receiver (from standby, backup or off) or keeps it awake. `cyclic` asks for
    /// receiver-managed cyclic tracking once a fix exists.
    public mutating func wake(cyclic: Bool = false) {
        switch state {
        case .tracking, .cyclic:
            state = cyclic && profile.cyclicTracking != nil ? .cyclic : .tracking
        case .acquiring:
            break
        case .off, .backup, .standby:
            let kind: StartKind
            if !clockValid || ephemerisCollectedAt == nil {
                kind = clockValid ? .warm : .cold
            } else if let age = ephemerisAge, age < ephemerisLifetime {
                kind = .hot
            } else {
                kind = .warm
            }
            let ttff: Double
            switch kind {
            case .hot: ttff = state == .standby ? profile.hotStartFromStandby : profile.hotStartFromBackup
            case .warm: ttff = profile.warmStart
            case .cold: ttff = profile.coldStart
            }
            lastStart = kind
            starts[kind, default: 0] += 1
            state = .acquiring
            acquiredAt = now + ttff
            wokeAt = now
            positionGiven = false
            lastStartAided = false
            trackingFor = 0
            wakeError = kind == .hot ? 4 : 8
        }
    }

    /// A time given is used when it is within this many seconds (the search window a known time
    /// narrows); a coarser one is ignored.
    public static let usefulTimeAccuracy = 10.0
    /// A position given is used when it is within this many metres: a few hundred kilometres
    /// still tell the receiver which satellites are up and their Doppler.
    public static let usefulPositionAccuracy = 300_000.0

    /// The host's aiding arrives: a time with `timeAccuracy` seconds and a position with
    /// `positionAccuracy` metres (either `nil` when not given). During an acquisition the start
    /// is recomputed from what the receiver now knows, and only ever shortened: fresh
    /// ephemerides and a time are a hot start as before; a time, a position and valid orbit
    /// predictions (grown while ``predictionsEnabled`` from ephemerides younger than the profile's
    /// prediction lifetime) an aided start (``ReceiverProfile/aidedStart``); a time and a position alone a
    /// warm start. A receiver that tracks keeps tracking. The receiver does not trust a position
    /// from before its sleep (it may have been carried): only a given one counts.
    public mutating func aid(timeAccuracy: Double?, positionAccuracy: Double?) {
        if let t = timeAccuracy, t.isFinite, t >= 0, t <= Self.usefulTimeAccuracy { clockValid = true }
        if let p = positionAccuracy, p.isFinite, p >= 0, p <= Self.usefulPositionAccuracy { positionGiven = true }
        guard state == .acquiring, let woke = wokeAt, let at = acquiredAt, clockValid else { return }
        var ttff: Double?
        if let age = ephemerisAge, age < ephemerisLifetime {
            ttff = profile.hotStartFromBackup
        } else if positionGiven, let grown = predictionsCollectedAt, now - grown < profile.predictionLifetime, let aided = profile.aidedStart {
            ttff = aided
        } else if positionGiven {
            ttff = profile.warmStart
        }
        guard let ttff, woke + ttff < at else { return }
        acquiredAt = max(now, woke + ttff)
        if !lastStartAided { aidedStarts += 1 }
        lastStartAided = true
    }

    /// Sends the receiver to sleep in `sleep` (standby or backup), or switches it off.
    public mutating func sleep(_ sleep: SleepState?) {
        switch sleep {
        case .standby?: state = .standby
        case .backup?: state = .backup
        case nil:
            state = .off
            clockValid = false
            ephemerisCollectedAt = nil
            predictionsCollectedAt = nil
        }
        acquiredAt = nil
        wokeAt = nil
        trackingFor = 0
    }

    /// Advances one second. Returns the position error of this second's fix (north, east, in
    /// metres) and the reported 95 % horizontal accuracy, when there is a fix.
    public mutating func step(cyclicWanted: Bool = false) -> (north: Double, east: Double, accuracy: Double)? {
        now += 1
        // Gauss-Markov error, always evolving so consecutive fixes are correlated.
        let a = Double.exp(-1 / errorCorrelation)
        let drive = errorSigma * (1 - a * a).squareRoot()
        errorNorth = a * errorNorth + drive * gaussian()
        errorEast = a * errorEast + drive * gaussian()
        if state == .acquiring, let at = acquiredAt, now >= at {
            state = cyclicWanted && profile.cyclicTracking != nil ? .cyclic : .tracking
            acquiredAt = nil
        }
        guard hasFix else { return nil }
        trackingFor += 1
        if trackingFor >= ephemerisCollection && state == .tracking {
            ephemerisCollectedAt = now
            if predictionsEnabled { predictionsCollectedAt = now }
        }
        let inflation = state == .cyclic ? 1.5 : 1.0
        let extra = wakeError * gaussian()
        wakeError *= Double.exp(-1 / 5)
        let north = errorNorth * inflation + extra
        let east = errorEast * inflation + extra * 0.7
        let sigma = (errorSigma * inflation * errorSigma * inflation + wakeError * wakeError).squareRoot()
        return (north, east, 2.45 * sigma)
    }

    mutating func gaussian() -> Double { random.gaussian() }
}
