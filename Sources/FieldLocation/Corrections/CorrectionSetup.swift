import BoardConfig
import Foundation
import NTRIP

/// Turns a board's `[ntrip]` table and a program's options into an ``NTRIPConfiguration``.
///
/// The password comes, first found first, from the URL itself (discouraged: it shows in `ps`), a
/// password file named by the option, the environment variable `FIELDLOC_NTRIP_PASSWORD`, or
/// the board's `password_file`. A password file's first line is the password.
public enum CorrectionSetup {
    /// The environment variable that may hold the caster's password.
    public static let passwordVariable = "FIELDLOC_NTRIP_PASSWORD"

    /// Why the corrections cannot be set up: the text names the option, file or key.
    public struct SetupError: Error, CustomStringConvertible {
        /// What is wrong.
        public var description: String
    }

    /// The configuration from `url` (an option, overriding the board's) or the board's `[ntrip]`
    /// table; `nil` when neither asks for corrections.
    public static func configuration(board: BoardDescription, url: String?, passwordFile: String? = nil, gga: String? = nil,
                                     ggaInterval: Double? = nil, environment: [String: String] = [:]) throws(SetupError) -> NTRIPConfiguration? {
        guard let text = url ?? board.ntrip?.url else { return nil }
        var configuration: NTRIPConfiguration
        do { configuration = try NTRIPConfiguration(url: text) } catch {
            throw SetupError(description: url != nil ? "--ntrip: \(error)" : "board \(board.name) [ntrip] url: \(error)")
        }
        if let name = gga ?? board.ntrip?.gga {
            guard let policy = NTRIPGGAPolicy(rawValue: name) else {
                throw SetupError(description: "GGA policy '\(name)' is not auto, always or never")
            }
            configuration.gga = policy
        }
        if let interval = ggaInterval ?? board.ntrip?.ggaInterval {
            guard interval.isFinite, (1...3600).contains(interval) else {
                throw SetupError(description: "GGA interval \(interval) s is outside 1...3600")
            }
            configuration.ggaInterval = interval
        }
        if configuration.password == nil {
            if let file = passwordFile {
                configuration.password = try readPassword(file, what: "--ntrip-password-file")
            } else if let value = environment[passwordVariable] {
                configuration.password = value
            } else if let file = board.ntrip?.passwordFile {
                configuration.password = try readPassword(file, what: "board \(board.name) [ntrip] password_file")
            }
            if configuration.password != nil && configuration.user == nil {
                throw SetupError(description: "a caster password is given but the URL names no user (ntrip://USER@host/MOUNT)")
            }
        }
        return configuration
    }

    /// Sets up corrections on `engine` from its board's `[ntrip]` table and the options (see
    /// ``configuration(board:url:passwordFile:gga:ggaInterval:environment:)``) and starts the client.
    /// Returns a line for the log, or `nil` when no corrections are configured.
    public static func attach(to engine: LocationEngine, url: String?, passwordFile: String? = nil, gga: String? = nil,
                              ggaInterval: Double? = nil, environment: [String: String] = [:]) throws(SetupError) -> String? {
        guard let configuration = try configuration(board: engine.board, url: url, passwordFile: passwordFile, gga: gga,
                                                    ggaInterval: ggaInterval, environment: environment) else { return nil }
        guard let network = engine.platform.network else {
            throw SetupError(description: "board \(engine.board.name): NTRIP corrections need a network, and this platform has none")
        }
        engine.attachCorrections(NTRIPClient(configuration: configuration, network: network))
        return "NTRIP corrections from \(configuration.displayName) (\(configuration.version), GGA \(configuration.gga.rawValue))"
    }

    /// Whether `url` carries a password (which any user sees in `ps`).
    public static func hasPassword(_ url: String) -> Bool { NTRIPConfiguration.redacted(url) != url }

    static func readPassword(_ path: String, what: String) throws(SetupError) -> String {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw SetupError(description: "\(what) \(path): cannot be read (\(error.localizedDescription))")
        }
        guard data.count <= 4096 else { throw SetupError(description: "\(what) \(path): over 4096 bytes; the password goes alone on its first line") }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let password = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        guard !password.isEmpty else { throw SetupError(description: "\(what) \(path): the first line is empty") }
        return password
    }
}
