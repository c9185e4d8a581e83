import Dispatch
import LocationAPI
import FieldLocationWire
import Foundation
import HardwareInterfaces
import LocationServices
import NIOCore
import NIOPosix
import Synchronization

/// A value handed from one thread to a waiting one, with a deadline on the monotonic clock.
final class Waiter<Value: Sendable>: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let value = Mutex<Value?>(nil)

    /// Sets the value (the first one wins) and wakes the waiter.
    func fulfil(_ v: Value) {
        let first = value.withLock { stored -> Bool in
            guard stored == nil else { return false }
            stored = v
            return true
        }
        if first { semaphore.signal() }
    }

    /// The value, waiting until `deadline` at most; `nil` when none came in time.
    func wait(until deadline: ContinuousClock.Instant) -> Value? {
        if let v = value.withLock({ $0 }) { return v }
        let left = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, left.nanosecondsClamped)
        _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
        return value.withLock { $0 }
    }
}

/// The daemon engine's clock as seen from here: its last reported time plus the local time since.
final class FollowedClock: MonotonicClock {
    private let local = HostClock()
    private struct Sync {
        var remote: UInt64 = 0
        var local: UInt64 = 0
        var lastGiven: UInt64 = 0
    }
    private let sync = Mutex(Sync())

    /// A message from the daemon said it was `remote` nanoseconds on its clock.
    func observe(remote: UInt64) {
        let now = local.now().nanoseconds
        sync.withLock { s in
            s.remote = remote
            s.local = now
        }
    }

    func now() -> MonotonicInstant {
        let here = local.now().nanoseconds
        return sync.withLock { s in
            let (value, overflow) = s.remote.addingReportingOverflow(here >= s.local ? here - s.local : 0)
            s.lastGiven = max(s.lastGiven, overflow ? .max : value)
            return MonotonicInstant(nanoseconds: s.lastGiven)
        }
    }

    func sleep(until deadline: MonotonicInstant) {
        guard deadline != .distantFuture else { return }
        while true {
            let now = self.now()
            if now >= deadline { return }
            local.sleep(for: min(deadline - now, .milliseconds(50)))
        }
    }
}

/// The connection's shared state: the channel, requests waiting for replies, the clients and their sinks.
final class RemoteConnection: Sendable {
    struct Client {
        var sink: @Sendable (EngineEvent) -> Void
        var services = ClientServices()
        var registered = false
        var refusal: LocationError?
        var partial: [Location] = []
    }

    private struct State {
        var channel: (any Channel)?
        var open = false
        var closedReason: String?
        var closedByUs = false
        var nextRequest = 1
        var pending: [Int: Waiter<Result<ClientMessage, LocationError>>] = [:]
        var clients: [Int: Client] = [:]
        var nextClient = 1
        var backlog = 0
        var readingPaused = false
        /// Open monitors by name: their event handler and the last event number handed to it.
        var monitors: [String: (handler: @Sendable (MonitorEvent) -> Void, finish: @Sendable () -> Void, last: UInt64)] = [:]
    }

    let path: String
    let timeout: Duration
    let clock = FollowedClock()
    let hello = Waiter<ClientMessage>()
    private let state = Mutex(State())
    private let grantState = Mutex(ProviderAuthorization(status: .notDetermined))

    /// What the daemon grants this connection: from its hello, then from each authorisation event
    /// (the daemon reloaded its access policy).
    var grant: ProviderAuthorization {
        get { grantState.withLock { $0 } }
        set { grantState.withLock { $0 = newValue } }
    }
    private let servicesState = Mutex(false)
    /// Whether the daemon's location services are on: from its hello, then from each
    /// `servicesEnabled` event (its board's privacy switch).
    var servicesEnabled: Bool {
        get { servicesState.withLock { $0 } }
        set { servicesState.withLock { $0 = newValue } }
    }
    private let capabilitiesState = Mutex<DeviceCapabilities?>(nil)
    /// The daemon's board's services with their availability: from its hello, then from each
    /// `capabilities` event (a device appeared, went or changed permissions); `nil` from an older daemon.
    var capabilities: DeviceCapabilities? {
        get { capabilitiesState.withLock { $0 } }
        set { capabilitiesState.withLock { $0 = newValue } }
    }
    private let queue = DispatchQueue(label: "fieldloc.remote-provider.delivery")
    private let encoder = Mutex(ClientSocketCodec.encoder())
    /// Events waiting for their sinks above which the socket is not read (the daemon then drops a
    /// process that stays behind), and below which reading resumes.
    static let backlogHigh = 4096, backlogLow = 1024
    /// The most locations one batch may have when it arrives in parts.
    static let maximumBatch = 100_000

    init(path: String, timeout: Duration) {
        self.path = path
        self.timeout = timeout
    }

    func attach(_ channel: any Channel) {
        let live = state.withLock { s -> Bool in
            guard s.closedReason == nil else { return false }
            s.channel = channel
            s.open = true
            return true
        }
        if !live { channel.close(promise: nil) }
    }

    var isOpen: Bool { state.withLock { $0.open } }
    var closedReason: String? { state.withLock { $0.closedReason } }

    func close() {
        let channel = state.withLock { s -> (any Channel)? in
            s.closedByUs = true
            return s.channel
        }
        channel?.close(promise: nil)
        closed(reason: "closed by this process")
    }

    // MARK: clients

    func add(sink: @escaping @Sendable (EngineEvent) -> Void) -> Int {
        state.withLock { s in
            let id = s.nextClient
            s.nextClient += 1
            s.clients[id] = Client(sink: sink)
            return id
        }
    }

    func setRegistered(_ id: Int) { state.withLock { $0.clients[id]?.registered = true } }

    func refuse(_ id: Int, _ error: LocationError) { state.withLock { $0.clients[id]?.refusal = error } }

    /// Why a client's requests are not sent: the daemon refused it, or the connection is gone.
    func refusal(_ id: Int) -> LocationError? {
        state.withLock { s in
            if let r = s.clients[id]?.refusal { return r }
            return s.open ? nil : .hardware(.other, "the connection to fieldlocd at \(path) is closed")
        }
    }

    /// Applies a change to a client's services; `nil` for an unknown client.
    func change(_ id: Int, _ change: (inout ClientServices) -> Void) -> (ClientServices, LocationError?)? {
        state.withLock { s in
            guard var c = s.clients[id] else { return nil }
            change(&c.services)
            s.clients[id] = c
            let refusal = c.refusal ?? (s.open ? nil : .hardware(.other, "the connection to fieldlocd at \(path) is closed"))
            return (c.services, refusal)
        }
    }

    /// Forgets a client; returns whether the daemon knows it.
    func remove(_ id: Int) -> Bool {
        state.withLock { s in
            guard let c = s.clients.removeValue(forKey: id) else { return false }
            return c.registered && s.open
        }
    }

    /// Hands an event to a client's sink on the delivery queue.
    func deliver(_ event: EngineEvent, to id: Int) {
        guard let sink = state.withLock({ $0.clients[id]?.sink }) else { return }
        enqueue(sink, event)
    }

    private func enqueue(_ sink: @escaping @Sendable (EngineEvent) -> Void, _ event: EngineEvent) {
        enqueue { sink(event) }
    }

    /// Runs `work` on the delivery queue (in order with every event), counting it in the backlog.
    private func enqueue(_ work: @escaping @Sendable () -> Void) {
        let pause = state.withLock { s -> (any Channel)? in
            s.backlog += 1
            guard s.backlog >= Self.backlogHigh, !s.readingPaused, let channel = s.channel else { return nil }
            s.readingPaused = true
            return channel
        }
        if let pause { pause.setOption(.autoRead, value: false).whenFailure { _ in } }
        queue.async { [self] in
            work()
            let resume = state.withLock { s -> (any Channel)? in
                s.backlog -= 1
                guard s.readingPaused, s.backlog <= Self.backlogLow, let channel = s.channel else { return nil }
                s.readingPaused = false
                return channel
            }
            if let resume { resume.setOption(.autoRead, value: true).whenFailure { _ in } }
        }
    }

    // MARK: monitors

    /// Hands the events of monitor `name` to `handler` (on the delivery queue), each number once;
    /// `finish` runs when the connection closes.
    func openMonitor(_ name: String, handler: @escaping @Sendable (MonitorEvent) -> Void, finish: @escaping @Sendable () -> Void) {
        state.withLock { s in
            let last = s.monitors[name]?.last ?? 0
            s.monitors[name] = (handler, finish, last)
        }
    }

    /// Stops handing monitor `name`'s events.
    func closeMonitor(_ name: String) { _ = state.withLock { $0.monitors.removeValue(forKey: name) } }

    /// Sends a request without waiting for its reply (an acknowledgement).
    func post(_ request: ClientRequest) {
        guard let channel = state.withLock({ $0.open ? $0.channel : nil }) else { return }
        guard let line = encoder.withLock({ ClientSocketCodec.line(request, encoder: $0) }) else { return }
        var buffer = channel.allocator.buffer(capacity: line.count)
        buffer.writeBytes(line)
        channel.writeAndFlush(buffer, promise: nil)
    }

    // MARK: requests

    /// Sends a request and waits for its reply (at most ``timeout``).
    func call(_ request: ClientRequest) -> Result<ClientMessage, LocationError> {
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            return .failure(LocationError.hardware(.other, "\(request.op): called on a SwiftNIO event-loop thread, where waiting for fieldlocd would block the loop"))
        }
        let waiter = Waiter<Result<ClientMessage, LocationError>>()
        var request = request
        let channel: (any Channel)? = state.withLock { s in
            guard s.open, let channel = s.channel else { return nil }
            request.id = s.nextRequest
            s.nextRequest += 1
            s.pending[s.nextRequest - 1] = waiter
            return channel
        }
        guard let channel, let id = request.id else {
            return .failure(LocationError.hardware(.other, "the connection to fieldlocd at \(path) is closed"))
        }
        guard let line = encoder.withLock({ ClientSocketCodec.line(request, encoder: $0) }) else {
            _ = state.withLock { $0.pending.removeValue(forKey: id) }
            return .failure(.invalidArgument("\(request.op): the request is longer than \(ClientSocketProtocol.maximumLineLength) bytes"))
        }
        var buffer = channel.allocator.buffer(capacity: line.count)
        buffer.writeBytes(line)
        channel.writeAndFlush(buffer).whenFailure { error in
            waiter.fulfil(.failure(LocationError.hardware(.other, "cannot write to fieldlocd at \(self.path): \(error)")))
        }
        let result = waiter.wait(until: ContinuousClock.now.advanced(by: timeout))
        _ = state.withLock { $0.pending.removeValue(forKey: id) }
        return result ?? .failure(LocationError.hardware(.other, "fieldlocd at \(path) did not answer '\(request.op)' within \(timeout)"))
    }

    /// Acknowledges a queued event (op `ack`, not waited for: the daemon's reply carries no id).
    private func acknowledge(client id: Int, seq: UInt64) {
        guard let channel = state.withLock({ $0.open ? $0.channel : nil }) else { return }
        var request = ClientRequest(op: "ack", client: id)
        request.seq = seq
        guard let line = encoder.withLock({ ClientSocketCodec.line(request, encoder: $0) }) else { return }
        var buffer = channel.allocator.buffer(capacity: line.count)
        buffer.writeBytes(line)
        channel.writeAndFlush(buffer, promise: nil)
    }

    // MARK: from the daemon (on the event loop)

    /// A line the provider cannot read: an event line whose event is malformed becomes an error
    /// for its client; anything else is ignored (a newer daemon may send more).
    func unreadable(_ line: ByteBuffer, error: any Error, decoder: JSONDecoder) {
        struct Envelope: Decodable {
            var type: String
            var client: Int?
        }
        guard let envelope = try? ClientSocketCodec.decode(Envelope.self, from: line, decoder: decoder),
              envelope.type == "event", let id = envelope.client else { return }
        deliver(.error(.hardware(.other, "fieldlocd sent an event this client cannot read: \(ClientSocketCodec.describe(error))")), to: id)
    }

    func received(_ message: ClientMessage) {
        if let now = message.now { clock.observe(remote: now) }
        switch message.type {
        case "hello": hello.fulfil(message)
        case "reply":
            guard let id = message.id, let waiter = state.withLock({ $0.pending[id] }) else { return }
            if message.ok == true {
                waiter.fulfil(.success(message))
            } else {
                waiter.fulfil(.failure(message.error ?? LocationError.hardware(.other, "fieldlocd refused '\(id)' without a reason")))
            }
        case "event":
            guard let id = message.client, let wire = message.event else { return }
            let decoded = wire.event
            let ready: (sink: @Sendable (EngineEvent) -> Void, event: EngineEvent)? = state.withLock { s in
                guard var c = s.clients[id] else { return nil }
                defer { s.clients[id] = c }
                switch decoded {
                case .locations(let part):
                    if wire.continues {
                        c.partial += part
                        if c.partial.count > Self.maximumBatch {
                            c.partial = []
                            return (c.sink, .error(.hardware(.other, "fieldlocd sent a batch of more than \(Self.maximumBatch) locations; dropped")))
                        }
                        return nil
                    }
                    let batch = c.partial + part
                    c.partial = []
                    return (c.sink, .locations(batch))
                case .authorization(let grant):
                    grantState.withLock { $0 = grant }
                    return (c.sink, decoded)
                case .servicesEnabled(let on):
                    servicesState.withLock { $0 = on }
                    return (c.sink, decoded)
                case .capabilities(let now):
                    capabilitiesState.withLock { $0 = now }
                    return (c.sink, decoded)
                case .deferredFinished:
                    // The engine ends a deferral by itself when it finishes.
                    c.services.deferral = nil
                    return (c.sink, decoded)
                default:
                    return (c.sink, decoded)
                }
            }
            guard let ready else { return }
            if let seq = message.seq {
                // A queued event leaves the daemon's queue once this client's delegate has handled it.
                let sink = ready.sink
                enqueue({ [self] event in
                    sink(event)
                    acknowledge(client: id, seq: seq)
                }, ready.event)
            } else {
                enqueue(ready.sink, ready.event)
            }
        case "monitorEvent":
            guard let name = message.monitor, let event = message.monitorEvent else { return }
            // A repeat (the daemon sends what was not acknowledged again) is not handed twice.
            let handler = state.withLock { s -> (@Sendable (MonitorEvent) -> Void)? in
                guard let m = s.monitors[name], event.seq > m.last else { return nil }
                s.monitors[name]?.last = event.seq
                return m.handler
            }
            if let handler { enqueue { handler(event) } }
        default:
            return
        }
    }

    /// The connection closed: waiting calls fail, and (unless this process closed it) every client hears it once.
    func closed(reason: String) {
        let finishes = state.withLock { s -> [@Sendable () -> Void] in
            guard s.closedReason == nil else { return [] }
            defer { s.monitors.removeAll() }
            return s.monitors.values.map(\.finish)
        }
        let (waiters, sinks) = state.withLock { s -> ([Waiter<Result<ClientMessage, LocationError>>], [@Sendable (EngineEvent) -> Void]) in
            guard s.closedReason == nil else { return ([], []) }
            s.closedReason = reason
            s.open = false
            s.channel = nil
            let waiters = Array(s.pending.values)
            s.pending.removeAll()
            return (waiters, s.closedByUs ? [] : s.clients.values.map(\.sink))
        }
        let error = LocationError.hardware(.other, "the connection to fieldlocd at \(path) closed: \(reason)")
        for w in waiters { w.fulfil(.failure(error)) }
        for sink in sinks { enqueue(sink, .error(error)) }
        for finish in finishes { enqueue(finish) }
    }
}

/// The provider's end of the socket: lines in, messages to the shared state.
final class RemoteConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = LineDecoder.Item

    private let core: RemoteConnection
    private let decoder = ClientSocketCodec.decoder()

    init(core: RemoteConnection) { self.core = core }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .line(let line) = unwrapInboundIn(data) else { return }
        let message: ClientMessage
        do { message = try ClientSocketCodec.decode(ClientMessage.self, from: line, decoder: decoder) } catch {
            return core.unreadable(line, error: error, decoder: decoder)
        }
        core.received(message)
    }

    func channelInactive(context: ChannelHandlerContext) {
        core.closed(reason: "fieldlocd closed it")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        core.closed(reason: "\(error)")
        context.close(promise: nil)
    }
}
