import FieldLocation
import LocationServices
import NMEA

/// The unit's health (``UnitHealth``) as the status screen's "Health" block and as the status
/// JSON's `health` object.
public enum HealthView {
    static func f(_ v: Double?, _ digits: Int, _ unit: String = "") -> String {
        guard let v, v.isFinite else { return "—" }
        return FixText.fixed(v, digits) + unit
    }

    /// The block: acquisition, sentence counts, watchdog, interference, corrections and time, heading, energy.
    public static func lines(_ h: UnitHealth, remote: Bool = false) -> [String] {
        if remote { return ["Health     the daemon's own: its page and /metrics (fieldlocd --http), or fieldloc status on its host"] }
        var out: [String] = []
        let ttff = h.timeToFirstFix.map { FixText.fixed($0, 1) + " s" } ?? "—"
        let receiverTTFF = h.receiverTimeToFirstFix.map { " (receiver says \(FixText.fixed($0, 1)) s)" } ?? ""
        out.append("Health     TTFF \(ttff)\(receiverTTFF), \(h.acquisitions) acquisition(s)   fixes \(h.fixes), \(f(h.fixRate, 2, "/s"))")
        out.append("           sentences \(h.sentencesAccepted) accepted, \(h.sentencesRejected) rejected, \(h.garbageBytes) garbage bytes")
        do {
            out.append("           watchdog \(h.watchdogWakes) wakes, \(h.powerCycles) power cycles, autobaud \(h.autobaudRecoveries)/\(h.autobaudRuns)"
                       + "   port \(h.portFailures) failures, \(h.portReopens) reopens   sensors \(h.sensorFailures) failures")
        }
        var interference: [String] = []
        if let j = h.jamming { interference.append("jamming \(UnitHealth.word(j))" + (h.jammingIndicator.map { " (CW \($0)/255)" } ?? "")) }
        if let s = h.spoofing { interference.append("spoofing \(UnitHealth.word(s))") }
        if !interference.isEmpty { out.append("           " + interference.joined(separator: ", ")) }
        if let link = h.correctionLink {
            out.append("           corrections \(link), age \(f(h.correctionAge, 1, " s"))")
        }
        if h.ppsOffset != nil || h.serialTimeOffset != nil {
            out.append("           time offsets: PPS \(f(h.ppsOffset.map { $0 * 1e6 }, 1, " µs")), serial \(f(h.serialTimeOffset.map { $0 * 1e3 }, 2, " ms"))")
        }
        if let q = h.headingQuality {
            out.append("           heading \(q.rawValue) ±\(f(h.headingAccuracy, 1, "°")), \(f(h.headingAge, 1, " s")) old"
                       + "   calibration \(h.calibrationVerdict ?? "none")" + (h.calibrationCreated.map { " (\($0))" } ?? ""))
        }
        do {
            out.append("           receiver \(h.receiverPower ?? "—"), \(f(h.receiverCharge, 3, " mAh")) (mean \(f(h.receiverMeanCurrent, 2, " mA"))), sensors \(f(h.sensorCharge, 3, " mAh"))")
        }
        for concern in h.concerns { out.append("           ! " + concern) }
        return out
    }

    /// The `health` object of the status JSON; values that are not known are omitted.
    public static func json(_ h: UnitHealth) -> String {
        var fields: [String] = []
        func num(_ key: String, _ v: Double?, _ digits: Int) {
            if let v, v.isFinite { fields.append("\"\(key)\":\(FixText.fixed(v, digits))") }
        }
        func int(_ key: String, _ v: Int?) { if let v { fields.append("\"\(key)\":\(v)") } }
        func text(_ key: String, _ v: String?) { if let v { fields.append("\"\(key)\":" + JSONText.quote(v)) } }
        num("uptime_s", h.uptime, 1)
        num("ttff_s", h.timeToFirstFix, 2)
        num("receiver_ttff_s", h.receiverTimeToFirstFix, 3)
        int("acquisitions", h.acquisitions)
        int("fixes", h.fixes)
        num("fix_rate_hz", h.fixRate, 3)
        num("fix_age_s", h.fixAge, 2)
        int("sentences_accepted", h.sentencesAccepted)
        int("sentences_rejected", h.sentencesRejected)
        fields.append("\"garbage_bytes\":\(h.garbageBytes)")
        int("bytes", h.bytes)
        int("port_failures", h.portFailures); int("port_reopens", h.portReopens)
        int("watchdog_wakes", h.watchdogWakes); int("power_cycles", h.powerCycles)
        int("autobaud_runs", h.autobaudRuns); int("autobaud_recoveries", h.autobaudRecoveries)
        int("sensor_failures", h.sensorFailures); int("sensor_reopens", h.sensorReopens); int("heading_failures", h.headingFailures)
        text("jamming", h.jamming.map(UnitHealth.word)); int("jamming_indicator", h.jammingIndicator)
        text("spoofing", h.spoofing.map(UnitHealth.word))
        text("corrections_link", h.correctionLink); num("corrections_age_s", h.correctionAge, 1)
        text("pps", h.pps.description)
        num("pps_offset_s", h.ppsOffset, 9); num("serial_offset_s", h.serialTimeOffset, 6)
        text("heading_quality", h.headingQuality?.rawValue); num("heading_accuracy_deg", h.headingAccuracy, 2)
        num("heading_age_s", h.headingAge, 2)
        text("calibration", h.calibrationVerdict); text("calibration_created", h.calibrationCreated)
        text("receiver_power", h.receiverPower)
        num("receiver_charge_mAh", h.receiverCharge, 4); num("sensor_charge_mAh", h.sensorCharge, 4)
        num("receiver_mean_current_mA", h.receiverMeanCurrent, 3)
        fields.append("\"concerns\":[" + h.concerns.map(JSONText.quote).joined(separator: ",") + "]")
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// u-blox `gnssid` numbering, as gpsd's SKY reports it: 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou,
    /// 5 QZSS, 6 GLONASS, 7 NavIC.
    public static func gnssid(_ constellation: Constellation) -> Int {
        switch constellation {
        case .gps: return 0
        case .sbas: return 1
        case .galileo: return 2
        case .beidou: return 3
        case .qzss: return 5
        case .glonass: return 6
        case .navic: return 7
        }
    }
}
