/// One `STR` record of a caster's source table: a mountpoint and what it streams.
public struct NTRIPStreamRecord: Sendable, Hashable {
    /// The mountpoint (field 2).
    public var mountpoint: String
    /// The source identifier, often a place name (3).
    public var identifier: String
    /// The data format, e.g. `RTCM 3.2` (4).
    public var format: String
    /// The format details: message types with their rates, e.g. `1005(10),1077(1)` (5).
    public var formatDetails: String
    /// Carrier phase: 0 none, 1 L1, 2 L1+L2 (6).
    public var carrier: Int?
    /// Navigation systems, e.g. `GPS+GLO+GAL` (7).
    public var navigationSystems: String
    /// The network (8).
    public var network: String
    /// The ISO 3166 country code (9).
    public var country: String
    /// The reference position, degrees (10, 11).
    public var latitude: Double?, longitude: Double?
    /// Whether the caster wants the client's position as GGA (12: `1`).
    public var wantsNMEA: Bool
    /// 0: a single reference station; 1: a network (virtual reference) solution (13).
    public var solution: Int?
    /// The generator (14).
    public var generator: String
    /// Compression or encryption (15).
    public var compression: String
    /// Authentication: `N` none, `B` basic, `D` digest (16).
    public var authentication: String
    /// Whether the stream has a fee (17: `Y`).
    public var fee: Bool
    /// Bits per second (18).
    public var bitrate: Int?
    /// Anything after field 18.
    public var miscellaneous: String
}

/// A caster's source table: its `STR` records, and its `CAS` and `NET` lines as they came.
public struct NTRIPSourceTable: Sendable, Hashable {
    /// The streams (mountpoints).
    public var streams: [NTRIPStreamRecord] = []
    /// `CAS` lines.
    public var casters: [String] = []
    /// `NET` lines.
    public var networks: [String] = []
    /// Lines that could not be read: 1-based line number and why.
    public var problems: [(line: Int, reason: String)] = []
    /// Whether the `ENDSOURCETABLE` line was seen.
    public var complete = false

    /// An empty table.
    public init() {}

    /// The record of `mountpoint`, if listed.
    public func stream(_ mountpoint: String) -> NTRIPStreamRecord? { streams.first { $0.mountpoint == mountpoint } }

    /// Parses a source table body (lines ending in CR LF or LF, fields separated by `;`).
    /// Unknown line types are skipped; an `STR` line with fewer than 12 fields, or with an `nmea`
    /// field that is not 0 or 1, is a problem naming its line and the rest are still read.
    public static func parse(_ bytes: some Collection<UInt8>) -> NTRIPSourceTable {
        var table = NTRIPSourceTable()
        var number = 0
        for raw in Array(bytes).split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let text = NTRIPResponseParser.line(raw)
            if text.isEmpty { continue }
            if text.hasPrefix("ENDSOURCETABLE") { table.complete = true; break }
            if text.hasPrefix("CAS;") { table.casters.append(text); continue }
            if text.hasPrefix("NET;") { table.networks.append(text); continue }
            guard text.hasPrefix("STR;") else { continue }
            let fields = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 12 else {
                table.problems.append((number, "STR record with \(fields.count) fields, at least 12 needed"))
                continue
            }
            guard !fields[1].isEmpty else { table.problems.append((number, "STR record without a mountpoint")); continue }
            guard fields[11] == "0" || fields[11] == "1" else {
                table.problems.append((number, "STR \(fields[1]): nmea field '\(fields[11].prefix(20))' is not 0 or 1"))
                continue
            }
            func field(_ i: Int) -> String { i < fields.count ? fields[i] : "" }
            table.streams.append(NTRIPStreamRecord(
                mountpoint: fields[1], identifier: field(2), format: field(3), formatDetails: field(4), carrier: Int(field(5)),
                navigationSystems: field(6), network: field(7), country: field(8), latitude: Double(field(9)),
                longitude: Double(field(10)), wantsNMEA: fields[11] == "1", solution: Int(field(12)), generator: field(13),
                compression: field(14), authentication: field(15), fee: field(16) == "Y", bitrate: Int(field(17)),
                miscellaneous: fields.count > 18 ? fields[18...].joined(separator: ";") : ""))
        }
        return table
    }

    public static func == (a: NTRIPSourceTable, b: NTRIPSourceTable) -> Bool {
        a.streams == b.streams && a.casters == b.casters && a.networks == b.networks && a.complete == b.complete
            && a.problems.map(\.line) == b.problems.map(\.line) && a.problems.map(\.reason) == b.problems.map(\.reason)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(streams)
        hasher.combine(casters)
        hasher.combine(networks)
        hasher.combine(complete)
    }
}
