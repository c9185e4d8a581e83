import BoardConfig
import Foundation
import HardwareInterfaces
import Heading
import LocationServices
import NMEA
import PowerPolicy
import ReceiverProtocols
import SensorDrivers
import SimulatedHardware

/// A heading as the services deliver it.
public struct HeadingUpdate: Sendable, Hashable {
    /// Heading relative to magnetic north of the client's reference axis, degrees.
    public var magneticHeading: Double
    /// Heading relative to true north; `nil` until a fix gives the position for the declination.
    public var trueHeading: Double?
    /// Estimated error of the heading, degrees (negative when invalid, as Core Location).
    public var headingAccuracy: Double
    /// The calibrated field in body axes, µT (x forward, y right, z down).
    public var x: Double, y: Double, z: Double
    /// The acceleration in body axes, g.
    public var accelerationX: Double, accelerationY: Double, accelerationZ: Double
    /// Pitch and roll, degrees.
    public var pitch: Double?, roll: Double?
    /// The measured field's inclination (dip) below the horizontal, degrees.
    public var inclination: Double?
    /// The engine's quality verdict and integrity flags.
    public var quality: HeadingQuality
    /// Flag names (see `HeadingFlags`).
    public var flags: [String]
    /// When the reading was taken, on the engine's clock.
    public var takenAt: MonotonicInstant
}

/// Which body axis a heading is reported for (Core Location's `headingOrientation`, mapped to a board).
public enum HeadingOrientation: String, Sendable, Hashable, CaseIterable {
    /// The board's x axis (forward in its mount matrix).
    case forward
    /// The board's y axis (right).
    case right
    /// Backward (−x).
    case backward
    /// Left (−y).
    case left

    /// Degrees added to the forward heading.
    var offset: Double {
        switch self {
        case .forward: return 0
        case .right: return 90
        case .backward: return 180
        case .left: return 270
        }
    }
}

/// What a client receives from the engine.
public enum EngineEvent: Sendable {
    /// Locations, oldest first (one, or a batch).
    case locations([Location])
    /// Updates paused for stillness.
    case paused
    /// Updates resumed on motion.
    case resumed
    /// A heading.
    case heading(HeadingUpdate)
    /// A region event.
    case region(RegionEvent)
    /// A visit arrival (no departure yet) or departure.
    case visit(Visit)
    /// A deferral ended (nil error) or failed.
    case deferredFinished(LocationError?)
    /// An error.
    case error(LocationError)
}

/// What the engine saw, for observers that publish everything (the daemon's gpsd socket, `fieldloc
/// record`): observing adds no demand.
public enum EngineObservation: Sendable {
    /// Bytes read from the receiver, in order.
    case bytes([UInt8])
    /// An assembled fix (also those without a position), with when it arrived.
    case fix(Fix, MonotonicInstant)
    /// A heading computed.
    case heading(HeadingUpdate)
    /// A PPS edge paired with the UTC second it starts (boards with a PPS line).
    case pps(PPSSample)
}

/// What one client of the engine wants: the services it runs and their options.
public struct ClientServices: Sendable {
    /// Standard location updates.
    public var updatingLocation = false
    /// Accuracy wanted.
    public var desiredAccuracy: DesiredAccuracy = .best
    /// Metres between deliveries; `nil` for every fix.
    public var distanceFilter: Double?
    /// What the unit is doing.
    public var activityType: ActivityType = .other
    /// Whether updates pause after stillness.
    public var pausesAutomatically = true
    /// The oldest a delivered location may be, seconds.
    public var maximumAge = 2.0
    /// Headings.
    public var updatingHeading = false
    /// Degrees between heading deliveries; `nil` for every reading.
    public var headingFilter: Double? = 1
    /// Reference axis for headings.
    public var headingOrientation: HeadingOrientation = .forward
    /// Significant-change monitoring.
    public var significantChanges = false
    /// Visit monitoring.
    public var visits = false
    /// Positions coarsened (reduced accuracy).
    public var reducedAccuracy = false
    /// Deferred delivery: metres and seconds, while set.
    public var deferral: (distance: Double?, timeout: Double?)?
    /// Batching: the longest a location is held, seconds; `nil` delivers at once.
    public var batchingMaximumDelay: Double?

    /// Creates a client's services (none running).
    public init() {}
}

/// One process's location engine on one board: it owns the receiver, the sensors and the power
/// policy, merges the demand of every client (managers, async sessions, daemon clients) into one
/// policy decision (the most demanding wins, the last stop idles the hardware), turns NMEA into
/// fixes and sensor reads into headings, and hands each client what its services ask for.
///
/// Time comes from the board's clock: on the `sim` board a ``ManualClock``, so ``advance(by:)``
/// runs an hour in a moment; on hardware the system clock, with ``runInBackground(speed:)``.
/// Thread safety: client registration and queries may come from any thread; the hardware is
/// driven by whichever single thread advances the engine.
public final class LocationEngine: @unchecked Sendable {
    /// The board.
    public let board: BoardDescription
    /// The clock everything is timed on.
    public let clock: any MonotonicClock
    /// The policy.
    public let policy: PowerPolicy
    /// The simulated receiver of a `sim` board (energy ledger, power state), else `nil`.
    public let simulatedReceiver: ReceiverEmulator?
    /// The simulated platform of a `sim` board (for fault injection in tests), else `nil`.
    public var simulatedPlatform: SimulatedPlatform? { platform as? SimulatedPlatform }
    /// Folder of persisted state (regions); `nil` keeps nothing.
    public let stateDirectory: String?

    let platform: any HardwarePlatform
    private let lock = NSLock()
    private let runLock = NSLock()
    // Guarded by `lock`.
    private var clients: [Int: ClientRecord] = [:]
    private var observers: [Int: @Sendable (EngineObservation) -> Void] = [:]
    private var nextClientID = 1
    private var lastLocationValue: Location?
    private var lastHeadingValue: HeadingUpdate?
    private var decisionValue: PowerDecision?
    private var counters = Counters()
    private var stopRequested = false
    // Driven only by the advancing thread (under `runLock`).
    private var port: (any SerialPort)?
    private var portProblem: String?
    private var nextPortAttempt = MonotonicInstant.zero
    private var executor: ReceiverExecutor?
    private var sensors: BoardSensors?
    private var calibrationValue: MagnetometerCalibration?
    private var energy = EnergyLedger()
    private var lastEnergyAt: MonotonicInstant?
    private var sensorProblem: String?
    private var motion = MotionDetector()
    private let stream: NMEAStream
    private var passed: [UInt8] = []
    private var recentSpeeds: [(at: MonotonicInstant, speed: Double)] = []
    private var trackingSince: MonotonicInstant?
    private var ephemerisCollectedAt: MonotonicInstant?
    private var referencePosition: (Double, Double)?
    private var nextTick: MonotonicInstant
    private var nextSensorSample = MonotonicInstant.distantFuture
    private var lastFixAt: MonotonicInstant?
    private var lastSatellites = 0
    private var ppsLine: (any GPIOLine)?
    private var ppsTracker = PPSTracker()
    private var ppsRequestFailed = false
    private var lastByteAt: MonotonicInstant?
    private var lastValidAt: MonotonicInstant?
    private var acceptedSoFar = 0
    private var watchdogStage = 0
    private var wasAwake = true
    private var nextWatchdogAction = MonotonicInstant.zero
    private var portBackoff = Duration.milliseconds(250)
    private var receiverLines = ReceiverLines()
    private var nextSensorAttempt = MonotonicInstant.zero
    private var sensorFailuresInRow = 0
    /// Seconds of silence (or of bytes without a valid sentence) before the watchdog acts.
    public var watchdogTimeout: Duration = .seconds(5)

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
    }

    /// Opens a board: a simulated one on its simulated platform (see
    /// ``simulated(board:stateDirectory:clock:trajectory:receiverTracking:)``), a real one on `linux`.
    public static func open(board: BoardDescription, stateDirectory: String? = nil,
                            linux: @autoclosure () -> any HardwarePlatform) throws(HardwareError) -> LocationEngine {
        if board.simulated { return try simulated(board: board, stateDirectory: stateDirectory) }
        return LocationEngine(board: board, platform: linux(), simulatedReceiver: nil, stateDirectory: stateDirectory,
                              receiverAwake: true)
    }

    /// A simulated board on `clock` (a fresh manual clock by default), optionally following a
    /// scripted trajectory with the receiver asleep at the start (`receiverTracking` false).
    public static func simulated(board: BoardDescription, stateDirectory: String? = nil, clock: ManualClock = ManualClock(),
                                 trajectory: Trajectory? = nil, receiverTracking: Bool = true) throws(HardwareError) -> LocationEngine {
        let sim = try BoardHardware.simulatedBoard(for: board, clock: clock, trajectory: trajectory, receiverTracking: receiverTracking)
        return LocationEngine(board: board, platform: sim.platform, simulatedReceiver: sim.receiver,
                              stateDirectory: stateDirectory, receiverAwake: receiverTracking)
    }

    init(board: BoardDescription, platform: any HardwarePlatform, simulatedReceiver: ReceiverEmulator?,
         stateDirectory: String?, receiverAwake: Bool) {
        self.board = board
        self.platform = platform
        self.clock = platform.clock
        self.simulatedReceiver = simulatedReceiver
        self.stateDirectory = stateDirectory
        let profile: ReceiverProfile
        switch board.receiver?.family {
        case .ublox?: profile = (board.receiver?.model ?? "").uppercased().contains("M8") ? .ubloxM8 : .ubloxM10
        case .mtk?: profile = .mt3339
        default: profile = .ubloxM10
        }
        policy = PowerPolicy(profile: profile)
        stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil,
                                                               provenance: board.simulated ? .simulator : .receiver))
        nextTick = platform.clock.now()
        receiverInitiallyAwake = receiverAwake
    }
    private let receiverInitiallyAwake: Bool

    // MARK: clients

    final class ClientRecord {
        let name: String
        var services = ClientServices()
        var sink: @Sendable (EngineEvent) -> Void
        var filter = UpdateFilter()
        var significant = SignificantChangeFilter()
        var headingFilter = HeadingFilter()
        var visitDetector = VisitDetector()
        var regions: RegionMonitor
        var regionFile: String?
        var batcher: DeferredBatcher?
        var paused = false
        var request: (since: MonotonicInstant, deadline: MonotonicInstant, best: Location?, firstFix: MonotonicInstant?)?
        init(name: String, regions: RegionMonitor, regionFile: String?, sink: @escaping @Sendable (EngineEvent) -> Void) {
            self.name = name
            self.regions = regions
            self.regionFile = regionFile
            self.sink = sink
        }
    }

    /// Registers a client; `sink` receives its events (on the engine's thread: hop yourself).
    /// With a `persistentName`, the client's regions are loaded from and saved to the state folder.
    public func register(name: String, persistentName: String? = nil,
                         sink: @escaping @Sendable (EngineEvent) -> Void) -> (id: Int, problems: [String]) {
        var problems: [String] = []
        var monitor = RegionMonitor()
        var file: String? = nil
        if let persistentName, let directory = stateDirectory {
            let path = RegionStore.path(directory: directory, client: persistentName)
            file = path
            do {
                monitor = try RegionStore.load(path) ?? RegionMonitor()
                monitor.restarted()
            } catch {
                problems.append(error.description)
            }
        }
        return lock.withLock {
            let id = nextClientID
            nextClientID += 1
            clients[id] = ClientRecord(name: name, regions: monitor, regionFile: file, sink: sink)
            return (id, problems)
        }
    }

    /// Adds an observer of everything the engine sees (no demand: pair it with a client to keep
    /// the hardware running). Returns its id for ``removeObserver(_:)``.
    public func observe(_ handler: @escaping @Sendable (EngineObservation) -> Void) -> Int {
        lock.withLock {
            let id = nextClientID
            nextClientID += 1
            observers[id] = handler
            return id
        }
    }

    /// Removes an observer.
    public func removeObserver(_ id: Int) { _ = lock.withLock { observers.removeValue(forKey: id) } }

    private func notify(_ observation: EngineObservation) {
        let handlers = lock.withLock { Array(observers.values) }
        for h in handlers { h(observation) }
    }

    /// Removes a client: its demand goes; with no clients left the next tick idles the hardware.
    public func unregister(_ id: Int) {
        let record = lock.withLock { clients.removeValue(forKey: id) }
        if let record, let batch = record.batcher?.flush() { record.sink(.locations(batch.batch)) }
    }

    /// Changes a client's services. Turning standard updates on resets its filter (the next fresh fix is delivered).
    public func update(_ id: Int, _ change: (inout ClientServices) -> Void) {
        var flushed: (sink: @Sendable (EngineEvent) -> Void, batch: [Location])?
        lock.withLock {
            guard let c = clients[id] else { return }
            let was = c.services
            change(&c.services)
            let s = c.services
            if s.updatingLocation && !was.updatingLocation { c.filter.reset(); c.paused = false }
            c.filter.distanceFilter = s.distanceFilter
            c.filter.maximumAge = s.maximumAge
            c.headingFilter.headingFilter = s.headingFilter
            let batching = s.deferral != nil || s.batchingMaximumDelay != nil
            if batching {
                var b = c.batcher ?? DeferredBatcher()
                b.untilTraveled = s.deferral?.distance
                b.timeout = s.deferral?.timeout
                b.maximumDelay = s.batchingMaximumDelay
                c.batcher = b
            } else if let b = c.batcher {
                var copy = b
                if let batch = copy.flush() { flushed = (c.sink, batch.batch) }
                c.batcher = nil
            }
            if !s.significantChanges { c.significant = SignificantChangeFilter() }
            if !s.visits { c.visitDetector = VisitDetector() }
        }
        if let flushed { flushed.sink(.locations(flushed.batch)) }
    }

    /// The services a client runs.
    public func services(_ id: Int) -> ClientServices? { lock.withLock { clients[id]?.services } }

    /// Asks for one fresh location within `timeout`; never answered with a fix older than the request.
    public func requestLocation(_ id: Int, timeout: Duration) {
        let now = clock.now()
        lock.withLock { clients[id]?.request = (now, now.advanced(by: timeout), nil, nil) }
    }

    /// Starts monitoring a region for a client; returns why not, or `nil`.
    public func startMonitoring(_ id: Int, _ region: CircularRegion) -> LocationError? {
        let result: (String?, RegionMonitor?, String?) = lock.withLock {
            guard let c = clients[id] else { return ("client gone", nil, nil) }
            if let problem = c.regions.add(region) { return (problem, nil, nil) }
            // Decide the state at once from a fresh fix when there is one.
            return (nil, c.regions, c.regionFile)
        }
        if let problem = result.0 { return .regionMonitoringFailure(region: region.identifier, reason: problem) }
        if let monitor = result.1, let file = result.2 {
            do { try RegionStore.save(monitor, to: file) } catch {
                return .regionMonitoringFailure(region: region.identifier, reason: error.description)
            }
        }
        return nil
    }

    /// Stops monitoring a region; returns a storage error, if any.
    public func stopMonitoring(_ id: Int, identifier: String) -> LocationError? {
        let result: (RegionMonitor, String?)? = lock.withLock {
            guard let c = clients[id], c.regions.remove(identifier) else { return nil }
            return (c.regions, c.regionFile)
        }
        if let (monitor, file) = result, let file {
            do { try RegionStore.save(monitor, to: file) } catch {
                return .regionMonitoringFailure(region: identifier, reason: error.description)
            }
        }
        return nil
    }

    /// A client's monitored regions.
    public func monitoredRegions(_ id: Int) -> [CircularRegion] { lock.withLock { clients[id]?.regions.regions ?? [] } }

    /// The state of a client's region, from the monitor or a fresh location.
    public func state(_ id: Int, of identifier: String) -> RegionState {
        let now = clock.now()
        return lock.withLock {
            let fresh = lastLocationValue.flatMap { $0.age(at: now) <= 30 ? $0 : nil }
            return clients[id]?.regions.state(of: identifier, location: fresh) ?? .unknown
        }
    }

    /// The last location (any age: check its `receivedAt`).
    public var lastLocation: Location? { lock.withLock { lastLocationValue } }
    /// The last heading.
    public var lastHeading: HeadingUpdate? { lock.withLock { lastHeadingValue } }
    /// The policy's last decision.
    public var decision: PowerDecision? { lock.withLock { decisionValue } }
    /// Counters.
    public var statistics: Counters { lock.withLock { counters } }
    /// Clients registered.
    public var clientCount: Int { lock.withLock { clients.count } }
    /// Whether the board has a magnetometer and accelerometer pair.
    public var headingAvailable: Bool { board.magnetometer != nil && board.accelerometer != nil }
    /// Whether the board has a receiver at all.
    public var locationServicesEnabled: Bool { board.receiver != nil || board.simulated }
    /// The magnetometer calibration applied to headings (a stored one, `fieldloc calibrate --save`).
    public var calibration: MagnetometerCalibration? {
        get { runLock.withLock { calibrationValue } }
        set { runLock.withLock { calibrationValue = newValue; if let newValue { sensors?.engine.calibration = newValue } } }
    }

    /// The receiver's charge so far: the simulated receiver's own ledger on a `sim` board, else
    /// estimated from the time in each policy mode and the receiver profile's data-sheet currents.
    public var energyUsed: EnergyLedger { simulatedReceiver?.ledger ?? runLock.withLock { energy } }

    /// Receiver commands that failed, most recent last (at most 20 kept).
    public var receiverFailures: [String] { runLock.withLock { (executor?.failures ?? []).suffix(20).map(\.description) } }
    /// Whether the engine drives the receiver's power (a receiver family with a command set).
    public var controlsReceiver: Bool { runLock.withLock { executor != nil } }
    /// A problem with the hardware now (port unavailable, sensors failing), for status readouts.
    public var hardwareProblem: String? { runLock.withLock { portProblem ?? sensorProblem } }

    // MARK: running

    /// Runs the engine for `duration` of its clock on the calling thread.
    public func advance(by duration: Duration) {
        advance(until: clock.now().advanced(by: duration))
    }

    /// Runs the engine until `end` of its clock on the calling thread.
    public func advance(until end: MonotonicInstant) { advance(until: end, stoppable: false) }

    private func advance(until end: MonotonicInstant, stoppable: Bool) {
        runLock.withLock {
            while clock.now() < end, !(stoppable && lock.withLock({ stopRequested })) {
                let now = clock.now()
                if now >= nextTick {
                    tick(now)
                    nextTick = now.advanced(by: .seconds(1))
                }
                let deadline = min(end, nextTick, nextSensorSample)
                readReceiver(until: deadline)
                if clock.now() >= nextSensorSample { sampleSensors() }
            }
        }
    }

    /// Runs the engine on the calling thread until ``stop()``: a real board as its data comes, a
    /// simulated board (manual clock) paced to the wall clock, `speed` times as fast.
    public func run(speed: Double = 1) {
        lock.withLock { stopRequested = false }
        guard clock is ManualClock else { return advance(until: .distantFuture, stoppable: true) }
        let speed = speed.isFinite && speed > 0 ? speed : 1
        let wallStart = DispatchTime.now().uptimeNanoseconds
        let simStart = clock.now()
        while !lock.withLock({ stopRequested }) {
            let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9
            advance(until: simStart.advanced(by: .milliseconds(Int64(wall * speed * 1000))), stoppable: true)
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Runs the engine on a background thread (see ``run(speed:)``) until ``stop()``; returns at once.
    public func runInBackground(speed: Double = 1) {
        let thread = Thread { [self] in run(speed: speed) }
        thread.name = "fieldloc-engine"
        thread.start()
    }

    /// Asks the running loop to return after its current step; the receiver is left idle.
    public func stop() { lock.withLock { stopRequested = true } }

    /// Puts the hardware in the idle state (receiver asleep, sensors unread) and closes the port:
    /// for a graceful shutdown.
    public func shutdown() {
        stop()
        runLock.withLock {
            let decision = policy.decide([], state: PolicyState())
            executor?.apply(decision, lastFix: lastFixAt, ephemerisFresh: true)
            port?.close()
            port = nil
        }
    }

    // MARK: the step

    private func demands(_ records: [(Int, ClientRecord)]) -> [ClientDemand] {
        var out: [ClientDemand] = []
        for (id, c) in records {
            let s = c.services
            let name = "\(c.name)#\(id)"
            if s.updatingLocation {
                out.append(ClientDemand(client: name, desiredAccuracy: s.reducedAccuracy ? .reduced : s.desiredAccuracy,
                                        distanceFilter: s.distanceFilter, activity: s.activityType,
                                        pausesAutomatically: s.pausesAutomatically, wantsHeading: s.updatingHeading,
                                        headingFilter: s.headingFilter))
            } else if s.updatingHeading {
                out.append(ClientDemand(client: name, desiredAccuracy: nil, wantsHeading: true, headingFilter: s.headingFilter))
            }
            if c.request != nil {
                out.append(ClientDemand(client: name + " (one fix)", desiredAccuracy: .best, pausesAutomatically: false, oneShot: true))
            }
            // A visit needs the place where the unit came to rest: one fix once it is still.
            if s.visits, motion.moving == false, let since = motion.stillSince, (lastFixAt ?? .zero) < since {
                out.append(ClientDemand(client: name + " (visit anchor)", desiredAccuracy: .hundredMeters, pausesAutomatically: false, oneShot: true))
            }
            if s.significantChanges || s.visits {
                out.append(ClientDemand(client: name + " (significant changes)", desiredAccuracy: .hundredMeters,
                                        activity: s.activityType, significantChangesOnly: true))
            }
            if !c.regions.entries.isEmpty {
                let smallest = c.regions.regions.map(\.radius).min() ?? 1000
                out.append(ClientDemand(client: name + " (regions)", desiredAccuracy: smallest < 300 ? .nearestTenMeters : .hundredMeters,
                                        distanceFilter: max(10, smallest / 2), activity: s.activityType))
            }
        }
        return out
    }

    private func policyState(_ now: MonotonicInstant) -> PolicyState {
        recentSpeeds.removeAll { (now - $0.at).secondsDouble > 900 }
        let speeds = recentSpeeds.map(\.speed).sorted()
        let speed95 = speeds.isEmpty ? nil : speeds[min(speeds.count - 1, Int(Double(speeds.count) * 0.95))]
        // The accelerometer decides; a recent fix moving faster than walking pace overrules a
        // smooth ride that shows no vibration.
        var stillFor = motion.stillFor(at: now)
        var moving = motion.moving
        if let last = recentSpeeds.last, (now - last.at).secondsDouble < 5 {
            if last.speed > 1 { moving = true; stillFor = 0 } else if moving == nil { moving = last.speed > 0.5 }
        }
        return PolicyState(timeSinceFix: lastFixAt.map { (now - $0).secondsDouble }, recentSpeed: speed95, moving: moving,
                           stillFor: stillFor, ephemerisAge: ephemerisCollectedAt.map { (now - $0).secondsDouble },
                           satellitesUsed: lastSatellites, horizontalAccuracy: lastLocationValue.map { $0.horizontalAccuracy * 2 })
    }

    private func tick(_ now: MonotonicInstant) {
        ensurePort(now)
        ensurePPS()
        watchdog(now)
        let records = lock.withLock { clients.map { ($0.key, $0.value) } }
        let state = policyState(now)
        let decision = policy.decide(demands(records), state: state)
        let previousDecision = lock.withLock { () -> PowerDecision? in
            defer { decisionValue = decision }
            if decisionValue?.receiver != decision.receiver { counters.modeChanges += 1 }
            return decisionValue
        }
        if let last = lastEnergyAt, let previousDecision {
            energy.add(.receiver, state: previousDecision.receiver.stateName, current: previousDecision.meanCurrent(policy.profile),
                       seconds: (now - last).secondsDouble)
        }
        lastEnergyAt = now
        let ephemerisFresh = state.ephemerisAge.map { $0 < policy.ephemerisRefreshAge } ?? false
        executor?.apply(decision, lastFix: lastFixAt, ephemerisFresh: ephemerisFresh)
        if let executor, !executor.awake { trackingSince = nil }
        // Silence counts from the wake: a receiver that slept has said nothing for good reason.
        let awakeNow = executor?.awake ?? true
        if awakeNow && !wasAwake { lastByteAt = clock.now(); lastValidAt = clock.now(); watchdogStage = 0 }
        wasAwake = awakeNow
        // Sensors: heading at the magnetometer's rate, motion detection at 4 Hz.
        let wantsHeading = decision.magnetometer != .powerDown
        let sensorPeriod: Duration? = wantsHeading ? .milliseconds(100) : (decision.motionDetection ? .milliseconds(250) : nil)
        if let sensorPeriod {
            if sensors == nil && now >= nextSensorAttempt { openSensors() }
            if sensors != nil && nextSensorSample == .distantFuture { nextSensorSample = now.advanced(by: sensorPeriod) }
        } else {
            nextSensorSample = .distantFuture
            motion.reset()
        }
        sensorInterval = sensorPeriod
        clientHousekeeping(now, records: records, state: state)
    }
    private var sensorInterval: Duration?

    /// Time-driven client work: pause and resume, request timeouts, deferral timeouts, visits from stillness.
    private func clientHousekeeping(_ now: MonotonicInstant, records: [(Int, ClientRecord)], state: PolicyState) {
        var out: [(@Sendable (EngineEvent) -> Void, EngineEvent)] = []
        let still = motion.moving == false
        lock.withLock {
            for (_, c) in records {
                let s = c.services
                if s.updatingLocation {
                    let demand = ClientDemand(client: c.name, desiredAccuracy: s.desiredAccuracy, activity: s.activityType,
                                              pausesAutomatically: s.pausesAutomatically)
                    let paused = policy.isPaused(demand, state: state)
                    if paused != c.paused {
                        c.paused = paused
                        out.append((c.sink, paused ? .paused : .resumed))
                    }
                }
                if let r = c.request, now >= r.deadline {
                    c.request = nil
                    if let best = r.best {
                        out.append((c.sink, .locations([s.reducedAccuracy ? best.reduced() : best])))
                    } else {
                        out.append((c.sink, .error(.locationUnknown("no fix within the request's timeout"))))
                    }
                }
                if var b = c.batcher, let batch = b.due(now: now) {
                    c.batcher = b
                    out.append((c.sink, .locations(batch.batch)))
                    if batch.reason == .timeout, s.deferral != nil {
                        c.services.deferral = nil
                        c.batcher = s.batchingMaximumDelay != nil ? DeferredBatcher(maximumDelay: s.batchingMaximumDelay) : nil
                        out.append((c.sink, .deferredFinished(nil)))
                    }
                }
                if s.visits, motion.moving != nil, let visit = c.visitDetector.motion(still: still, at: now) {
                    out.append((c.sink, .visit(visit)))
                }
            }
        }
        for (sink, event) in out { sink(event) }
    }

    private func ensurePort(_ now: MonotonicInstant) {
        guard port == nil, now >= nextPortAttempt else { return }
        let name = board.simulated ? BoardHardware.simulatedPortName : (board.receiver?.uart ?? "")
        do {
            let p = try platform.openSerialPort(name, baudRate: board.receiver?.baudRate ?? .b9600)
            port = p
            let recovered = portProblem != nil && executor != nil
            portProblem = nil
            portBackoff = .milliseconds(250)
            lastByteAt = now
            lastValidAt = now
            watchdogStage = 0
            if recovered {
                lock.withLock { counters.portReopens += 1 }
                // A new port needs a new driver; the receiver kept its power through an adapter unplug.
                executor = makeExecutor(port: p, awake: true)
            } else if executor == nil {
                executor = makeExecutor(port: p, awake: receiverInitiallyAwake)
            }
        } catch {
            portProblem = error.description
            // Retry soon at first (a replugged adapter is back within 2 s), then every 2 s.
            nextPortAttempt = now.advanced(by: portBackoff)
            portBackoff = min(portBackoff * 2, .seconds(2))
            let cause: LocationError.HardwareCause = error.kind == .busy ? .portBusy : (error.kind == .deviceGone ? .portGone : .other)
            broadcast(.error(.hardware(cause, error.description)))
        }
    }

    /// Requests the board's PPS line (rising edges, kernel-timestamped) once.
    private func ensurePPS() {
        guard ppsLine == nil, !ppsRequestFailed, let gpio = board.gpio, let id = gpio.line(.gnssPPS) else { return }
        do {
            ppsLine = try platform.requestInput(chip: gpio.chip, line: id, edges: .rising, bias: .asIs)
        } catch {
            ppsRequestFailed = true
            broadcast(.error(.hardware(.other, "PPS line: \(error); time comes from NMEA only")))
        }
    }

    /// Takes the PPS edges the kernel queued (no waiting).
    private func drainPPS() {
        guard let line = ppsLine else { return }
        while let event = try? line.waitForEdge(deadline: clock.now()) {
            if event.edge == .rising { ppsTracker.pulse(at: event.timestamp) }
        }
    }

    /// Time quality from the PPS line.
    public var ppsStatus: PPSStatus {
        runLock.withLock {
            guard let line = ppsLine else { return board.gpio?.line(.gnssPPS) == nil ? .none : .waiting }
            return ppsTracker.status(at: clock.now(), level: try? line.get())
        }
    }

    /// The watchdog: a receiver that should be talking but is silent is woken, then power-cycled
    /// through its enable line; bytes without a valid sentence mean another line rate: autobaud.
    private func watchdog(_ now: MonotonicInstant) {
        guard let port, now >= nextWatchdogAction else { return }
        let shouldTalk = executor?.awake ?? true
        guard shouldTalk, let lastByte = lastByteAt, let lastValid = lastValidAt else { return }
        let silentFor = now - lastByte
        let invalidFor = now - lastValid
        if silentFor < watchdogTimeout && invalidFor < watchdogTimeout { watchdogStage = 0; return }
        if silentFor < watchdogTimeout {
            // Bytes, but nothing valid: the receiver changed its line rate.
            lock.withLock { counters.autobaudRuns += 1 }
            if let rate = autobaud(port) {
                lock.withLock { counters.autobaudRecoveries += 1 }
                broadcast(.error(.hardware(.other, "\(port.name): the receiver now talks at \(rate); switched to it")))
                lastValidAt = clock.now()
            } else {
                broadcast(.error(.hardware(.receiverSilent, "\(port.name): bytes arrive but no valid sentence at any line rate")))
            }
            nextWatchdogAction = clock.now().advanced(by: watchdogTimeout)
            return
        }
        switch watchdogStage {
        case 0:
            lock.withLock { counters.watchdogWakes += 1 }
            broadcast(.error(.hardware(.receiverSilent, "\(port.name): no data for \(Int(silentFor.secondsDouble)) s; waking the receiver")))
            executor?.rewake()
            watchdogStage = 1
        case 1 where receiverLines.powerEnable != nil:
            lock.withLock { counters.powerCycles += 1 }
            broadcast(.error(.hardware(.receiverSilent, "\(port.name): still silent after a wake; power-cycling it through the enable line")))
            if let line = receiverLines.powerEnable {
                try? line.set(false)
                clock.sleep(for: .seconds(1))
                try? line.set(true)
            }
            watchdogStage = 2
        default:
            broadcast(.error(.hardware(.receiverSilent, "\(port.name): the receiver stays silent; check its supply, wiring and baud rate")))
            watchdogStage = 0
        }
        nextWatchdogAction = clock.now().advanced(by: watchdogTimeout)
    }

    /// Tries the usual line rates; returns the one where valid sentences come, leaving the port at it.
    private func autobaud(_ port: any SerialPort) -> BaudRate? {
        let detector = ReceiverDetector(port: port)
        let original = port.baudRate
        for rate in [original] + detector.baudRates.filter({ $0 != original }) {
            do {
                try port.setBaudRate(rate)
                try port.discard(.input)
                let report = try detector.listen(until: clock.now().advanced(by: .milliseconds(1500))) { $0.validSentences.count >= 2 }
                if report.validSentences.count >= 2 { return rate }
            } catch {
                return nil
            }
        }
        try? port.setBaudRate(original)
        return nil
    }

    private func makeExecutor(port: any SerialPort, awake: Bool) -> ReceiverExecutor? {
        let lines: ReceiverLines
        if let receiver = simulatedReceiver {
            lines = ReceiverLines(powerEnable: receiver.powerLine(clock: clock))
        } else {
            do { lines = try ReceiverBringUp.lines(for: board, platform: platform) } catch {
                portProblem = "receiver control lines: \(error)"
                lines = ReceiverLines()
            }
        }
        receiverLines = lines
        guard let driver = ReceiverBringUp.driver(for: board, port: port, lines: lines) else { return nil }
        if let channel = (driver as? UBloxDriver)?.channel ?? (driver as? MediaTekDriver)?.channel ?? (driver as? CASICDriver)?.channel {
            channel.passThrough = { [weak self] bytes in self?.passed += bytes }
        }
        let executor = ReceiverExecutor(driver: driver, clock: clock, awake: awake)
        executor.binaryOutput = BinaryOutputMode(rawValue: board.receiver?.output.rawValue ?? "") ?? .nmea
        return executor
    }

    private func openSensors() {
        let reopening = sensorProblem != nil
        do {
            sensors = try BoardSensors.open(board, platform: platform)
            if let calibrationValue { sensors?.engine.calibration = calibrationValue }
            sensorProblem = nil
            sensorFailuresInRow = 0
            if reopening { lock.withLock { counters.sensorReopens += 1 } }
        } catch {
            let first = sensorProblem == nil
            sensorProblem = "\(error)"
            nextSensorAttempt = clock.now().advanced(by: .seconds(2))
            if first { broadcast(.error(.headingFailure("\(error)")), onlyHeading: true) }
        }
    }

    private func broadcast(_ event: EngineEvent, onlyHeading: Bool = false) {
        let sinks = lock.withLock { clients.values.filter { !onlyHeading || $0.services.updatingHeading }.map(\.sink) }
        for sink in sinks { sink(event) }
    }

    private func readReceiver(until deadline: MonotonicInstant) {
        var bytes = passed
        passed.removeAll()
        if let port {
            do {
                let chunk = try port.readAvailable(maximum: 4096, deadline: deadline)
                bytes += chunk
            } catch {
                port.close()
                self.port = nil
                portProblem = error.description
                portBackoff = .milliseconds(250)
                nextPortAttempt = clock.now().advanced(by: portBackoff)
                lock.withLock { counters.portFailures += 1 }
                broadcast(.error(.hardware(error.kind == .deviceGone ? .portGone : .other, error.description)))
                clock.sleep(until: min(deadline, nextPortAttempt))
            }
        } else {
            clock.sleep(until: deadline)
        }
        drainPPS()
        if bytes.isEmpty { return }
        let now = clock.now()
        lastByteAt = now
        notify(.bytes(bytes))
        var fixes: [Fix] = []
        bytes.withUnsafeBufferPointer { stream.feed($0.span) { fixes.append($0) } }
        let accepted = stream.counters.totalAccepted
        if accepted > acceptedSoFar { lastValidAt = now; watchdogStage = 0 }
        acceptedSoFar = accepted
        lock.withLock {
            counters.bytes += bytes.count
            counters.sentencesAccepted = accepted
            counters.sentencesRejected = stream.counters.totalRejected
            counters.garbageBytes = stream.framer.counters.garbageBytes
        }
        for fix in fixes { handle(fix) }
    }

    private func handle(_ fix: Fix) {
        let now = clock.now()
        lock.withLock { counters.fixes += 1 }
        notify(.fix(fix, now))
        if let time = fix.time, let sample = ppsTracker.fix(utc: time.secondsSinceEpoch, receivedAt: now) { notify(.pps(sample)) }
        guard let location = Location(fix, receivedAt: now) else { return }
        lastFixAt = now
        lastSatellites = fix.satellitesUsed ?? 0
        recentSpeeds.append((now, fix.speed ?? 0))
        if trackingSince == nil { trackingSince = now }
        if let since = trackingSince, (now - since).secondsDouble >= policy.upkeepDuration { ephemerisCollectedAt = now }
        executor?.noteFix(good: location.horizontalAccuracy * 2 <= 15)
        updateReference(location, fix: fix)
        var out: [(@Sendable (EngineEvent) -> Void, EngineEvent)] = []
        var saves: [(RegionMonitor, String)] = []
        lock.withLock {
            lastLocationValue = location
            for id in clients.keys.sorted() {
                guard let c = clients[id] else { continue }
                let s = c.services
                let delivered = s.reducedAccuracy ? location.reduced() : location
                if s.updatingLocation && !c.paused && c.filter.admit(location, now: now) {
                    if var b = c.batcher {
                        if let batch = b.add(delivered) {
                            out.append((c.sink, .locations(batch.batch)))
                            if batch.reason == .traveled && s.deferral != nil {
                                c.services.deferral = nil
                                b = DeferredBatcher(maximumDelay: s.batchingMaximumDelay)
                                out.append((c.sink, .deferredFinished(nil)))
                            }
                        }
                        c.batcher = s.batchingMaximumDelay == nil && c.services.deferral == nil ? nil : b
                    } else {
                        out.append((c.sink, .locations([delivered])))
                    }
                }
                if var r = c.request, location.receivedAt >= r.since {
                    if r.firstFix == nil { r.firstFix = now }
                    if r.best == nil || location.horizontalAccuracy < r.best!.horizontalAccuracy { r.best = location }
                    let budget = s.desiredAccuracy.budget ?? 10
                    let settled = (now - (r.firstFix ?? now)).secondsDouble >= 5
                    if location.horizontalAccuracy * 2 <= budget || settled {
                        c.request = nil
                        let answer = r.best ?? location
                        out.append((c.sink, .locations([s.reducedAccuracy ? answer.reduced() : answer])))
                    } else {
                        c.request = r
                    }
                }
                if s.significantChanges && c.significant.admit(location) {
                    out.append((c.sink, .locations([delivered])))
                }
                if s.visits, let visit = c.visitDetector.update(location) {
                    out.append((c.sink, .visit(visit)))
                }
                if !c.regions.entries.isEmpty {
                    let before = c.regions.entries.mapValues(\.state)
                    for event in c.regions.update(location) { out.append((c.sink, .region(event))) }
                    if let file = c.regionFile, before != c.regions.entries.mapValues(\.state) { saves.append((c.regions, file)) }
                }
            }
        }
        for (monitor, file) in saves {
            do { try RegionStore.save(monitor, to: file) } catch {
                out.append(({ _ in }, .error(.regionMonitoringFailure(region: "*", reason: error.description))))
            }
        }
        for (sink, event) in out { sink(event) }
    }

    private func updateReference(_ location: Location, fix: Fix) {
        guard var s = sensors else { return }
        let moved = referencePosition.map {
            Geodesy.distance(latitude1: $0.0, longitude1: $0.1, latitude2: location.latitude, longitude2: location.longitude)
        } ?? .infinity
        guard moved > 1000 else { return }
        let year = fix.time.map { t in
            GeomagCSV.decimalYear(CalendarDate(daysSinceEpoch: Int((t.secondsSinceEpoch / 86_400).rounded(.down))))
        } ?? 2026.0
        let e = WorldMagneticModel.wmm2025.evaluate(latitude: location.latitude, longitude: location.longitude,
                                                    heightKm: (location.ellipsoidalAltitude ?? location.altitude ?? 0) / 1000,
                                                    decimalYear: year)
        s.engine.reference = ReferenceField(e)
        sensors = s
        referencePosition = (location.latitude, location.longitude)
    }

    private func sampleSensors() {
        let now = clock.now()
        nextSensorSample = sensorInterval.map { now.advanced(by: $0) } ?? .distantFuture
        guard var s = sensors else { return }
        let wantsHeading = (decisionValueSnapshot()?.magnetometer ?? .powerDown) != .powerDown
        if !wantsHeading {
            do {
                let a = try s.accelerometer.read().acceleration
                let g = SensorDrivers.standardGravity
                motion.add(x: a.x / g, y: a.y / g, z: a.z / g, at: now)
                sensorProblem = nil
                sensorFailuresInRow = 0
                sensors = s
            } catch {
                sensors = s
                noteSensorFailure("\(error)")
            }
            return
        }
        do {
            let (a, m) = try s.readRaw()
            motion.add(x: a.x, y: a.y, z: a.z, at: now)
            var reading = s.engine.process(acceleration: a, field: m)
            if let last = lastLocation, let course = last.course, let speed = last.speed, last.age(at: now) < 2 {
                HeadingEngine.crossCheck(&reading, course: course, speed: speed)
            }
            sensors = s
            sensorProblem = nil
            sensorFailuresInRow = 0
            guard let magnetic = reading.magneticHeading else {
                lock.withLock { counters.headingFailures += 1 }
                return
            }
            deliverHeading(reading, magnetic: magnetic, at: now)
        } catch {
            sensors = s
            noteSensorFailure("\(error)")
        }
    }

    private func decisionValueSnapshot() -> PowerDecision? { lock.withLock { decisionValue } }

    /// A failed read: after three in a row the sensors are closed, reported, and opened again
    /// every 2 s until they answer (identity checks and configuration run again).
    private func noteSensorFailure(_ message: String) {
        sensorFailuresInRow += 1
        lock.withLock { counters.headingFailures += 1; counters.sensorFailures += 1 }
        guard sensorFailuresInRow >= 3 else { return }
        let first = sensorProblem == nil
        sensorProblem = message
        sensors = nil
        nextSensorAttempt = clock.now().advanced(by: .seconds(2))
        if first { broadcast(.error(.hardware(.sensorNotAcknowledging, message)), onlyHeading: true) }
    }

    private func deliverHeading(_ reading: HeadingReading, magnetic: Double, at now: MonotonicInstant) {
        var out: [(@Sendable (EngineEvent) -> Void, EngineEvent)] = []
        lock.withLock {
            counters.headings += 1
            let base = HeadingUpdate(magneticHeading: magnetic, trueHeading: reading.trueHeading,
                                     headingAccuracy: reading.accuracy ?? -1,
                                     x: reading.field.x, y: reading.field.y, z: reading.field.z,
                                     accelerationX: reading.acceleration.x, accelerationY: reading.acceleration.y,
                                     accelerationZ: reading.acceleration.z,
                                     pitch: reading.pitch, roll: reading.roll, inclination: reading.inclination, quality: reading.quality,
                                     flags: reading.flags.names, takenAt: now)
            lastHeadingValue = base
            for id in clients.keys.sorted() {
                guard let c = clients[id], c.services.updatingHeading else { continue }
                var h = base
                let offset = c.services.headingOrientation.offset
                h.magneticHeading = (h.magneticHeading + offset).truncatingRemainder(dividingBy: 360)
                h.trueHeading = h.trueHeading.map { ($0 + offset).truncatingRemainder(dividingBy: 360) }
                if c.headingFilter.admit(heading: h.magneticHeading, hasTrueHeading: h.trueHeading != nil) {
                    out.append((c.sink, .heading(h)))
                }
            }
        }
        if let h = lock.withLock({ lastHeadingValue }), h.takenAt == now { notify(.heading(h)) }
        for (sink, event) in out { sink(event) }
    }
}

/// Regions persisted per client name, written atomically (temp file, fsync, rename).
public enum RegionStore {
    /// Why a regions file could not be used.
    public struct StoreError: Error, Sendable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What went wrong.
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The file of a client's regions.
    public static func path(directory: String, client: String) -> String {
        let safe = String(client.unicodeScalars.map { scalar -> Character in
            let c = Character(scalar)
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : "_"
        })
        return directory + "/regions-" + (safe.isEmpty ? "default" : safe) + ".json"
    }

    struct File: Codable {
        var version = 1
        var regions: [RegionMonitor.Entry]
    }

    /// Loads a regions file; `nil` when there is none. Errors name the file and what is wrong.
    public static func load(_ path: String) throws(StoreError) -> RegionMonitor? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw StoreError(path: path, reason: "cannot be read") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw StoreError(path: path, reason: "not a regions file: \(DecodingProblem.describe(error))")
        }
        guard file.version == 1 else { throw StoreError(path: path, reason: "version \(file.version) is not 1") }
        for entry in file.regions {
            if let problem = entry.region.validate() { throw StoreError(path: path, reason: problem) }
        }
        return RegionMonitor(entries: file.regions)
    }

    /// Saves a monitor's regions atomically.
    public static func save(_ monitor: RegionMonitor, to path: String) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let entries = monitor.entries.values.sorted { $0.region.identifier < $1.region.identifier }
        let data: Data
        do { data = try encoder.encode(File(regions: entries)) } catch {
            throw StoreError(path: path, reason: "cannot encode: \(error)")
        }
        do {
            let directory = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try AtomicFile.write(data, to: path)
        } catch {
            throw StoreError(path: path, reason: error.description)
        }
    }
}
