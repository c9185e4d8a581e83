import BoardConfig
import Devices
import HardwareInterfaces
import PowerPolicy
import NMEA
import ReceiverProtocols

/// Carries out the power policy's decisions on a receiver, through its driver: the only caller
/// of the driver's power and rate commands. It remembers what it did (awake, cyclic, the periodic
/// window, the settings sent) so each decision turns into the fewest commands.
///
/// Settings: once awake it switches on the sentences the engine reads (``outputs``) and
/// the board's binary output, sets the navigation interval from the decision (`continuous(rate:)`,
/// 1 Hz otherwise) and the dynamic model from the clients' merged activity, each sent when it
/// changes and not again while it holds. A backup (or a power cycle, ``configurationLost()``) loses
/// the receiver's RAM configuration, so all of them are sent again after the next wake.
public final class ReceiverExecutor {
    /// The receiver's driver.
    public let driver: any ReceiverDriver
    /// The clock decisions are timed on.
    public let clock: any MonotonicClock
    /// Whether the receiver is awake, as far as the executor has made it.
    public private(set) var awake: Bool
    /// Whether cyclic tracking is on.
    public private(set) var cyclic = false
    /// Commands that failed (kept for the status readout; the executor goes on).
    public internal(set) var failures: [ReceiverError] = []
    private var windowStart: MonotonicInstant? = nil
    private var windowHasGoodFix = false
    private var nextWake: MonotonicInstant? = nil
    /// The binary navigation output to switch on once awake (the board's `output`); sent
    /// again after each backup, which loses the receiver's RAM configuration.
    public var binaryOutput: BinaryOutputMode = .nmea
    /// The NMEA sentences the engine reads and how often (every Nth fix): position and fix quality
    /// (GGA), speed, course and date (RMC), DOPs (GSA), the sky (GSV, every 5th fix) and accuracy
    /// (GST). Not sent with a `binary` output, which switches NMEA off.
    public var outputs: [NMEASentenceType: Int] = [.gga: 1, .rmc: 1, .gsa: 1, .gsv: 5, .gst: 1]
    /// Whether the outputs and the binary output have been sent since the last loss of configuration.
    private var outputsSent = false
    /// The navigation interval last sent, ms (`nil`: none since the last loss of configuration).
    public private(set) var rateSent: Int?
    /// The dynamic model last sent (`nil`: none since the last loss of configuration).
    public private(set) var dynamicModelSent: DynamicModel?
    /// Whether the driver refused dynamic models (a family without one): not asked again.
    private var dynamicModelUnsupported = false
    /// How the receiver's settings are treated: `ram` reads them before the first change
    /// and ``restoreSettings()`` puts them back; `persist` saves each change set and reads it back.
    /// (`passive` has no executor at all.)
    public var configMode: ReceiverConfigMode = .ram
    /// The settings read before the first change (`ram` and `persist`, where the family can read them).
    public private(set) var originalSettings: ReceiverSettingsSnapshot?
    private var settingsRead = false
    private var modelChanged = false
    private var unsaved = false
    /// Where aiding comes from (the engine: the synchronised system clock and the last fix);
    /// `nil` (or a `nil` answer): no aiding. See ``aidingAfterSleep``.
    public var aidingSource: (() -> ReceiverAiding?)?
    /// A sleep at least this long ends in an aided wake, as does the first wake (a power-up):
    /// after an hour the ephemerides the receiver kept are on their way out; shorter sleeps end
    /// in hot starts that aiding cannot shorten.
    public var aidingAfterSleep: Duration = .seconds(3600)
    /// Aiding sets sent, and whether the last wake was aided.
    public private(set) var aidingSent = 0
    public private(set) var lastWakeAided = false
    private var asleepSince: MonotonicInstant?
    private var everWoken = false
    private var predictionsRequested = false
    private var predictionsUnsupported = false
    /// Fixes the receiver keeps while nobody reads it (the board's `batch`); `nil`: no batching.
    /// See ``serviceBatching()``.
    public var batchSize: Int?
    /// Receives the fixes drained from the receiver's buffer, oldest first (once, at the first wake).
    public var onBatchDrained: (([Fix]) -> Void)?
    /// Whether the buffer was drained, and batching switched on since the last loss of configuration.
    var batchDrained = false, batchEnabled = false
    /// Fixes drained so far.
    public internal(set) var batchedFixesDrained = 0

    /// Creates an executor for a receiver that is `awake` or asleep now.
    public init(driver: any ReceiverDriver, clock: any MonotonicClock, awake: Bool) {
        self.driver = driver
        self.clock = clock
        self.awake = awake
        // A receiver found awake was powered before the executor: its power-up is not ours to aid.
        self.everWoken = awake
    }

    /// Records a fix of the current wake window; a good one (within the accuracy budget) lets a
    /// periodic schedule sleep again.
    public func noteFix(good: Bool) {
        if good { windowHasGoodFix = true }
    }

    func attempt(_ body: () throws(ReceiverError) -> Void) {
        do { try body() } catch { failures.append(error) }
    }

    func wake() {
        guard !awake else { return }
        attempt { () throws(ReceiverError) in try driver.wake() }
        awake = true
        windowStart = clock.now()
        windowHasGoodFix = false
        let longSleep = asleepSince.map { clock.now() - $0 >= aidingAfterSleep } ?? true
        lastWakeAided = false
        if longSleep || !everWoken { aid() }
        everWoken = true
        asleepSince = nil
    }

    /// Sends the aiding source's time and position, once the receiver is awake, switching the
    /// receiver's orbit predictions on first if they are not on yet. Returns whether anything was sent.
    @discardableResult
    public func aid() -> Bool {
        guard let aidable = driver as? any ReceiverAidable, let aiding = aidingSource?(), !aiding.isEmpty else { return false }
        requestPredictions()
        do {
            try aidable.aid(aiding)
            aidingSent += 1
            lastWakeAided = true
            return true
        } catch {
            if case .unsupported = error {} else { failures.append(error) }
            return false
        }
    }

    /// Switches the receiver's orbit predictions on (u-blox AssistNow Autonomous) where aiding is
    /// in use, once per loss of configuration: while the receiver is awake and aiding can be given
    /// (a synchronised clock and a last fix), or with the first aiding. They grow while
    /// the receiver tracks, for the next long sleep's start. A family without them is not asked again.
    func requestPredictions() {
        guard aidingSource != nil, !predictionsRequested, let aidable = driver as? any ReceiverAidable else { return }
        predictionsRequested = true
        do { try aidable.enablePredictedOrbits() } catch {
            if case .unsupported = error { predictionsUnsupported = true } else { failures.append(error) }
        }
    }

    func sleep(_ state: SleepState) {
        guard awake else { return }
        if cyclic {
            attempt { () throws(ReceiverError) in try driver.setCyclicTracking(false) }
            cyclic = false
        }
        attempt { () throws(ReceiverError) in
            if state == .standby { try driver.enterStandby() } else { try driver.enterBackup() }
        }
        awake = false
        windowStart = nil
        asleepSince = clock.now()
        if state == .backup || standbyLosesConfiguration { configurationLost() }
    }

    /// An M9/M10 in software standby clears its RAM: settings written to the RAM layer only
    /// (`ram` mode) are gone after it, and are sent again.
    var standbyLosesConfiguration: Bool {
        guard let ublox = driver as? UBloxDriver else { return false }
        return ublox.generation.usesConfigurationKeys && !ublox.layers.contains(.bbr)
    }

    /// The receiver lost its RAM configuration (a backup, a power cycle): outputs, rate and dynamic
    /// model are sent again once it is awake.
    public func configurationLost() {
        if !predictionsUnsupported { predictionsRequested = false }
        outputsSent = false
        batchEnabled = false
        rateSent = nil
        dynamicModelSent = nil
    }

    /// The navigation interval `action` asks for on `family`, ms: `continuous(rate:)`'s period (the
    /// nearest the family takes), 1 s for every other mode (cyclic tracking runs at 1 Hz).
    static func rateMilliseconds(_ action: ReceiverAction, family: ReceiverFamily) -> Int {
        guard case .continuous(let rate) = action, rate > 0, rate.isFinite else { return 1000 }
        return family.legalRate(milliseconds: Int((1000 / rate).rounded()))
    }

    /// The dynamic model for a merged activity: automotive for cars, pedestrian on foot, airborne
    /// (< 1 g) in the air, portable otherwise (boats, trains and bicycles included).
    public static func dynamicModel(for activity: ActivityType) -> DynamicModel {
        switch activity {
        case .automotiveNavigation: return .automotive
        case .fitness: return .pedestrian
        case .airborne: return .airborne
        case .other, .otherNavigation: return .portable
        }
    }

    /// Reads the receiver's settings once, before the first change.
    func readOriginalSettings() {
        guard !settingsRead else { return }
        settingsRead = true
        guard let configurable = driver as? any ReceiverConfigurable else { return }
        do { originalSettings = try configurable.readSettings() } catch { failures.append(error) }
    }

    func setRate(_ milliseconds: Int) {
        guard awake, rateSent != milliseconds else { return }
        readOriginalSettings()
        unsaved = true
        rateSent = milliseconds
        attempt { () throws(ReceiverError) in try driver.setRate(milliseconds: milliseconds) }
    }

    /// Outputs, binary output and dynamic model, where not sent since the last loss of configuration.
    func configure(activity: ActivityType?) {
        guard awake else { return }
        serviceBatching()
        if !outputsSent {
            readOriginalSettings()
            unsaved = true
            outputsSent = true
            if binaryOutput != .binary { attempt { () throws(ReceiverError) in try driver.setOutputs(outputs) } }
            if binaryOutput != .nmea { attempt { () throws(ReceiverError) in try driver.setBinaryOutput(binaryOutput) } }
        }
        if let activity, !dynamicModelUnsupported {
            let model = Self.dynamicModel(for: activity)
            if dynamicModelSent != model {
                readOriginalSettings()
                unsaved = true
                modelChanged = true
                dynamicModelSent = model
                do { try driver.setDynamicModel(model) } catch {
                    if case .unsupported = error { dynamicModelUnsupported = true } else { failures.append(error) }
                }
            }
        }
    }

    /// Sends the wake sequence again whatever the executor believes (the watchdog's first step
    /// for a receiver that should be talking but is silent).
    public func rewake() {
        attempt { () throws(ReceiverError) in try driver.wake() }
        awake = true
    }

    func setCyclic(_ on: Bool) {
        guard cyclic != on else { return }
        attempt { () throws(ReceiverError) in try driver.setCyclicTracking(on) }
        cyclic = on
    }

    /// Applies `decision`. `lastFix` is when the last fix arrived; `ephemerisFresh` whether the
    /// receiver's ephemerides are younger than the policy's refresh age (a periodic window stays
    /// open until they are).
    public func apply(_ decision: PowerDecision, lastFix: MonotonicInstant?, ephemerisFresh: Bool) {
        let now = clock.now()
        let rate = Self.rateMilliseconds(decision.receiver, family: driver.family)
        switch decision.receiver {
        case .continuous:
            wake()
            // Out of power save before a faster rate (power save takes only 1 Hz or 2 Hz).
            setCyclic(false)
            windowStart = nil
        case .cyclicTracking:
            wake()
            setRate(rate)
            setCyclic(true)
            windowStart = nil
        case .periodic(let period, let onTime, let sleepState):
            let periodDuration = Duration.milliseconds(Int64(period * 1000))
            if awake {
                if windowStart == nil {
                    windowStart = now
                    nextWake = (lastFix ?? now).advanced(by: periodDuration)
                }
                let start = windowStart ?? now
                if (windowHasGoodFix && ephemerisFresh) || now - start > .seconds(onTime + 60) {
                    sleep(sleepState)
                    nextWake = max(nextWake ?? now, start.advanced(by: periodDuration))
                }
            } else if now >= (nextWake ?? now) {
                wake()
                nextWake = now.advanced(by: periodDuration)
            }
        case .idle(let sleepState):
            if decision.ephemerisUpkeep != nil && !ephemerisFresh {
                wake()
            } else if awake {
                sleep(sleepState)
            }
        }
        configure(activity: decision.activity)
        // Orbit predictions grow while the receiver tracks: on as soon as aiding can be given.
        if awake && !predictionsRequested && aidingSource?() != nil { requestPredictions() }
        setRate(rate)
        if configMode == .persist && unsaved && awake { saveSettings() }
    }

    /// `persist`: saves the settings sent so far to the receiver's non-volatile memory and reads
    /// them back (families that cannot report a failure, once).
    func saveSettings() {
        unsaved = false
        guard let configurable = driver as? any ReceiverConfigurable else {
            failures.append(.unsupported(family: driver.family, operation: "save its settings"))
            return
        }
        let expected = ReceiverSettingsSnapshot(rateMilliseconds: rateSent, outputs: binaryOutput == .binary ? nil : outputs,
                                                dynamicModel: nil)
        do { try configurable.saveSettings(expected: expected) } catch { failures.append(error) }
    }

    /// `ram`: puts the settings read before the first change back (waking the receiver first).
    /// Returns whether anything was restored.
    @discardableResult
    public func restoreSettings() -> Bool {
        guard configMode == .ram, settingsRead, let original = originalSettings,
              let configurable = driver as? any ReceiverConfigurable else { return false }
        wake()
        if cyclic {
            attempt { () throws(ReceiverError) in try driver.setCyclicTracking(false) }
            cyclic = false
        }
        attempt { () throws(ReceiverError) in try configurable.restore(original, modelChanged: modelChanged) }
        configurationLost()
        settingsRead = false
        modelChanged = false
        return true
    }
}
