import Foundation
import Glibc
import HardwareInterfaces
import LinuxHardware
import NTRIP

/// RTKLIB's `str2str` (Debian's rtklib 2.4.3) as an NTRIP caster on loopback:
/// `str2str -out ntripc://user:pass@:PORT/MOUNT:STR-fields`, its input on stdin, where a feeder
/// thread writes an RTCM 3 stream (1005, 1077, 1087 shells with correct CRCs, 10 epochs a second).
/// RTKLIB 2.4.3's caster speaks NTRIP 1.0 only: it answers `ICY 200 OK` (also to 2.0 requests),
/// `SOURCETABLE 200 OK` for `/` and for unknown mountpoints, `HTTP/1.0 401 Unauthorized` to wrong credentials.
final class Caster: @unchecked Sendable {
    static let path = ["/usr/bin/str2str", "/usr/local/bin/str2str"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { path != nil }

    /// The source table's fields after `STR;MOUNT;` (nmea flag 1: the caster wants GGA).
    static let fields = "FieldLocation test;RTCM 3.3;1005(1),1077(1),1087(1);2;GPS+GLO;TEST;CHE;47.38;8.54;1;0;str2str;none;B;N;2400;"
    static let station = 2003

    let port: Int
    private let process = Process()
    private let input = Pipe()
    private let lock = NSLock()
    private var stopped = false
    private var truncateNext = false
    private let feederDone = DispatchSemaphore(value: 0)
    private var feederRunning = false
    private(set) var epochs = 0

    /// Starts a caster on `port` (a free one is tried from a seeded list when nil).
    init(port: Int) throws {
        self.port = port
        guard let path = Caster.path else { throw CasterError.missing }
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-out", "ntripc://user:pass@:\(port)/MOUNT:\(Caster.fields)"]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when it accepts a connection (and still runs: a taken port ends it).
        let clock = SystemMonotonicClock()
        let end = clock.now().advanced(by: .seconds(5))
        while clock.now() < end {
            guard process.isRunning else { throw CasterError.exited }
            if let c = try? TCPConnection.connect(host: "127.0.0.1", port: port, deadline: clock.now().advanced(by: .milliseconds(200))) {
                c.close()
                // The feeder starts once the caster listens (a write into a pipe nobody reads would raise SIGPIPE).
                feederRunning = true
                let thread = Thread { [self] in
                    feed()
                    feederDone.signal()
                }
                thread.start()
                return
            }
            clock.sleep(until: clock.now().advanced(by: .milliseconds(50)))
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw CasterError.notListening
    }

    enum CasterError: Error { case missing, exited, notListening }

    /// A caster on a free port of a seeded list (another test run may hold one).
    static func start() throws -> Caster {
        var seed = UInt64(ProcessInfo.processInfo.processIdentifier) &* 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let port = 30_000 + Int(seed >> 33) % 30_000
            if let caster = try? Caster(port: port) { return caster }
        }
        throw CasterError.notListening
    }

    /// The next epoch's 1077 goes out cut after 20 bytes (a frame truncated by a link).
    func truncateNextFrame() { lock.withLock { truncateNext = true } }

    /// Stops the caster (its clients see the connection close).
    func stop() {
        let wasFeeding = lock.withLock { () -> Bool in
            defer { stopped = true; feederRunning = false }
            return feederRunning
        }
        // The feeder ends before the caster does: a write into a pipe nobody reads would raise SIGPIPE.
        if wasFeeding { feederDone.wait() }
        // str2str stops on SIGINT (it ignores SIGTERM); SIGKILL if it has not within 3 s.
        if process.isRunning { process.interrupt() }
        let clock = SystemMonotonicClock()
        let end = clock.now().advanced(by: .seconds(3))
        while process.isRunning && clock.now() < end { clock.sleep(until: clock.now().advanced(by: .milliseconds(20))) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
    }

    deinit { stop() }

    static func frame(_ type: UInt16, extra: Int) -> [UInt8] {
        var payload: [UInt8] = [UInt8(type >> 4), UInt8((type & 0xF) << 4) | UInt8(station >> 8 & 0xF), UInt8(station & 0xFF)]
        for i in 0..<extra { payload.append(UInt8(truncatingIfNeeded: i &* 37 &+ Int(type))) }
        return RTCM3Stream.frame(payload: payload)
    }

    private func feed() {
        let clock = SystemMonotonicClock()
        while true {
            let (stop, truncate) = lock.withLock { () -> (Bool, Bool) in
                defer { truncateNext = false }
                return (stopped, truncateNext)
            }
            if stop { return }
            var bytes = Caster.frame(1005, extra: 16)
            bytes += truncate ? Array(Caster.frame(1077, extra: 120).prefix(20)) : Caster.frame(1077, extra: 120)
            bytes += Caster.frame(1087, extra: 90)
            do { try input.fileHandleForWriting.write(contentsOf: bytes) } catch { return }
            lock.withLock { epochs += 1 }
            clock.sleep(until: clock.now().advanced(by: .milliseconds(100)))
        }
    }
}
