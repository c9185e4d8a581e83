import FieldLocation
import LocationServices

extension StatusView {
    /// The receivers of a board with several, one line each, the first first: name, device (or
    /// USB identity while absent), open or absent with the port's problem, family and model, the
    /// last fix's type, accuracy and age, and `delivering` for the one whose fixes are delivered
    /// (`silent` when it is still the chosen one but its last fix is older than the rule allows).
    /// Nothing for a board with one receiver (its line is `Receiver`).
    public static func receiverLines(_ receivers: [ReceiverSourceStatus]) -> [String] {
        guard receivers.count > 1 else { return [] }
        let width = receivers.map(\.label.count).max() ?? 0
        return receivers.enumerated().flatMap { i, r -> [String] in
            let lead = i == 0 ? "Receivers  " : "           "
            let state = r.chosen ? (r.live ? "delivering" : "silent    ") : (r.open ? "open      " : "absent    ")
            var line = lead + pad(r.label, width) + " " + state
            // A daemon's receivers are named by their paths: the device once.
            if let device = r.device ?? r.usb, device != r.label { line += "  " + device }
            line += "  " + ([r.family, r.model].compactMap { $0 }.joined(separator: " "))
            if let type = r.lastFixType {
                line += "  last fix \(type)" + (r.lastAccuracy.map { " ±\(f($0, 1, " m"))" } ?? "") + (r.lastFixAge.map { " \(f($0, 1, " s")) ago" } ?? "")
            } else {
                line += "  no fix yet"
            }
            var lines = [line]
            if let problem = r.problem, !r.open { lines.append("             port: " + problem) }
            return lines
        }
    }

    /// The receivers as a JSON array (`--json`, the console's status): `name`, `device`, `usb`,
    /// `open`, `chosen` (its fixes are the ones delivered), `live` (it competes in the best-source
    /// rule: open, and its last fix within 1.5 of its epochs), `problem`, `family`, `model`,
    /// `baud`, `fix_type`, `accuracy` (68 %, metres) and `fix_age` (seconds); unknown values are left out.
    static func receiversJSON(_ receivers: [ReceiverSourceStatus]) -> String {
        let entries = receivers.map { r -> String in
            var f = ["\"name\":" + JSONText.quote(r.label)]
            if let d = r.device { f.append("\"device\":" + JSONText.quote(d)) }
            if let u = r.usb { f.append("\"usb\":" + JSONText.quote(u)) }
            f.append("\"open\":\(r.open)")
            f.append("\"chosen\":\(r.chosen)")
            f.append("\"live\":\(r.live)")
            if let p = r.problem { f.append("\"problem\":" + JSONText.quote(p)) }
            f.append("\"family\":" + JSONText.quote(r.family))
            if let m = r.model { f.append("\"model\":" + JSONText.quote(m)) }
            if r.baudRate > 0 { f.append("\"baud\":\(r.baudRate)") }
            if let t = r.lastFixType { f.append("\"fix_type\":" + JSONText.quote(t.rawValue)) }
            if let a = r.lastAccuracy, a.isFinite { f.append("\"accuracy\":" + FixText.fixed(a, 2)) }
            if let age = r.lastFixAge, age.isFinite { f.append("\"fix_age\":" + FixText.fixed(age, 1)) }
            return "{" + f.joined(separator: ",") + "}"
        }
        return "[" + entries.joined(separator: ",") + "]"
    }
}
