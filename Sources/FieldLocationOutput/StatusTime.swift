import BoardConfig

/// The time service's state for the status readout (`fieldloc status`): where the time comes from,
/// the last offsets it measured (true time minus the system clock) and the receiver's sentence
/// delay after the pulse.
public struct StatusTime: Sendable, Hashable {
    /// Where the time comes from: `NMEA on /dev/ttyAMA0 + PPS /dev/pps0`, `NMEA on ... (no PPS)`.
    public var source: String
    /// The last serial-time offset, seconds (true time minus system time).
    public var serialOffset: Double?
    /// The last PPS offset, seconds.
    public var pulseOffset: Double?
    /// The measured delay from the pulse to its second's first byte, seconds (the `time_offset` to set).
    public var sentenceDelay: Double?
    /// The board's configured `time_offset`, seconds.
    public var configuredOffset: Double
    /// Samples taken so far.
    public var serialSamples: Int, pulseSamples: Int
    /// Why the last fix or pulse gave no sample, if it did not.
    public var refusal: String?

    /// A time-service state.
    public init(source: String, serialOffset: Double? = nil, pulseOffset: Double? = nil, sentenceDelay: Double? = nil,
                configuredOffset: Double = 0, serialSamples: Int = 0, pulseSamples: Int = 0, refusal: String? = nil) {
        self.source = source
        self.serialOffset = serialOffset
        self.pulseOffset = pulseOffset
        self.sentenceDelay = sentenceDelay
        self.configuredOffset = configuredOffset
        self.serialSamples = serialSamples
        self.pulseSamples = pulseSamples
        self.refusal = refusal
    }

    /// The time source `board` gives: its receiver's sentences and its PPS, if any. A simulated
    /// receiver that does not follow the system clock runs from a fixed start (`--sim-time`).
    public static func source(of board: BoardDescription, followsSystemClock: Bool = true) -> String {
        var text = board.simulated ? "simulated receiver" : "NMEA on \(board.receiver?.uart ?? "the receiver's port")"
        if board.simulated && !followsSystemClock { text += " (its own clock from the --sim-time start, not the system's)" }
        if let device = board.gpio?.ppsDevice {
            text += " + PPS \(device) (RFC 2783)"
        } else if let line = board.gpio?.line(.gnssPPS), let chip = board.gpio?.chip {
            text += " + PPS GPIO \(chip)/\(line) (kernel-stamped edges)"
        } else {
            text += " (no PPS)"
        }
        return text
    }
}
