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
import FieldLocationConsole
import FieldLocationDaemon
import Foundation
import Logging
import NIOPosix
import Testing

/// One HTTP response as a test reads it off the wire.
struct HTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: String
}

extension LineClient {
    /// Sends a GET (or `method`) for `path` and reads the response (headers, and a body of the stated length).
    func request(_ path: String, method: String = "GET", headers: [String] = [], seconds: Double = 10) throws -> HTTPResponse {
        try send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
        return try response(seconds: seconds, head: method == "HEAD")
    }

    /// Reads one response.
    func response(seconds: Double = 10, head: Bool = false) throws -> HTTPResponse {
        guard let statusLine = readLine(seconds: seconds) else { throw TestFailure("no response within \(seconds) s") }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TestFailure("bad status line \(statusLine)") }
        var headers: [String: String] = [:]
        while let line = readLine(seconds: seconds), line != "\r\n" {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var body = ""
        if !head, let length = headers["content-length"].flatMap(Int.init), length > 0 {
            guard let bytes = readBytes(length, seconds: seconds) else { throw TestFailure("body of \(length) bytes not received") }
            body = String(decoding: bytes, as: UTF8.self)
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}

/// The console (page, event stream, status document, metrics) served in this process on the sim
/// board: routes, the bounds on bad and slow clients, the access policy, and what it never shows.
@Suite("HTTP console", .serialized)
struct ConsoleServerTests {
    /// Runs `body` against a console on a free port over a simulated board (running at `speed`, or not at all).
    static func with(speed: Double? = 10, demand: Bool = false, stateDirectory: String? = nil,
                     _ configure: (inout ConsoleConfiguration) -> Void = { _ in },
                     _ body: (ConsoleServer, Int, LocationEngine) async throws -> Void) async throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let engine = try LocationEngine.simulated(board: board, stateDirectory: stateDirectory)
        let monitor = StatusMonitor(engine: engine, demand: demand)
        var configuration = ConsoleConfiguration()
        configuration.port = 0
        configure(&configuration)
        var logger = Logger(label: "console-tests")
        logger.logLevel = .warning
        // A loop of its own: the suites running beside it (their servers on the shared singleton
        // loops) cannot delay its timeouts and closes, which these tests time.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = ConsoleServer(monitor: monitor, configuration: configuration, logger: logger, group: group)
        let address = try await server.start()
        guard let port = address.port else { throw TestFailure("no bound port") }
        if let speed { engine.runInBackground(speed: speed) }
        defer { engine.stop() }
        do {
            try await body(server, port, engine)
        } catch {
            await server.stop()
            monitor.close()
            try? await group.shutdownGracefully()
            throw error
        }
        await server.stop()
        monitor.close()
        try await group.shutdownGracefully()
    }

    @Test("GET and HEAD of the page, the status document and the metrics; 404, 405 and no file is ever read")
    func routes() async throws {
        try await Self.with { _, port, _ in
            let client = try LineClient(port: port)
            let page = try client.request("/")
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
            #expect(page.body.contains("<svg id=\"sky\""))
            #expect(page.body.contains("new EventSource(\"events\")"))
            // Everything is embedded: no script, style or image is loaded from anywhere.
            #expect(!page.body.contains("src=\"http") && !page.body.contains("href=\"http") && !page.body.contains("@import"))
            let head = try client.request("/", method: "HEAD")
            #expect(head.status == 200 && head.headers["content-length"] == page.headers["content-length"])
            let status = try client.request("/status.json")
            #expect(status.status == 200 && status.headers["content-type"] == "application/json")
            let document = json(status.body)
            #expect((document?["status"] as? [String: Any])?["class"] as? String == "STATUS")
            #expect(((document?["status"] as? [String: Any])?["health"] as? [String: Any])?["fixes"] != nil)
            let metrics = try client.request("/metrics")
            #expect(metrics.status == 200 && metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(metrics.body.contains("# HELP fieldloc_fix_mode ") && metrics.body.contains("# TYPE fieldloc_fix_mode gauge"))
            #expect(metrics.body.contains("fieldloc_satellites_used{constellation=\"gps\"}"))
            #expect(metrics.body.contains("# TYPE fieldloc_sentences_total counter"))
            #expect(!metrics.body.contains("latitude"), "no position in the metrics unless asked")
            for path in ["/nope", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/metrics/../../etc/passwd"] {
                let missing = try client.request(path)
                #expect(missing.status == 404, "\(path)")
                #expect(!missing.body.contains("root:"), "\(path)")
            }
            let post = try client.request("/metrics", method: "POST", headers: ["Content-Length: 0"])
            #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
        }
    }

    @Test("--metrics-position puts the position in the metrics")
    func metricsPosition() async throws {
        try await Self.with(demand: true, { $0.metricsPosition = true }) { _, port, _ in
            let client = try LineClient(port: port)
            let metrics = try client.request("/metrics")
            #expect(metrics.body.contains("# TYPE fieldloc_latitude_degrees gauge"))
            #expect(metrics.body.contains("# TYPE fieldloc_longitude_degrees gauge"))
        }
    }

    @Test("a request head over the limit gets 431, a slow one 408, both closed")
    func badClients() async throws {
        try await Self.with(speed: nil, { $0.requestTimeout = 0.5 }) { _, port, _ in
            let big = try LineClient(port: port)
            try big.send("GET / HTTP/1.1\r\nHost: x\r\nX-Padding: " + String(repeating: "a", count: 20_000) + "\r\n\r\n")
            let tooBig = try big.response()
            #expect(tooBig.status == 431)
            #expect(big.waitForClose(seconds: 60))
            let slow = try LineClient(port: port)
            try slow.send("GET / HTTP/1.1\r\nHost: x\r\n")
            let late = try slow.response(seconds: 5)
            #expect(late.status == 408)
            #expect(slow.waitForClose(seconds: 60), "the server closes after its 408")
            let garbage = try LineClient(port: port)
            try garbage.send("\u{1}\u{2}NOT HTTP AT ALL\r\n\r\n")
            #expect(try garbage.response().status == 400)
        }
    }

    @Test("1,000 connections at once: the first 64 are served, the rest get 503 and are closed, and the console serves again after")
    func connectionFlood() async throws {
        try await Self.with(speed: nil) { server, port, _ in
            var clients: [LineClient] = []
            for _ in 0..<1000 { clients.append(try LineClient(port: port, seconds: 20)) }
            var refused = 0
            for client in clients.suffix(936) {
                if let line = client.readLine(seconds: 10), line.hasPrefix("HTTP/1.1 503") { refused += 1 }
            }
            #expect(refused == 936, "every connection past the limit is answered 503")
            let served = try clients[0].request("/status.json")
            #expect(served.status == 200)
            clients.removeAll()
            #expect(await waitUntil(seconds: 10) { server.counts.connections == 0 }, "closed connections are released: \(server.counts)")
            let again = try LineClient(port: port).request("/")
            #expect(again.status == 200)
        }
    }

    @Test("the access policy: a user it denies gets 403; under reduced accuracy the page's positions are coarsened")
    func accessPolicy() async throws {
        var denied = AccessPolicy()
        denied.defaultStatus = .denied
        try await Self.with(speed: nil, { $0.policy = denied }) { _, port, _ in
            let client = try LineClient(port: port)
            #expect(try client.request("/").status == 403)
            #expect(try client.request("/metrics").status == 403)
            #expect(try client.request("/events").status == 403)
        }
        var reduced = AccessPolicy()
        reduced.accuracy = .reducedAccuracy
        try await Self.with(demand: true, { $0.policy = reduced }) { _, port, engine in
            #expect(await waitUntil(seconds: 30) { engine.lastLocation != nil }, "a fix on the sim board")
            let status = json(try LineClient(port: port).request("/status.json").body)?["status"] as? [String: Any]
            let lat = try #require(status?["lat"] as? Double), lon = try #require(status?["lon"] as? Double)
            #expect(abs(lat / 0.05 - (lat / 0.05).rounded()) < 1e-6 && abs(lon / 0.05 - (lon / 0.05).rounded()) < 1e-6, "\(lat), \(lon)")
            #expect(status?["speed"] == nil && status?["alt"] == nil)
        }
    }

    @Test("the page's event stream: the state with the track at once, then an update each interval; a page makes the engine track")
    func eventStream() async throws {
        try await Self.with({ $0.updateInterval = 0.2 }) { server, port, engine in
            let client = try LineClient(port: port)
            try client.send("GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
            let head = try client.readLines(seconds: 5) { $0 == "\r\n" }
            #expect(head.first?.hasPrefix("HTTP/1.1 200") == true)
            #expect(head.contains { $0.lowercased().hasPrefix("content-type: text/event-stream") })
            var frames: [[String: Any]] = []
            let deadline = Deadline(seconds: 30)
            while frames.count < 5 && !deadline.expired {
                guard let line = client.readLine(seconds: 5) else { break }
                guard let start = line.range(of: "data: ") else { continue }
                if let frame = json(String(line[start.upperBound...])) { frames.append(frame) }
            }
            #expect(frames.count == 5)
            #expect(frames.first?["track"] != nil, "the first frame carries the track")
            #expect(frames.dropFirst().allSatisfy { $0["track"] == nil }, "later frames carry the state only")
            #expect(server.counts.streams == 1)
            #expect(await waitUntil(seconds: 30) { engine.lastLocation != nil }, "an open page makes the receiver track")
            client.hangUp()
            #expect(await waitUntil(seconds: 5) { server.counts.streams == 0 })
        }
    }

    @Test("nothing secret is shown: no state path, no NTRIP password, on the page, the status document or the metrics")
    func noSecrets() async throws {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.with(demand: true, stateDirectory: folder.path) { _, port, engine in
            _ = try? CorrectionSetup.attach(to: engine, url: "ntrip://surveyor:hunter2secret@127.0.0.1:9/MOUNT", passwordFile: nil,
                                            environment: [:])
            #expect(await waitUntil(seconds: 30) { engine.lastLocation != nil })
            let client = try LineClient(port: port)
            for path in ["/", "/status.json", "/metrics"] {
                let body = try client.request(path).body
                #expect(!body.contains("hunter2secret"), "\(path)")
                #expect(!body.contains(folder.path), "\(path)")
            }
        }
    }
}
