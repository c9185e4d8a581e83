import LocationServices
import PowerPolicy

/// What a location-updates sequence asks for.
public struct LocationRequest: Sendable, Hashable {
    /// Accuracy wanted.
    public var desiredAccuracy: DesiredAccuracy
    /// Metres between deliveries; `nil` for every fix.
    public var distanceFilter: Double?
    /// What the unit is doing.
    public var activityType: ActivityType
    /// Whether updates pause after stillness.
    public var pausesAutomatically: Bool
    /// The oldest a delivered location may be, seconds.
    public var maximumAge: Double
    /// The period fixes are wanted at, seconds (Android's fused provider's interval; see
    /// ``ClientServices/updateInterval``); `nil` leaves it to the accuracy and the speed.
    public var updateInterval: Double?
    /// The shortest time between two deliveries, seconds (Android's minimum update interval);
    /// `nil` means ``updateInterval``.
    public var minimumUpdateInterval: Double?
    /// Seconds without a usable fix before the sequence yields `locationUnknown`; `nil` means
    /// `max(3 × the expected fix period, 10 s)`.
    public var fixLossTimeout: Double?
    /// Deliveries after which the request ends on its own (Android's `maxUpdates`); `nil` for no limit.
    /// A sequence then yields ``LocationError/requestExpired(_:)`` and finishes; a session's demand ends.
    public var maximumUpdates: Int?
    /// Seconds after which the request ends on its own (Android's `durationMillis`), on the
    /// provider's clock; `nil` for no limit. As with ``maximumUpdates``, the end is reported.
    public var duration: Double?
    /// Seconds the first delivery may wait for a location within ``desiredAccuracy`` (Android's
    /// `waitForAccurateLocation`); at the deadline the most accurate fix so far is delivered. `nil`
    /// (the default, as Core Location and Android) delivers the first fresh fix at once.
    public var accurateFirstFixWait: Double?
    /// Passive (Android's `PRIORITY_PASSIVE`): the request gets the fixes other clients cause,
    /// filtered as asked, and adds no demand, so on its own it keeps the receiver off (see
    /// ``ClientServices/passive``). `false` by default.
    public var passive: Bool

    /// Creates a request.
    public init(desiredAccuracy: DesiredAccuracy = .best, distanceFilter: Double? = nil, activityType: ActivityType = .other,
                pausesAutomatically: Bool = true, maximumAge: Double = 2, updateInterval: Double? = nil,
                minimumUpdateInterval: Double? = nil, fixLossTimeout: Double? = nil, maximumUpdates: Int? = nil,
                duration: Double? = nil, accurateFirstFixWait: Double? = nil, passive: Bool = false) {
        self.desiredAccuracy = desiredAccuracy
        self.distanceFilter = distanceFilter
        self.activityType = activityType
        self.pausesAutomatically = pausesAutomatically
        self.maximumAge = maximumAge
        self.updateInterval = updateInterval
        self.minimumUpdateInterval = minimumUpdateInterval
        self.fixLossTimeout = fixLossTimeout
        self.maximumUpdates = maximumUpdates
        self.duration = duration
        self.accurateFirstFixWait = accurateFirstFixWait
        self.passive = passive
    }

    /// Writes the request into a client's services.
    func apply(to s: inout ClientServices) {
        s.updatingLocation = true
        s.desiredAccuracy = desiredAccuracy
        s.distanceFilter = distanceFilter
        s.activityType = activityType
        s.pausesAutomatically = pausesAutomatically
        s.maximumAge = maximumAge
        s.updateInterval = updateInterval
        s.minimumUpdateInterval = minimumUpdateInterval
        s.fixLossTimeout = fixLossTimeout
        s.maximumUpdates = maximumUpdates
        s.updateDuration = duration
        s.accurateFirstFixWait = accurateFirstFixWait
        s.passive = passive
    }

    /// Refuses out-of-range values with a message naming the argument.
    public func validate() throws(LocationError) {
        if let d = distanceFilter, !(d.isFinite && d > 0) {
            throw .invalidArgument("distanceFilter \(d): must be a positive number of metres, or nil for none")
        }
        if !(maximumAge.isFinite && maximumAge > 0) { throw .invalidArgument("maximumAge \(maximumAge): must be a positive number of seconds") }
        if let m = maximumUpdates, m < 1 { throw .invalidArgument("maximumUpdates \(m): must be at least 1, or nil for no limit") }
        for (name, value) in [("updateInterval", updateInterval), ("minimumUpdateInterval", minimumUpdateInterval),
                              ("fixLossTimeout", fixLossTimeout), ("duration", duration),
                              ("accurateFirstFixWait", accurateFirstFixWait)] {
            if let v = value, !(v.isFinite && v > 0) { throw .invalidArgument("\(name) \(v): must be a positive number of seconds, or nil") }
        }
    }
}

/// One element of a location-updates sequence.
public enum LocationUpdate: Sendable {
    /// New locations, oldest first.
    case locations([Location])
    /// Paused after stillness.
    case paused
    /// Resumed on motion.
    case resumed
    /// An error (see `isTransient`); a fix loss is `locationUnknown` (see ``LocationError/isFixLoss``).
    case error(LocationError)
    /// Fixes are back after a reported loss; the recovered location follows as `locations`.
    case recovered(FixRecovery)
}

/// Holds demand on the engine for as long as it lives (or until ``invalidate()``): a service that
/// keeps the receiver at a request's level without consuming its updates, as Core Location's
/// service sessions do.
public final class LocationSession: Sendable {
    let engine: any LocationProvider
    let id: Int
    let diagnosticsBox: DiagnosticsBox
    /// The session's diagnostics each time they change (Core Location's `CLServiceSession.diagnostics`):
    /// the first element is the state at creation. One consumer; it ends with the session.
    public let diagnosticUpdates: AsyncStream<LocationDiagnostics>
    private let diagnosticsContinuation: AsyncStream<LocationDiagnostics>.Continuation

    init(engine: any LocationProvider, request: LocationRequest) {
        self.engine = engine
        let initial = LocationSession.initialDiagnostics(engine)
        let box = DiagnosticsBox(initial)
        diagnosticsBox = box
        let (stream, continuation) = AsyncStream<LocationDiagnostics>.makeStream(bufferingPolicy: .bufferingNewest(64))
        diagnosticUpdates = stream
        diagnosticsContinuation = continuation
        continuation.yield(initial)
        id = engine.register(name: "session", persistentName: nil, sink: { event in
            let (flags, changed) = box.note(event)
            if changed { continuation.yield(flags) }
        }).id
        engine.update(id) { s in
            // As before the update interval existed, a session does not set the maximum age.
            let maximumAge = s.maximumAge
            request.apply(to: &s)
            s.maximumAge = maximumAge
        }
    }

    /// Releases the demand now.
    public func invalidate() {
        engine.unregister(id)
        diagnosticsContinuation.finish()
    }

    deinit {
        engine.unregister(id)
        diagnosticsContinuation.finish()
    }
}

/// The buffer of each sequence: a consumer that falls this far behind loses the oldest elements.
let sequenceBuffer = 1024

/// The async sequences and sessions work on every provider: an engine in process, or the daemon's socket.
extension LocationProvider {

    func sequence<Element: Sendable>(
        _ name: String, configure: (Int) -> Void, map: @escaping @Sendable (EngineEvent) -> Element?
    ) -> EngineSequence<Element> {
        sequence(name, configure: configure, mapAll: { event in map(event).map { [$0] } ?? [] })
    }

    private func sequence<Element: Sendable>(
        _ name: String, configure: (Int) -> Void, mapAll: @escaping @Sendable (EngineEvent) -> [Element],
        finishesAfter last: @escaping @Sendable (EngineEvent) -> Bool = { _ in false }
    ) -> EngineSequence<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(sequenceBuffer))
        let id = register(name: name, persistentName: nil) { event in
            for element in mapAll(event) { continuation.yield(element) }
            if last(event) { continuation.finish() }
        }.id
        continuation.onTermination = { [weak self] _ in self?.unregister(id) }
        configure(id)
        return EngineSequence(stream: stream, registration: EngineSequence<Element>.Registration(engine: self, id: id))
    }

    /// Location updates for `request` as an async sequence; ending the iteration (or cancelling
    /// its task) stops the service. A request with ``LocationRequest/maximumUpdates`` or
    /// ``LocationRequest/duration`` yields ``LocationError/requestExpired(_:)`` when it ends and
    /// then finishes.
    public func locationUpdates(_ request: LocationRequest = LocationRequest()) throws(LocationError) -> EngineSequence<LocationUpdate> {
        try request.validate()
        let tracker = FixLossBox()
        return sequence("updates", configure: { id in
            update(id) { s in request.apply(to: &s) }
        }, mapAll: { event in
            let recovery = tracker.note(event)
            switch event {
            case .locations(let l): return (recovery.map { [.recovered($0)] } ?? []) + [.locations(l)]
            case .paused: return [.paused]
            case .resumed: return [.resumed]
            case .error(let e): return [.error(e)]
            default: return []
            }
        }, finishesAfter: { event in
            if case .error(.requestExpired) = event { return true } else { return false }
        })
    }

    /// Headings as an async sequence (`filter` degrees between deliveries).
    public func headingUpdates(filter: Double? = 1, orientation: HeadingOrientation = .forward) -> EngineSequence<HeadingUpdate> {
        sequence("headings", configure: { id in
            update(id) { s in
                s.updatingHeading = true
                s.headingFilter = filter
                s.headingOrientation = orientation
            }
        }, map: { event in if case .heading(let h) = event { return h } else { return nil } })
    }

    /// Region events for `regions` (not persisted: the sequence's lifetime is the monitoring's).
    public func regionEvents(_ regions: [CircularRegion]) throws(LocationError) -> EngineSequence<RegionEvent> {
        for region in regions {
            if let problem = region.validate() { throw .regionMonitoringFailure(region: region.identifier, reason: problem) }
        }
        return sequence("regions", configure: { id in
            for region in regions { _ = startMonitoring(id, region) }
        }, map: { event in if case .region(let r) = event { return r } else { return nil } })
    }

    /// Region events and expiries for `regions` (not persisted): as ``regionEvents(_:)``, plus
    /// `.expired` when a region's `expiresAfter` or `expiresAt` lapses on the engine's clock.
    public func regionActivity(_ regions: [CircularRegion]) throws(LocationError) -> EngineSequence<RegionActivity> {
        for region in regions {
            if let problem = region.validate() { throw .regionMonitoringFailure(region: region.identifier, reason: problem) }
        }
        return sequence("regions", configure: { id in
            for region in regions { _ = startMonitoring(id, region) }
        }, map: { event in
            switch event {
            case .region(let r): return .event(r)
            case .regionExpired(let r): return .expired(r)
            default: return nil
            }
        })
    }

    /// The receiver's sky at each epoch (satellites per constellation with elevation, azimuth,
    /// C/N0 and use, and the DOPs) as an async sequence, with location updates at `desiredAccuracy`
    /// running so the receiver tracks; ending the iteration ends both.
    public func skyUpdates(desiredAccuracy: DesiredAccuracy = .best) -> EngineSequence<SkyView> {
        sequence("sky", configure: { id in
            update(id) { s in
                s.updatingSky = true
                s.updatingLocation = true
                s.desiredAccuracy = desiredAccuracy
            }
        }, map: { event in if case .sky(let sky) = event { return sky } else { return nil } })
    }

    /// Visits (arrivals and departures) as an async sequence.
    public func visits() -> EngineSequence<Visit> {
        sequence("visits", configure: { id in update(id) { $0.visits = true } },
                 map: { event in if case .visit(let v) = event { return v } else { return nil } })
    }

    /// A session that holds `request`'s demand while it lives.
    public func session(_ request: LocationRequest = LocationRequest()) throws(LocationError) -> LocationSession {
        try request.validate()
        return LocationSession(engine: self, request: request)
    }
}

/// An async sequence of one service of the engine. The service runs (its demand counts) from
/// the sequence's creation until the first of: an iteration ends (`break`, the end of the loop,
/// cancellation of the iterating task), or the sequence and its iterators are gone. A consumer
/// that falls more than 1024 elements behind loses the oldest.
public struct EngineSequence<Element: Sendable>: AsyncSequence, Sendable {
    /// The client registration; ending it removes the demand.
    final class Registration: Sendable {
        let engine: any LocationProvider
        let id: Int
        init(engine: any LocationProvider, id: Int) { self.engine = engine; self.id = id }
        func end() { engine.unregister(id) }
        deinit { end() }
    }

    /// Ends the registration when an iteration is over.
    final class IterationToken {
        let registration: Registration
        init(_ registration: Registration) { self.registration = registration }
        deinit { registration.end() }
    }

    let stream: AsyncStream<Element>
    let registration: Registration

    /// Iterates the sequence; dropping it ends the service.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator
        let token: IterationToken
        /// The next element, or `nil` once the task is cancelled.
        public mutating func next() async -> Element? { await base.next() }
    }

    /// Starts an iteration.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), token: IterationToken(registration))
    }
}
