import FieldLocationWire
import LocationAPI
import LocationServices

/// A named monitor kept by `fieldlocd` (Core Location's `CLMonitor`), opened over its client socket.
///
/// The daemon keeps the monitor (its conditions, their records and the events not yet acknowledged)
/// in its state folder under the peer's uid and the name, and decides the conditions with its engine
/// whether or not a process holds the monitor, across daemon restarts too. Each event is saved
/// before it is sent and stays queued until acknowledged: opening the monitor again (in this process
/// or a later one) replays the queued events in order, then streams new ones. An event is
/// acknowledged when ``Events`` is asked for the next one, or by ``acknowledge(through:)``; an event
/// sent again (not yet acknowledged when the process went) carries the same `seq`, and one
/// ``RemoteMonitor`` never hands the same `seq` twice.
///
/// The daemon opens monitors only for clients its access policy authorises `always`
/// (``LocationError/regionMonitoringDenied(_:)`` otherwise), and one connection holds a monitor at a time.
public final class RemoteMonitor: Sendable {
    /// The monitor's name (unique per user on the unit).
    public let name: String
    /// The events queued when the monitor was opened (they come first on ``events``).
    public let pendingAtOpen: Int
    /// The events the daemon dropped (oldest first) while more than its queue's capacity were unacknowledged.
    public let dropped: UInt64
    private let core: RemoteConnection
    private let stream: AsyncStream<MonitorEvent>

    /// Opens monitor `name` over `provider`'s connection (creating it when the daemon has none of
    /// that name). Open one ``RemoteMonitor`` per name per connection; ``events`` is iterated once.
    public init(named name: String, provider: RemoteLocationProvider) throws(LocationError) {
        let (stream, continuation) = AsyncStream<MonitorEvent>.makeStream(bufferingPolicy: .unbounded)
        let core = provider.core
        core.openMonitor(name, handler: { continuation.yield($0) }, finish: { continuation.finish() })
        var request = ClientRequest(op: "monitorOpen")
        request.monitor = name
        switch core.call(request) {
        case .failure(let error):
            core.closeMonitor(name)
            continuation.finish()
            throw error
        case .success(let reply):
            pendingAtOpen = reply.pending ?? 0
            dropped = reply.dropped ?? 0
        }
        self.name = name
        self.core = core
        self.stream = stream
    }

    private func call(_ op: String, _ fill: (inout ClientRequest) -> Void = { _ in }) throws(LocationError) -> ClientMessage {
        var request = ClientRequest(op: op)
        request.monitor = name
        fill(&request)
        return try core.call(request).get()
    }

    /// Adds (or replaces) a condition, assuming `assumed` until its state is determined (an event
    /// comes only when a determined state differs). The daemon's refusal is thrown.
    public func add(_ condition: MonitorCondition, identifier: String, assuming assumed: MonitorState = .unknown) throws(LocationError) {
        _ = try call("monitorAdd") {
            $0.condition = condition
            $0.identifier = identifier
            $0.assuming = assumed
        }
    }

    /// Removes a condition; returns whether there was one. Its queued events stay queued.
    @discardableResult
    public func remove(_ identifier: String) throws(LocationError) -> Bool {
        try call("monitorRemove") { $0.identifier = identifier }.removed ?? false
    }

    /// The conditions' identifiers, in the order they were added.
    public func identifiers() throws(LocationError) -> [String] {
        try call("monitorIdentifiers").identifiers ?? []
    }

    /// A condition's record (its condition and last event), `nil` when there is none.
    public func record(for identifier: String) throws(LocationError) -> MonitorRecord? {
        try call("monitorRecord") { $0.identifier = identifier }.monitorRecord
    }

    /// Acknowledges the events numbered up to `seq`: the daemon removes them from the queue (saved
    /// before it answers, so they are not sent again).
    public func acknowledge(through seq: UInt64) throws(LocationError) {
        _ = try call("monitorAck") { $0.seq = seq }
    }

    /// Lets the monitor go: the daemon keeps deciding its conditions and queueing their events.
    public func close() {
        core.closeMonitor(name)
        var request = ClientRequest(op: "monitorClose")
        request.monitor = name
        core.post(request)
    }

    /// The events: those queued when the monitor was opened (oldest first), then each new one. Asking
    /// for the next event acknowledges the one before. The sequence ends when the connection closes.
    public var events: Events { Events(monitor: self) }

    /// The monitor's events as an asynchronous sequence (see ``RemoteMonitor/events``).
    public struct Events: AsyncSequence, Sendable {
        /// An event.
        public typealias Element = MonitorEvent
        let monitor: RemoteMonitor

        /// The iterator (one per monitor: the events go to one consumer).
        public func makeAsyncIterator() -> Iterator { Iterator(monitor: monitor, base: monitor.stream.makeAsyncIterator()) }

        /// Acknowledges each event when the next is asked for.
        public struct Iterator: AsyncIteratorProtocol {
            let monitor: RemoteMonitor
            var base: AsyncStream<MonitorEvent>.Iterator
            var last: UInt64?

            /// The next event, after acknowledging the one before (not waited for: an
            /// acknowledgement lost with the connection means the event comes again, same `seq`).
            public mutating func next() async -> MonitorEvent? {
                if let last {
                    var request = ClientRequest(op: "monitorAck")
                    request.monitor = monitor.name
                    request.seq = last
                    monitor.core.post(request)
                }
                last = nil
                guard let event = await base.next() else { return nil }
                last = event.seq
                return event
            }
        }
    }
}
