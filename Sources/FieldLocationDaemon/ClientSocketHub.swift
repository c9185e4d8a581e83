import FieldLocation
import Logging
import NIOCore
import Synchronization

/// What the connections share: the engine, the limits, and who is connected (to close them at stop).
final class ClientSocketHub: Sendable {
    struct Entry: Sendable {
        let loop: any EventLoop
        let handler: NIOLoopBound<ClientSocketConnection>
    }

    private struct State {
        var connections: [Int: Entry] = [:]
        var nextID = 1
        var accepting = true
        var statistics = ClientSocketStatistics()
    }

    let engine: LocationEngine
    let configuration: ClientSocketConfiguration
    let logger: Logger
    private let state = Mutex(State())

    init(engine: LocationEngine, configuration: ClientSocketConfiguration, logger: Logger) {
        self.engine = engine
        self.configuration = configuration
        self.logger = logger
    }

    /// Admits a connection; `nil` when full or stopping.
    func admit(loop: any EventLoop, handler: NIOLoopBound<ClientSocketConnection>) -> Int? {
        state.withLock { s in
            guard s.accepting, s.connections.count < configuration.maxConnections else {
                s.statistics.refusedFull += 1
                return nil
            }
            let id = s.nextID
            s.nextID += 1
            s.connections[id] = Entry(loop: loop, handler: handler)
            s.statistics.accepted += 1
            return id
        }
    }

    func remove(_ id: Int) { _ = state.withLock { $0.connections.removeValue(forKey: id) } }

    func count(_ change: (inout ClientSocketStatistics) -> Void) { state.withLock { change(&$0.statistics) } }

    var connectionCount: Int { state.withLock { $0.connections.count } }

    var statistics: ClientSocketStatistics {
        state.withLock { s in
            var out = s.statistics
            out.connected = s.connections.count
            return out
        }
    }

    /// Stops admitting and closes every connection.
    func closeAll() {
        let entries = state.withLock { s -> [Entry] in
            s.accepting = false
            return Array(s.connections.values)
        }
        for entry in entries {
            let handler = entry.handler
            entry.loop.execute { handler.value.close(reason: "server stopping") }
        }
    }
}
