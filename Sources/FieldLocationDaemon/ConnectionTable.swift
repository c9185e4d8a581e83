import NIOCore

/// A connection handler of one of the daemon's servers (the gpsd socket's, the local client
/// socket's): its ``ConnectionGate`` closes it (at stop, on its event loop), on an error, and when
/// its client stops reading.
protocol ServerConnection: ChannelInboundHandler, SendableMetatype {
    /// The connection's gate.
    var gate: ConnectionGate { get }
}

extension ServerConnection {
    /// Closes the connection (idempotent), logging `reason`.
    func close(reason: String) { gate.close(reason: reason) }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { gate.caught(error) }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        gate.dropIfSlowReader()
        context.fireChannelWritabilityChanged()
    }
}

/// The connection hub both servers share (the gpsd socket's ``GPSDHub`` and the local client
/// socket's ``ClientSocketHub``): each connection's id, event loop and handler with what the server
/// keeps about it (`Member`), the connection limit, whether the server still admits, and how to
/// close them all when it stops.
///
/// A value, kept inside its hub's lock, so that a hub changes a connection's entry together with
/// its own state (the gpsd hub picks its watchers and records a fix in one step). The handlers are
/// reached only on their own event loops.
struct ConnectionTable<Handler: ServerConnection, Member: Sendable>: Sendable {
    /// One connection.
    @dynamicMemberLookup
    struct Entry: Sendable {
        /// The connection's event loop.
        let loop: any EventLoop
        /// Its handler, usable on `loop` only.
        let handler: NIOLoopBound<Handler>
        /// What the server keeps about it.
        var member: Member

        subscript<T>(dynamicMember keyPath: WritableKeyPath<Member, T>) -> T {
            get { member[keyPath: keyPath] }
            set { member[keyPath: keyPath] = newValue }
        }

        /// Runs `body` with the handler on the connection's event loop.
        func execute(_ body: @escaping @Sendable (Handler) -> Void) {
            let handler = self.handler
            loop.execute { body(handler.value) }
        }
    }

    /// The connections by id.
    private(set) var entries: [Int: Entry] = [:]
    private var nextID = 1
    /// Whether connections are admitted (until ``closeAll()``).
    private(set) var accepting = true

    /// The number of connections.
    var count: Int { entries.count }

    /// Admits a connection and returns its id; `nil` when `limit` connections are open or the server stops.
    mutating func admit(limit: Int, loop: any EventLoop, handler: NIOLoopBound<Handler>, member: Member) -> Int? {
        guard accepting, entries.count < limit else { return nil }
        let id = nextID
        nextID += 1
        entries[id] = Entry(loop: loop, handler: handler, member: member)
        return id
    }

    /// A connection's entry (setting `nil` removes it).
    subscript(id: Int) -> Entry? {
        get { entries[id] }
        set { entries[id] = newValue }
    }

    /// Removes a connection that went away.
    mutating func remove(_ id: Int) { entries[id] = nil }

    /// Stops admitting; returns the connections to close with ``close(_:reason:)`` once out of the lock.
    mutating func closeAll() -> [Entry] {
        accepting = false
        return Array(entries.values)
    }

    /// Closes `entries`, each on its event loop.
    static func close(_ entries: [Entry], reason: String) {
        for entry in entries { entry.execute { $0.close(reason: reason) } }
    }
}
