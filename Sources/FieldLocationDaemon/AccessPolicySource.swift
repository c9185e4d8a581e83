import Dispatch
import FieldLocation
import Foundation
import LinuxHardware
import LocationAPI
import Logging
import ServiceLifecycle
import Synchronization

/// The daemon's access policy as it may change while it runs: read from its file at the start, read
/// again on `SIGHUP` and when the file changes (``run()`` watches it with inotify, and compares its
/// modification time, size and inode). A reload is atomic: the new file is parsed whole and only then replaces the policy; a
/// file with an error keeps the previous policy and logs the error with its file and line. The
/// servers read ``current`` for every decision and hear each change (the client socket sends its
/// connected clients an authorisation change when their grant moved).
public final class AccessPolicySource: Service, Sendable {
    /// The policy file (`nil`: a fixed policy, nothing to reload).
    public let path: String?
    /// How often ``run()`` looks at the file where inotify cannot watch it.
    public let pollInterval: Duration
    private let logger: Logger
    private struct State {
        var policy: AccessPolicy
        var stamp: FileStamp?
        var listeners: [@Sendable (AccessPolicy) -> Void] = []
    }
    private let state: Mutex<State>

    /// What identifies one version of the file.
    struct FileStamp: Equatable {
        var modified: Date?
        var size: UInt64?
        var inode: UInt64?
    }

    /// A source holding `policy`, read from `path` (when given) on reloads.
    public init(policy: AccessPolicy, path: String? = nil, pollInterval: Duration = .seconds(2),
                logger: Logger = Logger(label: "fieldlocd.policy")) {
        self.path = path
        self.pollInterval = pollInterval
        self.logger = logger
        state = Mutex(State(policy: policy, stamp: path.map(Self.stamp(of:))))
    }

    /// Loads `path` (a missing file is the default policy); the error names the file and line.
    public static func load(path: String, pollInterval: Duration = .seconds(2),
                            logger: Logger = Logger(label: "fieldlocd.policy")) throws(AccessPolicy.ParseError) -> AccessPolicySource {
        let stamp = Self.stamp(of: path)
        let policy = try AccessPolicy.load(path)
        let source = AccessPolicySource(policy: policy, path: path, pollInterval: pollInterval, logger: logger)
        source.state.withLock { $0.stamp = stamp }
        return source
    }

    /// The policy in force.
    public var current: AccessPolicy { state.withLock { $0.policy } }

    /// Calls `listener` with each new policy (on the thread that reloads).
    public func observe(_ listener: @escaping @Sendable (AccessPolicy) -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// Replaces the policy and tells the listeners (when it differs).
    public func replace(_ policy: AccessPolicy) {
        let listeners: [@Sendable (AccessPolicy) -> Void] = state.withLock { s in
            guard s.policy != policy else { return [] }
            s.policy = policy
            return s.listeners
        }
        for listener in listeners { listener(policy) }
    }

    /// Reads the file again (`why` goes in the log: `SIGHUP`, `the file changed`). On an error the
    /// previous policy stays and the error (file, line, reason) is logged and returned.
    @discardableResult
    public func reload(_ why: String) -> AccessPolicy.ParseError? {
        guard let path else { return nil }
        let stamp = Self.stamp(of: path)
        state.withLock { $0.stamp = stamp }
        do {
            let policy = try AccessPolicy.load(path)
            let changed = current != policy
            replace(policy)
            logger.notice("access policy \(path) reloaded (\(why))\(changed ? "" : ": unchanged")")
            return nil
        } catch {
            logger.error("access policy not reloaded (\(why)): \(error.description); the previous policy stays in force")
            return error
        }
    }

    /// Reloads when the file's modification time, size or inode changed since it was last read;
    /// returns whether it was read.
    @discardableResult
    public func reloadIfChanged() -> Bool {
        guard let path else { return false }
        let stamp = Self.stamp(of: path)
        guard state.withLock({ $0.stamp != stamp }) else { return false }
        reload("the file changed")
        return true
    }

    static func stamp(of path: String) -> FileStamp {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return FileStamp() }
        return FileStamp(modified: attributes[.modificationDate] as? Date,
                         size: (attributes[.size] as? NSNumber)?.uint64Value,
                         inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    /// Reloads on `SIGHUP` and when the file changes, until graceful shutdown. The file is watched
    /// with inotify (``FileChangeWatch``: nothing runs until it changes); where inotify is not
    /// available, its stamp is compared every ``pollInterval``.
    public func run() async throws {
        guard let path else { return }
        signal(SIGHUP, SIG_IGN)
        let queue = DispatchQueue(label: "fieldlocd.policy")
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        hangup.setEventHandler { [self] in reload("SIGHUP") }
        hangup.resume()
        defer { hangup.cancel() }
        if let changes = watchChanges(of: path, on: queue) {
            defer { changes.cancel() }
            // A change between the load and the watch's start.
            queue.async { [self] in reloadIfChanged() }
            try? await gracefulShutdown()
            return
        }
        let interval = pollInterval
        try? await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                reloadIfChanged()
            }
        }
    }

    /// A read source on an inotify watch of `path` that reloads when the file may have changed,
    /// or `nil` (logged) when inotify cannot watch it.
    private func watchChanges(of path: String, on queue: DispatchQueue) -> (any DispatchSourceRead)? {
        let watch: FileChangeWatch
        do {
            watch = try FileChangeWatch(path: path)
        } catch {
            logger.notice("access policy \(path) is checked every \(pollInterval) (no inotify watch: \(error.description))")
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: watch.fileDescriptor, queue: queue)
        source.setEventHandler { [self] in
            if watch.drain() { reloadIfChanged() }
        }
        source.setCancelHandler { watch.close() }
        source.resume()
        return source
    }
}
