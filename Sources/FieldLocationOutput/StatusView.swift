import FieldLocation
import Foundation
import GPSDProtocol
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy

/// The status readout as text (a terminal screen) and as one JSON object.
public enum StatusView {
    static func f(_ v: Double?, _ digits: Int, _ unit: String = "") -> String {
        guard let v, v.isFinite else { return "—" }
        return FixText.fixed(v, digits) + unit
    }

    static func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? String(s.prefix(n)) : s + String(repeating: " ", count: n - s.count)
    }

    static func modeText(_ fix: Fix?) -> String {
        guard let fix else { return "no data" }
        switch fix.mode {
        case .threeD: return "3D fix"
        case .twoD: return "2D fix"
        case .noFix: return "no fix"
        default: return "unknown"
        }
    }

    /// A bar of up to 10 cells for a C/N0 of 0-50 dB-Hz.
    static func bar(_ snr: UInt8?) -> String {
        guard let snr else { return String(repeating: "·", count: 10) }
        let n = min(10, Int(snr) / 5)
        return String(repeating: "█", count: n) + String(repeating: "·", count: 10 - n)
    }

    /// The screen: fix, time, position, accuracy, motion, satellites with signal bars, heading,
    /// power, receiver, warnings.
    public static func text(_ s: StatusSnapshot) -> String {
        var out: [String] = []
        out.append("FieldLocation status: \(s.board) (\(s.boardTitle))   up \(Int(s.uptime)) s")
        out.append(String(repeating: "─", count: 78))
        let fix = s.fix
        let age = s.fixAge.map { " (\(FixText.fixed($0, 1)) s ago)" } ?? ""
        out.append("Fix        \(modeText(fix))\(age)   quality \(fix.map { "\($0.quality)" } ?? "—")")
        out.append("UTC        \(fix?.time?.iso8601(fractionDigits: 3) ?? "—")   PPS \(s.pps)")
        if let t = s.time {
            out.append("Time       \(t.source)")
            out.append("           offset serial \(offset(t.serialOffset)) (\(t.serialSamples) samples), PPS \(offset(t.pulseOffset)) (\(t.pulseSamples))"
                       + "   sentence delay \(t.sentenceDelay.map { FixText.fixed($0, 3) + " s" } ?? "—") (time_offset \(FixText.fixed(t.configuredOffset, 3)) s)")
            if let refusal = t.refusal { out.append("           no sample: \(refusal)") }
        }
        out.append("Position   \(f(fix?.latitude, 7, "°"))  \(f(fix?.longitude, 7, "°"))   alt \(f(fix?.altitudeMSL, 1, " m")) MSL, \(f(fix?.altitudeHAE, 1, " m")) HAE")
        out.append("Accuracy   horizontal \(f(fix?.horizontalAccuracy, 1, " m")), vertical \(f(fix?.verticalAccuracy, 1, " m")) (68 %, \(fix.map { "\($0.accuracySource)" } ?? "—"))   HDOP \(f(fix?.hdop, 1))")
        out.append("Motion     speed \(f(fix?.speed, 2, " m/s"))   course \(f(fix?.course, 1, "°"))")
        let sats = fix?.satellites.array ?? []
        out.append("Satellites \(fix?.satellitesUsed ?? 0) used of \(sats.count) in view" + systems(sats))
        if !sats.isEmpty {
            out.append("   PRN  system     el   az   C/N0  signal      used")
            for sat in sats.sorted(by: { ($0.snr ?? 0) > ($1.snr ?? 0) }).prefix(16) {
                let system = sat.constellation.map { "\($0)" } ?? "?"
                out.append("   \(pad(String(sat.prn), 4)) \(pad(system, 10)) \(pad(sat.elevation.map { String($0) } ?? "—", 4)) \(pad(sat.azimuth.map { String($0) } ?? "—", 4)) \(pad(sat.snr.map { String($0) } ?? "—", 5)) \(bar(sat.snr))  \(sat.used ? "yes" : "")")
            }
        }
        if let h = s.heading {
            let hAge = s.headingAge.map { " (\(FixText.fixed($0, 1)) s ago)" } ?? ""
            out.append("Heading    true \(f(h.trueHeading, 1, "°"))  magnetic \(f(h.magneticHeading, 1, "°"))  ±\(f(h.headingAccuracy >= 0 ? h.headingAccuracy : nil, 1, "°"))  \(h.quality.rawValue)\(hAge)")
            out.append("Attitude   pitch \(f(h.pitch, 1, "°"))  roll \(f(h.roll, 1, "°"))  field \(f((h.x * h.x + h.y * h.y + h.z * h.z).squareRoot(), 1, " µT"))")
            if !h.flags.isEmpty { out.append("           flags: \(h.flags.joined(separator: ", "))") }
            if let a = h.attitude { out.append(contentsOf: filterLines(a)) }
        } else {
            out.append("Heading    —")
        }
        if s.remote {
            out.append("Server     \(s.receiver) (calibration, power and energy: ask the daemon's host, fieldloc status --daemon off there)")
        } else {
            out.append("Calibration \(s.calibration.map { "\($0.verdict) (score \(Int($0.score)))" } ?? "none stored: run fieldloc calibrate --board \(s.board) --save")")
            if let d = s.decision {
                out.append("Power      receiver \(d.receiver)\(d.paused ? " (paused)" : ""), magnetometer \(d.magnetometer)")
                if let reason = d.reasons.first { out.append("           \(reason)") }
            }
            out.append("Energy     \(f(s.energy.charge(.receiver), 3, " mAh")) receiver, mean \(f(s.energy.meanCurrent(.receiver), 2, " mA"))")
            if !s.energyByClient.isEmpty {
                out.append("           by client: " + s.energyByClient.map { "\($0.client) \(f($0.charge, 3, " mAh"))" }.joined(separator: ", "))
            }
            out.append("Receiver   \(s.receiver)   \(s.counters.bytes) bytes, \(s.counters.fixes) epochs, \(s.counters.headings) headings")
        }
        out.append(contentsOf: receiverLines(s.receivers))
        if let c = s.corrections { out.append(contentsOf: correctionLines(c)) }
        for (i, r) in s.regions.prefix(8).enumerated() {
            out.append((i == 0 ? "Regions    " : "           ") + "\(r.identifier) (\(r.client)): \(r.state.rawValue)")
        }
        out.append(contentsOf: serviceLines(s.capabilities))
        out.append(contentsOf: HealthView.lines(health(s), remote: s.remote))
        if s.warnings.isEmpty {
            out.append("Warnings   none")
        } else {
            for (i, w) in s.warnings.enumerated() { out.append((i == 0 ? "Warnings   " : "           ") + w) }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The snapshot's health with the time service's offsets, when the readout runs one.
    static func health(_ s: StatusSnapshot) -> UnitHealth {
        var h = s.health
        if let t = s.time { (h.ppsOffset, h.serialTimeOffset) = (t.pulseOffset, t.serialOffset) }
        return h
    }

    /// The attitude filter's state (boards with a gyroscope): what it believed for the last
    /// sample, its gyroscope bias estimate and whether it is learning it, its resets.
    static func filterLines(_ a: AttitudeEstimate) -> [String] {
        let sources = a.sources.names.isEmpty ? "nothing" : a.sources.names.joined(separator: ", ")
        let b = a.gyroscopeBias, w = a.rotationRate
        return [
            "Filter     believes \(sources)   yaw \(f(a.yaw, 1, "°"))   \(a.isStill ? "still (learning bias)" : "moving")   recoveries \(a.recoveries)",
            "           gyro \(f(w.x, 2, "")) \(f(w.y, 2, "")) \(f(w.z, 2, "")) °/s   bias \(f(b.x, 3, "")) \(f(b.y, 3, "")) \(f(b.z, 3, "")) °/s",
        ]
    }

    /// The attitude filter's state as a JSON object: roll, pitch, yaw, quaternion (w, x, y, z),
    /// sources believed, measured rates and bias (degrees per second), still, recoveries.
    static func filterJSON(_ a: AttitudeEstimate) -> String {
        func n(_ v: Double, _ digits: Int) -> String { v.isFinite ? FixText.fixed(v, digits) : "null" }
        let q = a.quaternion, w = a.rotationRate, b = a.gyroscopeBias
        return "{\"roll\":\(n(a.roll, 2)),\"pitch\":\(n(a.pitch, 2)),\"yaw\":\(n(a.yaw, 2)),"
            + "\"quaternion\":[\(n(q.w, 6)),\(n(q.x, 6)),\(n(q.y, 6)),\(n(q.z, 6))],"
            + "\"sources\":[" + a.sources.names.map(JSONText.quote).joined(separator: ",") + "],"
            + "\"gyro\":[\(n(w.x, 3)),\(n(w.y, 3)),\(n(w.z, 3))],\"gyro_bias\":[\(n(b.x, 4)),\(n(b.y, 4)),\(n(b.z, 4))],"
            + "\"still\":\(a.isStill),\"recoveries\":\(a.recoveries)}"
    }

    /// The satellites in view by constellation, `  (GPS 9, GLONASS 7, …)`, in the order first seen;
    /// empty when none has a known constellation.
    static func systems(_ sats: [SatelliteInfo]) -> String {
        var order: [Constellation] = [], counts: [Constellation: Int] = [:]
        for sat in sats {
            guard let system = sat.constellation else { continue }
            if counts[system] == nil { order.append(system) }
            counts[system, default: 0] += 1
        }
        guard !order.isEmpty else { return "" }
        return " (" + order.map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", ") + ")"
    }

    /// A time offset in seconds with its sign, or a dash.
    static func offset(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        return (value >= 0 ? "+" : "") + FixText.fixed(value, 6) + " s"
    }

    /// One JSON object (`--once --json`); missing values are omitted.
    public static func json(_ s: StatusSnapshot) -> String {
        var fields: [String] = [#""class":"STATUS""#, "\"board\":" + JSONText.quote(s.board), "\"receiver\":" + JSONText.quote(s.receiver)]
        func num(_ key: String, _ v: Double?, _ digits: Int) {
            if let v, v.isFinite { fields.append("\"\(key)\":\(FixText.fixed(v, digits))") }
        }
        if let fix = s.fix {
            fields.append("\"mode\":\(fix.mode == .threeD ? 3 : fix.mode == .twoD ? 2 : 1)")
            if let t = fix.time { fields.append("\"time\":\"\(t.iso8601(fractionDigits: 3))\"") }
            num("lat", fix.latitude, 9); num("lon", fix.longitude, 9); num("alt", fix.altitudeMSL, 3)
            num("eph", fix.horizontalAccuracy, 2); num("epv", fix.verticalAccuracy, 2)
            num("speed", fix.speed, 3); num("course", fix.course, 2); num("hdop", fix.hdop, 2)
            fields.append("\"satellites_used\":\(fix.satellitesUsed ?? 0)")
            let sats = fix.satellites.array.map { sat in
                "{\"prn\":\(sat.prn)" + (sat.snr.map { ",\"snr\":\($0)" } ?? "") + (sat.elevation.map { ",\"el\":\($0)" } ?? "")
                    + (sat.azimuth.map { ",\"az\":\($0)" } ?? "") + ",\"used\":\(sat.used)"
                    + (sat.constellation.map { ",\"gnssid\":\(HealthView.gnssid($0)),\"system\":\"\($0)\"" } ?? "")
                    + (GPSDReport.gpsdIdentity(sat).svid.map { ",\"svid\":\($0)" } ?? "")
                    + (sat.gnssID != nil ? sat.signalID.map { ",\"sigid\":\($0)" } ?? "" : "") + "}"
            }
            fields.append("\"satellites\":[" + sats.joined(separator: ",") + "]")
        }
        num("fix_age", s.fixAge, 1)
        fields.append("\"pps\":" + JSONText.quote(s.pps.description))
        if let t = s.time {
            var time = ["\"source\":" + JSONText.quote(t.source)]
            if let v = t.serialOffset, v.isFinite { time.append("\"serial_offset\":\(FixText.fixed(v, 9))") }
            if let v = t.pulseOffset, v.isFinite { time.append("\"pps_offset\":\(FixText.fixed(v, 9))") }
            if let v = t.sentenceDelay, v.isFinite { time.append("\"sentence_delay\":\(FixText.fixed(v, 6))") }
            time.append("\"time_offset\":\(FixText.fixed(t.configuredOffset, 6))")
            time.append("\"serial_samples\":\(t.serialSamples),\"pps_samples\":\(t.pulseSamples)")
            if let refusal = t.refusal { time.append("\"refusal\":" + JSONText.quote(refusal)) }
            fields.append("\"time_service\":{" + time.joined(separator: ",") + "}")
        }
        if let h = s.heading {
            num("heading_magnetic", h.magneticHeading, 2); num("heading_true", h.trueHeading, 2)
            if h.headingAccuracy >= 0 { num("heading_accuracy", h.headingAccuracy, 2) }
            num("pitch", h.pitch, 2); num("roll", h.roll, 2)
            fields.append("\"heading_quality\":\"\(h.quality.rawValue)\"")
            if let a = h.attitude { fields.append("\"attitude\":" + filterJSON(a)) }
        }
        if let c = s.calibration { fields.append("\"calibration\":{\"verdict\":\"\(c.verdict)\",\"score\":\(Int(c.score))}") }
        if let d = s.decision {
            fields.append("\"power\":{\"receiver\":" + JSONText.quote(d.receiver.description) + ",\"paused\":\(d.paused)}")
        }
        if !s.remote {
            num("energy_mAh", s.energy.charge(.receiver), 4)
            let clients = s.energyByClient.map { "{\"client\":" + JSONText.quote($0.client) + ",\"energy_mAh\":" + FixText.fixed($0.charge, 4) + "}" }
            fields.append("\"energy_by_client\":[" + clients.joined(separator: ",") + "]")
        }
        if s.receivers.count > 1 { fields.append("\"receivers\":" + receiversJSON(s.receivers)) }
        if let c = s.corrections { fields.append("\"corrections\":" + correctionJSON(c)) }
        fields.append("\"health\":" + HealthView.json(health(s)))
        let regions = s.regions.map {
            "{\"client\":" + JSONText.quote($0.client) + ",\"identifier\":" + JSONText.quote($0.identifier) + ",\"state\":\"\($0.state.rawValue)\"}"
        }
        fields.append("\"regions\":[" + regions.joined(separator: ",") + "]")
        if let c = s.capabilities { fields.append("\"services\":" + servicesJSON(c)) }
        num("uptime", s.uptime, 1)
        fields.append("\"warnings\":[" + s.warnings.map(JSONText.quote).joined(separator: ",") + "]")
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// One line per service of the board: available with its device, or unavailable with the problem and the reason.
    static func serviceLines(_ capabilities: DeviceCapabilities?) -> [String] {
        guard let capabilities else { return [] }
        return capabilities.services.enumerated().map { i, entry in
            let state = entry.problem.map { "unavailable (\($0.rawValue)): \(entry.reason ?? entry.device)" } ?? "available (\(entry.device))"
            return (i == 0 ? "Services   " : "           ") + pad(entry.service.rawValue, 9) + state
        }
    }

    /// The services as a JSON array: `{"service","device","available","problem"?,"reason"?}` each.
    static func servicesJSON(_ capabilities: DeviceCapabilities) -> String {
        let entries = capabilities.services.map { e -> String in
            var f = ["\"service\":" + JSONText.quote(e.service.rawValue), "\"device\":" + JSONText.quote(e.device), "\"available\":\(e.isAvailable)"]
            if let p = e.problem { f.append("\"problem\":" + JSONText.quote(p.rawValue)) }
            if let r = e.reason { f.append("\"reason\":" + JSONText.quote(r)) }
            return "{" + f.joined(separator: ",") + "}"
        }
        return "[" + entries.joined(separator: ",") + "]"
    }
}
