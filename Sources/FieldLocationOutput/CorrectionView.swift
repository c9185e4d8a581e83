import FieldLocation
import LocationServices

extension StatusView {
    /// The NTRIP corrections: solution, link state, age, station, message types, counts.
    static func correctionLines(_ c: CorrectionStatus) -> [String] {
        let solution: String
        switch c.solution {
        case .none: solution = "no differential solution"
        case .dgps: solution = "DGPS"
        case .rtkFloat: solution = "RTK float"
        case .rtkFixed: solution = "RTK fixed"
        }
        let age = c.age.map { "age \(FixText.fixed($0, 1)) s" } ?? "no corrections yet"
        var lines = ["Corrections \(solution), \(age)\(c.station.map { ", station \($0)" } ?? "")   NTRIP \(c.source): \(c.linkDescription)"]
        var counts = "           \(c.frames) frames"
        if !c.messageTypes.isEmpty { counts += " (types \(c.messageTypes.map(String.init).joined(separator: ",")))" }
        counts += ", \(c.crcFailures) CRC failures, \(c.truncated) truncated, \(c.dropped) dropped, \(c.ggaSent) GGA sent, \(c.reconnects) reconnects"
        lines.append(counts)
        return lines
    }

    /// The corrections as a JSON object: `solution`, `source`, `link`, `link_text`, `age`,
    /// `station`, `message_types`, `frames`, `crc_failures`, `truncated`, `dropped`, `gga_sent`, `reconnects`.
    static func correctionJSON(_ c: CorrectionStatus) -> String {
        var fields = ["\"solution\":" + JSONText.quote(c.solution.rawValue), "\"source\":" + JSONText.quote(c.source),
                      "\"link\":" + JSONText.quote(c.link), "\"link_text\":" + JSONText.quote(c.linkDescription)]
        if let age = c.age, age.isFinite { fields.append("\"age\":" + FixText.fixed(age, 1)) }
        if let station = c.station { fields.append("\"station\":\(station)") }
        fields.append("\"message_types\":[" + c.messageTypes.map(String.init).joined(separator: ",") + "]")
        fields.append("\"frames\":\(c.frames),\"crc_failures\":\(c.crcFailures),\"truncated\":\(c.truncated),\"dropped\":\(c.dropped)")
        fields.append("\"gga_sent\":\(c.ggaSent),\"reconnects\":\(c.reconnects)")
        return "{" + fields.joined(separator: ",") + "}"
    }
}
