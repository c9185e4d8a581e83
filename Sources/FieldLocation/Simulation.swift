import Foundation
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware

/// One run of the power policy against the simulated receiver on a virtual clock: the policy
/// decides every second, an executor wakes and sleeps the receiver model as the decision says,
/// the receiver's fixes go out as NMEA through the real framer, parser and epoch assembler, and
/// the delivered locations are compared with the ground truth.
public struct PolicySimulation: Sendable {
    /// The result of a run.
    public struct Result: Sendable {
        /// Scenario name.
        public var scenario: String
        /// Receiver profile name.
        public var receiver: String
        /// Accuracy level.
        public var accuracy: DesiredAccuracy
        /// Simulated seconds.
        public var duration: Double
        /// Receiver charge, mAh.
        public var energy: Double
        /// Mean receiver current, mA.
        public var meanCurrent: Double
        /// 95th percentile of the distance between the last delivered location and the truth,
        /// sampled every second (what an application believes), metres.
        public var p95Error: Double
        /// 95th percentile of the error of each delivered fix at its own time, metres.
        public var p95FixError: Double
        /// Locations delivered.
        public var fixesDelivered: Int
        /// Wake-ups by kind.
        public var starts: [StartKind: Int]
        /// Seconds per receiver state.
        public var timeInState: [String: Double]
        /// The energy ledger.
        public var ledger: EnergyLedger
        /// The charge the receiver's backup current alone draws over the run, mAh.
        public var backupFloor: Double
        /// Charge drawn after the first delivered fix, mAh.
        public var energyAfterFirstFix: Double
        /// The backup floor over the time after the first delivered fix, mAh.
        public var backupFloorAfterFirstFix: Double
    }

    /// The truth.
    public var trajectory: Trajectory
    /// Scenario name (for the result).
    public var scenario: String
    /// The receiver.
    public var profile: ReceiverProfile
    /// The client's demand.
    public var demand: ClientDemand
    /// Seconds the unit has been still before the start (a parked unit has been still for long).
    public var stillBeforeStart: Double = 0
    /// Random seed of the receiver's error.
    public var seed: UInt64 = 1

    /// Creates a simulation.
    public init(trajectory: Trajectory, scenario: String, profile: ReceiverProfile, demand: ClientDemand) {
        self.trajectory = trajectory
        self.scenario = scenario
        self.profile = profile
        self.demand = demand
    }

    /// Runs it.
    public func run() -> Result {
        let policy = PowerPolicy(profile: profile)
        var model = GNSSReceiverModel(profile: profile, state: .backup, hasEphemeris: true, seed: seed)
        var ledger = EnergyLedger()
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, provenance: .simulator))
        let duration = Int(trajectory.duration)
        var stillFor = stillBeforeStart
        var lastFix: (time: Double, latitude: Double, longitude: Double, accuracy: Double, speed: Double)? = nil
        var recentSpeeds: [(Double, Double)] = []
        var delivered: (latitude: Double, longitude: Double)? = nil
        var believedErrors: [Double] = []
        var fixErrors: [Double] = []
        var deliveredCount = 0
        var windowStart: Double? = nil
        var windowHasGoodFix = false
        var nextWake = 0.0
        var timeInState: [String: Double] = [:]
        var firstFixAt: Double? = nil
        var chargeAfterFirstFix = 0.0
        let budget = demand.desiredAccuracy?.budget
        for second in 0..<duration {
            let t = Double(second)
            let truth = trajectory.at(t)
            let moving = truth.speed > 0.2
            stillFor = moving ? 0 : stillFor + 1
            // Speeds of the fixes of the last 15 minutes: sparse schedules see few fixes, and a fix taken
            // at a traffic light must not make the policy believe the car is slow.
            recentSpeeds.removeAll { t - $0.0 > 900 }
            let sortedSpeeds = recentSpeeds.map(\.1).sorted()
            let speed95 = sortedSpeeds.isEmpty ? nil : sortedSpeeds[min(sortedSpeeds.count - 1, Int(Double(sortedSpeeds.count) * 0.95))]
            let state = PolicyState(timeSinceFix: lastFix.map { t - $0.time }, recentSpeed: speed95, moving: moving,
                                    stillFor: stillFor, ephemerisAge: model.ephemerisAge,
                                    satellitesUsed: lastFix == nil ? 0 : 9, horizontalAccuracy: lastFix?.accuracy)
            let decision = policy.decide([demand], state: state)
            var cyclic = false
            switch decision.receiver {
            case .continuous:
                model.wake()
                windowStart = nil
            case .cyclicTracking:
                model.wake(cyclic: true)
                cyclic = true
                windowStart = nil
            case .periodic(let period, let onTime, let sleep):
                if model.isAwake {
                    if windowStart == nil {
                        windowStart = t
                        windowHasGoodFix = false
                        nextWake = (lastFix?.time ?? t) + period
                    }
                    let fresh = (model.ephemerisAge ?? .infinity) < policy.ephemerisRefreshAge
                    let start = windowStart ?? t
                    if (windowHasGoodFix && fresh) || t - start > onTime + 60 {
                        model.sleep(sleep)
                        windowStart = nil
                        nextWake = max(nextWake, start + period)
                    }
                } else if t >= nextWake {
                    model.wake()
                    windowStart = t
                    windowHasGoodFix = false
                    nextWake = t + period
                }
            case .idle(let sleep):
                let stale = (model.ephemerisAge ?? .infinity) >= policy.ephemerisRefreshAge
                if decision.ephemerisUpkeep != nil && stale {
                    model.wake()
                } else if model.isAwake && (lastFix != nil || !moving) {
                    model.sleep(sleep)
                }
                windowStart = nil
            }
            timeInState[model.state.rawValue, default: 0] += 1
            ledger.add(.receiver, state: model.state.rawValue, current: model.current, seconds: 1)
            if firstFixAt != nil { chargeAfterFirstFix += model.current / 3600 }
            if let error = model.step(cyclicWanted: cyclic) {
                let (latitude, longitude) = Self.offset(truth.latitude, truth.longitude, north: error.north, east: error.east)
                var fix: Fix? = nil
                for sentence in Self.sentences(second: second, latitude: latitude, longitude: longitude,
                                               speed: truth.speed, course: truth.course, accuracy: error.accuracy) {
                    let bytes = Array(sentence.utf8)
                    bytes.withUnsafeBufferPointer { buffer in
                        stream.feed(buffer.span) { fix = $0 }
                    }
                }
                stream.finish { if fix == nil { fix = $0 } }
                if let fix, let lat = fix.latitude, let lon = fix.longitude {
                    let accuracy = error.accuracy
                    lastFix = (t, lat, lon, accuracy, fix.speed ?? truth.speed)
                    recentSpeeds.append((t, fix.speed ?? truth.speed))
                    if budget == nil || accuracy <= max(budget ?? 0, 5) { windowHasGoodFix = true }
                    let passes: Bool
                    if let d = demand.distanceFilter, let last = delivered {
                        passes = Geodesy.distance(latitude1: last.latitude, longitude1: last.longitude, latitude2: lat, longitude2: lon) >= d
                    } else {
                        passes = true
                    }
                    if passes {
                        delivered = (lat, lon)
                        deliveredCount += 1
                        if firstFixAt == nil { firstFixAt = t }
                        fixErrors.append(Geodesy.distance(latitude1: lat, longitude1: lon, latitude2: truth.latitude, longitude2: truth.longitude))
                    }
                }
            }
            if let believed = delivered {
                believedErrors.append(Geodesy.distance(latitude1: believed.latitude, longitude1: believed.longitude,
                                                       latitude2: truth.latitude, longitude2: truth.longitude))
            }
        }
        let hours = Double(duration) / 3600
        return Result(
            scenario: scenario, receiver: profile.name, accuracy: demand.desiredAccuracy ?? .best, duration: Double(duration),
            energy: ledger.charge(.receiver), meanCurrent: hours > 0 ? ledger.charge(.receiver) / hours : 0,
            p95Error: Self.percentile95(believedErrors), p95FixError: Self.percentile95(fixErrors),
            fixesDelivered: deliveredCount, starts: model.starts, timeInState: timeInState, ledger: ledger,
            backupFloor: profile.backup * hours, energyAfterFirstFix: chargeAfterFirstFix,
            backupFloorAfterFirstFix: profile.backup * (Double(duration) - (firstFixAt ?? Double(duration))) / 3600)
    }

    /// The 95th percentile (nearest rank); 0 for no values.
    static func percentile95(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((0.95 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, rank))]
    }

    static func offset(_ latitude: Double, _ longitude: Double, north: Double, east: Double) -> (Double, Double) {
        let earth = 6_371_008.8
        let lat = latitude + north / earth * 180 / Double.pi
        let lon = longitude + east / (earth * cos(latitude * Double.pi / 180)) * 180 / Double.pi
        return (lat, lon)
    }

    /// A GGA, GST and RMC for one epoch on 2026-06-01 (checksums computed), as a receiver prints them.
    static func sentences(second: Int, latitude: Double, longitude: Double, speed: Double, course: Double,
                          accuracy: Double) -> [String] {
        let secondsOfDay = (43_200 + second) % 86_400
        let day = 1 + (43_200 + second) / 86_400
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let time = two(secondsOfDay / 3600) + two(secondsOfDay / 60 % 60) + two(secondsOfDay % 60) + ".00"
        func angle(_ value: Double, degreesDigits: Int) -> String {
            let a = abs(value)
            let degrees = Int(a)
            let minutes = (a - Double(degrees)) * 60
            let minuteText = FixText.fixed(minutes, 5)
            let paddedMinutes = minutes < 10 ? "0" + minuteText : minuteText
            var d = "\(degrees)"
            while d.count < degreesDigits { d = "0" + d }
            return d + paddedMinutes
        }
        let lat = angle(latitude, degreesDigits: 2) + (latitude >= 0 ? ",N" : ",S")
        let lon = angle(longitude, degreesDigits: 3) + (longitude >= 0 ? ",E" : ",W")
        let sigma = accuracy / 2.45
        let gga = NMEACommand("GPGGA,\(time),\(lat),\(lon),1,09,0.9,12.0,M,-30.0,M,,").sentence
        let gst = NMEACommand("GPGST,\(time),\(FixText.fixed(sigma, 1)),\(FixText.fixed(sigma, 1)),\(FixText.fixed(sigma, 1)),0.0,\(FixText.fixed(sigma, 2)),\(FixText.fixed(sigma, 2)),\(FixText.fixed(sigma * 1.5, 2))").sentence
        let rmc = NMEACommand("GPRMC,\(time),A,\(lat),\(lon),\(FixText.fixed(speed / 0.514444, 2)),\(FixText.fixed(course, 1)),\(two(day))0626,,,A").sentence
        return [gga + "\r\n", gst + "\r\n", rmc + "\r\n"]
    }
}
