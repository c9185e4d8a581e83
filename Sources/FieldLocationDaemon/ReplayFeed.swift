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
        state.withLock { s in
            s.publish = nil
            s.active = false
            s.stopped = true
        }
    }

    public func demandChanged(_ demand: GPSDDemand) {
        state.withLock {
            $0.active = demand.active
            $0.frames = demand.active && demand.frames
        }
    }

    /// The log's lines (each with its terminator), comment lines and the delay cookie removed.
    public static func lines(of path: String) throws(ReplayError) -> [[UInt8]] {
        let file: SystemFile
        do { file = try SystemFile.open(path) } catch { throw .cannotOpen(path: path, reason: error.errno.description) }
        defer { try? file.close() }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            var failure: FileError?
            let count = chunk.withUnsafeMutableBytes { raw -> Int in
                do throws(FileError) { return try file.read(into: raw) } catch { failure = error; return 0 }
            }
            if let failure { throw .readFailed(path: path, offset: Int64(data.count), reason: failure.errno.description) }
            if count == 0 { break }
            data += chunk[0..<count]
            guard data.count <= maximumLogSize else {
                throw .readFailed(path: path, offset: Int64(data.count), reason: "larger than \(maximumLogSize >> 20) MiB")
            }
        }
        var lines: [[UInt8]] = []
        var cookie: UInt8?
        var start = 0
        let marker = Array("# Delay-Cookie:".utf8)
        while start < data.count {
            let end = data[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? data.count
            let line = data[start..<end]
            start = end
            if line.first == UInt8(ascii: "#") {
                if line.starts(with: marker), let byte = line.dropFirst(marker.count).drop(while: { $0 == 0x20 }).first,
                   byte > 0x20, byte < 0x7F {
                    cookie = byte
                }
                continue
            }
            lines.append(cookie.map { c in line.filter { $0 != c } } ?? Array(line))
        }
        return lines
    }

    /// Plays the log (see the type's documentation) until it ends (with ``once``), the feed is
    /// stopped, or graceful shutdown.
    public func run() async throws {
        let lines = try ReplayFeed.lines(of: path)
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

    /// Waits while nobody watches; `false` when the feed was stopped or the task cancelled.
    private func waitForWatchers() async -> Bool {
        while true {
            let (active, stopped) = state.withLock { ($0.active, $0.stopped) }
            if stopped || Task.isCancelled { return false }
            if active { return true }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return false }
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
