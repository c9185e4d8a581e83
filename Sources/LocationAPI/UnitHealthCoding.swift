import Heading
import LocationServices
import NMEA

/// ``UnitHealth`` as JSON, one form for the status JSON's `health` object and the client socket's
/// `health` reply: values that are not known (or not finite) are omitted; states as their words
/// (`jamming` `ok`/`warning`/`critical`/`unknown`, `spoofing` `none`/`indicated`/`multiple`/`unknown`,
/// `pps` as the status readout prints it); `concerns` is written, and derived again when read.
extension UnitHealth: Codable {
    enum CodingKeys: String, CodingKey {
        case uptime = "uptime_s", timeToFirstFix = "ttff_s", receiverTimeToFirstFix = "receiver_ttff_s", acquisitions, fixes
        case aidedAcquisitions = "acquisitions_aided", aidedTimeToFirstFix = "ttff_aided_s", unaidedTimeToFirstFix = "ttff_unaided_s"
        case lastAcquisitionAided = "ttff_last_aided"
        case fixRate = "fix_rate_hz", fixAge = "fix_age_s", sentencesAccepted = "sentences_accepted"
        case sentencesRejected = "sentences_rejected", garbageBytes = "garbage_bytes", bytes
        case portFailures = "port_failures", portReopens = "port_reopens", watchdogWakes = "watchdog_wakes"
        case powerCycles = "power_cycles", autobaudRuns = "autobaud_runs", autobaudRecoveries = "autobaud_recoveries"
        case sensorFailures = "sensor_failures", sensorReopens = "sensor_reopens", headingFailures = "heading_failures"
        case jamming, jammingIndicator = "jamming_indicator", spoofing, correctionLink = "corrections_link"
        case correctionAge = "corrections_age_s", pps, ppsOffset = "pps_offset_s", serialTimeOffset = "serial_offset_s"
        case headingQuality = "heading_quality", headingAccuracy = "heading_accuracy_deg", headingAge = "heading_age_s"
        case calibrationVerdict = "calibration", calibrationCreated = "calibration_created"
        case receiverPower = "receiver_power", receiverPowerState = "receiver_power_state"
        case receiverCharge = "receiver_charge_mAh", sensorCharge = "sensor_charge_mAh", receiverMeanCurrent = "receiver_mean_current_mA"
        case concerns
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func number(_ value: Double?, _ key: CodingKeys) throws {
            if let value, value.isFinite { try c.encode(value, forKey: key) }
        }
        try number(uptime, .uptime)
        try number(timeToFirstFix, .timeToFirstFix)
        try number(receiverTimeToFirstFix, .receiverTimeToFirstFix)
        try c.encode(acquisitions, forKey: .acquisitions)
        try c.encode(aidedAcquisitions, forKey: .aidedAcquisitions)
        try number(aidedTimeToFirstFix, .aidedTimeToFirstFix)
        try number(unaidedTimeToFirstFix, .unaidedTimeToFirstFix)
        try c.encode(lastAcquisitionAided, forKey: .lastAcquisitionAided)
        try c.encode(fixes, forKey: .fixes)
        try number(fixRate, .fixRate)
        try number(fixAge, .fixAge)
        try c.encode(sentencesAccepted, forKey: .sentencesAccepted)
        try c.encode(sentencesRejected, forKey: .sentencesRejected)
        try c.encode(garbageBytes, forKey: .garbageBytes)
        try c.encode(bytes, forKey: .bytes)
        try c.encode(portFailures, forKey: .portFailures)
        try c.encode(portReopens, forKey: .portReopens)
        try c.encode(watchdogWakes, forKey: .watchdogWakes)
        try c.encode(powerCycles, forKey: .powerCycles)
        try c.encode(autobaudRuns, forKey: .autobaudRuns)
        try c.encode(autobaudRecoveries, forKey: .autobaudRecoveries)
        try c.encode(sensorFailures, forKey: .sensorFailures)
        try c.encode(sensorReopens, forKey: .sensorReopens)
        try c.encode(headingFailures, forKey: .headingFailures)
        try c.encodeIfPresent(jamming.map(UnitHealth.word), forKey: .jamming)
        try c.encodeIfPresent(jammingIndicator, forKey: .jammingIndicator)
        try c.encodeIfPresent(spoofing.map(UnitHealth.word), forKey: .spoofing)
        try c.encodeIfPresent(correctionLink, forKey: .correctionLink)
        try number(correctionAge, .correctionAge)
        try c.encode(pps.description, forKey: .pps)
        try number(ppsOffset, .ppsOffset)
        try number(serialTimeOffset, .serialTimeOffset)
        try c.encodeIfPresent(headingQuality?.rawValue, forKey: .headingQuality)
        try number(headingAccuracy, .headingAccuracy)
        try number(headingAge, .headingAge)
        try c.encodeIfPresent(calibrationVerdict, forKey: .calibrationVerdict)
        try c.encodeIfPresent(calibrationCreated, forKey: .calibrationCreated)
        try c.encodeIfPresent(receiverPower, forKey: .receiverPower)
        try c.encodeIfPresent(receiverPowerState, forKey: .receiverPowerState)
        try number(receiverCharge, .receiverCharge)
        try number(sensorCharge, .sensorCharge)
        try number(receiverMeanCurrent, .receiverMeanCurrent)
        try c.encode(concerns, forKey: .concerns)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        uptime = try c.decodeIfPresent(Double.self, forKey: .uptime) ?? 0
        timeToFirstFix = try c.decodeIfPresent(Double.self, forKey: .timeToFirstFix)
        receiverTimeToFirstFix = try c.decodeIfPresent(Double.self, forKey: .receiverTimeToFirstFix)
        acquisitions = try c.decodeIfPresent(Int.self, forKey: .acquisitions) ?? 0
        aidedAcquisitions = try c.decodeIfPresent(Int.self, forKey: .aidedAcquisitions) ?? 0
        aidedTimeToFirstFix = try c.decodeIfPresent(Double.self, forKey: .aidedTimeToFirstFix)
        unaidedTimeToFirstFix = try c.decodeIfPresent(Double.self, forKey: .unaidedTimeToFirstFix)
        lastAcquisitionAided = try c.decodeIfPresent(Bool.self, forKey: .lastAcquisitionAided) ?? false
        fixes = try c.decodeIfPresent(Int.self, forKey: .fixes) ?? 0
        fixRate = try c.decodeIfPresent(Double.self, forKey: .fixRate)
        fixAge = try c.decodeIfPresent(Double.self, forKey: .fixAge)
        sentencesAccepted = try c.decodeIfPresent(Int.self, forKey: .sentencesAccepted) ?? 0
        sentencesRejected = try c.decodeIfPresent(Int.self, forKey: .sentencesRejected) ?? 0
        garbageBytes = try c.decodeIfPresent(Int64.self, forKey: .garbageBytes) ?? 0
        bytes = try c.decodeIfPresent(Int.self, forKey: .bytes) ?? 0
        portFailures = try c.decodeIfPresent(Int.self, forKey: .portFailures) ?? 0
        portReopens = try c.decodeIfPresent(Int.self, forKey: .portReopens) ?? 0
        watchdogWakes = try c.decodeIfPresent(Int.self, forKey: .watchdogWakes) ?? 0
        powerCycles = try c.decodeIfPresent(Int.self, forKey: .powerCycles) ?? 0
        autobaudRuns = try c.decodeIfPresent(Int.self, forKey: .autobaudRuns) ?? 0
        autobaudRecoveries = try c.decodeIfPresent(Int.self, forKey: .autobaudRecoveries) ?? 0
        sensorFailures = try c.decodeIfPresent(Int.self, forKey: .sensorFailures) ?? 0
        sensorReopens = try c.decodeIfPresent(Int.self, forKey: .sensorReopens) ?? 0
        headingFailures = try c.decodeIfPresent(Int.self, forKey: .headingFailures) ?? 0
        jamming = try c.decodeIfPresent(String.self, forKey: .jamming).flatMap { word in
            [JammingState.unknown, .ok, .warning, .critical].first { UnitHealth.word($0) == word }
        }
        jammingIndicator = try c.decodeIfPresent(Int.self, forKey: .jammingIndicator)
        spoofing = try c.decodeIfPresent(String.self, forKey: .spoofing).flatMap { word in
            [SpoofingState.unknown, .none, .indicated, .multipleIndications].first { UnitHealth.word($0) == word }
        }
        correctionLink = try c.decodeIfPresent(String.self, forKey: .correctionLink)
        correctionAge = try c.decodeIfPresent(Double.self, forKey: .correctionAge)
        pps = Self.ppsStatus(try c.decodeIfPresent(String.self, forKey: .pps) ?? "")
        ppsOffset = try c.decodeIfPresent(Double.self, forKey: .ppsOffset)
        serialTimeOffset = try c.decodeIfPresent(Double.self, forKey: .serialTimeOffset)
        headingQuality = try c.decodeIfPresent(String.self, forKey: .headingQuality).flatMap(HeadingQuality.init(rawValue:))
        headingAccuracy = try c.decodeIfPresent(Double.self, forKey: .headingAccuracy)
        headingAge = try c.decodeIfPresent(Double.self, forKey: .headingAge)
        calibrationVerdict = try c.decodeIfPresent(String.self, forKey: .calibrationVerdict)
        calibrationCreated = try c.decodeIfPresent(String.self, forKey: .calibrationCreated)
        receiverPower = try c.decodeIfPresent(String.self, forKey: .receiverPower)
        receiverPowerState = try c.decodeIfPresent(String.self, forKey: .receiverPowerState)
        receiverCharge = try c.decodeIfPresent(Double.self, forKey: .receiverCharge) ?? 0
        sensorCharge = try c.decodeIfPresent(Double.self, forKey: .sensorCharge) ?? 0
        receiverMeanCurrent = try c.decodeIfPresent(Double.self, forKey: .receiverMeanCurrent) ?? 0
    }

    /// The PPS state its description names (the readout's words; anything else is `none`).
    static func ppsStatus(_ text: String) -> PPSStatus {
        let numbers = text.split { !$0.isNumber }.compactMap { Int($0) }
        if text == PPSStatus.locked.description { return .locked }
        if text == PPSStatus.waiting.description { return .waiting }
        if text.hasPrefix("no pulse for"), let seconds = numbers.first {
            return .missing(seconds: seconds, level: text.contains("stuck high") ? true : (text.contains("stuck low") ? false : nil))
        }
        if text.hasPrefix("irregular"), let ms = numbers.first { return .irregular(intervalMilliseconds: ms) }
        return .none
    }
}
