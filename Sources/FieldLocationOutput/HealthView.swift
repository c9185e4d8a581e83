import FieldLocation
import Foundation
import LocationAPI
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
        out.append("Health     TTFF \(ttff)\(h.lastAcquisitionAided ? " aided" : "")\(receiverTTFF), \(h.acquisitions) acquisition(s)   fixes \(h.fixes), \(f(h.fixRate, 2, "/s"))")
        if h.aidedAcquisitions > 0 {
            out.append("           aided starts \(h.aidedAcquisitions) (last TTFF \(f(h.aidedTimeToFirstFix, 1, " s"))), unaided \(h.acquisitions - h.aidedAcquisitions)"
                       + " (last TTFF \(f(h.unaidedTimeToFirstFix, 1, " s")))")
        }
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

    /// The `health` object of the status JSON: ``UnitHealth``'s one JSON form (keys sorted), the
    /// same as the client socket's `health` reply.
    public static func json(_ h: UnitHealth) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(h) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// u-blox `gnssid` numbering, as gpsd's SKY reports it: 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou,
    /// 5 QZSS, 6 GLONASS, 7 NavIC.
    public static func gnssid(_ constellation: Constellation) -> Int { Int(UBXGNSS.gnssID(constellation)) }
}
