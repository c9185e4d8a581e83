import FieldLocation
import LocationAPI
import Logging
import NIOCore
import Synchronization

/// What the connections share: the engine, the limits, and who is connected (to close them at stop).
final class ClientSocketHub: Sendable {
    private struct State {
        var connections = ConnectionTable<ClientSocketConnection, Void>()
        var statistics = ClientSocketStatistics()
    }

    let engine: LocationEngine
    let configuration: ClientSocketConfiguration
    let logger: Logger
    /// Persistent clients monitored while disconnected.
    let sessions: PersistentSessions
    /// Monitors opened over the socket (their conditions are decided while no connection holds them).
    let monitors: SocketMonitors
    private let state = Mutex(State())

    init(engine: LocationEngine, configuration: ClientSocketConfiguration, logger: Logger) {
        self.engine = engine
        self.configuration = configuration
        self.logger = logger
        sessions = PersistentSessions(engine: engine, logger: logger, wallClock: configuration.wallClock)
        monitors = SocketMonitors(engine: engine, logger: logger, wallClock: configuration.wallClock)
        configuration.policySource?.observe { [weak self] policy in self?.policyChanged(policy) }
    }

    /// A new access policy: every connection judges its peer again, on its own event loop.
    func policyChanged(_ policy: AccessPolicy) {
        let entries = state.withLock { Array($0.connections.entries.values) }
        for entry in entries { entry.execute { $0.policyChanged(policy) } }
    }

    /// Admits a connection; `nil` when full or stopping.
    func admit(loop: any EventLoop, handler: NIOLoopBound<ClientSocketConnection>) -> Int? {
        state.withLock { s in
            guard let id = s.connections.admit(limit: configuration.maxConnections, loop: loop, handler: handler, member: ()) else {
                s.statistics.refusedFull += 1
                return nil
            }
            s.statistics.accepted += 1
            return id
        }
    }

    func remove(_ id: Int) { state.withLock { $0.connections.remove(id) } }

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
        ConnectionTable.close(state.withLock { $0.connections.closeAll() }, reason: "server stopping")
    }
}
