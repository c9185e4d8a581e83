// The receiver families of the device catalogue; see SensorChip.swift for the catalogue as a
// whole and how to add a family or a model.

/// One row of the receiver-family catalogue.
public struct ReceiverFamilyEntry: Sendable, Hashable {
    /// The family.
    public let family: ReceiverFamily
    /// The name people use (`u-blox`, `MediaTek`), for messages.
    public let displayName: String
    /// Every `family = "..."` spelling a board file may use; the first is the one listed in
    /// messages. Empty for a family that detection recognises but a board file cannot name yet.
    public let boardSpellings: [String]
    /// What identifies the family on the wire: the proprietary sentence addresses or banner texts
    /// (`$PMTK705`, `u-blox` in a `$GPTXT`) ``ReceiverIdentity`` recognises.
    public let identification: [String]
    /// Whether the family has a binary navigation protocol the engine reads (UBX, CASIC binary),
    /// so a board may ask for `output = binary` or `both`.
    public let hasBinaryOutput: Bool
    /// The model taken when the board names none, or one the catalogue does not know.
    public let defaultModel: ReceiverModel
    /// The driver gpsd names for such a receiver in its DEVICE reports (`u-blox`, `MTK-3301`).
    public let gpsdDriver: String
}

/// A family of GNSS receiver chips that share one command set. The raw value is the name
/// written in reports (`mtk`); every fact is in ``entry``.
public enum ReceiverFamily: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// u-blox 6, 7, M8, M9, M10, F9: UBX binary protocol plus NMEA.
    case ublox
    /// MediaTek MT3339 / MT3333 (Adafruit Ultimate GPS, Quectel L76/L80/L96, PA1010D): `$PMTK`.
    case mediatek = "mtk"
    /// CASIC AT6558 (Quectel L76K, ATGM336H): `$PCAS` plus CASIC binary.
    case casic
    /// Airoha AG3335/AG3352 (Quectel LC76G/LC86G): `$PAIR`.
    case airoha
    /// Goke GK9501 (Air530, Ebyte E108): `$PGKC`.
    case goke
    /// A receiver that speaks NMEA but answered no identity query: no power control but its supply.
    case genericNMEA = "generic-nmea"

    /// The family's row in the catalogue.
    public var entry: ReceiverFamilyEntry {
        switch self {
        case .ublox:
            return ReceiverFamilyEntry(family: self, displayName: "u-blox", boardSpellings: ["ublox"],
                                       identification: ["u-blox", "UBX-MON-VER"], hasBinaryOutput: true, defaultModel: .ubloxM10,
                                       gpsdDriver: "u-blox")
        case .mediatek:
            return ReceiverFamilyEntry(family: self, displayName: "MediaTek", boardSpellings: ["mtk", "mediatek"],
                                       identification: ["$PMTK705", "$PMTK010", "$PMTK011"], hasBinaryOutput: false, defaultModel: .mt3339,
                                       gpsdDriver: "MTK-3301")
        case .casic:
            return ReceiverFamilyEntry(family: self, displayName: "CASIC", boardSpellings: ["casic"],
                                       identification: ["IC=AT", "SW=", "HW="], hasBinaryOutput: true, defaultModel: .at6558,
                                       gpsdDriver: "CASIC")
        case .airoha:
            return ReceiverFamilyEntry(family: self, displayName: "Airoha", boardSpellings: [],
                                       identification: ["$PAIR021", "$PQTMVERNO"], hasBinaryOutput: false, defaultModel: .airoha,
                                       gpsdDriver: "NMEA0183")
        case .goke:
            return ReceiverFamilyEntry(family: self, displayName: "Goke", boardSpellings: [],
                                       identification: ["$PGKC462"], hasBinaryOutput: false, defaultModel: .goke,
                                       gpsdDriver: "NMEA0183")
        case .genericNMEA:
            return ReceiverFamilyEntry(family: self, displayName: "generic NMEA", boardSpellings: ["generic-nmea"],
                                       identification: [], hasBinaryOutput: false, defaultModel: .genericNMEA,
                                       gpsdDriver: "NMEA0183")
        }
    }

    /// Every row, in case order.
    public static var catalogue: [ReceiverFamilyEntry] { allCases.map(\.entry) }

    /// The family a board file names with `spelling` (any of its ``ReceiverFamilyEntry/boardSpellings``), or `nil`.
    public init?(boardSpelling spelling: String) {
        guard let family = Self.allCases.first(where: { $0.entry.boardSpellings.contains(spelling) }) else { return nil }
        self = family
    }

    /// The spellings a board file's error message lists: each nameable family's first.
    public static var boardNames: [String] { allCases.compactMap { $0.entry.boardSpellings.first } }

    /// The name written in reports (`mtk`).
    public var description: String { rawValue }

    /// The family whose ``ReceiverFamilyEntry/identification`` lists this proprietary sentence address (`$PMTK705`).
    public static func identified(bySentence address: String) -> ReceiverFamily? {
        guard address.hasPrefix("$") else { return nil }
        return allCases.first { $0.entry.identification.contains(address) }
    }
}
