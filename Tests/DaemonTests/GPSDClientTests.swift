#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A `fieldlocd` process on a free loopback port, with a client holding the receiver until the first
/// 3D fix so that the real clients under test see fixes at once. ``stop()`` sends SIGTERM and checks
/// the graceful shutdown; it also runs (SIGKILL at worst) when a test fails.
final class Daemon {
    let process: Programs.Running
    let port: Int
    let folder: URL
    private var holder: LineClient?

    private init(process: Programs.Running, port: Int, folder: URL) {
        self.process = process
        self.port = port
        self.folder = folder
    }

    /// Runs `body` against a daemon started with `arguments` (plus `--port`), then stops it.
    static func with(_ arguments: [String] = ["--board", "sim", "--speed", "10"], holdFix: Bool = true,
                     _ body: (Daemon) async throws -> Void) async throws {
        guard let binary = Programs.fieldlocd else {
            throw TestFailure("fieldlocd is not built beside the tests (swift build --product fieldlocd, or set FIELDLOCD_BINARY)")
        }
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try Programs.freePort()
        let process = try Programs.Running(binary, arguments + ["--port", "\(port)", "--state-dir", folder.path], folder: folder)
        let daemon = Daemon(process: process, port: port, folder: folder)
        do {
            guard await Programs.waitForListener(port: port, seconds: 15) else {
                throw TestFailure("fieldlocd did not listen on \(port) within 15 s: \(process.stderr.suffix(800))")
            }
            if holdFix { try await daemon.holdUntilFix() }
            try await body(daemon)
        } catch {
            await process.stop(seconds: 3)
            throw error
        }
        daemon.holder = nil
        try await daemon.stop()
    }

    /// A watcher that asks for nothing but keeps the receiver tracking; waits (POLL) until 3D fixes
    /// come: two POLLs with 3D fixes of different times. One is not enough: POLL answers with the
    /// last fix however old, and on a loaded machine the first POLL can come long after the
    /// receiver, with nobody watching, went to sleep with its last fix still on record.
    private func holdUntilFix() async throws {
        let client = try LineClient(port: port)
        _ = client.readLine()
        try client.send("?WATCH={\"enable\":true,\"json\":false}\n")
        _ = try client.readLines(seconds: 5) { reportClass($0) == "WATCH" }
        // 90 s: a cold start is 35 simulated seconds (3.5 s at --speed 10), but a machine running
        // other builds beside the tests can starve the daemon for tens of seconds.
        let deadline = Deadline(seconds: 90)
        var firstTime: String?
        while !deadline.expired {
            try client.send("?POLL;\n")
            let lines = try client.readLines(seconds: 5) { reportClass($0) == "POLL" }
            if let tpv = (lines.last.flatMap(json)?["tpv"] as? [[String: Any]])?.first, tpv["mode"] as? Int == 3,
               let time = tpv["time"] as? String {
                if let firstTime, time != firstTime {
                    holder = client
                    return
                }
                if firstTime == nil { firstTime = time }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("no fresh 3D fix within 90 s (last 3D fix on record: \(firstTime ?? "none"))")
    }

    /// SIGTERM: the daemon must close its clients, idle the receiver and exit 0 within 5 s.
    func stop() async throws {
        let watcher = try? LineClient(port: port)
        _ = watcher?.readLine()
        kill(process.pid, SIGTERM)
        let exited = await process.wait(seconds: 5)
        if !exited { await process.stop(signal: SIGKILL, seconds: 2) }
        #expect(exited, "fieldlocd did not stop within 5 s of SIGTERM")
        #expect(process.terminationStatus == 0, "exit status \(process.terminationStatus): \(process.stderr.suffix(800))")
        #expect(process.stderr.contains("engine shut down"), "the engine must be shut down on SIGTERM")
        #expect(watcher?.waitForClose(seconds: 2) ?? true, "clients are closed on shutdown")
    }

    var target: String { "127.0.0.1:\(port)" }
}

/// The daemon against real gpsd clients from Debian (gpsd-clients, python3-gps, gpsd, tmux, gpsbabel).
/// Each test skips with its reason when a program is missing.
@Suite("fieldlocd with real gpsd clients", .serialized)
struct GPSDClientTests {
    static let gpspipe = Programs.find("gpspipe")
    static let gpxlogger = Programs.find("gpxlogger")
    static let gpsbabel = Programs.find("gpsbabel")
    static let cgps = Programs.find("cgps")
    static let tmux = Programs.find("tmux")
    static let gpsd = Programs.find("gpsd")
    static let daemonBuilt = Programs.fieldlocd != nil

    /// Zurich, where the sim board walks.
    static func inSimArea(_ lat: Double, _ lon: Double) -> Bool { abs(lat - 47.3769) < 0.1 && abs(lon - 8.5417) < 0.1 }

    // 120 objects: ATT comes about once a simulated second beside each TPV, and on a loaded machine
    // the engine catches up in bursts of sensor samples before it reads the receiver again: 12
    // objects once held nine ATTs and no TPV, and 40 objects (CI, load about 30) held 37 ATTs.
    // 120 objects are 12 simulated seconds at --speed 10 once caught up.
    @Test("gpspipe -w -n 120: valid JSON, VERSION/DEVICES/WATCH, a 3D TPV, after the start-up code pages were released",
          .enabled(if: gpspipe != nil && daemonBuilt, "needs gpspipe (apt install gpsd-clients) and the built fieldlocd"))
    func gpspipeJSON() async throws {
        // The start-up code pages are given back after 0.2 s, so everything below runs on code
        // faulted back in.
        try await Daemon.with(["--board", "sim", "--speed", "10", "--release-startup-code", "0.2"]) { daemon in
            let result = try Programs.run(Self.gpspipe!, ["-w", "-n", "120", daemon.target], seconds: 60)
            #expect(result.status == 0 && !result.timedOut, "gpspipe: \(result.stderr)")
            let lines = result.stdout.split(whereSeparator: \.isNewline).map(String.init)
            #expect(lines.count == 120)
            let objects = lines.compactMap(json)
            #expect(objects.count == lines.count, "every line must be JSON: \(lines)")
            #expect(objects.prefix(3).map { $0["class"] as? String } == ["VERSION", "DEVICES", "WATCH"])
            #expect(!result.stdout.contains("null"))
            // What came, in order (A ATT, S SKY, T3 a 3D TPV, ...), and whether the daemon answering
            // is still ours: enough to tell a lost fix from a port taken by another test's daemon.
            let classes = objects.map { o -> String in
                let name = String((o["class"] as? String ?? "?").prefix(1))
                return name == "T" ? "T\(o["mode"] as? Int ?? 0)" : name
            }.joined()
            let tpv = try #require(objects.first { $0["class"] as? String == "TPV" && $0["mode"] as? Int == 3 },
                                   "no 3D TPV in \(classes); daemon running: \(daemon.process.isRunning); \(daemon.process.stderr.suffix(600))")
            #expect(Self.inSimArea(tpv["lat"] as? Double ?? 0, tpv["lon"] as? Double ?? 0))
            #expect(daemon.process.stderr.contains("released start-up code pages"), "\(daemon.process.stderr.suffix(800))")
        }
    }

    @Test("gpspipe -r -n 20: NMEA sentences with valid checksums",
          .enabled(if: gpspipe != nil && daemonBuilt, "needs gpspipe (apt install gpsd-clients) and the built fieldlocd"))
    func gpspipeNMEA() async throws {
        try await Daemon.with { daemon in
            let result = try Programs.run(Self.gpspipe!, ["-r", "-n", "20", daemon.target], seconds: 20)
            #expect(result.status == 0 && !result.timedOut, "gpspipe: \(result.stderr)")
            let lines = result.stdout.split(whereSeparator: \.isNewline).map(String.init)
            let sentences = lines.filter { $0.hasPrefix("$") }
            #expect(sentences.count >= 15, "got \(lines)")
            for sentence in sentences { #expect(nmeaChecksumValid(sentence), "bad checksum: \(sentence)") }
            for other in lines where !other.hasPrefix("$") { #expect(json(other) != nil, "neither NMEA nor JSON: \(other)") }
            #expect(sentences.contains { $0.contains("GGA,") })
        }
    }

    @Test("python3-gps: gps.gps(host, port).stream(WATCH_ENABLE|WATCH_JSON) reads a TPV with lat/lon, SKY and POLL",
          .enabled(if: Programs.pythonWithGPS != nil && daemonBuilt, "needs /usr/bin/python3 with python3-gps (apt install python3-gps)"))
    func pythonGPS() async throws {
        try await Daemon.with { daemon in
            let script = daemon.folder.appendingPathComponent("client.py")
            try Self.pythonClient.write(to: script, atomically: true, encoding: .utf8)
            let result = try Programs.run(Programs.pythonWithGPS!, [script.path, "127.0.0.1", "\(daemon.port)"], seconds: 30)
            #expect(result.status == 0, "python3-gps client: \(result.stderr)")
            let report = try #require(json(result.stdout), "no JSON from the client: \(result.stdout) \(result.stderr)")
            #expect(report["mode"] as? Int == 3)
            #expect(Self.inSimArea(report["lat"] as? Double ?? 0, report["lon"] as? Double ?? 0), "\(report)")
            #expect((report["satellites"] as? Int ?? 0) > 0)
            #expect(report["poll_active"] as? Int == 1)
        }
    }

    static let pythonClient = """
        import gps, json, sys, time
        session = gps.gps(host=sys.argv[1], port=sys.argv[2])
        session.stream(gps.WATCH_ENABLE | gps.WATCH_JSON)
        out = {}
        deadline = time.time() + 20
        while time.time() < deadline and not ("lat" in out and out.get("satellites", 0) > 0):
            if not session.waiting(1.0):
                continue
            report = session.next()
            if report is None:
                continue
            if report["class"] == "TPV" and getattr(report, "mode", 0) == 3:
                out["lat"], out["lon"], out["mode"] = report.lat, report.lon, session.fix.mode
            if report["class"] == "SKY":
                out["satellites"] = len(session.satellites)
        session.send("?POLL;")
        while time.time() < deadline:
            if not session.waiting(1.0):
                continue
            report = session.next()
            if report is not None and report["class"] == "POLL":
                out["poll_active"] = report["active"]
                break
        session.stream(gps.WATCH_DISABLE)
        print(json.dumps(out))
        """

    @Test("gpxlogger for 4 s writes a GPX that gpsbabel reads back with points at the sim's position",
          .enabled(if: gpxlogger != nil && gpsbabel != nil && daemonBuilt, "needs gpxlogger (gpsd-clients) and gpsbabel"))
    func gpxloggerTrack() async throws {
        try await Daemon.with { daemon in
            let gpx = daemon.folder.appendingPathComponent("track.gpx")
            let logger = try Programs.Running(Self.gpxlogger!, ["-e", "sockets", "-f", gpx.path, daemon.target], folder: daemon.folder)
            try await Task.sleep(for: .seconds(4))
            await logger.stop(signal: SIGINT, seconds: 5)
            let text = (try? String(contentsOf: gpx, encoding: .utf8)) ?? ""
            #expect(text.contains("<trkpt"), "no track points: \(text.prefix(400)) \(logger.stderr)")
            let babel = try Programs.run(Self.gpsbabel!, ["-i", "gpx", "-f", gpx.path, "-o", "csv", "-F", "-"], seconds: 20)
            #expect(babel.status == 0, "gpsbabel refused the GPX: \(babel.stderr)")
            let points = babel.stdout.split(whereSeparator: \.isNewline).compactMap { line -> (Double, Double)? in
                let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard fields.count >= 2, let lat = Double(fields[0]), let lon = Double(fields[1]) else { return nil }
                return (lat, lon)
            }
            #expect(points.count >= 3, "gpsbabel read \(points.count) points: \(babel.stdout.prefix(300))")
            #expect(points.allSatisfy { Self.inSimArea($0.0, $0.1) })
            print("gpxlogger: \(points.count) points read back by gpsbabel")
        }
    }

    @Test("cgps in tmux: its screen shows a 3D fix whose latitude and longitude are our TPV's for the same time",
          .enabled(if: cgps != nil && tmux != nil && daemonBuilt, "needs cgps (gpsd-clients) and tmux"))
    func cgpsScreen() async throws {
        try await Daemon.with { daemon in
            let socket = "fieldlocd-test-\(getpid())-\(daemon.port)"
            let tmux = Self.tmux!
            let started = try Programs.run(tmux, ["-L", socket, "new-session", "-d", "-s", "cgps", "-x", "100", "-y", "40",
                                                  "cgps \(daemon.target)"], seconds: 10)
            defer { _ = try? Programs.run(tmux, ["-L", socket, "kill-server"], seconds: 10) }
            #expect(started.status == 0, "tmux: \(started.stderr)")
            // Our own record of the TPVs, to compare the screen with.
            let recorder = try LineClient(port: daemon.port)
            try recorder.send("?WATCH={\"enable\":true,\"json\":true}\n")
            var tpvs: [String: (Double, Double)] = [:]
            var matched: (time: String, screen: (Double, Double), tpv: (Double, Double))?
            var screen = ""
            let deadline = Deadline(seconds: 20)
            while matched == nil && !deadline.expired {
                while let line = recorder.readLine(seconds: 0.05) {
                    if let object = json(line), object["class"] as? String == "TPV", let time = object["time"] as? String,
                       let lat = object["lat"] as? Double, let lon = object["lon"] as? Double {
                        tpvs[time] = (lat, lon)
                    }
                }
                screen = try Programs.run(tmux, ["-L", socket, "capture-pane", "-p", "-t", "cgps"], seconds: 10).stdout
                if let shown = Self.cgpsFix(screen), let ours = tpvs[shown.time] {
                    matched = (shown.time, (shown.lat, shown.lon), ours)
                }
                try await Task.sleep(for: .milliseconds(150))
            }
            let match = try #require(matched, "cgps never showed a fix matching one of our TPVs; last screen:\n\(screen)")
            #expect(screen.contains("3D"), "cgps status: \(screen)")
            #expect(abs(match.screen.0 - match.tpv.0) < 1e-7 && abs(match.screen.1 - match.tpv.1) < 1e-7,
                    "cgps shows \(match.screen) at \(match.time), our TPV says \(match.tpv)")
            print("cgps at \(match.time): \(match.screen.0), \(match.screen.1) (TPV \(match.tpv.0), \(match.tpv.1))")
        }
    }

    /// Time, latitude and longitude from a cgps screen ("Latitude:  47.38138100 N").
    static func cgpsFix(_ screen: String) -> (time: String, lat: Double, lon: Double)? {
        func field(_ label: String) -> [Substring]? {
            guard let line = screen.split(whereSeparator: \.isNewline).first(where: { $0.contains(label) }),
                  let range = line.range(of: label) else { return nil }
            return line[range.upperBound...].split(separator: " ").filter { !$0.isEmpty && $0 != "x" && $0 != "│" }
        }
        guard let time = field("Time:")?.first, time.hasSuffix("Z"),
              let latitude = field("Latitude:"), latitude.count >= 2, let lat = Double(latitude[0]),
              let longitude = field("Longitude:"), longitude.count >= 2, let lon = Double(longitude[0]) else { return nil }
        return (String(time), latitude[1] == "S" ? -lat : lat, longitude[1] == "W" ? -lon : lon)
    }

    @Test("a real gpsd relaying from ours (gpsd -N -n -S PORT2 gpsd://127.0.0.1:PORT) re-serves TPVs; its NMEA probes do no harm",
          .enabled(if: gpsd != nil && gpspipe != nil && daemonBuilt, "needs gpsd and gpspipe (apt install gpsd gpsd-clients)"))
    func gpsdRelay() async throws {
        try await Daemon.with { daemon in
            let relayPort = try Programs.freePort()
            let relay = try Programs.Running(Self.gpsd!, ["-N", "-n", "-S", "\(relayPort)", "gpsd://\(daemon.target)"],
                                             folder: daemon.folder)
            do {
                #expect(await Programs.waitForListener(port: relayPort, seconds: 10), "gpsd did not listen: \(relay.stderr)")
                let result = try Programs.run(Self.gpspipe!, ["-w", "-n", "15", "127.0.0.1:\(relayPort)"], seconds: 25)
                #expect(result.status == 0 && !result.timedOut, "gpspipe on the relay: \(result.stderr)")
                let tpvs = result.stdout.split(whereSeparator: \.isNewline).compactMap { json(String($0)) }.filter { $0["class"] as? String == "TPV" }
                #expect(!tpvs.isEmpty, "the relay served no TPV: \(result.stdout.prefix(600))")
                #expect(tpvs.contains { ($0["device"] as? String)?.hasSuffix("#sim://sim") == true })
                // Ours is still healthy after the relay's probe strings.
                let client = try LineClient(port: daemon.port)
                _ = client.readLine()
                try client.send("?VERSION;\n")
                #expect(client.readLine().flatMap(reportClass) == "VERSION")
            } catch {
                await relay.stop()
                throw error
            }
            await relay.stop()
        }
    }
}
