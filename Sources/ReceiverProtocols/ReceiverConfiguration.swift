import HardwareInterfaces
import NMEA

/// The receiver settings the engine changes (the navigation interval, the NMEA sentences, the
/// dynamic model), as read from the receiver before it changes them, so that `ram` mode can put
/// them back on exit. A `nil` member could not be read from this family.
public struct ReceiverSettingsSnapshot: Sendable, Equatable {
    /// The navigation (output) interval, ms.
    public var rateMilliseconds: Int?
    /// The NMEA sentences and their rates (every Nth fix; 0 off).
    public var outputs: [NMEASentenceType: Int]?
    /// The dynamic model, where the family reports it.
    public var dynamicModel: Int?
    /// u-blox M9/M10: the other configuration keys the engine writes, as read (the binary
    /// navigation messages' CFG-MSGOUT keys, CFG-UART1OUTPROT-UBX and -NMEA).
    public var ubloxValues: [UInt32: UInt64] = [:]
    /// u-blox 6/7/M8: the binary navigation messages' UART1 rates, as read (class << 8 | id).
    public var ubloxMessageRates: [UInt16: UInt8] = [:]

    /// A snapshot of the given values.
    public init(rateMilliseconds: Int? = nil, outputs: [NMEASentenceType: Int]? = nil, dynamicModel: Int? = nil) {
        self.rateMilliseconds = rateMilliseconds
        self.outputs = outputs
        self.dynamicModel = dynamicModel
    }
}

/// A driver that can read its receiver's settings, put them back, and save them so that they
/// survive a power cycle (see docs/RECEIVER-CONFIG.md for what each family reads, writes and restores).
public protocol ReceiverConfigurable {
    /// Reads the current (RAM) settings.
    func readSettings() throws(ReceiverError) -> ReceiverSettingsSnapshot
    /// Puts `snapshot`'s readable settings back (in RAM); an unreadable dynamic model goes back to
    /// the family's power-up default when `modelChanged`.
    func restore(_ snapshot: ReceiverSettingsSnapshot, modelChanged: Bool) throws(ReceiverError)
    /// Saves the current settings to the receiver's non-volatile memory and reads them back;
    /// throws when the family cannot, or the read-back differs.
    func saveSettings(expected: ReceiverSettingsSnapshot) throws(ReceiverError)
}

extension CommandChannel {
    /// Sends `command` and returns the first sentence whose body starts with `replyPrefix`
    /// (`PMTK514,`), within the timeout, retried `attempts` times.
    public func query(_ command: NMEACommand, replyPrefix: String) throws(ReceiverError) -> String {
        for _ in 0..<attempts {
            do {
                try port.writeAll(command.bytes, deadline: port.clock.deadline(after: timeout))
                let reply = try waitFor(deadline: port.clock.deadline(after: timeout)) { sink -> String? in
                    sink.sentences.first { $0.dropFirst().hasPrefix(replyPrefix) }
                }
                if let reply { return reply }
            } catch {
                throw .hardware(error)
            }
        }
        throw .noAcknowledgement(command: command.sentence, attempts: attempts, waited: timeout)
    }
}

extension PMTK {
    /// `$PMTK414`: query the NMEA output rates; answered by `$PMTK514,<19 rates>`.
    public static let queryOutputs = NMEACommand("PMTK414")
    /// `$PMTK400`: query the fix interval; answered by `$PMTK500,<ms>,0,0,0,0`.
    public static let queryRate = NMEACommand("PMTK400")

    /// The fields of a reply sentence after its address, without the checksum.
    static func replyFields(_ sentence: String) -> [Substring] {
        let body = sentence.dropFirst().prefix { $0 != "*" }
        return Array(body.split(separator: ",", omittingEmptySubsequences: false).dropFirst())
    }

    /// The rates of a `$PMTK514` reply, in `$PMTK314`'s field order; `nil` when it is malformed.
    public static func outputs(reply: String) -> [NMEASentenceType: Int]? {
        let fields = replyFields(reply)
        guard fields.count >= 8 else { return nil }
        let position: [NMEASentenceType: Int] = [.gll: 0, .rmc: 1, .vtg: 2, .gga: 3, .gsa: 4, .gsv: 5, .gst: 7, .zda: 17]
        var rates: [NMEASentenceType: Int] = [:]
        for (sentence, p) in position where p < fields.count {
            guard let rate = Int(fields[p]), (0...5).contains(rate) else { return nil }
            rates[sentence] = rate
        }
        return rates
    }

    /// The interval of a `$PMTK500` reply, ms; `nil` when it is malformed.
    public static func rate(reply: String) -> Int? {
        guard let first = replyFields(reply).first, let ms = Int(first), (100...10_000).contains(ms) else { return nil }
        return ms
    }
}

extension MediaTekDriver: ReceiverConfigurable {
    /// `$PMTK414` and `$PMTK400`: the sentences and the interval. MediaTek has no query for its
    /// navigation mode (`$PMTK886`): the snapshot's model is `nil`.
    public func readSettings() throws(ReceiverError) -> ReceiverSettingsSnapshot {
        let outputs = try channel.query(PMTK.queryOutputs, replyPrefix: "PMTK514,")
        let rate = try channel.query(PMTK.queryRate, replyPrefix: "PMTK500,")
        guard let rates = PMTK.outputs(reply: outputs), let ms = PMTK.rate(reply: rate) else {
            throw .rejected(command: "PMTK414/PMTK400", reason: "malformed reply \(outputs) / \(rate)")
        }
        return ReceiverSettingsSnapshot(rateMilliseconds: ms, outputs: rates)
    }

    /// `$PMTK314` and `$PMTK220` with the read values; `$PMTK886,0` (vehicle, the power-up mode)
    /// when the engine changed the navigation mode, which cannot be read.
    public func restore(_ snapshot: ReceiverSettingsSnapshot, modelChanged: Bool) throws(ReceiverError) {
        if let outputs = snapshot.outputs { try setOutputs(outputs) }
        if let ms = snapshot.rateMilliseconds { try setRate(milliseconds: ms) }
        if modelChanged { try channel.send(NMEACommand("PMTK886", snapshot.dynamicModel ?? 0), acknowledgedAs: 886) }
    }

    /// MediaTek's PMTK set writes RAM only (battery-backed RAM keeps it while V_BCKP is supplied):
    /// there is no save to flash to verify.
    public func saveSettings(expected: ReceiverSettingsSnapshot) throws(ReceiverError) {
        throw .unsupported(family: .mediatek, operation: "save settings to flash (PMTK commands change RAM only)")
    }
}
