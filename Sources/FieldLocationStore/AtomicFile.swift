import Foundation
import LinuxHardware

/// Why a file could not be written; the old file, if any, is untouched.
public struct AtomicWriteError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The step that failed (`create folder`, `write`, `fsync`, `rename`).
    public var step: String
    /// The path involved.
    public var path: String
    /// errno of the failure.
    public var errno: Int32

    public var description: String {
        let code = Errno(rawValue: errno)
        var hint = ""
        if code == .noSpace { hint = "; the disk is full: free space and try again (the previous file is intact)" }
        if code == .permissionDenied || code == .notPermitted { hint = "; no permission to write there" }
        if code == .readOnlyFileSystem { hint = "; the file system is read-only" }
        return "\(step) \(path): \(code) (errno \(errno))\(hint)"
    }

    init(step: String, path: String, errno: Int32) {
        self.step = step
        self.path = path
        self.errno = errno
    }

    init(step: String, path: String, _ error: FileError) {
        self.init(step: step, path: path, errno: error.errno.rawValue)
    }
}

/// Writes files so that a reader, a crash or a power cut sees either the old content or the
/// new one, never a mix: a temporary file in the same folder, `fsync`, `rename`, then `fsync` of
/// the folder so the rename itself is durable.
public enum AtomicFile {
    /// Replaces `path` with `data`, creating the folder when needed (mode 0755) and the file with `mode`.
    public static func write(_ data: Data, to path: String, mode: UInt32 = 0o644) throws(AtomicWriteError) {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        try makeDirectories(directory)
        let file: SystemFile
        do {
            file = try SystemFile.createUnique(prefix: directory + "/." + (path as NSString).lastPathComponent + ".tmp-")
        } catch {
            throw AtomicWriteError(step: "create temporary file in", path: directory, error)
        }
        let temporary = file.path
        var ok = false
        defer {
            if !ok { try? FilePaths.remove(temporary) }
        }
        var failure: AtomicWriteError? = nil
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            do throws(FileError) { try file.write(raw) } catch { failure = AtomicWriteError(step: "write", path: temporary, error) }
        }
        if failure == nil {
            do { try file.setPermissions(mode) } catch { failure = AtomicWriteError(step: "chmod", path: temporary, error) }
        }
        if failure == nil {
            do { try file.synchronize() } catch { failure = AtomicWriteError(step: "fsync", path: temporary, error) }
        }
        do { try file.close() } catch { if failure == nil { failure = AtomicWriteError(step: "close", path: temporary, error) } }
        if let failure { throw failure }
        do { try FilePaths.rename(temporary, to: path) } catch { throw AtomicWriteError(step: "rename to", path: path, error) }
        ok = true
        FilePaths.synchronizeDirectory(directory)
        removeStaleTemporaries(of: (path as NSString).lastPathComponent, in: directory)
    }

    /// How old a leftover temporary file must be before a later write removes it, in seconds. A
    /// write takes milliseconds, so one this old belongs to a writer that was killed or lost power.
    static let staleTemporaryAge: Int64 = 600

    /// Removes `.NAME.tmp-XXXXXX` files in `directory` older than ``staleTemporaryAge``: what
    /// writers killed between `mkstemp` and `rename` left behind. Younger ones may be another
    /// process's write in progress and stay. Best effort: a failure here never fails the write.
    static func removeStaleTemporaries(of name: String, in directory: String) {
        let prefix = "." + name + ".tmp-"
        guard let entries = FilePaths.entries(of: directory) else { return }
        let now = SystemWallClock.nanosecondsSinceEpoch() / 1_000_000_000
        for entryName in entries {
            // mkstemp's six random characters, nothing more.
            guard entryName.hasPrefix(prefix), entryName.utf8.count == prefix.utf8.count + 6 else { continue }
            let full = directory + "/" + entryName
            guard let status = FilePaths.status(full), status.kind == .regular,
                  now - status.modificationSeconds >= staleTemporaryAge else { continue }
            try? FilePaths.remove(full)
        }
    }

    static func makeDirectories(_ directory: String) throws(AtomicWriteError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw AtomicWriteError(step: "create folder", path: directory, errno: Errno.notDirectory.rawValue)
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != directory { try makeDirectories(parent) }
        do { try FilePaths.makeDirectory(directory, mode: 0o755) } catch where error.errno != .fileExists {
            throw AtomicWriteError(step: "create folder", path: directory, error)
        } catch {}
    }
}
