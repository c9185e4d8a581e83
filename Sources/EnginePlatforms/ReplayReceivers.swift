import BoardConfig
import HardwareInterfaces
import SimulatedHardware
import Synchronization

extension ReplayEnginePlatform {
    /// A port a replay plays a receiver's reads on, and which of the recording's receivers it is.
    struct ReceiverPort {
        var path: String
        var receiver: Int
    }

    /// The ports of a replay: one simulated port for a recording of one receiver; for a recording
    /// of several, one for each receiver the board names (`[replay] receivers`), each with the
    /// recorded receiver of that name. A board and a recording that disagree are refused, naming
    /// the events file.
    static func receiverPorts(board: BoardDescription, session: RecordedSession, events: String) throws(HardwareError) -> [ReceiverPort] {
        let named = board.replay?.receivers ?? []
        guard !named.isEmpty || !session.receivers.isEmpty else { return [ReceiverPort(path: BoardHardware.simulatedPortName, receiver: 0)] }
        func refuse(_ detail: String) -> HardwareError {
            HardwareError(.invalidArgument, device: events, operation: "load the recording", detail: "\(events): \(detail)")
        }
        guard !session.receivers.isEmpty else {
            throw refuse("the board names receivers (\(named.joined(separator: ", "))) but the recording holds one receiver's bytes: remove [replay] receivers")
        }
        guard !named.isEmpty else {
            throw refuse("the recording holds \(session.receivers.count) receivers' bytes: name them in [replay] as receivers = [\(session.receivers.map { "\"\($0)\"" }.joined(separator: ", "))]")
        }
        return try named.map { name throws(HardwareError) in
            guard let index = session.receivers.firstIndex(of: name) else {
                throw refuse("the recording has no receiver '\(name)' (it has \(session.receivers.joined(separator: ", ")))")
            }
            return ReceiverPort(path: ReplayDescription.port(of: name), receiver: index)
        }
    }

    /// Plays the recording's PORT lines: at a failure's time the receiver's port is unplugged (the
    /// engine's next read of it fails, as the live one did, and the best-source rule drops it), at an
    /// opening's time it is plugged in again (the engine's next try opens it). Every port starts
    /// plugged in.
    static func schedulePortEvents(_ session: RecordedSession, ports: [ReceiverPort], platform: SimulatedPlatform, clock: ManualClock,
                                   start: MonotonicInstant) {
        let events = session.portEvents.compactMap { event -> (at: MonotonicInstant, port: SimulatedSerialPort, open: Bool)? in
            guard let path = ports.first(where: { $0.receiver == event.receiver })?.path, let port = platform.serialPort(path) else { return nil }
            return (start.advanced(by: .nanoseconds(Int64((event.t * 1e9).rounded()))), port, event.open)
        }
        guard !events.isEmpty else { return }
        final class Cursor: Sendable { let next = Mutex(0) }
        let cursor = Cursor()
        let apply: @Sendable (MonotonicInstant) -> Void = { now in
            let due = cursor.next.withLock { next -> ArraySlice<(at: MonotonicInstant, port: SimulatedSerialPort, open: Bool)> in
                let first = next
                while next < events.count, events[next].at <= now { next += 1 }
                return events[first..<next]
            }
            for event in due {
                if event.open { if event.port.isUnplugged { event.port.replug() } } else { event.port.unplug() }
            }
        }
        apply(clock.now())
        clock.addObserver { _, to in apply(to) }
    }
}
