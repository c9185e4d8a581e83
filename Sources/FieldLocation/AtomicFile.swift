import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a file could not be written; the old file, if any, is untouched.
public struct AtomicWriteError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The step that failed (`create folder`, `write`, `fsync`, `rename`).
    public var step: String
    /// The path involved.
    public var path: String
    /// errno of the failure.
    public var errno: Int32

    public var description: String {
        let reason = String(cString: strerror(errno))
        var hint = ""
        if errno == ENOSPC { hint = "; the disk is full: free space and try again (the previous file is intact)" }
        if errno == EACCES || errno == EPERM { hint = "; no permission to write there" }
        if errno == EROFS { hint = "; the file system is read-only" }
        return "\(step) \(path): \(reason) (errno \(errno))\(hint)"
    }
}

/// Writes files so that a reader, a crash or a power cut sees either the old content or the
/// new one, never a mix: a temporary file in the same folder, `fsync`, `rename`, then `fsync` of
/// the folder so the rename itself is durable.
public enum AtomicFile {
    /// Replaces `path` with `data`, creating the folder when needed (mode 0755) and the file with `mode`.
    public static func write(_ data: Data, to path: String, mode: mode_t = 0o644) throws(AtomicWriteError) {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        try makeDirectories(directory)
        let template = directory + "/." + (path as NSString).lastPathComponent + ".tmp-XXXXXX"
        var name = Array(template.utf8CString)
        let fd = name.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard fd >= 0 else { throw AtomicWriteError(step: "create temporary file in", path: directory, errno: Glibc.errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = false
        defer {
            if !ok { unlink(temporary) }
        }
        var failure: AtomicWriteError? = nil
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                guard let base = raw.baseAddress else { return }
                let n = Glibc.write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if Glibc.errno == EINTR { continue }
                    failure = AtomicWriteError(step: "write", path: temporary, errno: Glibc.errno)
                    return
                }
                offset += n
            }
        }
        if failure == nil, fchmod(fd, mode) != 0 { failure = AtomicWriteError(step: "chmod", path: temporary, errno: Glibc.errno) }
        if failure == nil, fsync(fd) != 0 { failure = AtomicWriteError(step: "fsync", path: temporary, errno: Glibc.errno) }
        if close(fd) != 0, failure == nil { failure = AtomicWriteError(step: "close", path: temporary, errno: Glibc.errno) }
        if let failure { throw failure }
        guard rename(temporary, path) == 0 else { throw AtomicWriteError(step: "rename to", path: path, errno: Glibc.errno) }
        ok = true
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
        removeStaleTemporaries(of: (path as NSString).lastPathComponent, in: directory)
    }

    /// How old a leftover temporary file must be before a later write removes it. A write takes
    /// milliseconds, so one this old belongs to a writer that was killed or lost power.
    static let staleTemporaryAge: time_t = 600

    /// Removes `.NAME.tmp-XXXXXX` files in `directory` older than ``staleTemporaryAge``: what
    /// writers killed between `mkstemp` and `rename` left behind. Younger ones may be another
    /// process's write in progress and stay. Best effort: a failure here never fails the write.
    static func removeStaleTemporaries(of name: String, in directory: String) {
        let prefix = "." + name + ".tmp-"
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            // mkstemp's six random characters, nothing more.
            guard entryName.hasPrefix(prefix), entryName.utf8.count == prefix.utf8.count + 6 else { continue }
            let full = directory + "/" + entryName
            var info = stat()
            guard lstat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                  now.tv_sec - info.st_mtim.tv_sec >= staleTemporaryAge else { continue }
            unlink(full)
        }
    }

    static func makeDirectories(_ directory: String) throws(AtomicWriteError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw AtomicWriteError(step: "create folder", path: directory, errno: ENOTDIR)
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != directory { try makeDirectories(parent) }
        if mkdir(directory, 0o755) != 0 && Glibc.errno != EEXIST {
            throw AtomicWriteError(step: "create folder", path: directory, errno: Glibc.errno)
        }
    }
}
