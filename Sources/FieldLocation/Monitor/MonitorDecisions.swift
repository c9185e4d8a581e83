import Foundation
import LocationAPI

extension Monitor {
    /// Sets a condition's state as decided elsewhere (fieldlocd's engine monitors the conditions of a
    /// monitor opened over its client socket): an event when it differs from the condition's last
    /// state, saved before any consumer gets it. `unknown` is not an event (as with ``process(_:)``).
    package func determine(_ identifier: String, _ state: State) throws(MonitorError) {
        guard state != .unknown, state != .unmonitored else { return }
        let date = wallClock()
        try change { s in Self.apply([(identifier, state)], to: &s, date: date) }
    }

    /// Makes a condition unmonitored with `reason` (the engine refused it), unless it already is.
    package func markUnmonitored(_ identifier: String, reason: String) throws(MonitorError) {
        let date = wallClock()
        try change { s in
            guard let i = s.file.conditions.firstIndex(where: { $0.identifier == identifier }),
                  s.file.conditions[i].lastEvent.state != .unmonitored else { return [] }
            return [Self.record(.unmonitored, reason: reason, at: i, in: &s, date: date)]
        }
    }

    /// The conditions with their identifiers, in the order they were added.
    package var conditions: [(identifier: String, condition: Condition)] {
        state.withLock { $0.file.conditions.map { ($0.identifier, $0.condition) } }
    }

    /// Hands `handler` the pending events (oldest first), then each new event as it is saved, until
    /// ``detach(_:)``; returns the handler's number. The handler is called under the monitor's lock
    /// and must not call back into the monitor.
    package func attach(_ handler: @escaping @Sendable (Event) -> Void) -> Int {
        state.withLock { s in
            for event in s.file.pending where !s.unannounced.contains(event) { handler(event) }
            let id = s.nextConsumer
            s.nextConsumer += 1
            s.handlers[id] = handler
            return id
        }
    }

    /// Stops handing events to handler `id`.
    package func detach(_ id: Int) { _ = state.withLock { $0.handlers.removeValue(forKey: id) } }
}
