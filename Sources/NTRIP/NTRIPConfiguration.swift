/// The NTRIP protocol revision the client speaks.
public enum NTRIPVersion: Int, Sendable, Hashable, CustomStringConvertible {
    /// NTRIP 1.0: `GET /MOUNT HTTP/1.0`, answered `ICY 200 OK` (or `SOURCETABLE 200 OK`).
    case v1 = 1
    /// NTRIP 2.0: HTTP/1.1 with `Ntrip-Version: Ntrip/2.0`, the stream usually chunked.
    case v2 = 2

    public var description: String { self == .v1 ? "NTRIP 1.0" : "NTRIP 2.0" }
}

/// When the client sends the unit's position (a GGA sentence) to the caster.
public enum NTRIPGGAPolicy: String, Sendable, Hashable, CaseIterable {
    /// When the mountpoint's source-table entry has its `nmea` flag set (or the table cannot be read).
    case auto
    /// Always (virtual reference station casters that do not say so in their table).
    case always
    /// Never.
    case never
}

/// Where and how the client logs in: caster, mountpoint, credentials, protocol revision and the
/// GGA schedule.
public struct NTRIPConfiguration: Sendable, Hashable {
    /// The port casters listen on unless told otherwise (IANA "rtcm-sc104").
    public static let defaultPort = 2101

    /// The caster's host name or address.
    public var host: String
    /// The caster's TCP port.
    public var port: Int
    /// The mountpoint (without the leading `/`).
    public var mountpoint: String
    /// The user for Basic authentication (`nil`: no `Authorization` header).
    public var user: String?
    /// The password for Basic authentication.
    public var password: String?
    /// The protocol revision.
    public var version: NTRIPVersion
    /// When to send GGA.
    public var gga: NTRIPGGAPolicy
    /// Seconds between GGA sentences while streaming (the first goes at once).
    public var ggaInterval: Double
    /// The `User-Agent` header; NTRIP requires it to begin with `NTRIP `.
    public var userAgent: String

    /// A configuration from its parts.
    public init(host: String, port: Int = NTRIPConfiguration.defaultPort, mountpoint: String, user: String? = nil,
                password: String? = nil, version: NTRIPVersion = .v2, gga: NTRIPGGAPolicy = .auto, ggaInterval: Double = 10,
                userAgent: String = "NTRIP FieldLocation/1.0") {
        self.host = host
        self.port = port
        self.mountpoint = mountpoint
        self.user = user
        self.password = password
        self.version = version
        self.gga = gga
        self.ggaInterval = ggaInterval
        self.userAgent = userAgent
    }

    /// Parses `ntrip://[user[:password]@]host[:port]/MOUNT` (NTRIP 2.0) or `ntrip1://…` (NTRIP 1.0).
    /// User and password may be percent-encoded; the port defaults to 2101. Errors name the part
    /// that is wrong.
    public init(url: String) throws(NTRIPError) {
        var rest = Substring(url)
        let version: NTRIPVersion
        if rest.hasPrefix("ntrip://") {
            version = .v2
            rest = rest.dropFirst("ntrip://".count)
        } else if rest.hasPrefix("ntrip1://") {
            version = .v1
            rest = rest.dropFirst("ntrip1://".count)
        } else if rest.hasPrefix("ntrip2://") {
            version = .v2
            rest = rest.dropFirst("ntrip2://".count)
        } else {
            throw .invalidURL("\(Self.redacted(url)): the scheme must be ntrip:// (NTRIP 2.0) or ntrip1:// (NTRIP 1.0)")
        }
        guard let slash = rest.firstIndex(of: "/") else {
            throw .invalidURL("\(Self.redacted(url)): no mountpoint (ntrip://host:2101/MOUNT)")
        }
        var authority = rest[..<slash]
        let mount = String(rest[rest.index(after: slash)...])
        guard !mount.isEmpty, !mount.contains(where: { $0 == " " || $0 == "/" || $0 == "?" }) else {
            throw .invalidURL("\(Self.redacted(url)): the mountpoint '\(mount)' is empty or has a space, '/' or '?'")
        }
        var user: String?
        var password: String?
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = try Self.percentDecoded(credentials[..<colon], url: url)
                password = try Self.percentDecoded(credentials[credentials.index(after: colon)...], url: url)
            } else {
                user = try Self.percentDecoded(credentials, url: url)
            }
        }
        var host = authority
        var port = Self.defaultPort
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("\(Self.redacted(url)): unclosed '[' in the host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let tail = authority[authority.index(after: close)...]
            if !tail.isEmpty {
                guard tail.hasPrefix(":"), let p = Int(tail.dropFirst()), (1...65535).contains(p) else {
                    throw .invalidURL("\(Self.redacted(url)): the port '\(tail.dropFirst())' is not 1-65535")
                }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            let text = authority[authority.index(after: colon)...]
            guard let p = Int(text), (1...65535).contains(p) else {
                throw .invalidURL("\(Self.redacted(url)): the port '\(text)' is not 1-65535")
            }
            port = p
        }
        guard !host.isEmpty else { throw .invalidURL("\(Self.redacted(url)): no host") }
        self.init(host: String(host), port: port, mountpoint: mount, user: user, password: password, version: version)
    }

    /// `url` with any password replaced by `***`, for messages and logs.
    public static func redacted(_ url: String) -> String {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return url }
        let authority = parts[2]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let credentials = authority[..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    /// The caster and mountpoint as `host:port/MOUNT` (no credentials), for status lines.
    public var displayName: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)/\(mountpoint)" }

    static func percentDecoded(_ text: Substring, url: String) throws(NTRIPError) -> String {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            guard byte == 0x25 else { out.append(byte); continue }
            guard bytes.count >= 2, let high = hexValue(bytes[bytes.startIndex]), let low = hexValue(bytes[bytes.startIndex + 1]) else {
                throw .invalidURL("\(redacted(url)): a '%' in the credentials is not followed by two hexadecimal digits")
            }
            out.append(high << 4 | low)
            bytes = bytes.dropFirst(2)
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}

/// What went wrong with an NTRIP URL, response or stream.
public enum NTRIPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL cannot be used; the text names the part.
    case invalidURL(String)
    /// The caster's answer is not an NTRIP or HTTP response; the text says what was found.
    case malformedResponse(String)
    /// The response header is longer than the limit (bytes).
    case headerTooLong(Int)
    /// The chunked transfer encoding is broken at the given byte of the body.
    case badChunk(offset: Int, String)

    public var description: String {
        switch self {
        case .invalidURL(let text): return "invalid NTRIP URL \(text)"
        case .malformedResponse(let text): return "malformed caster response: \(text)"
        case .headerTooLong(let limit): return "caster response header longer than \(limit) bytes"
        case .badChunk(let offset, let text): return "bad chunked encoding at body byte \(offset): \(text)"
        }
    }
}
