/// A byte-stream connection to a network peer (an NTRIP caster), every wait bounded by a deadline.
public protocol NetworkConnection: AnyObject, Sendable {
    /// `host:port`, for messages.
    var peer: String { get }
    /// Reads what arrives, up to `maximum` bytes, waiting until `deadline` for the first byte.
    /// Returns an empty array at the deadline and `nil` when the peer closed the connection.
    func read(maximum: Int, deadline: MonotonicInstant) throws(HardwareError) -> [UInt8]?
    /// Writes every byte before `deadline`, or throws (``HardwareError/Kind/timeout`` naming how
    /// many were sent; ``HardwareError/Kind/deviceGone`` when the peer has gone).
    func writeAll(_ bytes: [UInt8], deadline: MonotonicInstant) throws(HardwareError)
    /// Closes the connection; closing twice is harmless.
    func close()
}

extension NetworkConnection {
    /// Reads up to 4,096 bytes (see ``read(maximum:deadline:)``).
    public func read(deadline: MonotonicInstant) throws(HardwareError) -> [UInt8]? {
        try read(maximum: 4096, deadline: deadline)
    }
}

/// Opens TCP connections, its deadlines on its own ``clock`` (real time: the network does not run
/// on a simulated board's manual clock).
public protocol NetworkConnector: Sendable {
    /// The clock connections' deadlines are on.
    var clock: any MonotonicClock { get }
    /// Connects to `host` (a name or an address) on `port` before `deadline`.
    func connect(host: String, port: Int, deadline: MonotonicInstant) throws(HardwareError) -> any NetworkConnection
}
