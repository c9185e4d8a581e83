import FieldLocation
import GPSDProtocol
import LocationAPI
import NIOCore

/// How the gpsd-compatible JSON server listens and what it allows.
///
/// The defaults are gpsd's: loopback only, port 2947. Listening on all interfaces needs
/// ``listenAny``; accepting a peer that is not on this host needs ``allowRemote``; both are off
/// unless asked for on the command line.
public struct GPSDServerConfiguration: Sendable {
    /// The address to bind: an IPv4 or IPv6 literal or a host name (`127.0.0.1` by default).
    public var host: String = "127.0.0.1"
    /// The TCP port (2947 is gpsd's; 0 picks a free one, for tests).
    public var port: Int = 2947
    /// Allow binding a wildcard address (`0.0.0.0`, `::`): every interface.
    public var listenAny = false
    /// Accept peers whose address is not a loopback address. Off: such connections are closed at once.
    public var allowRemote = false
    /// The most clients connected at once; one more gets an ERROR and is closed.
    public var maxClients = 64
    /// The longest request line kept, in bytes (without CR/LF); longer ones get an ERROR and are
    /// discarded up to their line end, and the connection stays open. At most ``GPSDCommand/maxLineLength``.
    public var maxLineLength = GPSDCommand.maxLineLength
    /// The most output a client may leave unread in the server, in bytes. A client whose pending output
    /// exceeds it (a reader that stopped reading) is dropped; nothing is buffered without bound.
    public var outputLimit = 256 * 1024
    /// How long a request without a line terminator waits for more bytes before it is handled as it is
    /// (gpsd handles whatever one read delivered; the PyPI `gps3` library sends no terminator at all).
    public var unterminatedRequestDelay: TimeAmount = .milliseconds(150)
    /// The shortest time between two ATT reports, on the engine's clock. gpsd ties ATT to the GNSS
    /// epoch (IMU is its unsynchronised twin), so the default is one second: one ATT per fix at 1 Hz,
    /// from the latest of the compass's 10 readings per second. Zero sends every reading.
    public var attitudeInterval: Duration = .seconds(1)
    /// Who may watch (the status of the peer's user) and who may send control commands (`?DEVICE=`).
    public var policy = AccessPolicy()
    /// Where the policy may change while the daemon runs; when set, new watches and control requests
    /// are judged by its ``AccessPolicySource/current`` instead of ``policy``.
    public var policySource: AccessPolicySource?

    /// The policy in force now.
    public var currentPolicy: AccessPolicy { policySource?.current ?? policy }
    /// Keep the receiver running with no watcher (the time service needs its epochs and pulses).
    public var holdsReceiver = false
    /// The `release` of the VERSION report.
    public var release = "fieldlocd \(FieldLocationDaemonVersion.string)"

    /// The defaults: loopback, port 2947, 64 clients, 256 KiB of pending output per client.
    public init() {}

    /// Why a configuration cannot be used.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        /// What is wrong and how to fix it.
        public var description: String
    }

    /// Checks the values: a wildcard address needs ``listenAny``, the port and limits must be in range.
    public func validate() throws(Problem) {
        guard (0...65_535).contains(port) else { throw Problem(description: "port \(port) is not in 0...65535") }
        if GPSDAddressRules.isWildcard(host: host) && !listenAny {
            throw Problem(description: "'\(host)' listens on every interface; pass --listen-any to allow that (and --allow-remote to accept remote peers)")
        }
        guard maxClients >= 1 else { throw Problem(description: "the client limit must be at least 1") }
        guard (16...GPSDCommand.maxLineLength).contains(maxLineLength) else {
            throw Problem(description: "the line limit must be in 16...\(GPSDCommand.maxLineLength)")
        }
        guard outputLimit >= 4096 else { throw Problem(description: "the output limit must be at least 4096 bytes") }
    }
}

/// The version the daemon reports.
public enum FieldLocationDaemonVersion {
    /// The version string (`VERSION` report `release`, `fieldlocd --version`).
    public static let string = "0.1.0"
}

/// Address checks for the listener and its peers.
public enum GPSDAddressRules {
    /// Whether `host` names every interface: `0.0.0.0`, `::`, `[::]`, `*`, `0` or empty.
    public static func isWildcard(host: String) -> Bool {
        let trimmed = host.trimmingCharacters(in: ["[", "]", " "])
        if ["", "*", "0", "0.0.0.0", "::", "0:0:0:0:0:0:0:0", "::0"].contains(trimmed) { return true }
        return false
    }

    /// Whether a peer is on this host's loopback: 127.0.0.0/8, `::1`, or an IPv4-mapped `::ffff:127.x.y.z`.
    /// A Unix-domain peer counts as local.
    public static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let address else { return false }
        switch address {
        case .v4(let v4):
            // sin_addr is in network byte order: the first byte in memory is the first octet.
            let raw = v4.address.sin_addr.s_addr
            return UInt32(bigEndian: raw) >> 24 == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            guard bytes.count == 16 else { return false }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            return mapped && bytes[12] == 127
        case .unixDomainSocket:
            return true
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let first = s.first, set.contains(first) { s = s.dropFirst() }
        while let last = s.last, set.contains(last) { s = s.dropLast() }
        return String(s)
    }
}
