/// How RSSI becomes a distance and a proximity: the log-distance path-loss model
/// `RSSI(d) = P₁ − 10·n·log₁₀(d)`, with P₁ the beacon's calibrated power at 1 m (iBeacon's
/// measured power, AltBeacon's reference RSSI) and `n` the path-loss exponent, applied to an
/// RSSI smoothed over a time window with outliers trimmed (see docs/BEACONS.md).
public struct RangingModel: Sendable, Hashable {
    /// The path-loss exponent `n`: 2 in free space, 2-3 indoors.
    public var pathLossExponent: Double = 2.0
    /// Seconds of samples the smoothing uses (at walking pace, 2 s lag the truth by about 1.4 m).
    public var window: Double = 2
    /// The fraction of the window's samples dropped at each end (lowest and highest RSSI) before
    /// averaging: fades and reflections do not move the estimate.
    public var trimFraction: Double = 0.25
    /// Seconds without an advertisement after which a beacon's proximity is `unknown`.
    public var silenceTimeout: Double = 5
    /// Seconds without an advertisement after which a beacon is no longer reported at all.
    public var forgetAfter: Double = 15
    /// Distances up to this are `immediate`, metres.
    public var immediateLimit: Double = 0.5
    /// Distances up to this are `near`, metres; beyond, `far`.
    public var nearLimit: Double = 4
    /// Samples kept per beacon (a beacon advertising every 100 ms puts 20 in the 2 s window).
    public var capacity: Int = 64
    /// The RSSI at 1 m a site calibration measured (`beacon_power_1m`), dBm: when set it replaces
    /// the power every beacon advertises; `nil` uses the advertised one.
    public var siteMeasuredPower: Double? = nil

    /// The default model.
    public init() {}

    /// The distance in metres at which the model expects `rssi` from a beacon calibrated to
    /// `measuredPower` at 1 m.
    public func distance(rssi: Double, measuredPower: Double) -> Double {
        let exponent = (measuredPower - rssi) / (10 * max(pathLossExponent, 0.1))
        return min(max(Decibels.pow10(exponent), 0.01), 1000)
    }

    /// The RSSI the model expects at `distance` metres.
    public func rssi(atDistance distance: Double, measuredPower: Double) -> Double {
        measuredPower - 10 * pathLossExponent * Decibels.log10(max(distance, 0.01))
    }

    /// The proximity of a distance.
    public func proximity(distance: Double) -> BeaconProximity {
        distance <= immediateLimit ? .immediate : distance <= nearLimit ? .near : .far
    }

    /// Trims `fraction` of `values` at each end of their sorted order and averages the rest
    /// (sorts `values` in place).
    public static func trimmedMean(_ values: UnsafeMutableBufferPointer<Double>, fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        var values = values
        values.sort()
        let drop = min(Int(Double(values.count) * max(0, min(fraction, 0.49))), (values.count - 1) / 2)
        var sum = 0.0
        for index in drop..<(values.count - drop) { sum += values[index] }
        return sum / Double(values.count - 2 * drop)
    }
}

/// Powers and logarithms with the standard library only (no Foundation, no C), for the path-loss model.
enum Decibels {
    /// 10^x and log₁₀ with the standard library only (exp and log through the binary exponent).
    static func pow10(_ x: Double) -> Double { Decibels.exp(x * 2.302585092994046) }
    static func log10(_ x: Double) -> Double { Decibels.ln(x) / 2.302585092994046 }

    /// Natural logarithm for positive finite `x`: x = m·2^e with m in [1, 2), ln m by the atanh series.
    static func ln(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 ? -.infinity : .nan }
        let e = Double(x.exponent)
        let m = x.significand
        let s = (m - 1) / (m + 1), s2 = s * s
        var term = s, sum = 0.0
        var k = 1.0
        while k < 60 {
            sum += term / k
            term *= s2
            k += 2
        }
        return 2 * sum + e * 0.6931471805599453
    }

    /// e^x: 2^k · e^r with |r| ≤ ln 2 / 2, e^r by its Taylor series.
    static func exp(_ x: Double) -> Double {
        guard x.isFinite else { return x > 0 ? .infinity : x.isNaN ? .nan : 0 }
        if x > 709 { return .infinity }
        if x < -745 { return 0 }
        let k = (x / 0.6931471805599453).rounded()
        let r = x - k * 0.6931471805599453
        var term = 1.0, sum = 1.0
        for n in 1...20 {
            term *= r / Double(n)
            sum += term
        }
        return Double(sign: .plus, exponent: Int(k), significand: sum)
    }
}

/// The beacons heard and their recent samples: advertisements in, ranged ``Beacon`` values out.
///
/// Adding a sample of a beacon already known allocates nothing (each beacon's samples are a ring
/// of ``RangingModel/capacity``); times are seconds on any monotonic clock.
public struct BeaconRanger: Sendable {
    /// A beacon's identity.
    public struct Key: Hashable, Sendable {
        /// The proximity UUID, major and minor.
        public var uuid: BeaconUUID, major: UInt16, minor: UInt16
        /// A key.
        public init(uuid: BeaconUUID, major: UInt16, minor: UInt16) {
            self.uuid = uuid
            self.major = major
            self.minor = minor
        }
    }

    struct Track: Sendable {
        var measuredPower: Int
        var times: [Double]
        var rssis: [Double]
        var next = 0
        var count = 0
        var lastHeard: Double
        /// Bit i: heard during whole second `maskSecond − i` (the last 64 seconds).
        var heardMask: UInt64 = 0
        var maskSecond = Int.min
    }

    /// The model.
    public var model: RangingModel
    var tracks: [Key: Track] = [:]

    /// A ranger with `model`.
    public init(model: RangingModel = RangingModel()) { self.model = model }

    /// Beacons known (heard within ``RangingModel/forgetAfter`` at the last ``prune(at:)``).
    public var count: Int { tracks.count }

    /// Adds one advertisement of a beacon: its RSSI in dBm at `time` seconds.
    public mutating func add(_ key: Key, measuredPower: Int, rssi: Int, at time: Double) {
        let capacity = max(1, model.capacity)
        // Through the values view: the track is changed in place (the dictionary's optional
        // subscript would copy its two rings on every advert).
        if let index = tracks.index(forKey: key) {
            tracks.values[index].record(rssi: Double(rssi), measuredPower: measuredPower, at: time, capacity: capacity)
        } else {
            var track = Track(measuredPower: measuredPower, times: Array(repeating: 0, count: capacity),
                              rssis: Array(repeating: 0, count: capacity), lastHeard: time)
            track.record(rssi: Double(rssi), measuredPower: measuredPower, at: time, capacity: capacity)
            tracks[key] = track
        }
    }

    /// Drops beacons silent for longer than ``RangingModel/forgetAfter``.
    public mutating func prune(at now: Double) {
        let limit = model.forgetAfter
        tracks = tracks.filter { now - $0.value.lastHeard <= limit }
    }

    /// When a beacon covered by `constraint` was last heard, or `nil`.
    public func lastHeard(matching constraint: BeaconIdentityConstraint) -> Double? {
        var latest: Double?
        for (key, track) in tracks where constraint.matches(uuid: key.uuid, major: key.major, minor: key.minor) {
            latest = max(latest ?? track.lastHeard, track.lastHeard)
        }
        return latest
    }

    /// When a beacon covered by `constraint` was last heard, and in how many of the last `window`
    /// whole seconds up to `now` one was heard (at most 64): the evidence beacon regions enter on.
    public func presence(matching constraint: BeaconIdentityConstraint, at now: Double, window: Int = 10) -> BeaconPresence {
        var mask: UInt64 = 0
        var latest: Double?
        let second = Int((now.isFinite ? now : 0).rounded(.down))
        for (key, track) in tracks where constraint.matches(uuid: key.uuid, major: key.major, minor: key.minor) {
            latest = max(latest ?? track.lastHeard, track.lastHeard)
            let shift = second - track.maskSecond
            if shift >= 0 && shift < 64 { mask |= track.heardMask << UInt64(shift) }
        }
        let bits = max(0, min(window, 64))
        let recent = bits == 64 ? mask : mask & ((UInt64(1) << UInt64(bits)) - 1)
        return BeaconPresence(lastHeard: latest, recentSeconds: recent.nonzeroBitCount)
    }

    /// The beacons covered by `constraint` at `now`, nearest first (unknown ones last), as
    /// Core Location orders them.
    public func beacons(satisfying constraint: BeaconIdentityConstraint, at now: Double) -> [Beacon] {
        var result: [Beacon] = []
        for (key, track) in tracks where constraint.matches(uuid: key.uuid, major: key.major, minor: key.minor) {
            guard now - track.lastHeard <= model.forgetAfter else { continue }
            result.append(beacon(key, track, at: now))
        }
        result.sort { a, b in
            let ka = a.accuracy < 0 ? Double.infinity : a.accuracy, kb = b.accuracy < 0 ? Double.infinity : b.accuracy
            if ka != kb { return ka < kb }
            return (a.uuid, a.major, a.minor) < (b.uuid, b.major, b.minor)
        }
        return result
    }

    /// The smoothed RSSI of a beacon at `now` (trimmed mean over the window), `nil` when silent.
    public func smoothedRSSI(_ key: Key, at now: Double) -> Double? {
        guard let track = tracks[key] else { return nil }
        return smoothed(track, at: now)
    }

    func smoothed(_ track: Track, at now: Double) -> Double? {
        guard now - track.lastHeard <= model.silenceTimeout else { return nil }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: max(track.count, 1)) { buffer -> Double? in
            var n = 0
            for index in 0..<track.count where now - track.times[index] <= model.window && track.times[index] <= now {
                buffer[n] = track.rssis[index]
                n += 1
            }
            return RangingModel.trimmedMean(UnsafeMutableBufferPointer(rebasing: buffer[0..<n]), fraction: model.trimFraction)
        }
    }

    func beacon(_ key: Key, _ track: Track, at now: Double) -> Beacon {
        guard let rssi = smoothed(track, at: now) else {
            return Beacon(uuid: key.uuid, major: key.major, minor: key.minor, proximity: .unknown, accuracy: -1, rssi: 0,
                          timestamp: track.lastHeard)
        }
        let distance = model.distance(rssi: rssi, measuredPower: model.siteMeasuredPower ?? Double(track.measuredPower))
        return Beacon(uuid: key.uuid, major: key.major, minor: key.minor, proximity: model.proximity(distance: distance),
                      accuracy: distance, rssi: Int(rssi.rounded()), timestamp: track.lastHeard)
    }
}

extension BeaconRanger.Track {
    mutating func record(rssi: Double, measuredPower: Int, at time: Double, capacity: Int) {
        self.measuredPower = measuredPower
        times[next] = time
        rssis[next] = rssi
        next = (next + 1) % capacity
        count = min(count + 1, capacity)
        lastHeard = max(lastHeard, time)
        let second = Int((time.isFinite ? time : 0).rounded(.down))
        if maskSecond == Int.min || second > maskSecond {
            let shift = maskSecond == Int.min ? 64 : second - maskSecond
            heardMask = shift >= 64 ? 0 : heardMask << UInt64(shift)
            maskSecond = second
        }
        let age = maskSecond - second
        if age < 64 { heardMask |= UInt64(1) << UInt64(age) }
    }
}

/// What a beacon region decides on: when a covered beacon was last heard, and in how many recent
/// whole seconds.
public struct BeaconPresence: Sendable, Hashable {
    /// When a covered beacon was last heard, seconds; `nil` if never (or forgotten).
    public var lastHeard: Double?
    /// In how many of the recent seconds one was heard.
    public var recentSeconds: Int

    /// A presence.
    public init(lastHeard: Double?, recentSeconds: Int) {
        self.lastHeard = lastHeard
        self.recentSeconds = recentSeconds
    }
}
