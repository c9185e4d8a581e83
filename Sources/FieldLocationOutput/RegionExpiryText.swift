import Foundation

/// Reads a region's expiry as typed on the command line: a duration (`90s`, `45m`, `2h`, `7d`, or
/// plain seconds) from now, or an ISO 8601 date (`2026-11-30T18:00:00Z`, with a zone).
public enum RegionExpiryText {
    /// Why an expiry could not be read.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// The text given.
        public var text: String
        public var description: String {
            "--expires '\(text.prefix(64))': neither a duration (90s, 45m, 2h, 7d) nor an ISO 8601 date with a zone (2026-11-30T18:00:00Z)"
        }
    }

    /// The expiry as UTC seconds since 1970, with `now` the current UTC seconds.
    public static func parse(_ text: String, now: Double) throws(ParseError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [(Character, Double)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        if let last = trimmed.last, let unit = units.first(where: { $0.0 == last }), let value = Double(trimmed.dropLast()),
           value.isFinite, value > 0 {
            return now + value * unit.1
        }
        if let seconds = Double(trimmed), seconds.isFinite, seconds > 0 { return now + seconds }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: trimmed) { return date.timeIntervalSince1970 }
        }
        throw ParseError(text: text)
    }
}
