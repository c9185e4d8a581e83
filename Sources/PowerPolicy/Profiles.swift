/// The energy-relevant facts of one receiver model: currents per state, wake-up times, rates.
///
/// Values are module currents from the vendors' data sheets (see the power reference), plus a
/// board overhead drawn while the module is powered. They are parameters, not truths: a bench
/// measurement of the board replaces them.
public struct ReceiverProfile: Sendable, Hashable {
    /// A name such as `u-blox M10 (SAM-M10Q)`.
    public var name: String
    /// Supply voltage, volts (for energy in mWh).
    public var volts: Double
    /// Current while waking to a hot fix, mA. A hot start re-acquires satellites whose
    /// ephemerides and positions are known, so it runs near the tracking current; the data
    /// sheets' higher acquisition figures describe cold starts.
    public var acquisition: Double
    /// Current while tracking continuously at 1 Hz, mA.
    public var tracking: Double
    /// Current in receiver-managed cyclic tracking at 1 Hz, mA; `nil` when the receiver has none.
    public var cyclicTracking: Double?
    /// Current in software standby (RAM and RTC kept), mA, including board overhead while powered.
    public var standby: Double
    /// Current in hardware backup (only V_BCKP), mA.
    public var backup: Double
    /// Time from software standby to a hot fix, seconds.
    public var hotStartFromStandby: Double
    /// Time from hardware backup to a hot fix (boot + hot start), seconds.
    public var hotStartFromBackup: Double
    /// Time to a fix with stale ephemerides (warm start), seconds.
    public var warmStart: Double
    /// Time to a fix without almanac or time (cold start), seconds.
    public var coldStart: Double
    /// The highest navigation rate, Hz.
    public var maximumRate: Double
    /// The rate used for best-for-navigation, Hz.
    public var navigationRate: Double
    /// Time to a fix of an aided start: the host's time and position given to a receiver whose
    /// self-generated orbit predictions (u-blox AssistNow Autonomous, MediaTek EASY) are still
    /// valid, seconds; `nil` when the receiver has no such predictions. Time and position without
    /// them make a warm start (``warmStart``).
    public var aidedStart: Double? = nil
    /// How long self-generated orbit predictions stay usable after the ephemerides they grew
    /// from were collected, seconds (u-blox: about three days; MediaTek EASY: three days).
    public var predictionLifetime: Double = 3 * 86_400

    /// The period above which hardware backup between fixes costs less than software standby:
    /// `(t_on,backup − t_on,standby) · I_acq / (I_standby − I_backup)`, seconds.
    public var crossoverPeriod: Double {
        let saving = standby - backup
        guard saving > 0 else { return .infinity }
        return (hotStartFromBackup - hotStartFromStandby) * acquisition / saving
    }

    /// u-blox M10 (SAM-M10Q at 3.0 V, four constellations): 12.3 mA tracking, PSMCT 7 mA,
    /// software standby 46 µA plus 0.3 mA of board overhead, backup 32 µA. Aided start 4 s: the
    /// data sheet's AssistNow Autonomous figure (3-4 s) with time and position given.
    public static let ubloxM10 = ReceiverProfile(
        name: "u-blox M10 (SAM-M10Q)", volts: 3.0, acquisition: 12.3, tracking: 12.3, cyclicTracking: 7.0,
        standby: 0.346, backup: 0.032, hotStartFromStandby: 3, hotStartFromBackup: 4, warmStart: 30, coldStart: 30,
        maximumRate: 10, navigationRate: 5, aidedStart: 4)

    /// u-blox M8 (NEO-M8N class at 3.0 V, GPS+GLONASS): 29 mA tracking, PSM 9.5 mA, about 20 µA
    /// standby and backup plus board overhead. Aided start 2 s: the MAX-M8Q data sheet's aided
    /// start (GPS+GLONASS), taken for AssistNow Autonomous with time and position.
    public static let ubloxM8 = ReceiverProfile(
        name: "u-blox M8 (NEO-M8N)", volts: 3.0, acquisition: 29, tracking: 29, cyclicTracking: 9.5,
        standby: 0.32, backup: 0.02, hotStartFromStandby: 3, hotStartFromBackup: 4, warmStart: 30, coldStart: 29,
        maximumRate: 10, navigationRate: 10, aidedStart: 2)

    /// MediaTek MT3339 (Adafruit Ultimate GPS at 3.3 V): 20 mA tracking, no cyclic mode, about
    /// 2 mA in `$PMTK161` standby on the breakout, 7 µA RTC backup with the EN pin low. Aided
    /// start 15 s: EASY's figure for MediaTek modules (LOCOSYS MC-1513 data sheet: under 15 s
    /// with self-generated predictions); the PA6H sheet states none.
    public static let mt3339 = ReceiverProfile(
        name: "MediaTek MT3339", volts: 3.3, acquisition: 25, tracking: 20, cyclicTracking: nil,
        standby: 2.0, backup: 0.007, hotStartFromStandby: 4, hotStartFromBackup: 5, warmStart: 35, coldStart: 35,
        maximumRate: 10, navigationRate: 10, aidedStart: 15)

    /// Profiles by the names `fieldloc simulate --receiver` accepts.
    public static let named: [String: ReceiverProfile] = ["m10": .ubloxM10, "neo-m8n": .ubloxM8, "m8": .ubloxM8, "mt3339": .mt3339]
}
