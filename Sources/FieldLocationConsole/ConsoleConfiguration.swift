import FieldLocation
import FieldLocationDaemon
import LocationAPI

/// How the unit's HTTP console (``ConsoleServer``: the status page, its live event stream and
/// `/metrics`) listens and whom it serves.
///
/// Like the gpsd socket it listens on loopback unless told otherwise: a wildcard address needs
/// ``listenAny``, and a peer that is not on this host is refused unless ``allowRemote``. Local
/// peers are judged by the access policy as gpsd clients are (the user owning the connection's
/// socket): a peer whose status does not allow locations gets 403, and under reduced accuracy the
/// page's position and track are coarsened by the same rule as every other reduced location.
public struct ConsoleConfiguration: Sendable {
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The TCP port (0: any free port).
    public var port = 8947
    /// Allow a wildcard address (every interface).
    public var listenAny = false
    /// Accept peers that are not on this host.
    public var allowRemote = false
    /// The most connections open at once; one more gets 503 and is closed.
    public var maxConnections = 64
    /// The most bytes of one request's head (request line and headers); more gets 431.
    public var maxRequestHead = 8 * 1024
    /// Seconds a connection may take to send a whole request head; a slower one gets 408.
    public var requestTimeout = 10.0
    /// Bytes of unread output (a page stream that stopped reading) before the connection is dropped.
    public var outputLimit = 256 * 1024
    /// Seconds between live updates of the page.
    public var updateInterval = 1.0
    /// Positions the page's track keeps.
    public var trackLength = 600
    /// Put the position (latitude, longitude, altitude) in the metrics; off by default, because
    /// metrics leave the unit.
    public var metricsPosition = false
    /// The access policy when no source is given.
    public var policy = AccessPolicy()
    /// The policy's file, read again when it changes (the daemon's own source).
    public var policySource: AccessPolicySource?

    /// The defaults: loopback, port 8947.
    public init() {}

    /// The policy in force now.
    public var currentPolicy: AccessPolicy { policySource?.current ?? policy }

    /// Why this configuration cannot be served, or `nil`.
    public func problem() -> String? {
        if host.isEmpty { return "--http needs HOST:PORT" }
        if GPSDAddressRules.isWildcard(host: host) && !listenAny {
            return "--http \(host) listens on every interface: add --http-listen-any if that is meant"
        }
        guard (0...65_535).contains(port) else { return "--http port \(port) is not in 0...65535" }
        guard maxConnections >= 1 else { return "the console needs room for at least one connection" }
        guard updateInterval.isFinite, updateInterval >= 0.05 else { return "the page's update interval must be at least 0.05 s" }
        return nil
    }

    /// `HOST:PORT` (or `[V6]:PORT`) split into its parts.
    public static func endpoint(_ text: String) -> (host: String, port: Int)? {
        var host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        if host.isEmpty { host = "127.0.0.1" }
        guard let port = Int(portText), (0...65_535).contains(port) else { return nil }
        return (String(host), port)
    }
}
