import FieldLocation
import Foundation
import HardwareInterfaces
import LinuxHardware

/// Watches the device nodes a board's services need (``DeviceAccess/watchedPaths(for:folders:)``)
/// with inotify, without polling: a node created, removed or given other permissions (udev adding
/// a USB receiver, `modprobe i2c-dev`, a group change on the node) calls `onChange` on the
/// watcher's own queue, once for each batch of events.
public final class DeviceWatcher: DeviceWatch, @unchecked Sendable {
    // `sources` is written once in `init` and read only by `cancel()`, under `lock`.
    private let watches: [FileChangeWatch]
    private var sources: [any DispatchSourceRead] = []
    private let queue = DispatchQueue(label: "fieldloc.devices")
    private let lock = NSLock()
    /// Why some paths are not watched (inotify unavailable, the watch limit reached), for the log.
    public let problems: [String]

    /// Starts watching `paths` (which need not exist yet).
    public init(paths: [String], onChange: @escaping @Sendable () -> Void) {
        var watches: [FileChangeWatch] = []
        var problems: [String] = []
        for path in Set(paths).sorted() {
            do { watches.append(try FileChangeWatch(path: path)) } catch { problems.append("cannot watch \(path): \(error)") }
        }
        self.watches = watches
        self.problems = problems
        for watch in watches {
            let source = DispatchSource.makeReadSource(fileDescriptor: watch.fileDescriptor, queue: queue)
            source.setEventHandler { if watch.drain() { onChange() } }
            source.setCancelHandler { watch.close() }
            sources.append(source)
            source.resume()
        }
    }

    deinit { cancel() }

    /// Stops watching (once).
    public func cancel() {
        let stopping = lock.withLock { () -> [any DispatchSourceRead] in
            defer { sources.removeAll() }
            return sources
        }
        for source in stopping { source.cancel() }
    }
}
