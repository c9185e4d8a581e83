import Beacons
import FieldLocationStore
import Foundation
import LocationAPI
import LocationServices
import Synchronization

extension Monitor {
    /// Runs `body` under the lock; saves when it produced events (or `save` is set) and only then hands
    /// the events to the consumers. A failed save is thrown; its events stay queued in memory and are
    /// handed out after the next save that succeeds.
    func change(save: Bool = false, _ body: (inout Shared) -> [Event]) throws(MonitorError) {
        try state.withLock { s throws(MonitorError) in
            let events = body(&s)
            s.unannounced += events
            guard save || !s.unannounced.isEmpty else { return }
            try Self.write(s.file, to: path)
            for event in s.unannounced {
                for consumer in s.consumers.values { consumer.yield(event) }
                for handler in s.handlers.values { handler(event) }
            }
            s.unannounced.removeAll()
        }
    }

    static func write(_ file: File, to path: String) throws(MonitorError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(file) } catch { throw MonitorError(path: path, reason: "cannot encode: \(error)") }
        do { try AtomicFile.write(data, to: path, mode: 0o600) } catch { throw MonitorError(path: path, reason: error.description) }
    }

    /// A new event: numbered, made the condition's last event and queued (dropping the oldest when full).
    static func record(_ state: State, reason: String? = nil, at index: Int, in s: inout Shared, date: Double) -> Event {
        let event = Event(seq: s.file.nextSeq, identifier: s.file.conditions[index].identifier, state: state, date: date, reason: reason)
        s.file.nextSeq += 1
        s.file.conditions[index].lastEvent = event
        s.file.pending.append(event)
        if s.file.pending.count > s.maximumPending {
            let excess = s.file.pending.count - s.maximumPending
            s.file.pending.removeFirst(excess)
            s.file.dropped += UInt64(excess)
        }
        return event
    }

    /// The determined states: an event for each that differs from its condition's last state.
    static func apply(_ changes: [(String, State)], to s: inout Shared, date: Double) -> [Event] {
        var events: [Event] = []
        for (identifier, state) in changes {
            guard let i = s.file.conditions.firstIndex(where: { $0.identifier == identifier }),
                  s.file.conditions[i].lastEvent.state != state else { continue }
            events.append(record(state, at: i, in: &s, date: date))
        }
        return events
    }

    /// Why the condition at `index` cannot be monitored now, or `nil`.
    static func unmonitoredReason(_ index: Int, in s: Shared) -> String? {
        if !s.authorized { return "location is not authorised" }
        if index >= maximumConditions { return "more than \(maximumConditions) conditions" }
        if s.file.conditions[index].condition.isBeacon && !s.bluetooth { return "Bluetooth is not available" }
        return nil
    }

    /// Puts every monitorable condition in the region or beacon monitor (state unknown until decided)
    /// and takes the others out, with an `unmonitored` event for each that was not (none when `quiet`).
    static func reconcile(_ s: inout Shared, date: Double, quiet: Bool) -> [Event] {
        var events: [Event] = []
        for i in s.file.conditions.indices {
            let stored = s.file.conditions[i]
            if let reason = unmonitoredReason(i, in: s) {
                s.regions.remove(stored.identifier)
                s.beacons.remove(stored.identifier)
                if stored.lastEvent.state != .unmonitored && !quiet {
                    events.append(record(.unmonitored, reason: reason, at: i, in: &s, date: date))
                }
                continue
            }
            if let region = stored.condition.region(identifier: stored.identifier) {
                if s.regions.entry(stored.identifier) == nil { _ = s.regions.add(region) }
            } else if case .beacon(let constraint) = stored.condition, s.beacons.entries[stored.identifier] == nil {
                // The monitor's own limit is maximumConditions; the beacon monitor's per-client cap is the same 20.
                _ = s.beacons.add(BeaconRegion(identifier: stored.identifier, constraint: constraint))
            }
        }
        return events
    }

    // MARK: Events

    /// The events: first those not yet acknowledged (oldest first, including those from before a
    /// restart), then each new one as it happens. Asking for the next event acknowledges the one
    /// before it; an event not acknowledged comes again to the next sequence (at least once).
    public var events: Events { Events(monitor: self) }

    /// Removes the pending events numbered up to `seq` and saves; returns whether any went.
    @discardableResult
    public func acknowledge(through seq: UInt64) throws(MonitorError) -> Bool {
        try state.withLock { s throws(MonitorError) -> Bool in
            let before = s.file.pending.count
            s.file.pending.removeAll { $0.seq <= seq }
            guard s.file.pending.count != before else { return false }
            try Self.write(s.file, to: path)
            return true
        }
    }

    func subscribe(_ continuation: AsyncStream<Event>.Continuation) -> Int {
        state.withLock { s in
            for event in s.file.pending where !s.unannounced.contains(event) { continuation.yield(event) }
            let id = s.nextConsumer
            s.nextConsumer += 1
            s.consumers[id] = continuation
            return id
        }
    }

    func unsubscribe(_ id: Int) { _ = state.withLock { $0.consumers.removeValue(forKey: id) } }

    /// Ends every ``events`` sequence (their consumers' loops finish).
    public func finishEvents() {
        let consumers = state.withLock { s in
            defer { s.consumers.removeAll() }
            return Array(s.consumers.values)
        }
        for consumer in consumers { consumer.finish() }
    }

    /// The monitor's events as an asynchronous sequence (see ``Monitor/events``).
    public struct Events: AsyncSequence, Sendable {
        /// An event.
        public typealias Element = Event
        let monitor: Monitor

        /// Replays the pending events, then streams new ones.
        public func makeAsyncIterator() -> Iterator {
            let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
            let id = monitor.subscribe(continuation)
            let monitor = self.monitor
            continuation.onTermination = { _ in monitor.unsubscribe(id) }
            return Iterator(monitor: monitor, base: stream.makeAsyncIterator())
        }

        /// Acknowledges each event when the next is asked for.
        public struct Iterator: AsyncIteratorProtocol {
            let monitor: Monitor
            var base: AsyncStream<Event>.Iterator
            var last: UInt64?

            /// The next event, after acknowledging the one before (a failed acknowledgement means it
            /// comes again later: at least once).
            public mutating func next() async -> Event? {
                if let last { _ = try? monitor.acknowledge(through: last) }
                last = nil
                guard let event = await base.next() else { return nil }
                last = event.seq
                return event
            }
        }
    }
}
