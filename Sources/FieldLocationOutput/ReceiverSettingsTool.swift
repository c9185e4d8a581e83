import BoardConfig
import FieldLocation
import FieldLocationStore
import Foundation
import HardwareInterfaces
import ReceiverProtocols

/// `fieldloc receiver show|set|save|restore`: the receiver's settings read, changed in RAM, saved
/// to its non-volatile memory, or put back, outside the engine (the daemon must not be running:
/// it holds the port).
///
/// `set` keeps the settings it read before its first change in a snapshot file (the state folder,
/// `receiver-BOARD.settings`, written atomically); later `set`s keep that first snapshot, and
/// `restore` writes it back and removes the file.
public final class ReceiverSettingsTool {
    /// The board.
    public let board: BoardDescription
    private let port: any SerialPort
    private let driver: any ReceiverDriver

    /// Why the tool cannot act.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public var description: String
    }

    /// Opens `board`'s receiver port on `platform` and builds its driver. A board in `passive`
    /// mode, or a receiver without a command set, is refused.
    public init(board: BoardDescription, platform: any EnginePlatform) throws(Problem) {
        guard let receiver = board.receiver else { throw Problem(description: "board \(board.name) has no receiver") }
        guard receiver.configMode != .passive else {
            throw Problem(description: "board \(board.name) has receiver_config = \"passive\": nothing is written to its receiver")
        }
        do {
            port = try platform.hardware.openSerialPort(platform.receiverPort(for: board), baudRate: receiver.baudRate)
        } catch {
            throw Problem(description: "receiver port: \(error.description)")
        }
        // `family = "auto"`: identified first, as the engine does on the receiver's arrival.
        var board = board
        var generation: UBloxGeneration?
        if receiver.detectsFamily {
            let found = try? ReceiverDetector(port: port).identifyOnArrival(passive: false, deadline: port.clock.now().advanced(by: .seconds(10)))
            guard let identity = found?.identity else {
                port.close()
                throw Problem(description: "family = \"auto\": the receiver was not identified (\(found?.reason ?? "the port failed")); name its family in the board file")
            }
            board.receiver = receiver.identified(as: identity.family, model: identity.model ?? identity.ubloxGeneration?.rawValue)
            generation = identity.ubloxGeneration
        }
        self.board = board
        let lines = (try? platform.receiverLines(for: board)) ?? ReceiverLines()
        guard let driver = ReceiverBringUp.driver(for: board, port: port, lines: lines, ubloxGeneration: generation) else {
            port.close()
            throw Problem(description: "a generic NMEA receiver takes no commands")
        }
        self.driver = driver
    }

    deinit { port.close() }

    private var configurable: any ReceiverConfigurable {
        get throws(Problem) {
            guard let configurable = driver as? any ReceiverConfigurable else {
                throw Problem(description: "\(driver.family) receivers: reading and saving settings is not supported yet (docs/RECEIVER-CONFIG.md)")
            }
            return configurable
        }
    }

    /// The current settings.
    public func show() throws(Problem) -> ReceiverSettingsSnapshot {
        do { return try configurable.readSettings() } catch let error as ReceiverError {
            throw Problem(description: error.description)
        } catch {
            throw Problem(description: "\(error)")
        }
    }

    /// Reads the settings (kept in `snapshotPath` unless a snapshot is there already), then
    /// changes the given ones in RAM. Returns the settings read.
    @discardableResult
    public func set(rateMilliseconds: Int?, outputs: [NMEASentenceType: Int]?, snapshotPath: String) throws(Problem) -> ReceiverSettingsSnapshot {
        let before = try show()
        if !FileManager.default.fileExists(atPath: snapshotPath) {
            do { try AtomicFile.write(Data(Self.text(before).utf8), to: snapshotPath) } catch {
                throw Problem(description: error.description)
            }
        }
        do {
            if let outputs { try driver.setOutputs(outputs) }
            if let rateMilliseconds { try driver.setRate(milliseconds: rateMilliseconds) }
        } catch {
            throw Problem(description: error.description)
        }
        return before
    }

    /// Saves the current settings to non-volatile memory and verifies them.
    public func save() throws(Problem) {
        let current = try show()
        do { try configurable.saveSettings(expected: current) } catch let error as ReceiverError {
            throw Problem(description: error.description)
        } catch {
            throw Problem(description: "\(error)")
        }
    }

    /// Writes the snapshot in `snapshotPath` back and removes the file; returns what was restored.
    public func restore(snapshotPath: String) throws(Problem) -> ReceiverSettingsSnapshot {
        guard let data = FileManager.default.contents(atPath: snapshotPath) else {
            throw Problem(description: "\(snapshotPath): no snapshot (`fieldloc receiver set` writes one before its first change)")
        }
        let snapshot = try Self.snapshot(String(decoding: data, as: UTF8.self), file: snapshotPath)
        do { try configurable.restore(snapshot, modelChanged: false) } catch let error as ReceiverError {
            throw Problem(description: error.description)
        } catch {
            throw Problem(description: "\(error)")
        }
        try? FileManager.default.removeItem(atPath: snapshotPath)
        return snapshot
    }

    /// Parses a sentence list for ``set(rateMilliseconds:outputs:snapshotPath:)``: `GGA,RMC` (each
    /// every fix) or `GGA:1,GSV:5`; sentences not named are switched off.
    public static func outputs(_ list: String) throws(Problem) -> [NMEASentenceType: Int] {
        var outputs: [NMEASentenceType: Int] = [:]
        for item in list.split(separator: ",") {
            let pair = item.split(separator: ":")
            guard (1...2).contains(pair.count), let type = NMEASentenceType(rawValue: pair[0].lowercased()),
                  let rate = pair.count == 2 ? Int(pair[1]) : 1, (0...5).contains(rate) else {
                throw Problem(description: "'\(item)' is not a sentence (GGA, GLL, GSA, GSV, RMC, VTG, GST, ZDA) with an optional :N (0...5)")
            }
            outputs[type] = rate
        }
        guard !outputs.isEmpty else { throw Problem(description: "no sentence named") }
        return outputs
    }

    /// ``show()`` as ``text(_:)`` (for the CLI).
    public func showText() throws(Problem) -> String { Self.text(try show()) }

    /// ``set(rateMilliseconds:outputs:snapshotPath:)`` with a sentence list as ``outputs(_:)`` reads it;
    /// returns the settings read, as ``text(_:)``.
    public func set(rateMilliseconds: Int?, sentences: String?, snapshotPath: String) throws(Problem) -> String {
        let outputs = try sentences.map { (list: String) throws(Problem) in try Self.outputs(list) }
        return Self.text(try set(rateMilliseconds: rateMilliseconds, outputs: outputs, snapshotPath: snapshotPath))
    }

    /// ``restore(snapshotPath:)``, as ``text(_:)``.
    public func restoreText(snapshotPath: String) throws(Problem) -> String { Self.text(try restore(snapshotPath: snapshotPath)) }

    /// The snapshot file of `board` in `directory`.
    public static func snapshotPath(board: String, directory: String) -> String {
        (directory as NSString).appendingPathComponent("receiver-\(board).settings")
    }

    /// `rate=1000` and `outputs=GGA:1,RMC:1` lines (members that could not be read are left out).
    public static func text(_ snapshot: ReceiverSettingsSnapshot) -> String {
        var lines: [String] = []
        if let rate = snapshot.rateMilliseconds { lines.append("rate=\(rate)") }
        if let outputs = snapshot.outputs {
            let list = NMEASentenceType.allCases.compactMap { s in outputs[s].map { "\(s.rawValue.uppercased()):\($0)" } }
            lines.append("outputs=" + list.joined(separator: ","))
        }
        if let model = snapshot.dynamicModel { lines.append("model=\(model)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads ``text(_:)``'s form; errors name the file and line.
    public static func snapshot(_ text: String, file: String) throws(Problem) -> ReceiverSettingsSnapshot {
        var snapshot = ReceiverSettingsSnapshot()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let parts = line.split(separator: "=", maxSplits: 1)
            let bad = Problem(description: "\(file):\(index + 1): '\(line)' is not rate=MS, outputs=GGA:1,... or model=N")
            guard parts.count == 2 else { throw bad }
            switch parts[0] {
            case "rate": guard let v = Int(parts[1]) else { throw bad }; snapshot.rateMilliseconds = v
            case "model": guard let v = Int(parts[1]) else { throw bad }; snapshot.dynamicModel = v
            case "outputs":
                var outputs: [NMEASentenceType: Int] = [:]
                for item in parts[1].split(separator: ",") {
                    let pair = item.split(separator: ":")
                    guard pair.count == 2, let type = NMEASentenceType(rawValue: pair[0].lowercased()), let rate = Int(pair[1]) else { throw bad }
                    outputs[type] = rate
                }
                snapshot.outputs = outputs
            default: throw bad
            }
        }
        return snapshot
    }
}
