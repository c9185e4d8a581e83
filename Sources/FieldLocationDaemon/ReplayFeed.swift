import EnginePlatforms
import FieldLocation
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationAPI
import Logging
import NMEA
import ServiceLifecycle
import Synchronization

/// A recorded NMEA log played through the NMEA engine instead of a board (`fieldlocd --replay LOG`),
/// for side-by-side comparisons with gpsd fed the same log by gpsfake.
///
/// Like gpsfake without `-n`, the log starts when the first client watches and pauses while nobody
/// does; each line is published as the receiver's bytes (for `nmea`/`raw` watchers) and each
/// completed epoch as a fix, then the replay waits one second divided by ``speed``. Comment lines
/// (`#`) and gpsd's delay cookie are removed, as gpsfake does. With ``once`` the log plays once and
/// ``run()`` returns (the daemon then shuts down, as gpsfake `-1` does); otherwise it loops.
public final class ReplayFeed: GPSDFeed, Service {
    /// The log.
    public let path: String
    /// Epochs per second.
    public let speed: Double
    /// Play once, then finish.
    public let once: Bool
    /// The device reported to clients: the log's path, driver `NMEA0183`.
    public let device: GPSDDeviceInfo
    private let logger: Logger
    private struct State {
        var publish: (@Sendable (EngineObservation) -> Void)?
        var active = false
        var frames = false
        var stopped = false
        var epochs = 0
        /// The replay waiting for its first watcher (``waitForWatchers()``).
        var waiter: CheckedContinuation<Bool, Never>?
    }
    private let state = Mutex(State())

    /// The largest log read (it is held in memory).
    public static let maximumLogSize = 256 << 20

    /// A replay of `path` at `speed` epochs per second.
    public init(path: String, speed: Double = 1, once: Bool = false, logger: Logger = Logger(label: "fieldlocd.replay")) {
        self.path = path
        self.speed = speed.isFinite && speed > 0 ? speed : 1
        self.once = once
        self.logger = logger
        device = GPSDDeviceInfo(path: path, driver: "NMEA0183")
    }

    /// Epochs published so far.
    public var epochsPublished: Int { state.withLock { $0.epochs } }

    public func start(publishing: @escaping @Sendable (EngineObservation) -> Void) {
        state.withLock { $0.publish = publishing }
    }

    public func stop() {
        let waiter = state.withLock { s in
            s.publish = nil
            s.active = false
            s.stopped = true
            return s.waiter.take()
        }
        waiter?.resume(returning: false)
    }

    public func demandChanged(_ demand: GPSDDemand) {
        let waiter = state.withLock { s in
            s.active = demand.active
            s.frames = demand.active && demand.frames
            return demand.active ? s.waiter.take() : nil
        }
        waiter?.resume(returning: true)
    }

    /// Plays the log (see the type's documentation) until it ends (with ``once``), the feed is
    /// stopped, or graceful shutdown.
    public func run() async throws {
        let lines = try LogReplay(path: path).lines(maximumSize: Self.maximumLogSize)
        logger.info("replaying \(path): \(lines.count) lines at \(speed) epochs per second\(once ? ", once" : "")")
        let interval = Duration.nanoseconds(Int64(1e9 / speed))
        do {
            try await play(lines, interval: interval)
        } catch is CancellationError {
            logger.info("replay stopped")
        }
    }

    private func play(_ lines: [[UInt8]], interval: Duration) async throws {
        try await cancelWhenGracefulShutdown {
            repeat {
                let stream = LogReplay(path: self.path).makeStream()
                for line in lines {
                    guard await self.waitForWatchers(), let publish = self.state.withLock({ $0.publish }) else { return }
                    stream.deliversFrames = self.state.withLock { $0.frames }
                    var decoded = Decoded()
                    line.withUnsafeBufferPointer { stream.feed($0.span, delegate: &decoded) }
                    publish(.bytes(line))
                    if !decoded.frames.isEmpty { publish(.frames(decoded.frames)) }
                    let fixes = decoded.fixes
                    for fix in fixes {
                        publish(.fix(fix, ReplayFeed.monotonicNow()))
                        self.state.withLock { $0.epochs += 1 }
                    }
                    if !fixes.isEmpty { try await Task.sleep(for: interval) }
                }
                var last: [Fix] = []
                stream.finish { last.append($0) }
                if let publish = self.state.withLock({ $0.publish }) {
                    for fix in last {
                        publish(.fix(fix, ReplayFeed.monotonicNow()))
                        self.state.withLock { $0.epochs += 1 }
                    }
                }
            } while !self.once
            // Let the last reports reach the clients before the daemon goes.
            try await Task.sleep(for: .milliseconds(300))
            self.logger.info("replay of \(self.path) finished: \(self.epochsPublished) epochs")
        }
    }

    /// What one line gives: its fixes, and its frames while a watcher wants them.
    private struct Decoded: NMEAStreamDelegate {
        var fixes: [Fix] = []
        var frames: [RawFrame] = []
        mutating func stream(fix: Fix) { fixes.append(fix) }
        mutating func stream(frame: Span<UInt8>, kind: RawFrame.Kind) { frames.append(RawFrame(kind: kind, framed: frame)) }
    }

    /// Waits while nobody watches (no polling: ``demandChanged(_:)`` wakes it); `false` when the feed
    /// was stopped or the task cancelled.
    private func waitForWatchers() async -> Bool {
        let now: Bool? = state.withLock { s in s.stopped || Task.isCancelled ? false : s.active ? true : nil }
        if let now { return now }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { s in
                    if s.stopped || Task.isCancelled { return false }
                    if s.active { return true }
                    s.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiter.take() }?.resume(returning: false)
        }
    }

    static func monotonicNow() -> MonotonicInstant { SystemMonotonicClock().now() }
}

/// Runs a board's engine on its own thread as a service: a simulated board paced to the wall clock
/// × ``speed``, a real one as its data comes. On graceful shutdown the engine stops and
/// ``LocationEngine/shutdown()`` leaves the receiver idle and closes the port.
public struct EngineRunner: Service {
    /// The engine.
    public let engine: LocationEngine
    /// Speed of a simulated board.
    public let speed: Double
    private let logger: Logger
    private let started: (@Sendable (MonotonicInstant) -> Void)?

    /// A runner for `engine`; `started` is ``LocationEngine/run(speed:started:)``'s anchor callback.
    public init(engine: LocationEngine, speed: Double = 1, logger: Logger = Logger(label: "fieldlocd.engine"),
                started: (@Sendable (MonotonicInstant) -> Void)? = nil) {
        self.engine = engine
        self.speed = speed
        self.logger = logger
        self.started = started
    }

    private final class Finished: Sendable {
        let done = Mutex(false)
    }

    public func run() async throws {
        let finished = Finished()
        let engine = self.engine
        let speed = self.speed
        let started = self.started
        let thread = Thread {
            engine.run(speed: speed, started: started)
            finished.done.withLock { $0 = true }
        }
        thread.name = "fieldlocd-engine"
        thread.start()
        let paced: String
        if case .manual = engine.platform.pacing { paced = " (simulated, speed \(speed))" } else { paced = "" }
        logger.info("engine running on board \(engine.board.name)\(paced)")
        try? await gracefulShutdown()
        engine.stop()
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while !finished.done.withLock({ $0 }) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if !finished.done.withLock({ $0 }) { logger.warning("the engine did not stop within 5 s; shutting the hardware down anyway") }
        engine.shutdown()
        logger.info("engine shut down: receiver idle, port closed")
    }
}
