import Dispatch
import LocationServices
import PowerPolicy
import Synchronization

/// Ends one ``LocationManager/requestLocation(timeout:)`` before it is answered.
public struct LocationRequestToken: Sendable {
    private let end: @Sendable () -> Void

    init(_ end: @escaping @Sendable () -> Void) { self.end = end }

    /// Cancels the request: its demand goes, and no answer (nor timeout) follows. Harmless after the answer.
    public func cancel() { end() }
}

/// One-shot locations: each request is its own client of the provider, so it can end alone.
extension LocationManager {
    /// Asks for one fresh location, delivered once through `didUpdateLocations` (never a cached
    /// fix older than the request), or `locationUnknown` after `timeout`. The request holds its
    /// own demand until it is answered, it times out, its token is cancelled or
    /// ``stopRequestingLocation()`` ends every request.
    @discardableResult
    public func requestLocation(timeout: Duration = .seconds(60)) -> LocationRequestToken {
        guard authorized() else { return LocationRequestToken {} }
        let id = startOneShot(desiredAccuracy: nil, timeout: timeout) { [weak self] event in self?.receive(event) }
        return LocationRequestToken { [weak self] in self?.endOneShot(id) }
    }

    /// Ends every running ``requestLocation(timeout:)`` without an answer: their demand goes.
    public func stopRequestingLocation() {
        for id in lock.withLock({ oneShots }) { endOneShot(id) }
    }

    /// One location: the cached one when it is at most `maxAge` seconds old (and, with
    /// `desiredAccuracy`, within its budget), else a fresh fix within `timeout`.
    ///
    /// Cancelling the calling task ends the request at once (its demand goes) and throws
    /// `CancellationError`; no fix within `timeout` throws ``LocationError/locationUnknown(_:)``,
    /// no authorisation ``LocationError/denied(_:)``.
    public func location(maxAge: Double = 0, timeout: Duration = .seconds(60),
                         desiredAccuracy: DesiredAccuracy? = nil) async throws -> Location {
        guard maxAge.isFinite && maxAge >= 0 else {
            throw LocationError.invalidArgument("maxAge \(maxAge): must be zero or a positive number of seconds")
        }
        guard timeout > .zero else { throw LocationError.invalidArgument("timeout \(timeout): must be positive") }
        if let problem = authorizationProblem() { throw problem }
        if maxAge > 0, let cached = cachedLocation(maxAge: maxAge),
           desiredAccuracy?.budget.map({ (cached.knownHorizontalAccuracy ?? .infinity) <= $0 }) ?? true {
            return cached
        }
        try Task.checkCancellation()
        let wait = OneShotWait()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Location, any Error>) in
                guard wait.store(continuation) else { return continuation.resume(throwing: CancellationError()) }
                let id = startOneShot(desiredAccuracy: desiredAccuracy, timeout: timeout) { event in
                    switch event {
                    case .locations(let l):
                        if let last = l.last { wait.take()?.resume(returning: last) }
                    case .error(let e): wait.take()?.resume(throwing: e)
                    default: break
                    }
                }
                if !wait.started(id) { endOneShot(id) }
            }
        } onCancel: {
            let (continuation, id) = wait.cancel()
            if let id { endOneShot(id) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Registers a one-shot client and starts its request; `deliver` hears its answer once
    /// (a location, or `locationUnknown` at the timeout), after which the client is gone.
    func startOneShot(desiredAccuracy: DesiredAccuracy?, timeout: Duration,
                      deliver: @escaping @Sendable (EngineEvent) -> Void) -> Int {
        let box = OneShotID()
        let registration = provider.register(name: name + " (one fix)", persistentName: nil) { [weak self] event in
            switch event {
            case .locations: break
            case .error(let e) where !e.isFixLoss: if case .locationUnknown = e { break } else { return }
            default: return
            }
            guard let id = box.finish() else { return }
            deliver(event)
            self?.endOneShot(id)
        }
        let id = registration.id
        let reduced = accuracyAuthorization == .reducedAccuracy
        let accuracy = desiredAccuracy ?? self.desiredAccuracy
        provider.update(id) { s in
            s.desiredAccuracy = accuracy
            s.reducedAccuracy = reduced
        }
        lock.withLock { _ = oneShots.insert(id) }
        box.set(id)
        provider.requestLocation(id, timeout: timeout)
        return id
    }

    /// Removes a one-shot client (once). Over a socket the removal is not made on the thread that
    /// delivers the provider's events.
    func endOneShot(_ id: Int) {
        guard lock.withLock({ oneShots.remove(id) != nil }) else { return }
        if provider.callsBackSynchronously {
            provider.unregister(id)
        } else {
            let provider = self.provider
            DispatchQueue.global().async { provider.unregister(id) }
        }
    }
}

/// A one-shot client's id, handed to its sink once.
private final class OneShotID: Sendable {
    private let state = Mutex<(id: Int?, done: Bool)>((nil, false))
    func set(_ id: Int) { state.withLock { $0.id = id } }
    /// The id, the first time an answer comes (none before the request started).
    func finish() -> Int? {
        state.withLock { s in
            guard let id = s.id, !s.done else { return nil }
            s.done = true
            return id
        }
    }
}

/// The continuation of an async one-shot and its cancellation.
private final class OneShotWait: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Location, any Error>?, id: Int?, cancelled: Bool)>((nil, nil, false))
    /// Keeps the continuation; false when the task was cancelled already.
    func store(_ c: CheckedContinuation<Location, any Error>) -> Bool {
        state.withLock { s in
            if s.cancelled { return false }
            s.continuation = c
            return true
        }
    }
    /// Notes the request's client; false when the task was cancelled meanwhile.
    func started(_ id: Int) -> Bool {
        state.withLock { s in
            s.id = id
            return !s.cancelled
        }
    }
    /// The continuation, once.
    func take() -> CheckedContinuation<Location, any Error>? {
        state.withLock { s in
            defer { s.continuation = nil }
            return s.continuation
        }
    }
    /// Marks the wait cancelled; returns what to resume and end.
    func cancel() -> (CheckedContinuation<Location, any Error>?, Int?) {
        state.withLock { s in
            s.cancelled = true
            defer { s.continuation = nil }
            return (s.continuation, s.id)
        }
    }
}
