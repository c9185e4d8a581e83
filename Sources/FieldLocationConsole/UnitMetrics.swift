import FieldLocation
import FieldLocationOutput
import LocationServices
import NMEA
import Prometheus
import Synchronization

/// The unit's state as Prometheus metrics, through swift-prometheus' collector registry.
///
/// The values are read from a status snapshot at scrape time (the engine's own counters, never a
/// second count): gauges are set, and counters advance by what the engine's counters moved since
/// the last scrape. Names follow Prometheus' conventions: a `fieldloc_` prefix, base units in the
/// name (`_seconds`, `_meters`, `_coulombs`, `_amperes`), `_total` on counters, states as one
/// series per state with the value 1 for the current one. No position is exported unless asked
/// (`includePosition`), since metrics leave the unit.
final class UnitMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let includePosition: Bool
    private let lastCounts = Mutex<[String: Double]>([:])

    /// The constellations the satellite gauges are labelled with.
    static let constellations: [(Constellation, String)] = Constellation.allCases.map { ($0, $0.code) }
    static let headingQualities = ["good", "degraded", "unavailable"]

    init(includePosition: Bool) {
        self.includePosition = includePosition
    }

    private func gauge(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Gauge {
        registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "fieldloc", metricName: name, unitName: "", helpText: help), labels: labels)
    }

    private func counter(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Counter {
        registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "fieldloc", metricName: name, unitName: "", helpText: help), labels: labels)
    }

    /// Sets a gauge, or NaN when the value is unknown (the series stays, its value says "unknown").
    private func set(_ name: String, _ help: String, _ value: Double?, _ labels: [(String, String)] = []) {
        gauge(name, help, labels).set(value.flatMap { $0.isFinite ? $0 : nil } ?? .nan)
    }

    /// Advances a counter to `total` (a count the engine keeps): by the difference since the last scrape.
    private func advance(_ name: String, _ help: String, to total: Double, _ labels: [(String, String)] = []) {
        let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined()
        let delta = lastCounts.withLock { last -> Double in
            let before = last[key] ?? 0
            last[key] = total
            return total >= before ? total - before : total  // a restarted count starts again
        }
        let c = counter(name, help, labels)
        if delta > 0 { c.increment(by: delta) } else { c.increment(by: Int64(0)) }
    }

    /// The exposition text for `snapshot`.
    func exposition(_ snapshot: StatusSnapshot) -> [UInt8] {
        record(snapshot)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }

    /// Per receiver of a board with several, labelled `receiver` (its name): open, chosen (its
    /// fixes are delivered), live (it competes in the best-source rule), its last fix's type (one series per type), accuracy and age.
    private func recordReceivers(_ receivers: [ReceiverSourceStatus]) {
        guard receivers.count > 1 else { return }
        for r in receivers {
            let label = [("receiver", r.label)]
            set("receiver_open", "1 while the receiver's port is open.", r.open ? 1 : 0, label)
            set("receiver_chosen", "1 for the receiver whose fixes are delivered (the best-source rule's choice).", r.chosen ? 1 : 0, label)
            set("receiver_live", "1 while the receiver competes in the best-source rule (open, last fix within 1.5 of its epochs).", r.live ? 1 : 0, label)
            set("receiver_fix_age_seconds", "Seconds since the receiver's last fix with a position.", r.lastFixAge, label)
            set("receiver_horizontal_accuracy_meters", "Horizontal accuracy (68 %) of the receiver's last fix, metres.", r.lastAccuracy, label)
            for type in LocationFixType.allCases where type != .none {
                set("receiver_fix_type", "The receiver's last fix type: 1 for the current one.", r.lastFixType == type ? 1 : 0,
                    label + [("type", type.rawValue)])
            }
        }
    }

    /// Updates every metric from `snapshot`.
    func record(_ s: StatusSnapshot) {
        let h = s.health
        let fix = s.fix
        let mode: Double = fix.map { $0.mode == .threeD ? 3 : $0.mode == .twoD ? 2 : 1 } ?? 0
        set("fix_mode", "Fix mode: 0 no data yet, 1 no fix, 2 2D, 3 3D (gpsd's TPV mode).", mode)
        let sats = fix?.satellites.array ?? []
        for (constellation, name) in Self.constellations {
            let mine = sats.filter { $0.constellation == constellation }
            set("satellites_visible", "Satellites in view, per constellation.", Double(mine.count), [("constellation", name)])
            set("satellites_used", "Satellites used in the fix, per constellation.", Double(mine.filter(\.used).count), [("constellation", name)])
        }
        let used = sats.filter { $0.used }.compactMap(\.snr)
        set("used_cn0_mean_dbhz", "Mean carrier-to-noise density of the satellites used, dB-Hz.",
            used.isEmpty ? nil : Double(used.reduce(0) { $0 + Int($1) }) / Double(used.count))
        set("hdop", "Horizontal dilution of precision.", fix?.hdop)
        set("horizontal_accuracy_meters", "Horizontal accuracy (68 %), metres.", fix?.horizontalAccuracy)
        set("vertical_accuracy_meters", "Vertical accuracy (68 %), metres.", fix?.verticalAccuracy)
        set("fix_age_seconds", "Seconds since the last fix arrived.", s.fixAge)
        set("ttff_seconds", "Seconds from the receiver's last start or wake to its first fix with a position.", h.timeToFirstFix)
        set("receiver_ttff_seconds", "Time to first fix as the receiver reported it (UBX NAV-STATUS), seconds.", h.receiverTimeToFirstFix)
        set("uptime_seconds", "Seconds the console's engine readout has run.", h.uptime)
        advance("fixes_total", "Fixes (epochs) assembled.", to: Double(h.fixes))
        advance("acquisitions_total", "Receiver starts and wakes that reached a fix with a position.", to: Double(h.acquisitions))
        advance("receiver_bytes_total", "Bytes read from the receiver.", to: Double(h.bytes))
        advance("sentences_total", "Sentences the NMEA engine handled, by outcome.", to: Double(h.sentencesAccepted), [("outcome", "accepted")])
        advance("sentences_total", "Sentences the NMEA engine handled, by outcome.", to: Double(h.sentencesRejected), [("outcome", "rejected")])
        advance("garbage_bytes_total", "Bytes the framer could not place in any sentence or binary frame.", to: Double(h.garbageBytes))
        let watchdog = "Watchdog actions on the receiver, by action."
        advance("watchdog_actions_total", watchdog, to: Double(h.watchdogWakes), [("action", "wake")])
        advance("watchdog_actions_total", watchdog, to: Double(h.powerCycles), [("action", "power_cycle")])
        advance("watchdog_actions_total", watchdog, to: Double(h.autobaudRuns), [("action", "autobaud")])
        advance("port_failures_total", "Times the receiver's port failed.", to: Double(h.portFailures))
        advance("sensor_failures_total", "Sensor reads that failed.", to: Double(h.sensorFailures))
        set("jamming_indicator", "CW jamming indicator the receiver reports, 0 (none) to 255 (strong).", h.jammingIndicator.map(Double.init))
        set("jamming_state", "Jamming state the receiver reports: 0 unknown, 1 ok, 2 warning, 3 critical.", h.jamming.map { Double($0.rawValue) })
        set("spoofing_state", "Spoofing state the receiver reports: 0 unknown, 1 none, 2 indicated, 3 multiple indications.", h.spoofing.map { Double($0.rawValue) })
        set("pps_locked", "1 while PPS pulses arrive once a second and pair with fixes.", h.pps == .locked ? 1 : 0)
        set("pps_offset_seconds", "The time service's last PPS offset (system minus PPS), seconds.", s.time?.pulseOffset)
        set("serial_time_offset_seconds", "The time service's last serial-time offset, seconds.", s.time?.serialOffset)
        set("corrections_age_seconds", "Age of the last RTK correction (NTRIP), seconds.", h.correctionAge)
        set("corrections_link_up", "1 while the NTRIP link streams corrections.", h.correctionLink.map { $0 == "streaming" ? 1 : 0 })
        set("heading_accuracy_degrees", "The last heading's stated accuracy, degrees.", h.headingAccuracy)
        set("heading_age_seconds", "Seconds since the last heading.", h.headingAge)
        for quality in Self.headingQualities {
            set("heading_quality", "The last heading's quality: 1 for the current one.",
                h.headingQuality.map { $0.rawValue == quality ? 1 : 0 } ?? 0, [("quality", quality)])
        }
        for state in ["continuous", "cyclic", "periodic", "idle"] {
            set("receiver_power_state", "The receiver's power state as the policy decided it: 1 for the current one.",
                h.receiverPowerState.map { $0 == state ? 1 : 0 } ?? 0, [("state", state)])
        }
        let charge = "Charge drawn so far, coulombs (1 mAh = 3.6 C), by component."
        set("energy_charge_coulombs", charge, h.receiverCharge * 3.6, [("component", "receiver")])
        set("energy_charge_coulombs", charge, h.sensorCharge * 3.6, [("component", "sensors")])
        set("receiver_current_amperes", "The receiver's mean current since start, amperes.", h.receiverMeanCurrent / 1000)
        recordReceivers(s.receivers)
        if includePosition {
            set("latitude_degrees", "Latitude of the last fix, degrees (exported only with --metrics-position).", fix?.latitude)
            set("longitude_degrees", "Longitude of the last fix, degrees (exported only with --metrics-position).", fix?.longitude)
            set("altitude_meters", "Altitude above mean sea level of the last fix, metres (exported only with --metrics-position).", fix?.altitudeMSL)
        }
    }
}
