import BoardConfig
import Devices
import Foundation
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy
import ReceiverProtocols
import Synchronization

/// One process's location engine on one board: it owns the receiver, the sensors and the power
/// policy, merges the demand of every client (managers, async sessions, daemon clients) into one
/// policy decision (the most demanding wins, the last stop idles the hardware), turns NMEA into
/// fixes and sensor reads into headings, and hands each client what its services ask for.
///
/// The engine is a coordinator over subsystems that each own their state and exchange values:
/// `ReceiverSubsystem` (port, watchdog, executor, NMEA stream: fixes out), `SensorSubsystem`
/// (sensors, calibration, heading, motion: headings and stillness out), `TimingSubsystem` (PPS),
/// `ClientRegistry` (clients, demand, delivery) and `EnergyAccounting`.
///
/// Time comes from the platform's clock: a simulated platform's ``ManualClock``, so
/// ``advance(by:)`` runs an hour in a moment; on hardware the system clock, with
/// ``runInBackground(speed:)``. Thread safety: client registration and queries may come from any
/// thread; the hardware is driven by whichever single thread advances the engine.
public final class LocationEngine: @unchecked Sendable {
    // Threads and locks (the one place that says so):
    // • Any thread: client registration, services, regions, observers → `registry` (its own lock;
    //   sinks and observers are called after it is released, on the thread that caused the event).
    // • Any thread: `published` (a Mutex) holds what the run thread makes visible — last
    //   location, last heading, last decision, counters, the stop flag. Written only by the thread
    //   that advances the engine; read by anyone.
    // • One thread at a time advances the engine, holding `runLock` for one step at a time (a
    //   tick, one bounded receiver read, one sensor sample): `receiver`, `sensors`, `timing` and
    //   `energy` are touched only under `runLock` (plain, non-Sendable state with no lock of
    //   their own). A real board's loop runs forever, so nothing else ever waits for `runLock`:
    //   the status queries (calibration, energyUsed, receiverFailures, controlsReceiver,
    //   hardwareProblem, ppsStatus, watchdogTimeout) read what each step publishes in
    //   `published`, and the settings (calibration, watchdogTimeout, headingPeriod) are queued in
    //   `published` and applied by the next step, or at once when no step is running.
    // • Order: `runLock` before the registry's lock or `published`; never the other way round, and
    //   no sink or observer runs while the registry's lock or `published` is held. Sinks and
    //   observers run on the advancing thread with `runLock` held; every query is safe there.

    /// The board.
    public let board: BoardDescription
    /// The clock everything is timed on.
    public let clock: any MonotonicClock
    /// The policy.
    public let policy: PowerPolicy
    /// The datasheet accuracy of the receiver's time pulse, seconds (one sigma), when stated.
    let timePulseAccuracy: Double?
    /// Folder of persisted state (regions); `nil` keeps nothing.
    public var stateDirectory: String? { registry.stateDirectory }
    /// What the engine runs on, as its caller chose.
    public let platform: any EnginePlatform

    struct Published {
        var lastLocation: Location?
        var lastHeading: HeadingUpdate?
        /// What the receiver last said about itself (TTFF, jamming, spoofing), from any fix.
        var lastReceiverStatus: ReceiverStatus?
        var decision: PowerDecision?
        /// The coordinator's own counts (fixes, headings, mode changes); the subsystems' beside them.
        var counters = Counters()
        var receiverCounters = ReceiverSubsystem.Counters()
        var sensorCounters = SensorSubsystem.Counters()
        var stopRequested = false
        /// What the status queries read, as the last step left it (see ``LocationEngine/publishState()``).
        var state = EngineState()
        /// The beacon subsystem's counts, scan and problem (see `EngineBeacons.swift`).
        var beaconCounters = BeaconSubsystem.Counters()
        var beaconScan: BluetoothScanParameters?
        var beaconProblem: String?
        /// Settings waiting for the next step (applied under `runLock`, in order).
        var pendingSettings: [@Sendable (LocationEngine) -> Void] = []
        /// The NTRIP corrections' way into the receiver, when attached (``LocationEngine/attachCorrections(_:)``).
        var corrections: CorrectionForwarder?
        /// Whether the corrections' link failure was told to the clients since it last streamed.
        var correctionFailureTold = false

        /// Every count, as the status readout shows it.
        var statistics: Counters {
            var c = counters
            let r = receiverCounters
            c.bytes = r.bytes
            (c.sentencesAccepted, c.sentencesRejected, c.garbageBytes) = (r.sentencesAccepted, r.sentencesRejected, r.garbageBytes)
            (c.portFailures, c.portReopens) = (r.portFailures, r.portReopens)
            (c.watchdogWakes, c.powerCycles) = (r.watchdogWakes, r.powerCycles)
            (c.autobaudRuns, c.autobaudRecoveries) = (r.autobaudRuns, r.autobaudRecoveries)
            (c.timeToFirstFix, c.acquisitions) = (r.timeToFirstFix, r.acquisitions)
            (c.aidedAcquisitions, c.aidedTimeToFirstFix, c.unaidedTimeToFirstFix, c.lastAcquisitionAided)
                = (r.aidedAcquisitions, r.aidedTimeToFirstFix, r.unaidedTimeToFirstFix, r.lastAcquisitionAided)
            let s = sensorCounters
            (c.headingFailures, c.sensorFailures, c.sensorReopens) = (s.headingFailures, s.sensorFailures, s.sensorReopens)
            return c
        }
    }

    let registry: ClientRegistry
    let published = Mutex(Published())
    /// Each service's device as last checked, and the watch that checks again (see
    /// `EngineCapabilities.swift`): a lock of its own, under which nothing else is taken, so any
    /// query (also from inside the registry's lock) may read it.
    let devices = Mutex<(capabilities: DeviceCapabilities, watch: (any DeviceWatch)?)>((DeviceCapabilities(), nil))
    /// When the engine was made, on its clock (its uptime counts from here).
    let createdAt: MonotonicInstant
    let runLock = NSLock()
    /// Wakes the run loop: a demand change ticks at once; a manual-clock loop's sleep between
    /// steps ends for it, a setting or ``stop()`` (see `EngineTickSchedule.swift`).
    let wake: EngineWake
    // Under `runLock`.
    /// Each receiver of the board, the first (the one with the `[gpio]` lines) first.
    let receivers: [ReceiverSubsystem]
    /// Which receiver's fixes are delivered (the best-source rule; one receiver: always it).
    var selection = ReceiverSelection()
    /// The receiver chosen now (the first until a fix chooses): the one whose history the policy
    /// sees, whose port the corrections go to and whose state the status shows.
    var receiver: ReceiverSubsystem { receivers[selection.chosen ?? 0] }
    let sensors: SensorSubsystem
    let timing: TimingSubsystem
    let privacy: PrivacySubsystem
    let beacons: BeaconSubsystem
    var energy: EnergyAccounting
    var nextTick: MonotonicInstant

    /// Seconds of silence (or of bytes without a valid sentence) before the watchdog acts.
    public var watchdogTimeout: Duration {
        get { published.withLock { $0.state.watchdogTimeout } }
        set {
            published.withLock { $0.state.watchdogTimeout = newValue }
            apply { engine in for receiver in engine.receivers { receiver.watchdogTimeout = newValue } }
        }
    }

    /// Counters for the status readout.
    public struct Counters: Sendable {
        /// Fixes assembled.
        public var fixes = 0
        /// Headings computed.
        public var headings = 0
        /// Heading reads that failed.
        public var headingFailures = 0
        /// Bytes read from the receiver.
        public var bytes = 0
        /// Policy decisions that changed the receiver's mode.
        public var modeChanges = 0
        /// Ticks run (each a policy decision): one a second while anything is demanded, else only
        /// at a deadline or a change in the clients' demand.
        public var ticks = 0
        /// Sentences accepted and rejected by the NMEA engine.
        public var sentencesAccepted = 0, sentencesRejected = 0
        /// Bytes the framer could not place in any sentence or binary frame (line noise, other baud rates).
        public var garbageBytes: Int64 = 0
        /// Times the receiver's port failed, and was opened again.
        public var portFailures = 0, portReopens = 0
        /// Watchdog actions: wakes of a silent receiver, power cycles, autobaud searches (and their successes).
        public var watchdogWakes = 0, powerCycles = 0, autobaudRuns = 0, autobaudRecoveries = 0
        /// Sensor reads that failed and sensor re-openings.
        public var sensorFailures = 0, sensorReopens = 0
        /// Seconds from the receiver's last start or wake to its first fix with a position, as the
        /// host measured it; `nil` until there was one.
        public var timeToFirstFix: Double?
        /// Starts and wakes that reached a fix with a position.
        public var acquisitions = 0
        /// Of those, the ones the host aided (time and position sent), the last aided and the last
        /// unaided time to first fix, and whether the last acquisition was aided.
        public var aidedAcquisitions = 0
        public var aidedTimeToFirstFix: Double?
        public var unaidedTimeToFirstFix: Double?
        public var lastAcquisitionAided = false

        /// All zero.
        public init() {}
    }

    /// An engine for `board` on `platform`, keeping client state in `stateDirectory` (none when
    /// `nil`), with the receiver taken to be awake at the start unless `receiverAwake` is false.
    public init(board: BoardDescription, platform: any EnginePlatform, stateDirectory: String? = nil, receiverAwake: Bool = true) {
        self.board = board
        self.platform = platform
        clock = platform.hardware.clock
        let model = ReceiverModel.lookup(family: board.receiver?.family ?? .genericNMEA, model: board.receiver?.model)
        policy = PowerPolicy(profile: ReceiverSubsystem.powerProfile(of: board.receiver))
        timePulseAccuracy = model.entry.timePulseAccuracy
        let wake = EngineWake()
        self.wake = wake
        registry = ClientRegistry(stateDirectory: stateDirectory, demandChanged: { wake.demandChanged() })
        receivers = ReceiverSubsystem.all(board: board, platform: platform, initiallyAwake: receiverAwake)
        sensors = SensorSubsystem(board: board, hardware: platform.hardware, recorded: platform.recordedSensorSamples)
        timing = TimingSubsystem(board: board, hardware: platform.hardware)
        privacy = PrivacySubsystem(board: board, hardware: platform.hardware)
        beacons = BeaconSubsystem(board: board, platform: platform)
        energy = EnergyAccounting(profile: model.powerProfile)
        nextTick = clock.now()
        createdAt = nextTick
        devices.withLock { $0.capabilities = platform.capabilities(for: board) }
        tapRawInputs()
        publishState()
        watchDevices()
        for receiver in receivers {
            receiver.aidingSource = { [weak self] in self?.aidingData() }
            receiver.onBatchDrained = { [weak self] fixes in self?.receiverBatchDrained(fixes) }
        }
        // A replay starts with the calibration the unit applied when it recorded.
        if let recorded = platform.recordedSensorSamples?.calibration { calibration = recorded }
    }

    /// Hands every raw sensor burst and advertising report to the observers that asked for raw inputs.
    private func tapRawInputs() {
        let registry = registry
        sensors.onRawSample = { sample in
            if registry.wantsRawInputs { registry.notify(.sensorSample(sample)) }
        }
        beacons.onAdvert = { report in
            guard registry.wantsRawInputs else { return }
            registry.notify(.advert(RecordedAdvert(address: report.address, rssi: report.rssi, txPower: report.txPower,
                                                   isScanResponse: report.isScanResponse, receivedAt: report.timestamp,
                                                   data: Array(report.data))))
        }
    }

    // MARK: clients

    /// Registers a client; `sink` receives its events (on the engine's thread: hop yourself).
    /// With a `persistentName`, the client's regions are loaded from and saved to the state folder.
    public func register(name: String, persistentName: String? = nil,
                         sink: @escaping @Sendable (EngineEvent) -> Void) -> (id: Int, problems: [String]) {
        registry.register(name: name, persistentName: persistentName, now: clock.now(), sink: sink)
    }

    /// Adds an observer of everything the engine sees (no demand: pair it with a client to keep
    /// the hardware running). Returns its id for ``removeObserver(_:)``.
    public func observe(_ handler: @escaping @Sendable (EngineObservation) -> Void) -> Int { registry.observe(handler) }

    /// Removes an observer.
    public func removeObserver(_ id: Int) { registry.removeObserver(id) }

    /// Whether observer `id` is handed the receiver's frames as received (``EngineObservation/frames(_:)``:
    /// what the framer split, never framed again). The engine keeps frames only while some observer
    /// wants them; an observer starts without them.
    public func setObserver(_ id: Int, wantsFrames: Bool) { registry.setObserver(id, wantsFrames: wantsFrames) }

    /// Whether observer `id` is handed the raw inputs: every burst of sensor readings before
    /// calibration (``EngineObservation/sensorSample(_:)``) and every Bluetooth advertising report
    /// (``EngineObservation/advert(_:)``), as `fieldloc record` writes them. Off when an observer starts.
    public func setObserver(_ id: Int, wantsRawInputs: Bool) { registry.setObserver(id, wantsRawInputs: wantsRawInputs) }

    /// Removes a client: its demand goes; with no clients left the next tick idles the hardware.
    public func unregister(_ id: Int) { registry.unregister(id) }

    /// Changes a client's services. Turning standard updates on resets its filter (the next fresh fix is delivered).
    public func update(_ id: Int, _ change: (inout ClientServices) -> Void) { registry.update(id, now: clock.now(), change) }

    /// The services a client runs.
    public func services(_ id: Int) -> ClientServices? { registry.services(id) }

    /// Asks for one fresh location within `timeout`; never answered with a fix older than the request.
    public func requestLocation(_ id: Int, timeout: Duration) { registry.requestLocation(id, now: clock.now(), timeout: timeout) }

    /// Delivers a client's batched or deferred locations now (see ``LocationProvider/flushBatch(_:)``).
    public func flushBatch(_ id: Int) { registry.flushBatch(id) }

    /// Resumes a client's visit in progress from before a restart, its ``Visit/arrivedAt`` on this
    /// engine's clock: the visit's departure comes as if the engine had never stopped, with the same arrival.
    public func resumeVisit(_ id: Int, _ visit: Visit) { registry.resumeVisit(id, visit) }

    /// Starts monitoring a region for a client; returns why not, or `nil`.
    public func startMonitoring(_ id: Int, _ region: CircularRegion) -> LocationError? {
        registry.startMonitoring(id, region, now: clock.now())
    }

    /// Stops monitoring a region; returns a storage error, if any.
    public func stopMonitoring(_ id: Int, identifier: String) -> LocationError? { registry.stopMonitoring(id, identifier: identifier) }

    /// A client's monitored regions.
    public func monitoredRegions(_ id: Int) -> [CircularRegion] { registry.monitoredRegions(id) }

    /// The state of a client's region, from the monitor or a fresh location.
    public func state(_ id: Int, of identifier: String) -> RegionState {
        let now = clock.now()
        let fresh = lastLocation.flatMap { $0.age(at: now) <= 30 ? $0 : nil }
        return registry.state(id, of: identifier, fresh: fresh)
    }

    /// Every client's monitored regions with their states now, for status readouts.
    public func regionOverview() -> [RegionOverview] {
        let now = clock.now()
        return registry.regionStates(fresh: lastLocation.flatMap { $0.age(at: now) <= 30 ? $0 : nil })
    }

    /// A client's region's last event and its time (CLMonitor's record), `nil` when none.
    public func record(_ id: Int, for identifier: String) -> RegionRecord? { registry.record(id, for: identifier) }

    // MARK: queries

    /// The last location (any age: check its `receivedAt`).
    public var lastLocation: Location? { published.withLock { $0.lastLocation } }
    /// The last heading.
    public var lastHeading: HeadingUpdate? { published.withLock { $0.lastHeading } }
    /// The policy's last decision.
    public var decision: PowerDecision? { published.withLock { $0.decision } }
    /// Counters.
    public var statistics: Counters { published.withLock { $0.statistics } }
    /// Clients registered.
    public var clientCount: Int { registry.count }
    /// Whether headings can run: the board has a magnetometer and accelerometer pair (or recorded
    /// headings) and their I2C bus can be used now (``capabilities``).
    public var headingAvailable: Bool { capabilities.isAvailable(.heading) }
    /// Whether locations can run: the board has a receiver whose port can be used now
    /// (``capabilities``) and the privacy switch is off.
    public var locationServicesEnabled: Bool { capabilities.isAvailable(.location) && !privacy.engaged }
    /// The magnetometer calibration applied to headings (a stored one, `fieldloc calibrate --save`).
    public var calibration: MagnetometerCalibration? {
        get { published.withLock { $0.state.calibration } }
        set {
            published.withLock { $0.state.calibration = newValue }
            apply { $0.sensors.calibration = newValue }
        }
    }

    /// The receiver's charge so far: the platform's measurement when it has one (the simulated
    /// receiver's own ledger on a `sim` board), else estimated from the time in each policy mode
    /// and the receiver profile's data-sheet currents.
    public var energyUsed: EnergyLedger { platform.measuredReceiverEnergy() ?? published.withLock { $0.state.energy } }

    /// The charge in ``energyUsed`` attributed to the clients whose demand
    /// caused it, by client (`name#id`, as the policy's reasons name them), the largest first:
    /// the clients registered now are listed even at 0 (passive ones are never charged), and what
    /// no client caused is ``ClientEnergyLedger/unattributed``. The charges sum to the total.
    public var energyByClient: [(client: String, charge: Double)] {
        let accounting = published.withLock { $0.state.energyAccounting }
        let ledger = accounting?.byClient(upTo: platform.measuredReceiverEnergy()) ?? ClientEnergyLedger()
        return ledger.accounts(including: registry.snapshot().map { "\($0.1.name)#\($0.0)" })
    }

    /// Receiver commands that failed, most recent last (at most 20 kept).
    public var receiverFailures: [String] { published.withLock { $0.state.receiverFailures } }
    /// Whether the engine drives the receiver's power (a receiver family with a command set).
    public var controlsReceiver: Bool { published.withLock { $0.state.controlsReceiver } }
    /// A problem with the hardware now (port unavailable, sensors failing), for status readouts.
    public var hardwareProblem: String? { published.withLock { $0.state.hardwareProblem } }
    /// Time quality from the PPS line, as of the last step.
    public var ppsStatus: PPSStatus { published.withLock { $0.state.pps } }

    /// Runs `setting` under `runLock`: now, when no step is running, else at the start of the next step.
    func apply(_ setting: @escaping @Sendable (LocationEngine) -> Void) {
        published.withLock { $0.pendingSettings.append(setting) }
        if runLock.try() {
            applyPendingSettings()
            publishState()
            runLock.unlock()
        }
        // A setting may bring work forward: the paced loop looks again.
        wake.signal()
    }

    /// Applies the queued settings. Under `runLock`.
    func applyPendingSettings() {
        let settings = published.withLock { s in
            defer { s.pendingSettings.removeAll() }
            return s.pendingSettings
        }
        for setting in settings { setting(self) }
    }

    /// Makes the subsystems' state visible to the queries. Under `runLock`.
    func publishState() {
        // An idle engine has no tick to count the receiver's charge by: it is counted up to now.
        if nextTick == .distantFuture, published.withLock({ $0.decision }) != nil {
            energy.tick(at: clock.now(), receivers: receivers.map(\.charge), measured: platform.measuredReceiverEnergy())
        }
        let state = EngineState(hardwareProblem: receiver.portProblem ?? sensors.problem, pps: timing.status(at: clock.now()),
                                receiverFailures: (receiver.executor?.failures ?? []).suffix(20).map(\.description),
                                controlsReceiver: receiver.executor != nil, energy: energy.ledger, energyAccounting: energy,
                                calibration: sensors.calibration, watchdogTimeout: receiver.watchdogTimeout,
                                headingPeriod: sensors.headingPeriod, receiverSources: sourceStatus())
        published.withLock { p in
            var next = state
            if !p.pendingSettings.isEmpty {
                // A setting made during this step is not applied yet: keep showing the new value.
                (next.calibration, next.watchdogTimeout, next.headingPeriod) = (p.state.calibration, p.state.watchdogTimeout, p.state.headingPeriod)
            }
            p.state = next
        }
    }
}

/// What the engine's status queries read: the subsystems' state as the last step left it.
struct EngineState: Sendable {
    var hardwareProblem: String?
    var pps: PPSStatus = .none
    var receiverFailures: [String] = []
    var controlsReceiver = false
    var energy = EnergyLedger()
    var energyAccounting: EnergyAccounting?
    var calibration: MagnetometerCalibration?
    var watchdogTimeout: Duration = .seconds(5)
    var headingPeriod: Duration = .milliseconds(100)
    var receiverSources: [ReceiverSourceStatus] = []
}

extension LocationEngine {
    /// The power figures of `board`'s receiver: its model's row in the device catalogue (a board
    /// without a receiver counts as generic NMEA).
    public static func powerProfile(of board: BoardDescription) -> ReceiverProfile {
        ReceiverSubsystem.powerProfile(of: board.receiver)
    }
}
