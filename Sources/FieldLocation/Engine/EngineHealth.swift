import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy

extension LocationEngine {
    /// The unit's health now (see ``UnitHealth``): uptime counts from the engine's creation and the
    /// fix age from the last location; a status readout that observes fixes passes its own.
    public func health(fixAge: Double? = nil, uptime: Double? = nil) -> UnitHealth {
        let now = clock.now()
        return UnitHealth.gather(engine: self, fixAge: fixAge ?? lastLocation?.age(at: now),
                                 uptime: uptime ?? (now - createdAt).secondsDouble)
    }
}

extension UnitHealth {
    /// The health of `engine` now, with the caller's fix age and uptime.
    static func gather(engine: LocationEngine, fixAge: Double?, uptime: Double) -> UnitHealth {
        var h = UnitHealth()
        let c = engine.statistics
        h.uptime = uptime
        h.timeToFirstFix = c.timeToFirstFix
        h.acquisitions = c.acquisitions
        (h.aidedAcquisitions, h.aidedTimeToFirstFix, h.unaidedTimeToFirstFix, h.lastAcquisitionAided)
            = (c.aidedAcquisitions, c.aidedTimeToFirstFix, c.unaidedTimeToFirstFix, c.lastAcquisitionAided)
        h.fixes = c.fixes
        h.fixAge = fixAge
        (h.sentencesAccepted, h.sentencesRejected, h.garbageBytes, h.bytes) = (c.sentencesAccepted, c.sentencesRejected, c.garbageBytes, c.bytes)
        (h.portFailures, h.portReopens) = (c.portFailures, c.portReopens)
        (h.watchdogWakes, h.powerCycles, h.autobaudRuns, h.autobaudRecoveries) = (c.watchdogWakes, c.powerCycles, c.autobaudRuns, c.autobaudRecoveries)
        (h.sensorFailures, h.sensorReopens, h.headingFailures) = (c.sensorFailures, c.sensorReopens, c.headingFailures)
        if let status = engine.published.withLock({ $0.lastReceiverStatus }) {
            h.receiverTimeToFirstFix = status.timeToFirstFix
            h.jamming = status.jamming
            h.jammingIndicator = status.jammingIndicator
            h.spoofing = status.spoofing
        }
        if let corrections = engine.correctionStatus {
            h.correctionLink = corrections.link
            h.correctionAge = corrections.age
        }
        h.pps = engine.ppsStatus
        if let heading = engine.lastHeading {
            h.headingQuality = heading.quality
            h.headingAccuracy = heading.headingAccuracy >= 0 ? heading.headingAccuracy : nil
            h.headingAge = (engine.clock.now() - heading.takenAt).secondsDouble
        }
        h.calibrationVerdict = engine.calibration?.quality.verdict.rawValue
        h.receiverPower = engine.decision.map { "\($0.receiver)" }
        h.receiverPowerState = engine.decision?.receiver.stateName
        let energy = engine.energyUsed
        h.receiverCharge = energy.charge(.receiver)
        h.sensorCharge = energy.charge(.magnetometer) + energy.charge(.accelerometer)
        h.receiverMeanCurrent = energy.meanCurrent(.receiver)
        return h
    }
}
