import HardwareInterfaces
import LocationAPI
import LocationServices
import PowerPolicy

extension ClientRegistry {
    // MARK: demand

    /// Every client's services as the policy's demands: standard updates (with headings), headings
    /// alone, a one-shot request, the fix that anchors a visit once the unit is still (`motion`'s
    /// verdict, no fix since `lastFixAt`), significant changes and visits, regions.
    func demands(_ records: [(Int, Record)], motion: MotionDetector, lastFixAt: MonotonicInstant?) -> [ClientDemand] {
        lock.withLock {
            var out: [ClientDemand] = []
            for (id, c) in records {
                let s = c.services
                // A passive client receives what others' demand brings and asks for nothing.
                if s.passive { continue }
                let name = "\(c.name)#\(id)"
                if s.updatingLocation {
                    out.append(ClientDemand(client: name, desiredAccuracy: s.reducedAccuracy ? .reduced : s.desiredAccuracy,
                                            distanceFilter: s.distanceFilter, updateInterval: s.updateInterval, activity: s.activityType,
                                            pausesAutomatically: s.pausesAutomatically, wantsHeading: s.updatingHeading,
                                            headingFilter: s.headingFilter))
                } else if s.updatingHeading {
                    out.append(ClientDemand(client: name, desiredAccuracy: nil, wantsHeading: true, headingFilter: s.headingFilter))
                }
                if c.request != nil {
                    out.append(ClientDemand(client: name + " (one fix)", desiredAccuracy: .best, pausesAutomatically: false, oneShot: true))
                }
                if c.owedFullAccuracy {
                    out.append(ClientDemand(client: name + " (full accuracy granted)", desiredAccuracy: .best,
                                            pausesAutomatically: false, oneShot: true))
                }
                // A visit needs the place where the unit came to rest: one fix once it is still.
                if s.visits, motion.moving == false, let since = motion.stillSince, (lastFixAt ?? .zero) < since {
                    out.append(ClientDemand(client: name + " (visit anchor)", desiredAccuracy: .hundredMeters,
                                            pausesAutomatically: false, oneShot: true))
                }
                if s.significantChanges || s.visits {
                    out.append(ClientDemand(client: name + " (significant changes)", desiredAccuracy: .hundredMeters,
                                            activity: s.activityType, significantChangesOnly: true))
                }
                if !c.regions.isEmpty {
                    let smallest = c.regions.smallestRadius ?? 1000
                    out.append(ClientDemand(client: name + " (regions)", desiredAccuracy: smallest < 300 ? .nearestTenMeters : .hundredMeters,
                                            distanceFilter: max(10, smallest / 2), activity: s.activityType))
                }
            }
            return out
        }
    }

    /// Whether any of `records` has work the tick does on time: running services (passive ones
    /// too: their pauses, limits and fix loss), a one-shot request, a held batch, regions, beacon
    /// ranging. While none has, the engine ticks only at its own deadlines.
    func hasTimedWork(_ records: [(Int, Record)]) -> Bool {
        lock.withLock {
            records.contains { _, c in
                let s = c.services
                return s.updatingLocation || s.updatingHeading || s.updatingSky || s.significantChanges || s.visits
                    || !s.rangingConstraints.isEmpty || c.request != nil || c.batcher != nil || c.owedFullAccuracy
                    || !c.regions.regions.isEmpty || !c.beaconRegions.regions.isEmpty
            }
        }
    }

    /// The one decision for all of `records`: their demands merged by `policy` (the most demanding
    /// wins; no demand idles the hardware).
    func decide(_ records: [(Int, Record)], policy: PowerPolicy, state: PolicyState, motion: MotionDetector,
                lastFixAt: MonotonicInstant?) -> PowerDecision {
        policy.decide(demands(records, motion: motion, lastFixAt: lastFixAt), state: state)
    }

    // MARK: delivery

    /// Whether any client runs ``ClientServices/updatingSky`` (so the sky is built only for them).
    var wantsSky: Bool { lock.withLock { clients.values.contains { $0.services.updatingSky } } }

    /// Hands an epoch's sky to the clients running ``ClientServices/updatingSky`` (positions of the
    /// satellites are not the unit's: reduced accuracy leaves them).
    func deliver(_ sky: SkyView) {
        let sinks = lock.withLock { clients.values.filter { $0.services.updatingSky }.map(\.sink) }
        for sink in sinks { sink(.sky(sky)) }
    }

    /// Hands `event` to every client (with `onlyHeading`, to those running headings; with
    /// `onlyLocation`, to those running standard updates).
    func broadcast(_ event: EngineEvent, onlyHeading: Bool = false, onlyLocation: Bool = false) {
        let sinks = lock.withLock {
            clients.values.filter { (!onlyHeading || $0.services.updatingHeading) && (!onlyLocation || $0.services.updatingLocation) }.map(\.sink)
        }
        for sink in sinks { sink(event) }
    }

    /// A location received at `now`, through each client's services in id order: standard updates
    /// (filtered, paused, batched), one-shot requests, significant changes, visits, regions (saved
    /// when a state changed).
    func deliver(_ location: Location, at now: MonotonicInstant) {
        var out: [(Sink, EngineEvent)] = []
        var saves: [(RegionMonitor, String)] = []
        lock.withLock {
            for id in clients.keys.sorted() {
                guard let c = clients[id] else { continue }
                let s = c.services
                let delivered = s.reducedAccuracy ? location.reduced() : location
                // The first fix after a reported loss is the recovery: delivered whatever the filters say.
                let recovering = s.updatingLocation && c.loss.fixArrived(at: now)
                if recovering { c.filter.reset() }
                if s.updatingLocation && c.holdingFirstFix && !recovering && !holdFirstFix(c, location, budget: s.desiredAccuracy.budget) {
                    // Held: the first delivery waits for an accurate fix (or its deadline, in housekeeping).
                } else if s.updatingLocation && !c.paused && (recovering || c.intervalAllows(now))
                    && c.filter.admit(location, now: now) {
                    c.lastDeliveredAt = now
                    c.owedFullAccuracy = false
                    if var b = c.batcher {
                        if let batch = b.add(delivered) {
                            out.append((c.sink, .locations(batch.batch)))
                            countDelivery(c, &out)
                            if batch.reason == .traveled && s.deferral != nil {
                                c.services.deferral = nil
                                b = DeferredBatcher(maximumDelay: s.batchingMaximumDelay)
                                out.append((c.sink, .deferredFinished(nil)))
                            }
                        }
                        c.batcher = s.batchingMaximumDelay == nil && c.services.deferral == nil ? nil : b
                    } else {
                        out.append((c.sink, .locations([delivered])))
                        countDelivery(c, &out)
                    }
                }
                if var r = c.request, location.receivedAt >= r.since {
                    if r.firstFix == nil { r.firstFix = now }
                    // An unknown accuracy (negative) never beats a known one.
                    let accuracy = location.knownHorizontalAccuracy ?? .infinity
                    if r.best.map({ accuracy < ($0.knownHorizontalAccuracy ?? .infinity) }) ?? true { r.best = location }
                    let budget = s.desiredAccuracy.budget ?? 10
                    let settled = (now - (r.firstFix ?? now)).secondsDouble >= 5
                    if accuracy * 2 <= budget || settled {
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
                if !c.regions.isEmpty {
                    let before = c.regions.revision
                    for event in c.regions.update(location) { out.append((c.sink, .region(event))) }
                    if let file = c.regionFile, before != c.regions.revision { saves.append((c.regions, file)) }
                }
            }
        }
        for (monitor, file) in saves {
            // As before the split, a failed save is not reported to the client (the next state
            // change tries again).
            try? RegionStore.save(monitor, to: file)
        }
        for (sink, event) in out { sink(event) }
    }

    /// A heading: turned to each client's reference axis and through its heading filter. The
    /// observers see it before the clients.
    func deliver(_ heading: HeadingUpdate) {
        var out: [(Sink, EngineEvent)] = []
        lock.withLock {
            for id in clients.keys.sorted() {
                guard let c = clients[id], c.services.updatingHeading else { continue }
                var h = heading
                let offset = c.services.headingOrientation.offset
                h.magneticHeading = (h.magneticHeading + offset).truncatingRemainder(dividingBy: 360)
                h.trueHeading = h.trueHeading.map { ($0 + offset).truncatingRemainder(dividingBy: 360) }
                if c.headingFilter.admit(heading: h.magneticHeading, hasTrueHeading: h.trueHeading != nil) {
                    out.append((c.sink, .heading(h)))
                }
            }
        }
        notify(.heading(heading))
        for (sink, event) in out { sink(event) }
    }

    /// Time-driven client work at `now`: pause and resume (as `policy` judges `state`), request
    /// timeouts, deferral timeouts, visits from stillness (`moving`, the motion detector's verdict),
    /// fix loss (`expectedPeriod`: seconds between the fixes `decision` schedules, `nil` when it
    /// schedules none).
    func housekeeping(_ records: [(Int, Record)], at now: MonotonicInstant, policy: PowerPolicy, state: PolicyState, moving: Bool?,
                      expectedPeriod: Double? = nil) {
        var out: [(Sink, EngineEvent)] = []
        let still = moving == false
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
                    // A passive client's fixes are others' to schedule: their absence is no loss to it.
                    let expected = c.paused || s.passive ? nil : expectedPeriod
                    if let lost = c.loss.check(at: now, expectedPeriod: expected, services: s) { out.append((c.sink, .error(lost))) }
                    let start = c.updatesStartedAt ?? now
                    c.updatesStartedAt = start
                    if c.holdingFirstFix, let wait = s.accurateFirstFixWait, (now - start).secondsDouble >= wait {
                        c.holdingFirstFix = false
                        if let best = c.heldFirstFix, c.filter.admit(best, now: now) {
                            c.lastDeliveredAt = now
                            out.append((c.sink, .locations([s.reducedAccuracy ? best.reduced() : best])))
                            countDelivery(c, &out)
                        }
                        c.heldFirstFix = nil
                    }
                    if let duration = s.updateDuration {
                        if (now - start).secondsDouble >= duration {
                            if var b = c.batcher, let batch = b.flush() { out.append((c.sink, .locations(batch.batch))) }
                            endUpdates(c, &out, why: "its duration of \(duration) s passed (updateDuration)")
                        }
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
                if s.visits, moving != nil, let visit = c.visitDetector.motion(still: still, at: now) {
                    out.append((c.sink, .visit(visit)))
                }
            }
        }
        for (sink, event) in out { sink(event) }
    }

    // MARK: first fix and expiry

    /// Whether `location` ends the hold on a client's first delivery (within the budget: twice its
    /// horizontal accuracy at most `budget`, 10 m for `best`, as a one-shot request settles); if not,
    /// it is kept when it is the most accurate so far. Called with the lock held.
    private func holdFirstFix(_ c: Record, _ location: Location, budget: Double?) -> Bool {
        let accuracy = location.knownHorizontalAccuracy ?? .infinity
        if accuracy * 2 <= (budget ?? 10) {
            c.holdingFirstFix = false
            c.heldFirstFix = nil
            return true
        }
        if c.heldFirstFix.map({ accuracy < ($0.knownHorizontalAccuracy ?? .infinity) }) ?? true { c.heldFirstFix = location }
        return false
    }


    /// Counts a standard delivery; at the client's ``ClientServices/maximumUpdates`` its updates end.
    /// Called with the lock held.
    private func countDelivery(_ c: Record, _ out: inout [(Sink, EngineEvent)]) {
        c.updatesDelivered += 1
        if let limit = c.services.maximumUpdates, c.updatesDelivered >= limit {
            endUpdates(c, &out, why: "\(limit) update\(limit == 1 ? "" : "s") delivered (maximumUpdates)")
        }
    }

    /// Ends a client's standard updates on their own, telling it why; its demand goes with them.
    /// Called with the lock held.
    private func endUpdates(_ c: Record, _ out: inout [(Sink, EngineEvent)], why: String) {
        c.services.updatingLocation = false
        c.services.maximumUpdates = nil
        c.services.updateDuration = nil
        c.services.deferral = nil
        c.batcher = nil
        c.owedFullAccuracy = false
        c.updatesStartedAt = nil
        c.updatesDelivered = 0
        out.append((c.sink, .error(.requestExpired(why))))
    }
}
