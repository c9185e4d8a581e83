#if canImport(Glibc)
import Glibc
#endif
import BoardConfig
import FieldLocation
import FieldLocationDaemon
import Foundation
import Logging
import NIOCore
import NIOPosix

/// A test failure with a message (every wait below ends in one at its deadline).
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A deadline on the monotonic clock.
struct Deadline {
    let end: ContinuousClock.Instant
    init(seconds: Double) { end = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000))) }
    var expired: Bool { ContinuousClock.now >= end }
    /// Milliseconds left, at least 0.
    var remainingMilliseconds: Int32 {
        let left = ContinuousClock.now.duration(to: end)
        let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(0, min(Int64(Int32.max), ms)))
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func waitUntil(seconds: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = Deadline(seconds: seconds)
    while !condition() {
        if deadline.expired { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// A blocking TCP client with deadlines on every wait: lines (LF-terminated, terminator kept) or raw bytes.
final class LineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var sawEOF = false

    /// Connects to 127.0.0.1 (or `host`) at `port` within `seconds`.
    init(port: Int, host: String = "127.0.0.1", seconds: Double = 5, receiveBuffer: Int32? = nil) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw TestFailure("bad address \(host)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(seconds.truncatingRemainder(dividingBy: 1) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestFailure("connect to \(host):\(port): \(reason)")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Closes the connection in both directions (the descriptor itself is closed on deinit).
    func hangUp() { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sends text (no terminator added).
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends bytes.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw TestFailure("send: \(String(cString: strerror(errno)))")
            }
            offset += count
        }
    }

    /// Reads what is available within the deadline into the buffer; false on timeout, EOF or error.
    @discardableResult
    private func fill(_ deadline: Deadline) -> Bool {
        guard !sawEOF else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, deadline.remainingMilliseconds)
        guard ready > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 {
            if count < 0 && errno == EINTR { return true }
            sawEOF = true
            return false
        }
        buffer += chunk[0..<count]
        return true
    }

    /// The next line (with its terminator), or nil at the deadline or EOF.
    func readLine(seconds: Double = 5) -> String? {
        let deadline = Deadline(seconds: seconds)
        while true {
            if let lf = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[...lf])
                buffer.removeSubrange(...lf)
                return String(decoding: line, as: UTF8.self)
            }
            if deadline.expired || !fill(deadline) { if deadline.expired || sawEOF { return nil } }
        }
    }

    /// Lines until one satisfies `stop` (included) or the deadline; throws at the deadline.
    func readLines(seconds: Double, until stop: (String) -> Bool) throws -> [String] {
        let deadline = Deadline(seconds: seconds)
        var lines: [String] = []
        while !deadline.expired {
            guard let line = readLine(seconds: Double(deadline.remainingMilliseconds) / 1000) else { break }
            lines.append(line)
            if stop(line) { return lines }
        }
        throw TestFailure("no awaited line within \(seconds) s; got \(lines.count) lines: \(lines.suffix(3))")
    }

    /// Exactly `count` bytes, or nil at the deadline or EOF.
    func readBytes(_ count: Int, seconds: Double = 5) -> [UInt8]? {
        let deadline = Deadline(seconds: seconds)
        while buffer.count < count {
            if deadline.expired || !fill(deadline) { if deadline.expired || sawEOF { return nil } }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    /// Whatever arrives within `seconds` (for asserting silence).
    func drain(seconds: Double) -> [UInt8] {
        let deadline = Deadline(seconds: seconds)
        while !deadline.expired && fill(deadline) {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Reads until EOF or the deadline; true when the peer closed.
    ///
    /// It returns as soon as the end comes, so callers give generous deadlines (60 s): under a
    /// loaded test run a server's close was seen to take more than 20 s to reach the reader.
    func waitForClose(seconds: Double) -> Bool {
        let deadline = Deadline(seconds: seconds)
        while !deadline.expired {
            buffer.removeAll()
            if !fill(deadline) && sawEOF { return true }
        }
        return sawEOF
    }
}

/// A JSON object from a report line, or nil.
func json(_ line: String) -> [String: Any]? {
    guard let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) else { return nil }
    return object as? [String: Any]
}

/// The report class of a line.
func reportClass(_ line: String) -> String? { json(line)?["class"] as? String }

/// Whether an NMEA sentence's `*hh` checksum is right.
func nmeaChecksumValid(_ sentence: String) -> Bool {
    let trimmed = sentence.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let first = trimmed.first, first == "$" || first == "!", let star = trimmed.lastIndex(of: "*") else { return false }
    let body = trimmed[trimmed.index(after: trimmed.startIndex)..<star]
    let given = trimmed[trimmed.index(after: star)...]
    let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
    return UInt8(given, radix: 16) == sum
}

/// The number of open file descriptors of this process.
func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// An in-process server on an ephemeral loopback port over a simulated `sim` board.
final class ServerFixture: @unchecked Sendable {
    let engine: LocationEngine
    let feed: EngineFeed
    let server: GPSDServer
    let port: Int

    private init(engine: LocationEngine, feed: EngineFeed, server: GPSDServer, port: Int) {
        self.engine = engine
        self.feed = feed
        self.server = server
        self.port = port
    }

    /// Starts a server (port 0) with `configure` applied, runs the sim board at `speed`, runs `body`,
    /// then stops everything (also when `body` throws).
    static func with(speed: Double = 10, run engineRuns: Bool = true, _ configure: (inout GPSDServerConfiguration) -> Void = { _ in },
                     _ body: (ServerFixture) async throws -> Void) async throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let engine = try LocationEngine.simulated(board: board)
        var logger = Logger(label: "fieldlocd-tests")
        logger.logLevel = .warning
        let feed = EngineFeed(engine: engine, logger: logger)
        var configuration = GPSDServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        let server = GPSDServer(configuration: configuration, feed: feed, logger: logger)
        let address = try await server.start()
        guard let port = address.port else { throw TestFailure("no bound port") }
        if engineRuns { engine.runInBackground(speed: speed) }
        let fixture = ServerFixture(engine: engine, feed: feed, server: server, port: port)
        do {
            try await body(fixture)
        } catch {
            engine.stop()
            await server.stop()
            throw error
        }
        engine.stop()
        await server.stop()
    }

    /// A connected client whose VERSION greeting has been read.
    func client(seconds: Double = 5) throws -> LineClient {
        let client = try LineClient(port: port)
        guard let greeting = client.readLine(seconds: seconds), reportClass(greeting) == "VERSION" else {
            throw TestFailure("no VERSION greeting")
        }
        return client
    }
}

// MARK: external programs

/// Locating and running the real gpsd programs and the built `fieldlocd`, each bounded by a deadline.
enum Programs {
    /// The full path of an executable found on PATH (or /usr/sbin, /usr/bin), or nil.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin"] {
            let candidate = folder + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The `fieldlocd` built beside this test bundle (or `$FIELDLOCD_BINARY`).
    static var fieldlocd: String? { built("fieldlocd", variable: "FIELDLOCD_BINARY") }

    /// The `fieldloc` CLI built beside this test bundle (or `$FIELDLOC_BIN`).
    static var fieldloc: String? { built("fieldloc", variable: "FIELDLOC_BIN") }

    /// A product built beside this test bundle, or the one `variable` names.
    static func built(_ name: String, variable: String) -> String? {
        if let explicit = ProcessInfo.processInfo.environment[variable], access(explicit, X_OK) == 0 { return explicit }
        var folders: [URL] = []
        let argument0 = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        folders.append(argument0.deletingLastPathComponent())
        folders.append(argument0.deletingLastPathComponent().deletingLastPathComponent())
        folders.append(URL(fileURLWithPath: Bundle.main.bundlePath).deletingLastPathComponent())
        for folder in folders {
            let candidate = folder.appendingPathComponent(name).path
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Debian's python3 (python3-gps lives in its dist-packages), when `import gps` works there.
    static let pythonWithGPS: String? = {
        guard access("/usr/bin/python3", X_OK) == 0 else { return nil }
        let result = try? run("/usr/bin/python3", ["-c", "import gps"], seconds: 10)
        return result?.status == 0 ? "/usr/bin/python3" : nil
    }()

    /// `../shared` beside the package, or nil.
    static var shared: URL? {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = package.appendingPathComponent("../shared").standardized
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("corpus/gpsd").path) ? url : nil
    }

    /// A folder for one test's files.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fieldlocd-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A loopback port that was free a moment ago.
    static func freePort() throws -> Int {
        // Below the kernel's ephemeral range (32768 and up on Linux): a port the kernel hands out
        // for port 0, or to an outgoing connection of a test running beside this one, could be
        // taken again before the daemon binds it.
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_000)
            if canBind(port) { return port }
        }
        throw TestFailure("no free port in 20000..<32000 after 200 tries")
    }

    /// Whether 127.0.0.1:`port` can be bound now.
    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0
    }

    /// Waits until something accepts connections on 127.0.0.1:`port`.
    static func waitForListener(port: Int, seconds: Double) async -> Bool {
        await waitUntil(seconds: seconds) {
            (try? LineClient(port: port, seconds: 0.5)) != nil
        }
    }

    /// What a finished program did.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// A started program whose output goes to files; stopped (signal, then SIGKILL) by ``stop(signal:seconds:)``.
    ///
    /// Spawned with `posix_spawn`, every signal unblocked and at its default (the test process blocks
    /// most signals in its threads, and a child inheriting that mask ignores SIGTERM and cannot see
    /// SIGCHLD: gpsfake then never notices its gpsd), in a process group of its own, so that signals
    /// reach the programs it starts (gpsfake's gpsd) too.
    final class Running: @unchecked Sendable {
        let pid: pid_t
        let stdoutURL: URL
        let stderrURL: URL
        let name: String
        private let lock = NSLock()
        private var exitStatus: Int32?

        init(_ executable: String, _ arguments: [String], folder: URL) throws {
            name = URL(fileURLWithPath: executable).lastPathComponent
            let tag = "\(name)-\(UUID().uuidString.prefix(6))"
            stdoutURL = folder.appendingPathComponent("\(tag).out")
            stderrURL = folder.appendingPathComponent("\(tag).err")
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, stdoutURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, stderrURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in Int32(1)..<Int32(32) where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
            let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var child = pid_t()
            let status = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
            guard status == 0 else { throw TestFailure("cannot start \(executable): \(String(cString: strerror(status)))") }
            pid = child
        }

        deinit {
            // Never leave a program behind (a failed expectation may skip the stop).
            if isRunning {
                kill(-pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }

        var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

        /// Whether it still runs (reaps it when it has exited).
        var isRunning: Bool {
            lock.lock()
            defer { lock.unlock() }
            guard exitStatus == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exitStatus = status
                return false
            }
            return result == 0
        }

        /// The exit code (128 + signal when killed), once it has exited.
        var terminationStatus: Int32 {
            _ = isRunning
            lock.lock()
            defer { lock.unlock() }
            guard let status = exitStatus else { return -1 }
            let signal = status & 0x7F
            return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        }

        /// Waits for the program to exit by itself; false at the deadline (it keeps running).
        func wait(seconds: Double) async -> Bool {
            await waitUntil(seconds: seconds) { !isRunning }
        }

        /// Blocking variant of ``wait(seconds:)``.
        func waitBlocking(seconds: Double) -> Bool {
            let deadline = Deadline(seconds: seconds)
            while isRunning {
                if deadline.expired { return false }
                usleep(10_000)
            }
            return true
        }

        /// Sends `signal` to its process group and waits up to `seconds`, then SIGKILLs the group.
        func stop(signal: Int32 = SIGTERM, seconds: Double = 3) async {
            guard isRunning else { return }
            kill(-pid, signal)
            if await wait(seconds: seconds) {
                kill(-pid, SIGKILL)
                return
            }
            kill(-pid, SIGKILL)
            _ = await wait(seconds: 2)
        }
    }

    /// Runs a program to completion within `seconds` (killed at the deadline).
    static func run(_ executable: String, _ arguments: [String], seconds: Double) throws -> Result {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let running = try Running(executable, arguments, folder: folder)
        var timedOut = false
        if !running.waitBlocking(seconds: seconds) {
            timedOut = true
            kill(-running.pid, SIGTERM)
            if !running.waitBlocking(seconds: 2) {
                kill(-running.pid, SIGKILL)
                _ = running.waitBlocking(seconds: 5)
            }
        }
        return Result(status: running.terminationStatus, stdout: running.stdout, stderr: running.stderr, timedOut: timedOut)
    }
}
