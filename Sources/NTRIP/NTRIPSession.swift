/// The state of the link to the caster, as `fieldloc status` and the engine name it.
public enum NTRIPLinkState: Sendable, Hashable, CustomStringConvertible {
    /// Not started.
    case idle
    /// Connecting to the caster.
    case connecting
    /// The request is sent; waiting for the caster's answer.
    case awaitingResponse
    /// Corrections are flowing (the caster answered in this protocol revision).
    case streaming(NTRIPVersion)
    /// The caster refused the credentials (HTTP 401).
    case unauthorized
    /// The caster does not serve the mountpoint (HTTP 404, or a source table instead of a stream).
    case mountpointNotFound
    /// The caster answered with another HTTP status.
    case casterError(Int, String)
    /// The caster's answer or stream could not be read.
    case badResponse(String)
    /// The TCP connection could not be made (refused, unreachable, name not found, timeout).
    case connectFailed(String)
    /// The connection ended or went silent while streaming.
    case connectionLost(String)

    /// A short name without spaces, for JSON and scripts: `idle`, `connecting`, `awaiting-response`,
    /// `streaming`, `unauthorized`, `mountpoint-not-found`, `caster-error`, `bad-response`,
    /// `connect-failed`, `connection-lost`.
    public var name: String {
        switch self {
        case .idle: return "idle"
        case .connecting: return "connecting"
        case .awaitingResponse: return "awaiting-response"
        case .streaming: return "streaming"
        case .unauthorized: return "unauthorized"
        case .mountpointNotFound: return "mountpoint-not-found"
        case .casterError: return "caster-error"
        case .badResponse: return "bad-response"
        case .connectFailed: return "connect-failed"
        case .connectionLost: return "connection-lost"
        }
    }

    /// Whether the state is a failure (the client waits its backoff and tries again).
    public var isFailure: Bool {
        switch self {
        case .idle, .connecting, .awaitingResponse, .streaming: return false
        default: return true
        }
    }

    public var description: String {
        switch self {
        case .idle: return "idle"
        case .connecting: return "connecting"
        case .awaitingResponse: return "waiting for the caster's answer"
        case .streaming(let version): return "streaming (\(version))"
        case .unauthorized: return "unauthorized: the caster refused the user or password (401)"
        case .mountpointNotFound: return "mountpoint not found: the caster does not serve it"
        case .casterError(let code, let reason): return "caster error \(code) \(reason)"
        case .badResponse(let why): return "bad response: \(why)"
        case .connectFailed(let why): return "cannot connect: \(why)"
        case .connectionLost(let why): return "connection lost: \(why)"
        }
    }
}

/// One connection's protocol, without I/O: the request to send, then the caster's bytes in, the
/// state and the whole RTCM 3 frames (or the source table) out. A new session per connection;
/// the frame counters live in the ``RTCM3Stream`` the caller keeps across connections.
public struct NTRIPSession {
    /// The largest source table read, bytes.
    public static let maximumSourceTable = 1 << 20

    /// Where to log in.
    public let configuration: NTRIPConfiguration
    /// Whether this session asks for the source table (`GET /`) rather than the mountpoint.
    public let requestsSourceTable: Bool
    /// The link's state.
    public private(set) var state = NTRIPLinkState.idle
    /// The caster's response head, once read.
    public private(set) var head: NTRIPResponseHead?
    /// The source table, once read whole (source-table sessions).
    public private(set) var sourceTable: NTRIPSourceTable?
    /// Stream bytes received after the head (before de-chunking).
    public private(set) var bodyBytes = 0
    private var pending: [UInt8] = []
    private var chunked: ChunkedDecoder?
    private var table: [UInt8] = []

    /// A session for `configuration`'s mountpoint, or for its caster's source table.
    public init(configuration: NTRIPConfiguration, sourceTable: Bool = false) {
        self.configuration = configuration
        requestsSourceTable = sourceTable
    }

    /// The TCP connection is being made.
    public mutating func connecting() { state = .connecting }

    /// The connection is up: the request to send.
    public mutating func request() -> [UInt8] {
        state = .awaitingResponse
        return NTRIPRequest.bytes(for: configuration, sourceTable: requestsSourceTable)
    }

    /// The connection could not be made.
    public mutating func connectFailed(_ why: String) { state = .connectFailed(why) }

    /// Bytes from the caster; returns the whole RTCM 3 frames they complete.
    public mutating func receive(_ bytes: some Collection<UInt8>, rtcm: inout RTCM3Stream) -> [[UInt8]] {
        switch state {
        case .awaitingResponse:
            pending += bytes
            return readHead(atEnd: false, rtcm: &rtcm)
        case .streaming:
            return body(Array(bytes), rtcm: &rtcm)
        default:
            return []
        }
    }

    /// The caster closed the connection (or it failed: `why`).
    public mutating func closed(_ why: String, rtcm: inout RTCM3Stream) {
        if case .awaitingResponse = state {
            _ = readHead(atEnd: true, rtcm: &rtcm)
            if case .awaitingResponse = state { state = .badResponse("the caster closed the connection before answering") }
        }
        if requestsSourceTable, head != nil, sourceTable == nil, !state.isFailure {
            sourceTable = NTRIPSourceTable.parse(table)
        }
        if case .streaming = state {
            rtcm.connectionEnded()
            state = .connectionLost(why)
        }
    }

    private mutating func readHead(atEnd: Bool, rtcm: inout RTCM3Stream) -> [[UInt8]] {
        let parsed: (head: NTRIPResponseHead, length: Int)?
        do { parsed = try NTRIPResponseParser.parse(pending, atEnd: atEnd) } catch {
            state = .badResponse(error.description)
            return []
        }
        guard let (head, length) = parsed else { return [] }
        self.head = head
        let rest = Array(pending[length...])
        pending = []
        if head.isChunked { chunked = ChunkedDecoder() }
        switch head.statusCode {
        case 200:
            if requestsSourceTable {
                state = .streaming(head.kind == .http && head.isNTRIP2 ? .v2 : .v1)
            } else if head.isSourceTable {
                state = .mountpointNotFound
                return []
            } else {
                state = .streaming(head.kind == .http && (head.isNTRIP2 || configuration.version == .v2) ? .v2 : .v1)
            }
        case 401, 403: state = .unauthorized; return []
        case 404: state = .mountpointNotFound; return []
        default: state = .casterError(head.statusCode, head.reason); return []
        }
        return rest.isEmpty ? [] : body(rest, rtcm: &rtcm)
    }

    private mutating func body(_ bytes: [UInt8], rtcm: inout RTCM3Stream) -> [[UInt8]] {
        bodyBytes += bytes.count
        var data = bytes
        // The data decoded before a broken chunk is used, as it would be had it come in a read of its own.
        var failure: NTRIPError?
        if var decoder = chunked {
            data = []
            do { try decoder.decode(bytes, into: &data) } catch { failure = error }
            chunked = decoder
        }
        defer {
            if let failure {
                state = .badResponse(failure.description)
                if !requestsSourceTable { rtcm.connectionEnded() }
            }
        }
        if requestsSourceTable {
            table += data
            if table.count > Self.maximumSourceTable {
                state = .badResponse("source table over \(Self.maximumSourceTable) bytes")
                return []
            }
            if let end = findEnd(table) {
                sourceTable = NTRIPSourceTable.parse(table[..<end])
            }
            return []
        }
        return rtcm.feed(data)
    }

    private func findEnd(_ bytes: [UInt8]) -> Int? {
        let marker = Array("ENDSOURCETABLE".utf8)
        guard bytes.count >= marker.count else { return nil }
        var i = 0
        while i + marker.count <= bytes.count {
            if bytes[i] == 0x45, Array(bytes[i..<(i + marker.count)]) == marker { return bytes.count }
            i += 1
        }
        return nil
    }
}
