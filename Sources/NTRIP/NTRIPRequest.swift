/// The requests the client sends: the stream of a mountpoint, or the source table (`GET /`).
public enum NTRIPRequest {
    /// The request for `configuration`'s mountpoint, or for the source table when `sourceTable`.
    ///
    /// NTRIP 2.0: `GET /MOUNT HTTP/1.1`, `Host`, `Ntrip-Version: Ntrip/2.0`, `User-Agent`,
    /// `Authorization: Basic …` when a user is set, `Connection: close`. NTRIP 1.0:
    /// `GET /MOUNT HTTP/1.0`, `User-Agent`, `Authorization`. Lines end in CR LF, and a blank line ends it.
    public static func bytes(for configuration: NTRIPConfiguration, sourceTable: Bool = false) -> [UInt8] {
        let path = sourceTable ? "/" : "/" + configuration.mountpoint
        var lines: [String]
        switch configuration.version {
        case .v2:
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            lines = ["GET \(path) HTTP/1.1", "Host: \(host):\(configuration.port)", "Ntrip-Version: Ntrip/2.0",
                     "User-Agent: \(configuration.userAgent)"]
        case .v1:
            lines = ["GET \(path) HTTP/1.0", "User-Agent: \(configuration.userAgent)"]
        }
        if let user = configuration.user {
            lines.append("Authorization: Basic " + base64(Array((user + ":" + (configuration.password ?? "")).utf8)))
        }
        if configuration.version == .v2 { lines.append("Connection: close") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Standard base64 (RFC 4648, with padding).
    public static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(triple >> 18 & 0x3F)])
            out.append(alphabet[Int(triple >> 12 & 0x3F)])
            out.append(remaining > 1 ? alphabet[Int(triple >> 6 & 0x3F)] : 0x3D)
            out.append(remaining > 2 ? alphabet[Int(triple & 0x3F)] : 0x3D)
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
