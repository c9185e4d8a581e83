import PowerPolicy

// The receiver models of the device catalogue; see SensorChip.swift for the catalogue as a whole.

/// One row of the receiver-model catalogue.
public struct ReceiverModelEntry: Sendable, Hashable {
    /// The model.
    public let model: ReceiverModel
    /// Its command-set family.
    public let family: ReceiverFamily
    /// The name people use (`u-blox M8`), for messages.
    public let displayName: String
    /// Upper-case fragments of a board file's free-text `model` (`NEO-M8N`) that name this model;
    /// empty for the family's fallback row, which names none.
    public let markers: [String]
    /// The power figures the policy and the energy ledger use for it. Where no figures were
    /// measured for the model, the nearest measured profile stands in (said in the row).
    public let powerProfile: ReceiverProfile
    /// Whether the engine asks it for its binary navigation messages as well as NMEA by default
    /// (u-blox 8 and later, which have NAV-PVT, NAV-EOE and NAV-SAT; CASIC binary is opt-in).
    public let binaryOutputByDefault: Bool
    /// The one-sigma accuracy of its time pulse against UTC, seconds, from the datasheet, when
    /// the datasheet states one (u-blox 6 to F9: "accuracy of time pulse signal, RMS 30 ns");
    /// `nil` where it states none. A location paired with a pulse carries it as its time accuracy.
    public let timePulseAccuracy: Double?
}

/// The receiver models the package knows the power figures and quirks of. A board's receiver is
/// looked up with ``lookup(family:model:)``; every fact is in ``entry``.
public enum ReceiverModel: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// u-blox M8 (NEO-M8N, SAM-M8Q): legacy CFG messages.
    case ubloxM8 = "u-blox M8"
    /// u-blox M9 (NEO-M9N).
    case ubloxM9 = "u-blox M9"
    /// u-blox M10 (MAX-M10S, SAM-M10Q).
    case ubloxM10 = "u-blox M10"
    /// u-blox F9 (ZED-F9P, NEO-F9P): RTK.
    case ubloxF9 = "u-blox F9"
    /// u-blox 6 (NEO-6M): no NAV-PVT.
    case ublox6 = "u-blox 6"
    /// u-blox 7 (NEO-7M): no NAV-PVT.
    case ublox7 = "u-blox 7"
    /// MediaTek MT3339 / MT3333.
    case mt3339 = "MT3339"
    /// CASIC AT6558.
    case at6558 = "AT6558"
    /// An Airoha receiver.
    case airoha = "Airoha"
    /// A Goke receiver.
    case goke = "Goke"
    /// A receiver known only to speak NMEA.
    case genericNMEA = "generic NMEA"

    /// The model's row in the catalogue.
    public var entry: ReceiverModelEntry {
        switch self {
        // Any model name containing M8 is an M8, as before the catalogue; checked first.
        case .ubloxM8: return row(.ublox, ["M8"], .ubloxM8)
        // M9 and F9: no measured figures; the M10's (the closest tracking current) stand in.
        case .ubloxM9: return row(.ublox, ["M9"], .ubloxM10)
        case .ubloxM10: return row(.ublox, ["M10"], .ubloxM10)
        case .ubloxF9: return row(.ublox, ["F9"], .ubloxM10)
        // u-blox 6 and 7: no measured figures; the M10's stand in. NMEA only by default.
        case .ublox6: return row(.ublox, ["NEO-6", "LEA-6", "MAX-6", "NEO6", "U-BLOX 6"], .ubloxM10, binary: false)
        case .ublox7: return row(.ublox, ["NEO-7", "MAX-7", "LEA-7", "NEO7", "U-BLOX 7"], .ubloxM10, binary: false)
        case .mt3339: return row(.mediatek, ["MT3339", "MT3333", "PA1010", "L80", "L86", "L76"], .mt3339)
        // CASIC, Airoha, Goke and generic receivers: no measured figures; the M10's stand in.
        case .at6558: return row(.casic, ["AT6558", "L76K", "ATGM336"], .ubloxM10)
        case .airoha: return row(.airoha, ["AG3335", "AG3352", "LC76G", "LC86G"], .ubloxM10)
        case .goke: return row(.goke, ["GK9501", "AIR530"], .ubloxM10)
        case .genericNMEA: return row(.genericNMEA, [], .ubloxM10)
        }
    }

    private func row(_ family: ReceiverFamily, _ markers: [String], _ profile: ReceiverProfile, binary: Bool? = nil) -> ReceiverModelEntry {
        ReceiverModelEntry(model: self, family: family, displayName: rawValue, markers: markers, powerProfile: profile,
                           binaryOutputByDefault: binary ?? (family == .ublox),
                           timePulseAccuracy: family == .ublox ? Self.ubloxTimePulseRMS : nil)
    }

    /// u-blox's time-pulse accuracy, the same in the NEO-6, NEO-7, NEO-M8, NEO-M9N, MAX-M10S and
    /// ZED-F9P datasheets: RMS 30 ns (99 % within 60 ns) with a fix.
    static let ubloxTimePulseRMS = 30e-9

    /// Every row, in case order.
    public static var catalogue: [ReceiverModelEntry] { allCases.map(\.entry) }

    /// The model of a `family` receiver whose free-text name is `model`: the first row of the
    /// family with a marker in the upper-cased name, else the family's default model.
    public static func lookup(family: ReceiverFamily, model: String?) -> ReceiverModel {
        let name = (model ?? "").uppercased()
        let match = allCases.first { candidate in
            candidate.entry.family == family && candidate.entry.markers.contains { name.contains($0) }
        }
        return match ?? family.entry.defaultModel
    }

    /// The power figures of the model.
    public var powerProfile: ReceiverProfile { entry.powerProfile }

    /// The display name (`u-blox M8`).
    public var description: String { entry.displayName }
}
