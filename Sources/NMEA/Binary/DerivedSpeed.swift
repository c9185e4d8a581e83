extension EpochMerger {
    /// Gives a binary epoch without a velocity (UBX NAV-POSLLH or NAV-POSECEF alone, as timing units
    /// send them) the speed from the previous delivered fix's position over the time between them, as
    /// the assembler does for an NMEA epoch without a speed sentence and gpsd does for every fix
    /// (``Fix/speedIsDerived`` marks it). Only with a ``DistanceFunction``; only between 2D/3D fixes.
    mutating func deriveSpeed(_ fix: inout Fix) {
        guard fix.mode >= .twoD, let latitude = fix.latitude, let longitude = fix.longitude, let time = fix.time else {
            if fix.mode < .twoD { previousPosition = nil }
            return
        }
        defer { previousPosition = (latitude, longitude, time) }
        guard fix.speed == nil, fix.binaryProtocol != nil, let distance, let previous = previousPosition,
              time > previous.time,
              case let (elapsed, false) = time.nanosecondsSinceEpoch.subtractingReportingOverflow(previous.time.nanosecondsSinceEpoch)
        else { return }
        let speed = distance(previous.latitude, previous.longitude, latitude, longitude) / (Double(elapsed) / 1e9)
        if speed.isFinite, speed < 9999.9 {
            fix.speed = speed
            fix.speedIsDerived = true
        }
    }
}
