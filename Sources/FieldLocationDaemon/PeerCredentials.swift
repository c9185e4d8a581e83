import Foundation
import LinuxHardware
import NIOCore

/// Who is at the other end of a local TCP connection.
///
/// TCP carries no credentials (unlike a Unix socket's `SO_PEERCRED`). For a peer on this host, the
/// kernel's socket table (`/proc/net/tcp`, `/proc/net/tcp6`) lists the client's own socket, whose
/// local address is the peer address we see and whose remote address is ours, together with the
/// uid that created it. That uid, its user name and groups are what the access policy judges.
public struct PeerIdentity: Sendable, Equatable {
    /// The uid owning the client's socket.
    public var uid: UInt32
    /// The user name, when the uid has one.
    public var user: String?
    /// The names of the user's groups (primary first).
    public var groups: [String]

    /// An identity with the given values.
    public init(uid: UInt32, user: String?, groups: [String]) {
        self.uid = uid
        self.user = user
        self.groups = groups
    }

    /// The identity of the local process that owns the TCP connection from `peer` to `local`, or
    /// `nil` when the peer is not on this host or the socket table does not list it.
    public static func lookup(peer: SocketAddress?, local: SocketAddress?) -> PeerIdentity? {
        guard let peer, let local, let peerPort = peer.port, let localPort = local.port else { return nil }
        let files: [String]
        switch peer {
        case .v4: files = ["/proc/net/tcp", "/proc/net/tcp6"]
        case .v6: files = ["/proc/net/tcp6"]
        case .unixDomainSocket: return nil
        }
        // The table is produced piecewise as it is read, so a socket can be missed while others come
        // and go: look twice before giving up.
        for _ in 0..<2 {
            for file in files {
                guard let text = readProcFile(file) else { continue }
                if let uid = owner(inTable: text, clientPort: peerPort, serverPort: localPort) {
                    return identity(uid: uid)
                }
            }
        }
        return nil
    }

    /// A /proc file read to its end (their reported size is 0, so size-based readers stop early).
    static func readProcFile(_ path: String, limit: Int = 64 << 20) -> String? {
        guard let bytes = try? SystemFile.contents(of: path, limit: limit) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The uid in a `/proc/net/tcp`-format table of the established socket whose local port is
    /// `clientPort` and whose remote port is `serverPort`.
    public static func owner(inTable text: String, clientPort: Int, serverPort: Int) -> UInt32? {
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[3] == "01",
                  let local = port(of: fields[1]), let remote = port(of: fields[2]),
                  local == clientPort, remote == serverPort,
                  let uid = UInt32(fields[7]) else { continue }
            return uid
        }
        return nil
    }

    static func port(of field: Substring) -> Int? {
        guard let colon = field.lastIndex(of: ":") else { return nil }
        return Int(field[field.index(after: colon)...], radix: 16)
    }

    /// The user name and group names of `uid` from the system's user database.
    public static func identity(uid: UInt32) -> PeerIdentity {
        guard let user = UserDatabase.user(uid: uid) else { return PeerIdentity(uid: uid, user: nil, groups: []) }
        let groupNames = UserDatabase.groups(ofUser: user.name, primaryGroup: user.primaryGroup).compactMap(UserDatabase.groupName)
        return PeerIdentity(uid: uid, user: user.name, groups: groupNames)
    }
}
