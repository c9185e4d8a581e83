/// A fix's position and time, kept to derive the next fix's speed from the distance between them, as
/// gpsd does for a fix that states none. The assembler derives an NMEA epoch's speed with it, the
/// merger a binary epoch's (``Fix/speedIsDerived`` marks both).
struct TimedPosition: Sendable {
    var latitude: Double
    var longitude: Double
    var time: UTCTime

    /// The fix's position and time, or `nil` when it lacks either.
    init?(_ fix: Fix) {
        guard let latitude = fix.latitude, let longitude = fix.longitude, let time = fix.time else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
    }

    /// The speed, m/s, from here to `next` over the time between them: `nil` unless `next` is later, and
    /// unless the result is finite and under 9999.9 m/s.
    func speed(to next: TimedPosition, distance: DistanceFunction) -> Double? {
        guard next.time > time,
              case let (elapsed, false) = next.time.nanosecondsSinceEpoch.subtractingReportingOverflow(time.nanosecondsSinceEpoch)
        else { return nil }
        let speed = distance(latitude, longitude, next.latitude, next.longitude) / (Double(elapsed) / 1e9)
        return speed.isFinite && speed < 9999.9 ? speed : nil
    }
}

extension EpochMerger {
    /// Gives a binary epoch without a velocity (UBX NAV-POSLLH or NAV-POSECEF alone, as timing units
    /// send them) the speed from the previous delivered fix's position over the time between them, as
    /// the assembler does for an NMEA epoch without a speed sentence and gpsd does for every fix
    /// (``Fix/speedIsDerived`` marks it). Only with a ``DistanceFunction``; only between 2D/3D fixes.
    mutating func deriveSpeed(_ fix: inout Fix) {
        guard fix.mode >= .twoD, let here = TimedPosition(fix) else {
            if fix.mode < .twoD { previousPosition = nil }
            return
        }
        defer { previousPosition = here }
        guard fix.speed == nil, fix.binaryProtocol != nil, let distance,
              let speed = previousPosition?.speed(to: here, distance: distance) else { return }
        fix.speed = speed
        fix.speedIsDerived = true
    }
}
