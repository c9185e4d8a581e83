import Glibc

/// The system's user and group database (`/etc/passwd`, `/etc/group` or NSS), through the
/// reentrant C calls.
public enum UserDatabase {
    /// A user's record: the name and primary group.
    public struct User: Hashable, Sendable {
        /// The user name.
        public var name: String
        /// The primary group id.
        public var primaryGroup: UInt32
    }

    /// The user with `uid` (`getpwuid_r`), or `nil` when the database has none.
    public static func user(uid: UInt32) -> User? {
        var record = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwuid_r(uid_t(uid), &record, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let name = record.pw_name else { return nil }
        return User(name: String(cString: name), primaryGroup: record.pw_gid)
    }

    /// The groups `user` belongs to, `primaryGroup` first (`getgrouplist`).
    public static func groups(ofUser user: String, primaryGroup: UInt32) -> [UInt32] {
        var count: Int32 = 64
        var gids = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(user, gid_t(primaryGroup), &gids, &count) < 0, count > 0, count < 65_536 {
            gids = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(user, gid_t(primaryGroup), &gids, &count)
        }
        return Array(gids.prefix(max(0, Int(count))))
    }

    /// The name of the group `gid` (`getgrgid_r`), or `nil` when it has none.
    public static func groupName(_ gid: UInt32) -> String? {
        var record = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrgid_r(gid_t(gid), &record, &buffer, buffer.count, &result) == 0, result != nil, let name = record.gr_name else { return nil }
        return String(cString: name)
    }

    /// The id of the group `name` (`getgrnam_r`), or `nil` when there is no such group.
    public static func groupID(named name: String) -> UInt32? {
        var record = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(name, &record, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return record.gr_gid
    }
}

/// Unix-domain sockets: what the daemon's local socket needs beyond SwiftNIO.
public enum UnixSockets {
    /// The socket option level and name that give a Unix socket peer's `struct ucred`
    /// (`SOL_SOCKET`, `SO_PEERCRED`).
    public static let peerCredentialsOption: (level: Int32, name: Int32) = (SOL_SOCKET, SO_PEERCRED)

    /// Whether something accepts connections on the Unix stream socket at `path` (a connect is tried).
    public static func answers(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard var address = address(path) else { return false }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }

    /// The longest path a Unix socket address holds, in bytes (one byte of `sun_path` is the
    /// terminating zero).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The `sockaddr_un` for `path`, or `nil` when the path is empty or longer than
    /// ``maximumPathLength`` (the kernel would cut it short and name another socket).
    public static func address(_ path: String) -> sockaddr_un? {
        let count = path.utf8.count
        guard count > 0, count <= maximumPathLength else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        return address
    }
}
