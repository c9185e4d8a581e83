import BoardConfig
import HardwareInterfaces
import LocationServices
import NMEA
import PowerPolicy
import ReceiverProtocols

/// The GNSS receiver: its serial port (opened, reopened with backoff after a failure), its driver
/// and the ``ReceiverExecutor`` that carries out the policy's decisions, the byte stream through the
/// NMEA engine (NMEA and binary frames) into fixes, the watchdog (wake, power cycle, autobaud) and
/// what the policy needs to know about recent fixes.
///
/// Inputs: the clock's instants, the policy's decisions. Outputs: bytes, ``Fix`` values, a
/// ``FixHistory`` summary for the policy, and problems as ``LocationError`` values.
///
/// Only the thread that advances the engine touches it (see `LocationEngine`).
final class ReceiverSubsystem {
    /// What the receiver did, for the engine's counters.
    struct Counters: Sendable, Equatable {
        /// Bytes read.
        var bytes = 0
        /// Sentences accepted and rejected by the NMEA engine.
        var sentencesAccepted = 0, sentencesRejected = 0
        /// Bytes the framer could not place in any sentence or binary frame.
        var garbageBytes: Int64 = 0
        /// Times the port failed, and was opened again.
        var portFailures = 0, portReopens = 0
        /// Watchdog actions.
        var watchdogWakes = 0, powerCycles = 0, autobaudRuns = 0, autobaudRecoveries = 0
        /// Seconds from the last start or wake of the receiver to its first fix with a position
        /// (time to first fix as the host saw it), and how many such acquisitions there were.
        var timeToFirstFix: Double?
        var acquisitions = 0
        /// Acquisitions after an aided wake, the last aided and unaided times to first fix, and
        /// whether the last acquisition was aided.
        var aidedAcquisitions = 0
        var aidedTimeToFirstFix: Double?
        var unaidedTimeToFirstFix: Double?
        var lastAcquisitionAided = false
    }

    /// What the policy needs to know about recent fixes.
    struct FixHistory: Sendable, Equatable {
        /// Seconds since the last fix with a position.
        var timeSinceFix: Double?
        /// The 95th percentile of the speeds of the last 15 minutes, m/s.
        var recentSpeed: Double?
        /// The speed of a fix of the last 5 s, m/s.
        var currentSpeed: Double?
        /// Seconds since the ephemerides were last collected (the receiver tracked long enough).
        var ephemerisAge: Double?
        /// Satellites used by the last fix.
        var satellitesUsed = 0
    }

    let board: BoardDescription
    let platform: any EnginePlatform
    let clock: any MonotonicClock
    private let initiallyAwake: Bool
    private let stream: NMEAStream
    private(set) var counters = Counters()
    /// Seconds of silence (or of bytes without a valid sentence) before the watchdog acts.
    var watchdogTimeout: Duration = .seconds(5)
    /// The open port; `nil` until opened and after a failure.
    private(set) var port: (any SerialPort)?
    /// The device the port was last opened on (`/dev/ttyACM0`): the source named in its fixes.
    private(set) var devicePath: String?
    /// The board file's description of this receiver, with the family and model found on its
    /// arrival when the board lets them be detected (``identification``).
    var receiverDescription: ReceiverDescription? { identified ?? board.receiver }
    /// The board's receiver as identified on its last arrival (`family = "auto"`); `nil` before.
    var identified: ReceiverDescription?
    /// What the identification on the last arrival found, and why (see `ReceiverIdentification.swift`).
    var identification: ArrivalIdentification?
    /// How long an arrival's identification may take at most (listening, autobaud, queries).
    var identificationDeadline: Duration = .seconds(10)
    /// The identification's outcome, waiting to be reported (by ``ensurePort(at:report:)``).
    var identificationNote: String?
    /// This receiver's own power policy: its model's profile, trimmed to its family's power modes
    /// (see `ReceiverPower.swift`); the identified model's once a detected family is known.
    var policy: PowerPolicy
    /// The decision last applied to it; `nil` before the first.
    private(set) var decision: PowerDecision?
    /// How status names this receiver (``ReceiverDescription/label``).
    var label: String { board.receiver?.label ?? "receiver" }
    /// Why the port is not usable now.
    private(set) var portProblem: String?
    /// Whether the raw-input observers were last told the port is open (the engine's record).
    var observedOpen = false
    /// The executor of the policy's decisions; `nil` for a receiver without a command set.
    private(set) var executor: ReceiverExecutor?
    /// What the executor aids the receiver with (the engine's synchronised time and last fix).
    /// Receives the fixes drained from the receiver's own buffer (``ReceiverExecutor/onBatchDrained``).
    var onBatchDrained: (([Fix]) -> Void)?
    var aidingSource: (() -> ReceiverAiding?)? {
        didSet { executor?.aidingSource = aidingSource }
    }
    /// When the last fix with a position arrived.
    private(set) var lastFixAt: MonotonicInstant?
    private var nextPortAttempt = MonotonicInstant.zero
    private var portBackoff = Duration.milliseconds(250)
    var lines = ReceiverLines()
    private var passed: [UInt8] = []
    /// The speeds of the fixes of the last 15 minutes in the order they came, and the same
    /// speeds sorted (the policy asks for their 95th percentile every second).
    private var recentSpeeds: [(at: MonotonicInstant, speed: Double)] = []
    private var sortedSpeeds: [Double] = []
    private var trackingSince: MonotonicInstant?
    private var ephemerisCollectedAt: MonotonicInstant?
    private var lastSatellites = 0
    private var lastByteAt: MonotonicInstant?
    private var lastValidAt: MonotonicInstant?
    private var acceptedSoFar = 0
    private var watchdogStage = 0
    private var wasAwake = true
    /// When the receiver started or woke and has not had a fix with a position since.
    private var acquiringSince: MonotonicInstant?
    /// Whether that acquisition follows a wake the engine commanded (not a receiver found awake).
    private var acquiringFromWake = false
    private var nextWatchdogAction = MonotonicInstant.zero

    /// One subsystem for each receiver of `board` (its first with the board's `[gpio]` lines, the
    /// others without control lines), awake or asleep at the start.
    static func all(board: BoardDescription, platform: any EnginePlatform, initiallyAwake: Bool) -> [ReceiverSubsystem] {
        guard !board.otherReceivers.isEmpty else {
            return [ReceiverSubsystem(board: board, platform: platform, initiallyAwake: initiallyAwake)]
        }
        return board.receivers.enumerated().map { index, receiver in
            var one = board
            one.receiver = receiver
            one.otherReceivers = []
            if index > 0 { one.gpio = nil }
            return ReceiverSubsystem(board: one, platform: platform, initiallyAwake: initiallyAwake)
        }
    }

    /// A receiver on `board`'s port of `platform`, awake or asleep at the start.
    init(board: BoardDescription, platform: any EnginePlatform, initiallyAwake: Bool) {
        self.board = board
        self.platform = platform
        clock = platform.hardware.clock
        self.initiallyAwake = initiallyAwake
        policy = PowerPolicy(profile: Self.powerProfile(of: board.receiver))
        wasAwake = initiallyAwake
        acquiringSince = initiallyAwake ? clock.now() : nil
        stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, provenance: platform.provenance,
                                                                       ecefConversion: Geodesy.wgs84ECEF,
                                                                       leapSecondTable: LeapSecondFile.table(board.receiver?.leapSecondsFile)))
    }

    // MARK: port

    /// Opens the port when it is closed and its retry time has come; a failure is reported and
    /// retried soon at first (a replugged adapter is back within 2 s), then every 2 s.
    func ensurePort(at now: MonotonicInstant, report: (LocationError) -> Void) {
        guard port == nil, now >= nextPortAttempt else { return }
        defer {
            if let note = identificationNote {
                identificationNote = nil
                report(.hardware(.other, note))
            }
        }
        do { try openPort(at: now) } catch {
            portProblem = error.description
            nextPortAttempt = now.advanced(by: portBackoff)
            portBackoff = min(portBackoff * 2, .seconds(2))
            let cause: LocationError.HardwareCause = error.kind == .busy ? .portBusy : (error.kind == .deviceGone ? .portGone : .other)
            report(.hardware(cause, error.description))
        }
    }

    /// Lets the next step try the closed port at once (its node just appeared).
    func retryPortNow() {
        nextPortAttempt = .zero
        portBackoff = .milliseconds(250)
    }

    /// Opens the port now (no retry schedule); a reopened port gets a new driver.
    func openPort(at now: MonotonicInstant) throws(HardwareError) {
        let path = platform.receiverPort(for: board)
        if path.isEmpty, let usb = board.receiver?.usb {
            throw HardwareError(.deviceGone, device: usb.description, operation: "open",
                                detail: "no USB serial device \(usb.vendor):\(usb.product)\(usb.serial.map { " with serial \($0)" } ?? "") is plugged in")
        }
        let p = try platform.hardware.openSerialPort(path, baudRate: board.receiver?.baudRate ?? .b9600)
        port = p
        devicePath = path
        let recovered = portProblem != nil && executor != nil
        portProblem = nil
        portBackoff = .milliseconds(250)
        lastByteAt = now
        lastValidAt = now
        watchdogStage = 0
        if recovered {
            counters.portReopens += 1
            // A new port needs a new driver; the receiver kept its power through an adapter unplug.
            executor = makeExecutor(port: p, awake: true)
        } else if executor == nil {
            executor = makeExecutor(port: p, awake: initiallyAwake)
        }
        // An identification took its time: silence counts from its end.
        if board.receiver?.detectsFamily == true { lastByteAt = clock.now(); lastValidAt = clock.now() }
    }

    private func makeExecutor(port: any SerialPort, awake: Bool) -> ReceiverExecutor? {
        do { lines = try platform.receiverLines(for: board) } catch {
            portProblem = "receiver control lines: \(error)"
            lines = ReceiverLines()
        }
        // `family = "auto"`: what the receiver is, found before its driver is made (only listening in
        // passive mode). A replay's bytes are the recording's: none is spent on identifying.
        if board.receiver?.detectsFamily == true, platform.provenance != .replay { identify(port: port) }
        // Passive: no driver, so not a byte is written (no queries, settings or power commands).
        if board.receiver?.configMode == .passive { return nil }
        var board = self.board
        board.receiver = receiverDescription
        guard let driver = ReceiverBringUp.driver(for: board, port: port, lines: lines,
                                                  ubloxGeneration: identification?.identity?.ubloxGeneration) else { return nil }
        if let channel = (driver as? UBloxDriver)?.channel ?? (driver as? MediaTekDriver)?.channel ?? (driver as? CASICDriver)?.channel {
            channel.passThrough = { [weak self] bytes in self?.passed += bytes }
        }
        let executor = ReceiverExecutor(driver: driver, clock: clock, awake: awake)
        executor.binaryOutput = BinaryOutputMode(rawValue: receiverDescription?.output.rawValue ?? "") ?? .nmea
        executor.configMode = board.receiver?.configMode ?? .ram
        executor.aidingSource = aidingSource
        executor.batchSize = board.receiver?.batch
        executor.onBatchDrained = { [weak self] fixes in self?.onBatchDrained?(fixes) }
        return executor
    }

    /// Reads what the receiver sent until `deadline` (with the bytes a command exchange passed
    /// on). A failed read closes the port, reports it, and waits for the retry time.
    func read(until deadline: MonotonicInstant, report: (LocationError) -> Void) -> [UInt8] {
        var bytes = passed
        passed.removeAll()
        guard let port else {
            clock.sleep(until: deadline)
            return bytes
        }
        do {
            bytes += try port.readAvailable(maximum: 4096, deadline: deadline)
        } catch {
            port.close()
            self.port = nil
            portProblem = error.description
            portBackoff = .milliseconds(250)
            nextPortAttempt = clock.now().advanced(by: portBackoff)
            counters.portFailures += 1
            report(.hardware(error.kind == .deviceGone ? .portGone : .other, error.description))
            clock.sleep(until: min(deadline, nextPortAttempt))
        }
        return bytes
    }

    /// Whether ``decode(_:at:)`` keeps the frames as the framer split them (someone passes them on).
    var collectsFrames: Bool {
        get { stream.deliversFrames }
        set { stream.deliversFrames = newValue }
    }

    /// What one decode hears from the NMEA engine: the fixes, their heights completed from the
    /// package's geoid where the receiver gave only one (``Fix/completeHeightsFromGeoid()``), and the
    /// frames while they are kept.
    private struct Decoded: NMEAStreamDelegate {
        var fixes: [Fix] = []
        var frames: [RawFrame] = []
        mutating func stream(fix: Fix) {
            var fix = fix
            fix.completeHeightsFromGeoid()
            fixes.append(fix)
        }
        mutating func stream(frame: Span<UInt8>, kind: RawFrame.Kind) { frames.append(RawFrame(kind: kind, framed: frame)) }
    }

    /// Runs bytes received at `now` through the NMEA engine; returns the fixes they complete and,
    /// with ``collectsFrames``, the frames they complete, as received.
    /// (No bytes are no news: the watchdog's silence goes on.)
    func decode(_ bytes: [UInt8], at now: MonotonicInstant) -> (fixes: [Fix], frames: [RawFrame]) {
        guard !bytes.isEmpty else { return ([], []) }
        lastByteAt = now
        var decoded = Decoded()
        bytes.withUnsafeBufferPointer { stream.feed($0.span, delegate: &decoded) }
        let fixes = decoded.fixes
        let accepted = stream.counters.totalAccepted
        if accepted > acceptedSoFar { lastValidAt = now; watchdogStage = 0 }
        acceptedSoFar = accepted
        counters.bytes += bytes.count
        counters.sentencesAccepted = accepted
        counters.sentencesRejected = stream.counters.totalRejected
        counters.garbageBytes = stream.framer.counters.garbageBytes
        return (fixes, decoded.frames)
    }

    // MARK: fixes and decisions

    /// A fix with a position arrived at `now`: it counts for the policy, and a tracking receiver
    /// has collected its ephemerides after `upkeepDuration` seconds.
    ///
    /// The first fix after a wake the engine commanded tells the host what it cannot ask: within
    /// `hotStartLimit` seconds it was a hot start, so the receiver's ephemerides were usable. Their
    /// age is unknown, but they count as fresh: if they run out before the next refresh, the wake
    /// that finds them gone is a warm start, which collects them in the same tracking time an
    /// upkeep window would have cost now. A slower first fix (a warm or cold start) means they were
    /// not usable: they count as missing until `upkeepDuration` of tracking has collected them. A
    /// receiver found awake at the engine's start says nothing either way (it may have just started).
    func noteFix(_ location: Location, _ fix: Fix, at now: MonotonicInstant, upkeepDuration: Double, hotStartLimit: Double) {
        if let since = acquiringSince {
            let timeToFix = (now - since).secondsDouble
            counters.timeToFirstFix = timeToFix
            counters.acquisitions += 1
            let aided = acquiringFromWake && executor?.lastWakeAided == true
            counters.lastAcquisitionAided = aided
            if aided {
                counters.aidedAcquisitions += 1
                counters.aidedTimeToFirstFix = timeToFix
            } else {
                counters.unaidedTimeToFirstFix = timeToFix
            }
            acquiringSince = nil
            if acquiringFromWake && timeToFix > hotStartLimit {
                ephemerisCollectedAt = nil
            } else if acquiringFromWake && ephemerisCollectedAt == nil {
                ephemerisCollectedAt = now
            }
        }
        lastFixAt = now
        lastSatellites = fix.satellitesUsed ?? 0
        let speed = fix.speed.flatMap { $0.isFinite ? $0 : nil } ?? 0
        recentSpeeds.append((now, speed))
        sortedSpeeds.insert(speed, at: Self.insertionIndex(of: speed, in: sortedSpeeds))
        if trackingSince == nil { trackingSince = now }
        if let since = trackingSince, (now - since).secondsDouble >= upkeepDuration { ephemerisCollectedAt = now }
        executor?.noteFix(good: location.knownHorizontalAccuracy.map { $0 * 2 <= 15 } ?? false)
    }

    /// The recent fixes as the policy sees them at `now` (speeds older than 15 minutes are dropped).
    func history(at now: MonotonicInstant) -> FixHistory {
        // Fixes come in time order: the old ones are at the front.
        let oldest = now.advanced(by: .seconds(-900))
        var dropped = 0
        while dropped < recentSpeeds.count && recentSpeeds[dropped].at < oldest {
            let index = Self.insertionIndex(of: recentSpeeds[dropped].speed, in: sortedSpeeds)
            if index < sortedSpeeds.count { sortedSpeeds.remove(at: index) }
            dropped += 1
        }
        recentSpeeds.removeFirst(dropped)
        let speeds = sortedSpeeds
        let speed95 = speeds.isEmpty ? nil : speeds[min(speeds.count - 1, Int(Double(speeds.count) * 0.95))]
        let current = recentSpeeds.last.flatMap { (now - $0.at).secondsDouble < 5 ? $0.speed : nil }
        return FixHistory(timeSinceFix: lastFixAt.map { (now - $0).secondsDouble }, recentSpeed: speed95, currentSpeed: current,
                          ephemerisAge: ephemerisCollectedAt.map { (now - $0).secondsDouble }, satellitesUsed: lastSatellites)
    }

    /// The first index of `sorted` whose value is not less than `value` (where it is, or goes).
    private static func insertionIndex(of value: Double, in sorted: [Double]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Carries out a decision. Silence counts from a wake: a receiver that slept has said nothing
    /// for good reason.
    func apply(_ decision: PowerDecision, ephemerisFresh: Bool) {
        // The time to first fix counts from the wake command, not from after the boot wait and
        // the commands (aiding among them) that follow it.
        let commanded = clock.now()
        self.decision = decision
        executor?.apply(decision, lastFix: lastFixAt, ephemerisFresh: ephemerisFresh)
        if let executor, !executor.awake { trackingSince = nil }
        let awakeNow = executor?.awake ?? true
        if awakeNow && !wasAwake { lastByteAt = clock.now(); lastValidAt = clock.now(); watchdogStage = 0; acquiringSince = commanded; acquiringFromWake = true }
        wasAwake = awakeNow
    }

    /// Puts the receiver in `idle`'s state and closes the port.
    func shutdown(idle: PowerDecision) {
        // `ram`: the settings read before the first change go back before the receiver idles.
        if port != nil { executor?.restoreSettings() }
        // Receiver-side batching: the buffer is emptied (what it holds was delivered live) and the
        // receiver is left tracking, so that it keeps the fixes of the time the host is away.
        if port != nil, let executor, executor.keepsTrackingForBatch() {
            closePort()
            return
        }
        executor?.apply(idle, lastFix: lastFixAt, ephemerisFresh: true)
        closePort()
    }

    /// Closes the port, leaving the receiver as it is.
    func closePort() {
        port?.close()
        port = nil
    }

    // MARK: watchdog

    /// The watchdog: a receiver that should be talking but is silent is woken, then power-cycled
    /// through its enable line; bytes without a valid sentence mean another line rate: autobaud.
    func watchdog(at now: MonotonicInstant, report: (LocationError) -> Void) {
        guard let port, now >= nextWatchdogAction else { return }
        let shouldTalk = executor?.awake ?? true
        guard shouldTalk, let lastByte = lastByteAt, let lastValid = lastValidAt else { return }
        let silentFor = now - lastByte
        let invalidFor = now - lastValid
        if silentFor < watchdogTimeout && invalidFor < watchdogTimeout { watchdogStage = 0; return }
        if silentFor < watchdogTimeout {
            // Bytes, but nothing valid: the receiver changed its line rate.
            counters.autobaudRuns += 1
            if let rate = autobaud(port) {
                counters.autobaudRecoveries += 1
                report(.hardware(.other, "\(port.name): the receiver now talks at \(rate); switched to it"))
                lastValidAt = clock.now()
            } else {
                report(.hardware(.receiverSilent, "\(port.name): bytes arrive but no valid sentence at any line rate"))
            }
            nextWatchdogAction = clock.now().advanced(by: watchdogTimeout)
            return
        }
        switch watchdogStage {
        case 0:
            counters.watchdogWakes += 1
            report(.hardware(.receiverSilent, "\(port.name): no data for \(Int(silentFor.secondsDouble)) s; waking the receiver"))
            executor?.rewake()
            watchdogStage = 1
        case 1 where lines.powerEnable != nil:
            counters.powerCycles += 1
            report(.hardware(.receiverSilent, "\(port.name): still silent after a wake; power-cycling it through the enable line"))
            if let line = lines.powerEnable {
                try? line.set(false)
                clock.sleep(for: .seconds(1))
                try? line.set(true)
            }
            // The power cycle cleared the receiver's RAM configuration: outputs, rate and model again.
            executor?.configurationLost()
            watchdogStage = 2
        default:
            report(.hardware(.receiverSilent, "\(port.name): the receiver stays silent; check its supply, wiring and baud rate"))
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
}
