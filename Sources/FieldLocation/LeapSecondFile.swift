import Foundation
import NMEA

/// Reads the leap-second list a board names (`[receiver] leap_seconds`) or the replay is given.
public enum LeapSecondFile {
    /// Why a list could not be used.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// The file.
        public var path: String
        /// What was wrong: unreadable, or the list's own error with its line.
        public var reason: String
        public var description: String { "leap-second list \(path): \(reason)" }
    }

    /// The table in the file at `path`.
    /// - Throws: ``Failure`` naming the file and, for a malformed list, the line.
    public static func load(_ path: String) throws(Failure) -> LeapSecondTable {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw Failure(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        do { return try LeapSecondTable(leapSecondsList: text) } catch {
            throw Failure(path: path, reason: error.description)
        }
    }

    /// The table in the file at `path`, or the built-in ``LeapSecondTable/iers`` when there is no path
    /// or the file cannot be used (the engine starts anyway; `fieldloc replay --leap-seconds` reports
    /// the same failure as an error).
    public static func table(_ path: String?) -> LeapSecondTable {
        guard let path, let table = try? load(path) else { return .iers }
        return table
    }
}
