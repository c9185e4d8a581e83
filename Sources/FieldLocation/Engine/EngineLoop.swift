import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy

/// The run loop: a tick (the subsystems' time-driven work and one policy decision) each second
/// while anything is demanded, else only at a deadline or a demand change (see
/// `EngineTickSchedule.swift`); between ticks the receiver's bytes until the next tick or sensor
/// sample, and the samples.
/// Everything here runs on the advancing thread under `runLock` (see ``LocationEngine``).
extension LocationEngine {
    // MARK: running

    /// Runs the engine for `duration` of its clock on the calling thread.
    public func advance(by duration: Duration) {
        advance(until: clock.now().advanced(by: duration))
    }

    /// Runs the engine until `end` of its clock on the calling thread.
    public func advance(until end: MonotonicInstant) { advance(until: end, stoppable: false) }

    private func advance(until end: MonotonicInstant, stoppable: Bool) {
        // One step per turn of `runLock` (see the lock rule in ``LocationEngine``).
        while runLock.withLock({ step(until: end, stoppable: stoppable) }) {}
    }

    /// One step: the queued settings, the tick when due, one receiver read bounded by the next
    /// tick or sample, the sensor sample when due, then the state for the queries. Returns whether
    /// the loop goes on. Under `runLock`.
    private func step(until end: MonotonicInstant, stoppable: Bool) -> Bool {
        applyPendingSettings()
        guard clock.now() < end, !(stoppable && published.withLock({ $0.stopRequested })) else {
            publishState()
            return false
        }
        let now = clock.now()
        if tickDue(at: now) { tick(now) }
        let recorded = platform.recordedHeadings
        let corrections = published.withLock { $0.corrections }
        // With corrections attached the read waits at most 200 ms, so frames reach the UART promptly.
        // On real time a read cannot be ended early, so it waits at most a tick's period: a demand
        // change is seen after it (without a tick when nothing is due).
        var deadline = min(end, nextTick, sensors.nextSample, recorded?.nextDue ?? .distantFuture,
                           corrections == nil ? .distantFuture : now.advanced(by: .milliseconds(200)))
        if case .realTime = platform.pacing { deadline = min(deadline, now.advanced(by: Self.busyTickPeriod)) }
        readReceivers(until: deadline)
        // The corrections are the first receiver's (the board's [ntrip] is for it), whichever is chosen.
        corrections?.forward(to: receivers[0].port, receiverAwake: receivers[0].executor?.awake ?? true, at: clock.now())
        pollBeacons()
        // (With no demand the policy's decision does not depend on the motion verdict: an idle
        // engine needs no tick when it changes; the client that arrives finds it.)
        if clock.now() >= sensors.nextSample { sampleSensors() }
        // A port or sensor that failed in this step is retried by the tick: an idle engine ticks again.
        if nextTick == .distantFuture && (receiver.port == nil || sensors.problem != nil) { nextTick = clock.now() }
        if let recorded { for heading in recorded.take(upTo: clock.now()) { publish(heading) } }
        publishState()
        return true
    }

    /// Runs the engine on the calling thread until ``stop()``: a real board as its data comes, a
    /// simulated board (manual clock) paced to the wall clock, `speed` times as fast.
    ///
    /// On a manual clock the thread sleeps until the next thing that is due (the tick, a sensor
    /// sample, the simulated receiver's next transmission; see ``nextDue(after:)``), between
    /// ``minimumPacingSleep`` and ``maximumPacingSleep`` of wall time (``maximumIdlePacingSleep``
    /// while the engine has no tick of its own), and wakes early for a demand change, a setting or
    /// ``stop()``: an idle simulated board wakes only for its deadlines, not every second.
    ///
    /// `started` is called once on this thread, before the first step, with the manual clock's
    /// instant from which a simulated board is paced (the wall clock reads now at that instant):
    /// the anchor that ties its clock to the system's (`fieldlocd --sim-time-offset`).
    public func run(speed: Double = 1, started: ((MonotonicInstant) -> Void)? = nil) {
        published.withLock { $0.stopRequested = false }
        guard case .manual = platform.pacing else {
            started?(clock.now())
            return advance(until: .distantFuture, stoppable: true)
        }
        let speed = speed.isFinite && speed > 0 ? speed : 1
        let wallStart = DispatchTime.now().uptimeNanoseconds
        let simStart = clock.now()
        started?(simStart)
        while !published.withLock({ $0.stopRequested }) {
            let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9
            let target = simStart.advanced(by: .milliseconds(Int64(wall * speed * 1000)))
            advance(until: target, stoppable: true)
            let (due, idle) = runLock.withLock { (nextDue(after: clock.now()), nextTick == .distantFuture) }
            let ahead = due <= target ? 0 : Double(due.nanoseconds - target.nanoseconds) / 1e9 / speed
            let sleep = min(max(ahead, Self.minimumPacingSleep), idle ? Self.maximumIdlePacingSleep : Self.maximumPacingSleep)
            if wake.semaphore.wait(timeout: .now() + sleep) == .success {
                // Several settings since the last look are one reason to look again, not several.
                while wake.semaphore.wait(timeout: .now()) == .success {}
            }
        }
    }

    /// The shortest sleep of a manual-clock engine between steps (wall time): work due sooner is
    /// done in one step after it.
    public static let minimumPacingSleep = 0.02
    /// The longest sleep of a manual-clock engine between steps (wall time) while it ticks, so that
    /// a change made to the simulated hardware from outside (a fault injected by a test) is seen
    /// promptly.
    public static let maximumPacingSleep = 1.0

    /// The first instant after `now` at which the engine has work of its own: the tick, a sensor
    /// sample, a recorded heading, the corrections' forwarding, a Bluetooth scan's adverts, the
    /// platform's next event. Under `runLock`.
    func nextDue(after now: MonotonicInstant) -> MonotonicInstant {
        var due = min(nextTick, sensors.nextSample, platform.recordedHeadings?.nextDue ?? .distantFuture)
        if published.withLock({ $0.corrections }) != nil { due = min(due, now.advanced(by: .milliseconds(200))) }
        if beacons.scanning { due = min(due, now) }
        if let event = platform.nextScheduledEvent(after: now) { due = min(due, event) }
        return due
    }

    /// Runs the engine on a background thread (see ``run(speed:)``) until ``stop()``; returns at once.
    public func runInBackground(speed: Double = 1, started: (@Sendable (MonotonicInstant) -> Void)? = nil) {
        let thread = Thread { [self] in run(speed: speed, started: started) }
        thread.name = "fieldloc-engine"
        thread.start()
    }

    /// Asks the running loop to return after its current step; the receiver is left idle.
    public func stop() {
        published.withLock { $0.stopRequested = true }
        wake.signal()
    }

    /// Puts the hardware in the idle state (receiver asleep, sensors unread) and closes the port:
    /// for a graceful shutdown.
    public func shutdown() {
        stop()
        published.withLock { $0.corrections }?.client.stop()
        runLock.withLock {
            let idle = policy.decide([], state: PolicyState())
            for receiver in receivers { receiver.shutdown(idle: idle) }
            beacons.shutdown()
        }
    }

    /// Opens the receiver's port now, throwing why it cannot be (for one-shot tools that should
    /// fail at once rather than retry).
    package func openReceiver() throws(HardwareError) {
        runLock.lock()
        defer { runLock.unlock() }
        guard receivers[0].port == nil else { return }
        try receivers[0].openPort(at: clock.now())
    }

    /// How often a board with a gyroscope samples while headings are wanted, at the longest
    /// (20 ms): set ``headingPeriod`` to it to see every sample the attitude filter takes, as
    /// `fieldloc record` does.
    public static var gyroscopeSamplePeriod: Duration { SensorSubsystem.gyroscopeSamplePeriod }

    /// Closes the receiver's port without changing the receiver's power (for tools that only watch).
    package func closeReceiver() { runLock.withLock { for receiver in receivers { receiver.closePort() } } }

    /// The period of headings while headings are wanted (100 ms unless a tool asks otherwise).
    /// A board with a gyroscope samples at least every ``gyroscopeSamplePeriod`` for its attitude
    /// filter, and delivers headings at this period.
    public var headingPeriod: Duration {
        get { published.withLock { $0.state.headingPeriod } }
        set {
            published.withLock { $0.state.headingPeriod = newValue }
            apply { $0.sensors.headingPeriod = newValue }
        }
    }

    // MARK: the step

    /// Makes the subsystems' counters visible (before any event that follows from them is handed out).
    func publishCounters() {
        let r = receiver.counters, s = sensors.counters
        published.withLock {
            $0.receiverCounters = r
            $0.sensorCounters = s
        }
    }

    /// A receiver or PPS problem: every client hears of it.
    func reportToAll(_ error: LocationError) {
        publishCounters()
        registry.broadcast(.error(error))
    }

    /// A sensor problem: the clients running headings hear of it.
    private func reportToHeadingClients(_ error: LocationError) {
        publishCounters()
        registry.broadcast(.error(error), onlyHeading: true)
    }

    /// What the policy sees at `now`. The accelerometer decides whether the unit moves; a recent
    /// fix moving faster than walking pace overrules a smooth ride that shows no vibration.
    private func policyState(_ now: MonotonicInstant, of receiver: ReceiverSubsystem) -> PolicyState {
        let history = receiver.history(at: now)
        let motion = sensors.motion
        var stillFor = motion.stillFor(at: now)
        var moving = motion.moving
        if let speed = history.currentSpeed {
            if speed > 1 { moving = true; stillFor = 0 } else if moving == nil { moving = speed > 0.5 }
        }
        return PolicyState(timeSinceFix: history.timeSinceFix, recentSpeed: history.recentSpeed, moving: moving,
                           stillFor: stillFor, ephemerisAge: history.ephemerisAge, satellitesUsed: history.satellitesUsed,
                           horizontalAccuracy: lastLocation?.knownHorizontalAccuracy.map { $0 * 2 })
    }

    private func tick(_ now: MonotonicInstant) {
        for receiver in receivers { receiver.ensurePort(at: now, report: reportToAll) }
        timing.ensureLine(report: reportToAll)
        for receiver in receivers { receiver.watchdog(at: now, report: reportToAll) }
        publishCounters()
        let records = registry.snapshot()
        let state = policyState(now, of: receiver)
        // The privacy switch: while it is on, no demand reaches the policy (the receiver is
        // powered off); the in-use light shows whether any client wants location services.
        if let on = privacy.poll(report: reportToAll) {
            if on { registry.broadcast(.error(.denied(PrivacySubsystem.engagedReason))) }
            registry.broadcast(.servicesEnabled(!on))
        }
        let demands = registry.demands(records, motion: sensors.motion, lastFixAt: receiver.lastFixAt)
        let privacyOn = privacy.engaged
        // Each receiver its own decision for the same demand: its own profile and power modes, its
        // own fixes and ephemerides (docs/RECEIVER-CONFIG.md, "Power per receiver"). The decision
        // shown (and the sensors') is the chosen receiver's.
        let states = receivers.map { $0 === receiver ? state : policyState(now, of: $0) }
        let decisions = zip(receivers, states).map { one, oneState in
            var decision = one.policy.decide(privacyOn ? [] : demands, state: oneState)
            if privacyOn { decision.reasons.insert(PrivacySubsystem.engagedReason, at: 0) }
            return decision
        }
        let decision = decisions[receivers.firstIndex { $0 === receiver } ?? 0]
        privacy.light(!privacyOn && !demands.isEmpty, report: reportToAll)
        published.withLock { p in
            p.counters.ticks += 1
            if p.decision?.receiver != decision.receiver { p.counters.modeChanges += 1 }
            p.decision = decision
        }
        // Each receiver's stretch since the last tick, at the decision that was in force for it.
        energy.tick(at: now, receivers: receivers.map(\.charge), demands: privacyOn ? [] : demands, measured: platform.measuredReceiverEnergy())
        for (index, one) in receivers.enumerated() {
            let fresh = states[index].ephemerisAge.map { $0 < one.policy.ephemerisRefreshAge } ?? false
            one.apply(decisions[index], ephemerisFresh: fresh)
        }
        // Sensors: heading at the magnetometer's rate, motion detection at 4 Hz.
        // (A replay board's headings come from its recording; it has no sensors to open.)
        if platform.recordedHeadings == nil { sensors.schedule(decision, at: now, report: reportToHeadingClients) }
        publishCounters()
        registry.housekeeping(records, at: now, policy: policy, state: state, moving: sensors.motion.moving,
                              expectedPeriod: decision.receiver.expectedFixPeriod)
        registry.expireRegions(records, at: now)
        reportCorrectionLink()
        beaconTick(records, at: now)
        nextTick = Self.tickInstant(after: now, idle: isIdle(after: decision, demands: demands, records: records))
    }

    /// A fix of receiver `index`: named by its device, and handed on when its receiver is the
    /// one the best-source rule chooses (``ReceiverSelection``).
    func handle(_ fix: Fix, from index: Int) {
        // While the privacy switch is on, nothing the receiver still says leaves the engine.
        guard !privacy.engaged else { return }
        let now = clock.now()
        var fix = fix
        if receivers.count > 1 { fix.receiverIndex = index }
        guard chooses(fix, from: index, at: now) else { return }
        published.withLock {
            $0.counters.fixes += 1
            if let status = fix.receiverStatus { $0.lastReceiverStatus = status }
        }
        // A pulse that marked the fix's second gives its time accuracy (gpsd's `ept` too), so it is
        // paired before the fix goes out; its own notification still follows the fix's.
        let pulse = fix.time.flatMap { timing.fix(utc: $0.secondsSinceEpoch, receivedAt: now) }
        if let pulse {
            fix.pulseTimeAccuracy = Location.pulseTimeAccuracy(pulseAccuracy: timePulseAccuracy, edgeErrorNanoseconds: pulse.edgeSystemErrorNanoseconds)
        }
        registry.notify(.fix(fix, now))
        if let pulse { registry.notify(.pps(pulse)) }
        if registry.wantsSky, let sky = SkyView(fix, receivedAt: now) { registry.deliver(sky) }
        guard var location = Location(fix, receivedAt: now) else { return }
        location.source = receivers[index].devicePath
        // A fix whose second a pulse marked: its time is as good as the pulse.
        if let pulse { location.notePulse(pulseAccuracy: timePulseAccuracy, edgeErrorNanoseconds: pulse.edgeSystemErrorNanoseconds) }
        if let corrections = published.withLock({ $0.corrections }) {
            corrections.note(fix)
            location.corrections = corrections.status(at: now)
        }
        let own = receivers[index].policy
        receivers[index].noteFix(location, fix, at: now, upkeepDuration: own.upkeepDuration, hotStartLimit: own.hotStartLimit)
        sensors.updateReference(location, fix: fix, fallbackUTC: platform.utcSeconds(at: now))
        published.withLock { $0.lastLocation = location }
        registry.deliver(location, at: now)
    }

    private func sampleSensors() {
        let heading = sensors.sample(lastLocation: lastLocation, report: reportToHeadingClients)
        publishCounters()
        guard let heading else { return }
        publish(heading)
    }

    /// Hands a heading (the sensors', or a replay board's recorded one) to the clients.
    private func publish(_ heading: HeadingUpdate) {
        published.withLock {
            $0.counters.headings += 1
            $0.lastHeading = heading
        }
        registry.deliver(heading)
    }
}
