import NMEA

/// Which sentences an NMEA output sends, and how often.
///
/// The daemon's flags (`--nmea-sentences`, `--nmea-every`) set the filter every TCP client starts
/// with and the UDP output's filter. A TCP client changes its own filter by sending a line
/// (see ``parse(_:)``); lines that start with `$` or `!` (sentences some chart plotters send
/// back, an autopilot's output) are ignored, and no reply is written (it would be mixed into
/// the sentence stream).
public struct NMEAOutputFilter: Sendable, Equatable {
    /// The formatters sent (`GGA`, `RMC`, `HDT`, `XDR`; a proprietary sentence by its whole
    /// address, `PMTK001`); `nil` sends every sentence.
    public var sentences: Set<String>?
    /// Every Nth sentence of each formatter is sent (1: all). A compass gives 10 headings a
    /// second; `every=10` makes its sentences 1 Hz.
    public var every: Int

    /// Every sentence, each one.
    public init(sentences: Set<String>? = nil, every: Int = 1) {
        self.sentences = sentences
        self.every = every
    }

    /// Why a filter line was refused.
    public struct Problem: Error, Sendable, CustomStringConvertible, Equatable {
        /// What is wrong.
        public var description: String
    }

    /// Whether a sentence of `formatter` passes the sentence list.
    public func admits(_ formatter: String) -> Bool { sentences?.contains(formatter) ?? true }

    /// The most formatters a filter names.
    public static let maximumSentences = 64

    /// Reads a filter line: space-separated `sentences=GGA,RMC,HDT` (or `sentences=*` for all) and
    /// `every=N` (1...1000); a key left out keeps its value in `base`. Keys are case-insensitive,
    /// formatters are upper-cased.
    public static func parse(_ line: String, base: NMEAOutputFilter = NMEAOutputFilter()) throws(Problem) -> NMEAOutputFilter {
        var filter = base
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !words.isEmpty else { throw Problem(description: "an empty filter line") }
        for word in words {
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw Problem(description: "'\(word)' is not key=value (sentences=GGA,RMC or every=N)") }
            switch parts[0].lowercased() {
            case "sentences":
                if parts[1] == "*" { filter.sentences = nil; continue }
                let names = parts[1].split(separator: ",").map { $0.uppercased() }
                guard !names.isEmpty, names.count <= maximumSentences else {
                    throw Problem(description: "sentences= needs 1...\(maximumSentences) formatters, or *")
                }
                for name in names where !(2...8).contains(name.count) || !name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) {
                    throw Problem(description: "'\(name)' is not a sentence formatter (GGA, HDT, PMTK001...)")
                }
                filter.sentences = Set(names)
            case "every":
                guard let n = Int(parts[1]), (1...1000).contains(n) else { throw Problem(description: "every= must be 1...1000, not '\(parts[1])'") }
                filter.every = n
            default:
                throw Problem(description: "unknown key '\(parts[0])' (sentences, every)")
            }
        }
        return filter
    }
}

/// A filter's running state for one output: how many sentences of each formatter it has seen.
struct NMEAOutputGate: Sendable {
    var filter: NMEAOutputFilter
    private var seen: [String: Int] = [:]

    init(filter: NMEAOutputFilter) { self.filter = filter }

    /// Whether this sentence goes out (counts it).
    mutating func pass(_ formatter: String) -> Bool {
        guard filter.admits(formatter) else { return false }
        guard filter.every > 1 else { return true }
        let n = seen[formatter, default: 0]
        seen[formatter] = n + 1 >= filter.every ? 0 : n + 1
        return n == 0
    }
}

/// How the daemon's NMEA-0183 outputs listen and send.
///
/// TCP (`--nmea-tcp HOST:PORT`, conventionally 127.0.0.1:10110 as OpenCPN and SignalK expect)
/// binds loopback unless asked: a wildcard address needs ``listenAny``; peers that are not on this
/// host are refused unless ``allowRemote``. UDP (`--nmea-udp HOST:PORT`) sends every sentence to
/// one address (unicast, or a broadcast address); one that is not on this host needs ``allowRemote``.
public struct NMEAOutputConfiguration: Sendable {
    /// The TCP listener's address and port (`nil`: no TCP output; port 0 picks a free one).
    public var tcp: (host: String, port: Int)?
    /// The UDP destination (`nil`: no UDP output).
    public var udp: (host: String, port: Int)?
    /// Allow a wildcard TCP address (every interface).
    public var listenAny = false
    /// Accept TCP peers, and send UDP to addresses, that are not on this host.
    public var allowRemote = false
    /// The filter TCP clients start with, and the UDP output's.
    public var filter = NMEAOutputFilter()
    /// The most TCP clients at once; one more is closed.
    public var maxClients = 16
    /// The most bytes a TCP client may leave unread; past it, sentences for it are dropped.
    public var outputLimit = 64 * 1024

    /// No output; loopback, 16 clients.
    public init() {}

    /// Whether any output is configured.
    public var enabled: Bool { tcp != nil || udp != nil }

    /// Reads `HOST:PORT` (`[v6]:PORT` for an IPv6 literal); `what` names the flag in the error.
    public static func endpoint(_ text: String, what: String) throws(GPSDServerConfiguration.Problem) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":") else {
            throw GPSDServerConfiguration.Problem(description: "\(what) '\(text)' is not HOST:PORT (e.g. 127.0.0.1:10110)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port), !host.isEmpty else {
            throw GPSDServerConfiguration.Problem(description: "\(what) '\(text)': the port must be 0...65535 after a host")
        }
        return (host, port)
    }

    /// Checks the values: a wildcard TCP address needs ``listenAny``, a UDP destination off this
    /// host needs ``allowRemote``, the UDP port is not 0.
    public func validate() throws(GPSDServerConfiguration.Problem) {
        if let tcp, GPSDAddressRules.isWildcard(host: tcp.host), !listenAny {
            throw GPSDServerConfiguration.Problem(description: "--nmea-tcp '\(tcp.host)' listens on every interface; pass --nmea-listen-any to allow that (and --nmea-allow-remote to accept remote peers)")
        }
        if let udp {
            guard udp.port != 0 else { throw GPSDServerConfiguration.Problem(description: "--nmea-udp needs a destination port") }
            if !allowRemote && !["127.0.0.1", "::1", "localhost"].contains(udp.host) && !udp.host.hasPrefix("127.") {
                throw GPSDServerConfiguration.Problem(description: "--nmea-udp \(udp.host) is not on this host; pass --nmea-allow-remote to send there")
            }
        }
        guard maxClients >= 1 else { throw GPSDServerConfiguration.Problem(description: "the NMEA client limit must be at least 1") }
    }
}
