import Glibc

// Files, folders and paths for the targets above LinuxHardware, in the style of swift-system: small
// typed calls that retry EINTR themselves and throw a ``FileError`` naming the call and the path,
// so that no other target needs the C library.

/// An errno value, typed (after swift-system's `Errno`): compare it with the named values, print
/// it as the C library's text.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The errno number.
    public var rawValue: Int32

    /// The errno `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The value errno has now.
    public static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// `ENOENT`: no such file or folder.
    public static var noSuchFileOrDirectory: Errno { Errno(rawValue: ENOENT) }
    /// `EEXIST`: the file exists.
    public static var fileExists: Errno { Errno(rawValue: EEXIST) }
    /// `ENOTDIR`: a path component is not a folder.
    public static var notDirectory: Errno { Errno(rawValue: ENOTDIR) }
    /// `EACCES`: permission denied.
    public static var permissionDenied: Errno { Errno(rawValue: EACCES) }
    /// `EPERM`: the operation is not permitted.
    public static var notPermitted: Errno { Errno(rawValue: EPERM) }
    /// `ENOSPC`: no space left on the device.
    public static var noSpace: Errno { Errno(rawValue: ENOSPC) }
    /// `EROFS`: the file system is read-only.
    public static var readOnlyFileSystem: Errno { Errno(rawValue: EROFS) }
    /// `EINTR`: interrupted by a signal.
    public static var interrupted: Errno { Errno(rawValue: EINTR) }

    /// The C library's text for the value (`strerror`), for example `No such file or directory`.
    public var description: String { strerror(rawValue).map { String(cString: $0) } ?? "unknown error \(rawValue)" }
}

/// A call on a path that failed: which call, which path, and the errno.
public struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call, for example `open`, `write`, `rename`.
    public var operation: String
    /// The path it was given.
    public var path: String
    /// Why it failed.
    public var errno: Errno

    /// A failure of `operation` on `path` with `errno`.
    public init(_ operation: String, path: String, errno: Errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// `open /var/lib/x: No such file or directory (errno 2)`.
    public var description: String { "\(operation) \(path): \(errno) (errno \(errno.rawValue))" }
}

/// An open file descriptor and the path it was opened by. Closing is explicit (``close()``).
public struct SystemFile: Sendable {
    /// The descriptor.
    public let descriptor: Int32
    /// The path, for errors.
    public let path: String

    /// Opens `path` read-only (close-on-exec); `directory` asks for a folder (`O_DIRECTORY`).
    public static func open(_ path: String, directory: Bool = false) throws(FileError) -> SystemFile {
        let flags = O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0)
        let (fd, code) = Sys.call { Glibc.open(path, flags) }
        guard fd >= 0 else { throw FileError("open", path: path, errno: Errno(rawValue: code)) }
        return SystemFile(descriptor: fd, path: path)
    }

    /// Creates and opens a new file `prefix` + six random characters (`mkstemp`, mode 0600,
    /// close-on-exec); its path is the returned file's ``path``.
    public static func createUnique(prefix: String) throws(FileError) -> SystemFile {
        var name = Array((prefix + "XXXXXX").utf8CString)
        let (fd, code) = Sys.call {
            name.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return -1 }
                return mkstemp(base)
            }
        }
        guard fd >= 0 else { throw FileError("mkstemp", path: prefix, errno: Errno(rawValue: code)) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SystemFile(descriptor: fd, path: path)
    }

    /// Reads up to `buffer.count` bytes; 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileError) -> Int {
        let (count, code) = Sys.call { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        guard count >= 0 else { throw FileError("read", path: path, errno: Errno(rawValue: code)) }
        return count
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let (count, code) = Sys.call { Glibc.write(descriptor, base + offset, bytes.count - offset) }
            guard count >= 0 else { throw FileError("write", path: path, errno: Errno(rawValue: code)) }
            offset += count
        }
    }

    /// Sets the permission bits (`fchmod`).
    public func setPermissions(_ mode: UInt32) throws(FileError) {
        let (result, code) = Sys.call { fchmod(descriptor, mode_t(mode)) }
        guard result == 0 else { throw FileError("chmod", path: path, errno: Errno(rawValue: code)) }
    }

    /// Flushes the file's data and metadata to the device (`fsync`).
    public func synchronize() throws(FileError) {
        let (result, code) = Sys.call { fsync(descriptor) }
        guard result == 0 else { throw FileError("fsync", path: path, errno: Errno(rawValue: code)) }
    }

    /// Closes the descriptor (once: a failed close is not retried, as Linux has released it).
    public func close() throws(FileError) {
        guard Glibc.close(descriptor) == 0 else { throw FileError("close", path: path, errno: .current) }
    }

    /// The whole of `path` up to `limit` bytes, read until its end (procfs files report a size
    /// of 0, so the size is not asked).
    public static func contents(of path: String, limit: Int) throws(FileError) -> [UInt8] {
        guard let bytes = Sys.readFile(path, limit: limit) else { throw FileError("read", path: path, errno: .current) }
        return bytes
    }
}

/// What `lstat` says of a path.
public struct FileStatus: Hashable, Sendable {
    /// What kind of file it is.
    public enum Kind: Hashable, Sendable {
        case regular, directory, socket, symbolicLink, other
    }

    /// The kind (a link is not followed).
    public var kind: Kind
    /// The last modification, whole seconds since 1970-01-01 UTC.
    public var modificationSeconds: Int64
}

/// Calls on paths: folders, renames, removal, permissions, ownership.
public enum FilePaths {
    /// Creates the folder `path` (its parent must exist).
    public static func makeDirectory(_ path: String, mode: UInt32 = 0o755) throws(FileError) {
        let (result, code) = Sys.call { mkdir(path, mode_t(mode)) }
        guard result == 0 else { throw FileError("mkdir", path: path, errno: Errno(rawValue: code)) }
    }

    /// Renames `source` to `destination`, replacing it atomically.
    public static func rename(_ source: String, to destination: String) throws(FileError) {
        let (result, code) = Sys.call { Glibc.rename(source, destination) }
        guard result == 0 else { throw FileError("rename", path: destination, errno: Errno(rawValue: code)) }
    }

    /// Removes the file (not a folder) at `path`.
    public static func remove(_ path: String) throws(FileError) {
        let (result, code) = Sys.call { unlink(path) }
        guard result == 0 else { throw FileError("unlink", path: path, errno: Errno(rawValue: code)) }
    }

    /// Sets the permission bits of `path` (`chmod`).
    public static func setPermissions(_ path: String, _ mode: UInt32) throws(FileError) {
        let (result, code) = Sys.call { chmod(path, mode_t(mode)) }
        guard result == 0 else { throw FileError("chmod", path: path, errno: Errno(rawValue: code)) }
    }

    /// Gives `path` to the group `gid`, keeping its owner (`chown` with owner -1).
    public static func setGroup(_ path: String, _ gid: UInt32) throws(FileError) {
        let (result, code) = Sys.call { chown(path, uid_t.max, gid_t(gid)) }
        guard result == 0 else { throw FileError("chown", path: path, errno: Errno(rawValue: code)) }
    }

    /// What `lstat` says of `path`, or `nil` when it fails (usually: nothing is there).
    public static func status(_ path: String) -> FileStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let kind: FileStatus.Kind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFSOCK: kind = .socket
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        return FileStatus(kind: kind, modificationSeconds: Int64(info.st_mtim.tv_sec))
    }

    /// The names in the folder `path` (`.` and `..` included, as `readdir` gives them), or `nil`
    /// when it cannot be opened.
    public static func entries(of path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            })
        }
        return names
    }

    /// Flushes the folder `path` itself to the device, making a rename in it durable. Best effort.
    public static func synchronizeDirectory(_ path: String) {
        guard let folder = try? SystemFile.open(path, directory: true) else { return }
        _ = try? folder.synchronize()
        _ = try? folder.close()
    }
}
