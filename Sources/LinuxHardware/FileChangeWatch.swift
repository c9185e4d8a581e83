import Glibc
import HardwareInterfaces
import Synchronization

/// Tells when a file may have changed without polling it: an inotify watch on the folder that
/// holds it (or, while that folder is missing, on the deepest folder of its path that exists, so
/// that creating the folder and then the file is seen too).
///
/// The owner waits for ``fileDescriptor`` to become readable (a `DispatchSource` read source, or
/// `poll`), then calls ``drain()``, which reads the pending events without blocking and says
/// whether any concerns the file. Writes closed, renames into place, creation, removal and
/// attribute changes count; a write still open does not (its close does). The file's content is
/// not read here: the owner compares what it cares about (modification time, size, inode).
public final class FileChangeWatch: Sendable {
    /// The inotify descriptor (non-blocking, close-on-exec); readable when events are pending.
    public let fileDescriptor: Int32
    /// The file watched, as given.
    public let path: String
    private struct Watched {
        var descriptor: Int32 = -1
        /// The folder watched and the name in it on the way to the file (the file's own name, or
        /// the first missing folder's).
        var folder = ""
        var name = ""
        var closed = false
    }
    private let watched = Mutex(Watched())

    private static let folderEvents = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB
                                             | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    /// Starts watching `path` (which need not exist). Throws when inotify is unavailable (no
    /// kernel support, the per-user watch limit reached) or no folder of the path can be watched.
    public init(path: String) throws(HardwareError) {
        let (fd, code) = Sys.call { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        guard fd >= 0 else { throw Sys.error(code, device: path, operation: "inotify_init1") }
        fileDescriptor = fd
        self.path = path
        if let problem = watched.withLock({ arm(&$0) }) {
            Glibc.close(fd)
            throw problem
        }
    }

    deinit { close() }

    /// Stops watching and closes the descriptor (once).
    public func close() {
        let wasOpen = watched.withLock { w -> Bool in
            defer { w.closed = true }
            return !w.closed
        }
        if wasOpen { Glibc.close(fileDescriptor) }
    }

    /// Reads every pending event without blocking; returns whether one may concern the file (the
    /// file itself, a folder on its way created or removed, the watched folder moved, or lost
    /// events). When a folder on the way appeared or went, the watch moves to the deepest one that
    /// exists now.
    public func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var concerns = false
        while true {
            let (count, _) = Sys.call { buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) } }
            guard count > 0 else { break }
            let (descriptor, name) = watched.withLock { ($0.descriptor, $0.name) }
            var offset = 0
            // struct inotify_event: int wd; uint32_t mask, cookie, len; char name[len] (NUL-padded).
            while offset + 16 <= count {
                let wd = Self.load(Int32.self, buffer, offset)
                let mask = Self.load(UInt32.self, buffer, offset + 4)
                let length = Int(Self.load(UInt32.self, buffer, offset + 12))
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                offset += 16 + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { concerns = true; continue }
                guard wd == descriptor else { continue }
                if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 || nameBytes.elementsEqual(name.utf8) {
                    concerns = true
                }
            }
        }
        if concerns { _ = watched.withLock { arm(&$0) } }
        return concerns
    }

    private static func load<T: FixedWidthInteger>(_ type: T.Type, _ buffer: [UInt8], _ offset: Int) -> T {
        buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// Watches the deepest existing folder on the way to the file (moving the watch when that
    /// changed). Returns the error when no folder can be watched.
    private func arm(_ w: inout Watched) -> HardwareError? {
        guard !w.closed else { return nil }
        var (folder, name) = Self.split(path)
        while !Self.isFolder(folder) {
            let parent = Self.split(folder)
            guard parent.folder != folder else { break }
            (folder, name) = (parent.folder, parent.name)
        }
        if folder == w.folder && name == w.name && w.descriptor >= 0 { return nil }
        if w.descriptor >= 0 { _ = inotify_rm_watch(fileDescriptor, w.descriptor) }
        let (wd, code) = Sys.call { inotify_add_watch(fileDescriptor, folder, Self.folderEvents) }
        guard wd >= 0 else {
            w.descriptor = -1
            return Sys.error(code, device: folder, operation: "inotify_add_watch")
        }
        (w.descriptor, w.folder, w.name) = (wd, folder, name)
        return nil
    }

    /// The folder and the last name of `path` (`.` for a bare name, `/` at the root).
    static func split(_ path: String) -> (folder: String, name: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
        let folder = trimmed[..<slash]
        return (folder.isEmpty ? "/" : String(folder), String(trimmed[trimmed.index(after: slash)...]))
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
