import BoardConfig
import Foundation
import LocationServices

/// The access policy: who may use location services and how exactly, for clients of the daemon
/// and for in-process managers. A line-based file (`/etc/fieldloc/access.policy` by convention):
///
/// ```
/// # fieldloc access policy
/// default = when-in-use          # always | when-in-use | denied | restricted
/// accuracy = full                # full | reduced
/// user alice = always            # per user (daemon clients, by peer credentials)
/// group field = always           # per group
/// control = root, @fieldloc-admin # who may send control commands (?DEVICE=)
/// purpose navigation = Turn-by-turn guidance   # purpose keys for temporary full accuracy
/// ```
/// Errors name the file, line and key.
public struct AccessPolicy: Sendable, Hashable {
    /// Status for clients without their own line.
    public var defaultStatus: AuthorizationStatus = .authorizedAlways
    /// Accuracy for everybody (a purpose key lifts `reduced` temporarily).
    public var accuracy: AccuracyAuthorization = .fullAccuracy
    /// Status per user name.
    public var users: [String: AuthorizationStatus] = [:]
    /// Status per group name.
    public var groups: [String: AuthorizationStatus] = [:]
    /// Users (and `@group`s) allowed to send control commands.
    public var control: [String] = ["root"]
    /// Purpose keys that grant temporary full accuracy, with their explanation.
    public var purposes: [String: String] = [:]

    /// The policy with no file: everything allowed at full accuracy, control for root only.
    public init() {}

    /// Why a policy file was refused.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file.
        public var file: String
        /// 1-based line.
        public var line: Int
        /// What is wrong.
        public var reason: String
        public var description: String { "\(file):\(line): \(reason)" }
    }

    static func status(_ word: String) -> AuthorizationStatus? {
        switch word {
        case "always": return .authorizedAlways
        case "when-in-use": return .authorizedWhenInUse
        case "denied": return .denied
        case "restricted": return .restricted
        default: return nil
        }
    }

    /// Parses policy text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ParseError) -> AccessPolicy {
        var policy = AccessPolicy()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            line = Substring(line.trimmingCharacters(in: .whitespaces))
            if line.isEmpty { continue }
            guard let eq = line.firstIndex(of: "=") else {
                throw ParseError(file: file, line: number, reason: "expected 'key = value'")
            }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            let words = key.split(separator: " ").map(String.init)
            func statusValue() throws(ParseError) -> AuthorizationStatus {
                guard let s = status(value) else {
                    throw ParseError(file: file, line: number, reason: "key '\(key)': '\(value)' is not always, when-in-use, denied or restricted")
                }
                return s
            }
            switch words.first {
            case "default" where words.count == 1: policy.defaultStatus = try statusValue()
            case "accuracy" where words.count == 1:
                switch value {
                case "full": policy.accuracy = .fullAccuracy
                case "reduced": policy.accuracy = .reducedAccuracy
                default: throw ParseError(file: file, line: number, reason: "key 'accuracy': '\(value)' is not full or reduced")
                }
            case "user" where words.count == 2: policy.users[words[1]] = try statusValue()
            case "group" where words.count == 2: policy.groups[words[1]] = try statusValue()
            case "control" where words.count == 1:
                policy.control = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            case "purpose" where words.count == 2:
                guard !value.isEmpty else { throw ParseError(file: file, line: number, reason: "purpose '\(words[1])' needs an explanation") }
                policy.purposes[words[1]] = value
            default:
                throw ParseError(file: file, line: number,
                                 reason: "unknown key '\(key)' (known: default, accuracy, user NAME, group NAME, control, purpose KEY)")
            }
        }
        return policy
    }

    /// Loads a policy file; a missing file gives the default policy.
    public static func load(_ path: String) throws(ParseError) -> AccessPolicy {
        guard FileManager.default.fileExists(atPath: path) else { return AccessPolicy() }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ParseError(file: path, line: 0, reason: "cannot be read as UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// The status for a user with its groups: the user's line, else the first group line (in
    /// the order given), else the default.
    public func status(user: String, groups memberOf: [String]) -> AuthorizationStatus {
        if let s = users[user] { return s }
        for g in memberOf { if let s = groups[g] { return s } }
        return defaultStatus
    }

    /// Whether a user (with its groups) may send control commands.
    public func allowsControl(user: String, groups memberOf: [String]) -> Bool {
        control.contains(user) || memberOf.contains { control.contains("@" + $0) }
    }
}
