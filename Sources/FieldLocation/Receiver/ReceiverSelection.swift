import HardwareInterfaces
import LocationServices

/// The best-source rule of a board with several receivers: which receiver's fixes are delivered,
/// decided again at each fix with a position (docs/RECEIVER-CONFIG.md, "Several receivers").
///
/// 1. Only a *live* source competes: its port is open and its last fix is no older than 1.5 of
///    its own epochs (the interval between its last two fixes, 1 s until it has two).
/// 2. The better fix type wins: RTK fixed, RTK float, differential, 3D, 2D, dead reckoning alone.
/// 3. Then the smaller horizontal accuracy estimate (68 %); a source with an estimate beats one
///    without, and estimates within ``accuracyTie`` of each other are a tie.
/// 4. Then age: in a tie the source already chosen stays (one source's fixes are not interleaved
///    with another's), and among the others the younger fix wins.
///
/// A source whose port fails is dropped at once (``drop(_:)``), so the next fix of another live
/// source is delivered: the gap is at most that source's epoch.
struct ReceiverSelection {
    /// What is known of one source's last fix with a position.
    struct Candidate: Equatable {
        var fixType: LocationFixType
        var accuracy: Double?
        var at: MonotonicInstant
        var epoch: Duration
        /// The receiver's UTC time of the fix, when it gave one.
        var time: Double?
    }

    /// A source's epoch after a fix at `now`: the interval between the receiver's times of its last
    /// two fixes when both have one (epochs read in one burst, from a port's buffer, keep their
    /// own spacing), else between their arrivals when at least 50 ms apart; 1 s until there are
    /// two; at most 10 s.
    static func epoch(after previous: Candidate?, _ location: Location, at now: MonotonicInstant) -> Duration {
        guard let previous else { return .seconds(1) }
        if let time = location.timestamp, let before = previous.time, time > before {
            return min(.milliseconds(Int64((time - before) * 1000)), .seconds(10))
        }
        let interval = now - previous.at
        return interval >= .milliseconds(50) ? min(interval, .seconds(10)) : previous.epoch
    }

    /// Relative difference of two accuracy estimates below which they count as equal (10 %): the
    /// estimates of two receivers under the same sky wander by that much from epoch to epoch.
    static let accuracyTie = 0.10
    /// A source's last fix stays live for this many of its epochs.
    static let liveEpochs = 1.5

    private(set) var candidates: [Int: Candidate] = [:]
    /// The source whose fixes are delivered now; `nil` before the first fix.
    private(set) var chosen: Int?

    /// The rank of a fix type for rule 2 (higher is better).
    static func rank(_ type: LocationFixType) -> Int {
        switch type {
        case .rtkFixed: return 6
        case .rtkFloat: return 5
        case .dgps: return 4
        case .threeD: return 3
        case .twoD: return 2
        case .deadReckoning: return 1
        case .none: return 0
        }
    }

    /// Source `source` gave `location` at `now`; returns whether it is delivered (its source is
    /// the one chosen after it).
    mutating func offer(_ source: Int, _ location: Location, at now: MonotonicInstant) -> Bool {
        candidates[source] = Candidate(fixType: location.fixType, accuracy: location.knownHorizontalAccuracy, at: now,
                                       epoch: Self.epoch(after: candidates[source], location, at: now), time: location.timestamp)
        chosen = best(at: now)
        return chosen == source
    }

    /// Forgets `source` (its port failed or closed): it competes again with its next fix.
    mutating func drop(_ source: Int) {
        candidates[source] = nil
        if chosen == source { chosen = nil }
    }

    /// Whether `source`'s last fix is still live at `now`.
    func isLive(_ source: Int, at now: MonotonicInstant) -> Bool {
        guard let c = candidates[source] else { return false }
        return (now - c.at).secondsDouble <= c.epoch.secondsDouble * Self.liveEpochs
    }

    /// The best live source at `now` by rules 2 to 4.
    func best(at now: MonotonicInstant) -> Int? {
        let live = candidates.keys.sorted().filter { isLive($0, at: now) }
        return live.reduce(nil) { (best: Int?, next: Int) -> Int? in
            guard let best else { return next }
            return better(next, than: best) ? next : best
        }
    }

    /// Whether source `a` beats source `b` (both live).
    func better(_ a: Int, than b: Int) -> Bool {
        guard let x = candidates[a], let y = candidates[b] else { return candidates[a] != nil }
        let (rx, ry) = (Self.rank(x.fixType), Self.rank(y.fixType))
        if rx != ry { return rx > ry }
        switch (x.accuracy, y.accuracy) {
        case let (ax?, ay?):
            if abs(ax - ay) > Self.accuracyTie * max(ax, ay) { return ax < ay }
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): break
        }
        if a == chosen { return true }
        if b == chosen { return false }
        return x.at > y.at
    }
}
