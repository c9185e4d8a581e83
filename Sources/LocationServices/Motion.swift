import HardwareInterfaces

/// Decides from accelerometer samples whether the unit moves: the standard deviation of the
/// acceleration magnitude over a short window against a threshold well above sensor noise
/// (a still unit shows a few mg; walking or driving shows tens to hundreds).
public struct MotionDetector: Sendable {
    /// Window length, seconds.
    public var window = 2.0
    /// Standard deviation of |a| that counts as motion, g.
    public var threshold = 0.015
    private var samples: [(at: MonotonicInstant, magnitude: Double)] = []
    /// When the unit was last seen moving; `nil` before any motion.
    public private(set) var lastMotion: MonotonicInstant?
    /// When the detector first had a full window of stillness after motion (or since the start).
    public private(set) var stillSince: MonotonicInstant?

    /// Creates a detector.
    public init() {}

    /// Adds a sample (acceleration in g, any axes); returns whether the unit moves now, or `nil`
    /// while the window is still filling.
    @discardableResult
    public mutating func add(x: Double, y: Double, z: Double, at now: MonotonicInstant) -> Bool? {
        let magnitude = (x * x + y * y + z * z).squareRoot()
        guard magnitude.isFinite else { return moving }
        samples.append((now, magnitude))
        let horizon = now.advanced(by: .milliseconds(Int64(-window * 1000)))
        samples.removeAll { $0.at < horizon }
        guard samples.count >= 4, let first = samples.first, (now - first.at).secondsDouble >= window * 0.7 else { return moving }
        let mean = samples.reduce(0) { $0 + $1.magnitude } / Double(samples.count)
        let variance = samples.reduce(0) { $0 + ($1.magnitude - mean) * ($1.magnitude - mean) } / Double(samples.count - 1)
        if variance.squareRoot() > threshold {
            lastMotion = now
            stillSince = nil
            moving = true
        } else {
            if stillSince == nil { stillSince = first.at }
            moving = false
        }
        return moving
    }

    /// The last decision; `nil` before a full window.
    public private(set) var moving: Bool?

    /// Seconds the unit has been still at `now` (0 while moving or undecided).
    public func stillFor(at now: MonotonicInstant) -> Double {
        guard moving == false, let since = stillSince else { return 0 }
        return max(0, (now - since).secondsDouble)
    }

    /// Adds the verdict of an interval the accelerometer chip watched by itself (its motion latch,
    /// armed or last read at `start` and read and cleared at `end`), in place of samples.
    ///
    /// `moved`: the chip saw motion at some instant in the interval; not knowing when, the
    /// detector takes the latest, `end` (the unit counts as moving now and its stillness starts
    /// again from there). Not moved: the unit was still for the whole interval, so a stillness
    /// already under way goes on, and one after motion (or with no verdict yet) starts at `start`.
    /// Either way the sample window is emptied: samples that follow start a new window, and the
    /// verdict stands until that window is full.
    public mutating func addLatched(moved: Bool, from start: MonotonicInstant, to end: MonotonicInstant) {
        samples.removeAll()
        if moved {
            lastMotion = max(end, lastMotion ?? end)
            stillSince = nil
            moving = true
        } else if moving != false || stillSince == nil {
            stillSince = start
            moving = false
        }
    }

    /// Forgets the window (after a gap in sampling).
    public mutating func reset() { samples.removeAll() }
}
