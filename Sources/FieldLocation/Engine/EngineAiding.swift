import HardwareInterfaces
import LocationServices
import NMEA
import ReceiverProtocols

extension LocationEngine {
    /// How fast a unit is taken to move away from its last fix while the receiver sleeps, m/s: the
    /// last fix's accuracy grows by this much for every second of its age (a vehicle's average
    /// with its stops; a unit left in place is over-estimated, never under).
    public static let aidingDriftSpeed = 10.0
    /// The largest position accuracy worth sending, metres: within a few hundred kilometres a
    /// position still tells the receiver which satellites are up; beyond, nothing is sent (a
    /// 68 % accuracy of 10 m reaches it after about 8 h 20 min).
    public static let aidingPositionLimit = 300_000.0
    /// The time's accuracy is the clock's error bound plus this, seconds: the frame is stamped
    /// before it is written, and arrives within tens of milliseconds at 9600 baud.
    public static let aidingTransferAllowance = 0.1

    /// What the receiver is given at a power-up or after a long sleep: the synchronised system
    /// clock's time and the last fix, or nothing. Both are needed: without a synchronised clock
    /// nothing is sent (a position without time does not say which satellites are up), and without
    /// a last fix whose grown accuracy is within ``aidingPositionLimit`` nothing either (a time
    /// alone has no start-time figure in the data sheets).
    func aidingData() -> ReceiverAiding? {
        let now = clock.now()
        guard let time = platform.synchronisedTime(at: now), time.utcSeconds.isFinite, time.maximumError.isFinite,
              let last = lastLocation, let accuracy = last.knownHorizontalAccuracy else { return nil }
        let grown = accuracy + max(0, last.age(at: now)) * Self.aidingDriftSpeed
        guard grown <= Self.aidingPositionLimit else { return nil }
        let height = last.ellipsoidalAltitude ?? last.altitude ?? 0
        return ReceiverAiding(time: .init(utcSeconds: time.utcSeconds, accuracy: time.maximumError + Self.aidingTransferAllowance),
                              position: .init(latitude: last.latitude, longitude: last.longitude, height: height, accuracy: grown))
    }
}

extension LocationEngine {
    /// The fixes drained from the receiver's own buffer at start (the board's `batch`), oldest
    /// first, as locations for the clients that batch or defer (``ClientRegistry``): their
    /// `timestamp` is the receiver's fix time; `receivedAt` is the drain, a nanosecond apart each
    /// to keep their order through a batch.
    func receiverBatchDrained(_ fixes: [Fix]) {
        let now = clock.now()
        let ordered = fixes.sorted { ($0.time?.nanosecondsSinceEpoch ?? 0) < ($1.time?.nanosecondsSinceEpoch ?? 0) }
        let count = UInt64(ordered.count)
        let locations = ordered.enumerated().compactMap { index, fix -> Location? in
            let back = count - UInt64(index)
            let at = MonotonicInstant(nanoseconds: now.nanoseconds >= back ? now.nanoseconds - back : 0)
            return Location(fix, receivedAt: at)
        }
        registry.receiverLogDrained(locations, now: now)
    }
}

