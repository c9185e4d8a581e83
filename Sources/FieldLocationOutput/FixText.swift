import FieldLocation
import NMEA

/// One-line human-readable summaries of fixes, for the CLI.
extension FixText {
    /// For example `2020-07-11T22:37:45.000Z 3D  38.1104940 -122.6268970 alt 83.1 m  0.02 m/s 54.7°  ±4.2 m`.
    public static func line(_ fix: Fix) -> String {
        var out = fix.time.map { $0.iso8601(fractionDigits: 3) } ?? (fix.timeOfDay.map { "(no date) \($0)" } ?? "(no time)")
        switch fix.mode {
        case .unknown, .noFix:
            out += " no fix"
            return out
        case .twoD: out += " 2D"
        case .threeD: out += " 3D"
        }
        if let lat = fix.latitude, let lon = fix.longitude {
            out += "  " + fixed(lat, 7) + " " + fixed(lon, 7)
        }
        if let alt = fix.altitudeMSL, fix.mode == .threeD { out += "  alt " + fixed(alt, 1) + " m" }
        if let speed = fix.speed { out += "  " + fixed(speed, 2) + " m/s" }
        if let course = fix.course { out += " " + fixed(course, 1) + "°" }
        if let accuracy = fix.horizontalAccuracy { out += "  ±" + fixed(accuracy, 1) + " m" }
        if let used = fix.satellitesUsed { out += "  \(used) sats" }
        return out
    }
}
