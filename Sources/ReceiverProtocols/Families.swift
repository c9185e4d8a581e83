import Devices
import HardwareInterfaces

// The capabilities column of the device catalogue's receiver families (`Devices.ReceiverFamily`),
// kept beside the command sets that use it.
extension ReceiverFamily {
    /// What the family can do, for the power policy and the status readout.
    public var capabilities: ReceiverCapabilities {
        switch self {
        case .ublox:
            return ReceiverCapabilities(
                maximumRateHz: 25, rateSteps: nil,
                powerModes: [.continuous, .powerSave, .standby, .backup],
                wakeMethods: [.uartByte, .extint, .powerEnable],
                defaultBaudRates: [9600, 38400], acknowledgesCommands: true)
        case .mediatek:
            return ReceiverCapabilities(
                maximumRateHz: 10, rateSteps: nil,
                powerModes: [.continuous, .periodic, .standby, .backup],
                wakeMethods: [.uartByte, .forceOn, .powerEnable],
                defaultBaudRates: [9600], acknowledgesCommands: true)
        case .casic:
            return ReceiverCapabilities(
                maximumRateHz: 5, rateSteps: [200, 500, 1000],
                powerModes: [.continuous, .standby],
                wakeMethods: [.uartByte, .standbyPin, .powerEnable],
                defaultBaudRates: [9600], acknowledgesCommands: false)
        case .airoha:
            return ReceiverCapabilities(
                maximumRateHz: 10, rateSteps: nil,
                powerModes: [.continuous, .backup],
                wakeMethods: [.wakePin, .powerEnable],
                defaultBaudRates: [115200, 9600], acknowledgesCommands: true)
        case .goke:
            return ReceiverCapabilities(
                maximumRateHz: 10, rateSteps: nil,
                powerModes: [.continuous, .periodic, .standby],
                wakeMethods: [.uartByte, .wakePin, .powerEnable],
                defaultBaudRates: [9600], acknowledgesCommands: true)
        case .genericNMEA:
            return ReceiverCapabilities(
                maximumRateHz: 1, rateSteps: nil, powerModes: [.continuous],
                wakeMethods: [.powerEnable], defaultBaudRates: [4800, 9600], acknowledgesCommands: false)
        }
    }
}

/// A receiver power state a family supports.
public enum ReceiverPowerMode: String, Sendable, Hashable, CaseIterable {
    /// Tracking and navigating all the time.
    case continuous
    /// Receiver-managed duty cycling (u-blox PSM cyclic/on-off).
    case powerSave = "power-save"
    /// Receiver-managed periodic or AlwaysLocate modes (MediaTek, Goke).
    case periodic
    /// RF off, RAM and RTC kept: hot start on wake.
    case standby
    /// Only RTC and backup RAM powered (V_BCKP): warm start on wake.
    case backup
}

/// A way to wake a receiver from standby or backup.
public enum ReceiverWakeMethod: String, Sendable, Hashable, CaseIterable {
    /// Any byte on the receiver's RX line.
    case uartByte = "uart-byte"
    /// An edge on u-blox EXTINT.
    case extint
    /// MediaTek/Quectel FORCE_ON high.
    case forceOn = "force-on"
    /// A STANDBY pin released (Quectel L76/L76K).
    case standbyPin = "standby-pin"
    /// A WAKE pin (Airoha, Goke).
    case wakePin = "wake-pin"
    /// Switching the supply on through a power-enable line (a load switch or the module's EN pin).
    case powerEnable = "power-enable"
}

/// What one receiver family can do: rates, power modes, wake methods, default line rates.
public struct ReceiverCapabilities: Sendable, Hashable {
    /// The highest navigation rate in Hz (at a line rate fast enough for the output).
    public var maximumRateHz: Int
    /// The only measurement intervals (ms) the family accepts, when it restricts them.
    public var rateSteps: [Int]?
    /// Power modes the family supports.
    public var powerModes: Set<ReceiverPowerMode>
    /// How a sleeping receiver can be woken.
    public var wakeMethods: Set<ReceiverWakeMethod>
    /// Line rates the family's modules ship with, most common first.
    public var defaultBaudRates: [Int]
    /// Whether configuration commands are acknowledged (CASIC's `$PCAS` are not: the change must be observed).
    public var acknowledgesCommands: Bool
}

/// What detection learned about a receiver.
public struct ReceiverIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The command family.
    public var family: ReceiverFamily
    /// The model or chip, when the receiver said (for example `NEO-M9N`, `AXN_3.20_3333`, `AT6558`).
    public var model: String?
    /// The firmware version string, when the receiver said.
    public var firmware: String?
    /// The u-blox generation, for u-blox receivers.
    public var ubloxGeneration: UBloxGeneration?
    /// The u-blox protocol version (`PROTVER`), for u-blox receivers.
    public var protocolVersion: String?
    /// The evidence: the reply or banner the identification rests on.
    public var evidence: String

    /// Creates an identity.
    public init(family: ReceiverFamily, model: String? = nil, firmware: String? = nil,
                ubloxGeneration: UBloxGeneration? = nil, protocolVersion: String? = nil, evidence: String) {
        self.family = family
        self.model = model
        self.firmware = firmware
        self.ubloxGeneration = ubloxGeneration
        self.protocolVersion = protocolVersion
        self.evidence = evidence
    }

    /// `ublox (u-blox M10, MAX-M10S, PROTVER 34.10)`.
    public var description: String {
        var parts: [String] = []
        if let ubloxGeneration { parts.append(ubloxGeneration.rawValue) }
        if let model { parts.append(model) }
        if let firmware { parts.append("firmware \(firmware)") }
        if let protocolVersion { parts.append("PROTVER \(protocolVersion)") }
        return parts.isEmpty ? family.rawValue : "\(family.rawValue) (\(parts.joined(separator: ", ")))"
    }

    /// Identifies a receiver from one NMEA sentence (banner or query reply), or `nil` when the
    /// sentence says nothing about the receiver. `sentence` is the text from `$` up to `*`.
    public static func from(sentence: String) -> ReceiverIdentity? {
        let fields = sentence.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard let address = fields.first else { return nil }
        switch address {
        case "$PMTK705":
            // $PMTK705,AXN_3.20_3333_13071501,0003,QUECTEL-L26,*1E
            let release = fields.count > 1 ? fields[1] : nil
            let model = fields.count > 3 && !fields[3].isEmpty ? fields[3] : release
            return ReceiverIdentity(family: .mediatek, model: model, firmware: release, evidence: sentence)
        case "$PMTK011", "$PMTK010":
            return ReceiverIdentity(family: .mediatek, evidence: sentence)
        case "$PAIR021":
            return ReceiverIdentity(family: .airoha, model: fields.count > 1 ? fields[1] : nil, evidence: sentence)
        case "$PQTMVERNO":
            return ReceiverIdentity(family: .airoha, model: fields.count > 1 ? fields[1] : nil, evidence: sentence)
        case "$PGKC462":
            return ReceiverIdentity(family: .goke, firmware: fields.count > 1 ? fields[1] : nil, evidence: sentence)
        default:
            break
        }
        // $GPTXT,01,01,02,<text> and other talkers' TXT.
        guard address.count == 6, address.hasSuffix("TXT"), fields.count >= 5 else { return nil }
        let text = fields[4...].joined(separator: ",")
        if text.lowercased().contains("u-blox") {
            return ReceiverIdentity(family: .ublox, evidence: sentence)
        }
        if text.hasPrefix("IC=AT6558") || text.hasPrefix("IC=AT") {
            return ReceiverIdentity(family: .casic, model: String(text.dropFirst(3)), evidence: sentence)
        }
        if text.hasPrefix("SW=") {
            return ReceiverIdentity(family: .casic, firmware: String(text.dropFirst(3)), evidence: sentence)
        }
        if text.hasPrefix("HW=") {
            return ReceiverIdentity(family: .casic, model: String(text.dropFirst(3)), evidence: sentence)
        }
        // CASIC's antenna supervisor, every second while its ANT output is on (`ANTENNA OK`,
        // `ANTENNA OPEN`, `ANTENNA SHORT`); u-blox and Quectel MediaTek modules say `ANTSTATUS=`.
        if text.hasPrefix("ANTENNA ") {
            return ReceiverIdentity(family: .casic, evidence: sentence)
        }
        return nil
    }

    /// Identifies a u-blox receiver from a MON-VER reply; `nil` when the hardware version is not a
    /// u-blox one (the CASIC AT6558 answers MON-VER too, with its own hardware string).
    public static func from(version: UBXVersion) -> ReceiverIdentity? {
        guard let generation = version.generation else { return nil }
        return ReceiverIdentity(
            family: .ublox, model: version.module, firmware: version.software.isEmpty ? nil : version.software,
            ubloxGeneration: generation, protocolVersion: version.protocolVersion,
            evidence: "UBX-MON-VER hw=\(version.hardware) sw=\(version.software)")
    }
}
