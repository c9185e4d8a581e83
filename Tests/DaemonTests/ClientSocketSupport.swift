#if canImport(Glibc)
import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import Glibc
#endif
import BoardConfig
import FieldLocation
import FieldLocationClient
import FieldLocationDaemon
import FieldLocationWire
import Foundation
import LinuxHardware
import LocationServices
import Logging
import Testing

/// An in-process client socket server over a simulated `sim` board running in the background.
final class CSFixture: @unchecked Sendable {
    let engine: LocationEngine
    let server: ClientSocketServer
    let path: String
    let directory: String

    private init(engine: LocationEngine, server: ClientSocketServer, path: String, directory: String) {
        self.engine = engine
        self.server = server
        self.path = path
        self.directory = directory
    }

    /// Starts a server with `policy` (policy-file text) on a fresh path, runs the board at `speed`,
    /// runs `body`, then stops everything (also when `body` throws).
    static func with(policy: String? = nil, speed: Double = 50, configure: (inout ClientSocketConfiguration) -> Void = { _ in },
                     _ body: (CSFixture) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "fieldloc-clientsocket-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ClientSocketConfiguration()
        configuration.path = csSocketPath()
        if let policy {
            let file = directory + "/access.policy"
            try policy.write(toFile: file, atomically: true, encoding: .utf8)
            configuration.policy = try AccessPolicy.load(file)
        }
        configure(&configuration)
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), stateDirectory: directory)
        var logger = Logger(label: "fieldlocd-clientsocket-tests")
        logger.logLevel = .warning
        let server = ClientSocketServer(engine: engine, configuration: configuration, logger: logger)
        try await server.start()
        engine.runInBackground(speed: speed)
        let fixture = CSFixture(engine: engine, server: server, path: configuration.path, directory: directory)
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

    /// The engine id of the first client registered (ids are small and increasing).
    func firstClient() -> Int? { (1...1000).first { engine.services($0) != nil } }
}

/// A fresh socket path short enough for `sun_path`.
func csSocketPath() -> String { "/tmp/fl-cs-\(UUID().uuidString.prefix(8)).sock" }

/// This process's user name.
func csUserName() -> String? {
    guard let record = getpwuid(getuid()), let name = record.pointee.pw_name else { return nil }
    return String(cString: name)
}

/// The address of `path`; a path too long for a Unix socket gives an empty address, which
/// the connect or bind then refuses.
func csAddress(_ path: String) -> sockaddr_un {
    UnixSockets.address(path) ?? sockaddr_un()
}

/// How long a test's remote provider waits for each of the daemon's replies. Far longer than the
/// product's default: on a loaded test machine a journal's fsync took seconds, and a reply that
/// comes late must not turn into a request silently not made (a region left monitored).
let csReplyTimeout: Duration = .seconds(60)

/// How long a test's raw socket client waits for a line, a message or a reply unless it says: as
/// long as ``csReplyTimeout``, for the same reason. No test waits for the absence of a line with it.
let csLineSeconds = 60.0

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func csWait(seconds: Double, _ condition: () -> Bool) async -> Bool {
    let end = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
    while !condition() {
        if ContinuousClock.now >= end { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// Records a manager's callbacks.
final class CSRecorder: LocationManagerDelegate, @unchecked Sendable {
    enum Event: Sendable {
        case locations([Location]), error(LocationError), determined(RegionState, String), regionFailed(String?, LocationError)
    }
    private let lock = NSLock()
    private var storage: [Event] = []
    var events: [Event] { lock.withLock { storage } }
    func add(_ e: Event) { lock.withLock { storage.append(e) } }
    func clear() { lock.withLock { storage.removeAll() } }
    var batches: [[Location]] { events.compactMap { if case .locations(let l) = $0 { return l } else { return nil } } }
    var locations: [Location] { batches.flatMap { $0 } }
    var errors: [LocationError] { events.compactMap { if case .error(let e) = $0 { return e } else { return nil } } }
    var determined: [(RegionState, String)] { events.compactMap { if case .determined(let s, let id) = $0 { return (s, id) } else { return nil } } }
    var regionFailures: [String] { events.compactMap { if case .regionFailed(let id, _) = $0 { return id } else { return nil } } }

    func locationManager(_ m: LocationManager, didUpdateLocations locations: [Location]) { add(.locations(locations)) }
    func locationManager(_ m: LocationManager, didFailWithError error: LocationError) { add(.error(error)) }
    func locationManager(_ m: LocationManager, didDetermineState state: RegionState, for region: CircularRegion) {
        add(.determined(state, region.identifier))
    }
    func locationManager(_ m: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError) {
        add(.regionFailed(region?.identifier, error))
    }
}

/// A blocking Unix-socket client of the wire protocol; every read has a deadline.
final class CSUnixClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String, receiveBuffer: Int32? = nil) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CSFailure("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = csAddress(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw CSFailure("connect to \(path): \(reason)")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    func hangUp() { shutdown(fd, Int32(SHUT_RDWR)) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CSFailure("send: \(String(cString: strerror(errno)))")
            }
            offset += count
        }
    }

    /// The next line, within `seconds`.
    func line(seconds: Double = csLineSeconds) throws -> String {
        let end = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        while true {
            if let lf = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<lf])
                buffer.removeSubrange(...lf)
                return String(decoding: line, as: UTF8.self)
            }
            let left = ContinuousClock.now.duration(to: end)
            guard left > .zero else { throw CSFailure("no line within \(seconds) s") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(max(1, min(Int64(Int32.max), left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            guard poll(&poller, 1, ms) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { throw CSFailure("the daemon closed the connection") }
            if count < 0 {
                if errno == EINTR { continue }
                throw CSFailure("recv: \(String(cString: strerror(errno)))")
            }
            buffer += chunk[0..<count]
        }
    }

    /// The next message as a JSON object.
    func message(seconds: Double = csLineSeconds) throws -> [String: Any] {
        let text = try line(seconds: seconds)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw CSFailure("not a JSON object: \(text.prefix(200))")
        }
        return object
    }

    /// The reply with `id`, skipping events, within `seconds`.
    func reply(id: Int, seconds: Double = csLineSeconds) throws -> [String: Any] {
        let end = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        while ContinuousClock.now < end {
            let left = ContinuousClock.now.duration(to: end)
            let m = try message(seconds: max(0.01, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
            if m["type"] as? String == "reply", m["id"] as? Int == id { return m }
        }
        throw CSFailure("no reply \(id) within \(seconds) s")
    }
}

struct CSFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
