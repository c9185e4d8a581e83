#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `fieldlocd --http` against the programs an operator points at it: Debian's Prometheus scraping
/// /metrics (read back through Prometheus's HTTP API), promtool's lint of the exposition, and the
/// page in headless Chromium. Each test skips with its reason when a program is missing.
@Suite("fieldlocd --http with Prometheus and Chromium", .serialized)
struct ConsoleProgramTests {
    static let prometheus = Programs.find("prometheus")
    static let promtool = Programs.find("promtool")
    static let chromium = Programs.find("chromium") ?? Programs.find("chromium-browser")
    static let daemonBuilt = Programs.fieldlocd != nil

    /// The daemon's arguments with the console on `port`.
    static func arguments(http port: Int) -> [String] {
        ["--board", "sim", "--speed", "4", "--client-socket", "none", "--http", "127.0.0.1:\(port)"]
    }

    /// A GET on the console.
    static func get(_ port: Int, _ path: String) throws -> HTTPResponse {
        try LineClient(port: port).request(path)
    }

    @Test("promtool check metrics passes on the exposition",
          .enabled(if: promtool != nil && daemonBuilt, "needs promtool (apt install prometheus) and the built fieldlocd"))
    func promtoolLint() async throws {
        let http = try Programs.freePort()
        try await Daemon.with(Self.arguments(http: http)) { daemon in
            let metrics = try Self.get(http, "/metrics")
            #expect(metrics.status == 200)
            let file = daemon.folder.appendingPathComponent("metrics.txt")
            try metrics.body.write(to: file, atomically: true, encoding: .utf8)
            let result = try Programs.run("/bin/sh", ["-c", "\(Self.promtool!) check metrics < '\(file.path)'"], seconds: 30)
            #expect(result.status == 0, "promtool: \(result.stdout) \(result.stderr)")
        }
    }

    @Test("Prometheus scrapes fieldlocd --http: fix mode 3 and satellites used read back through its HTTP API",
          .enabled(if: prometheus != nil && daemonBuilt, "needs prometheus (apt install prometheus) and the built fieldlocd"))
    func prometheusScrape() async throws {
        let http = try Programs.freePort()
        try await Daemon.with(Self.arguments(http: http)) { daemon in
            let web = try Programs.freePort()
            let config = daemon.folder.appendingPathComponent("prometheus.yml")
            try """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: fieldlocd
                    static_configs:
                      - targets: ['127.0.0.1:\(http)']
                """.write(to: config, atomically: true, encoding: .utf8)
            let storage = daemon.folder.appendingPathComponent("tsdb")
            let server = try Programs.Running(Self.prometheus!, [
                "--config.file=\(config.path)", "--storage.tsdb.path=\(storage.path)", "--web.listen-address=127.0.0.1:\(web)",
            ], folder: daemon.folder)
            defer { kill(-server.pid, SIGKILL) }
            guard await Programs.waitForListener(port: web, seconds: 30) else {
                throw TestFailure("prometheus did not listen within 30 s: \(server.stderr.suffix(600))")
            }
            func query(_ expression: String) throws -> [[String: Any]] {
                let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
                let response = try Self.get(web, "/api/v1/query?query=\(encoded)")
                guard let data = json(response.body)?["data"] as? [String: Any] else { return [] }
                return data["result"] as? [[String: Any]] ?? []
            }
            func value(_ sample: [String: Any]) -> Double? {
                ((sample["value"] as? [Any])?.last as? String).flatMap(Double.init)
            }
            var mode: Double?, used: Double?
            let deadline = Deadline(seconds: 60)
            while !deadline.expired {
                mode = try query("fieldloc_fix_mode{job=\"fieldlocd\"}").first.flatMap(value)
                used = try query("sum(fieldloc_satellites_used{job=\"fieldlocd\"})").first.flatMap(value)
                if mode == 3, let used, used > 0 { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(mode == 3, "fix mode through Prometheus: \(String(describing: mode)); \(server.stderr.suffix(400))")
            #expect((used ?? 0) >= 4, "satellites used through Prometheus: \(String(describing: used))")
            let up = try query("up{job=\"fieldlocd\"}").first.flatMap(value)
            #expect(up == 1, "the scrape target is up")
        }
    }

    @Test("the page in headless Chromium: live updates, the sky plot shows the SKY report's satellites, the heading moves; a screenshot is kept",
          .enabled(if: chromium != nil && daemonBuilt && access("/usr/bin/python3", X_OK) == 0,
                   "needs chromium (apt install chromium), python3 and the built fieldlocd"))
    func pageInChromium() async throws {
        let http = try Programs.freePort()
        try await Daemon.with(Self.arguments(http: http)) { daemon in
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("page_check.py").path
            let shots = FileManager.default.temporaryDirectory.appendingPathComponent("fieldloc-console-screenshots")
            try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
            let screenshot = shots.appendingPathComponent("status-page.png").path
            let result = try Programs.run("/usr/bin/python3", [script, "http://127.0.0.1:\(http)/", screenshot, "--seconds", "60",
                                                               "--min-updates", "5", "--browser", Self.chromium!], seconds: 120)
            #expect(result.status == 0, "page check: \(result.stdout) \(result.stderr)")
            let page = try #require(json(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "page check printed \(result.stdout)")
            #expect((page["updates"] as? Int ?? 0) >= 5)
            let headings = page["headings"] as? [Double] ?? []
            #expect(Set(headings).count >= 2, "the compass moves: \(headings)")
            // The SKY report the gpsd socket sends now: its satellites above the horizon are the ones plotted.
            let client = try LineClient(port: daemon.port)
            _ = client.readLine()
            try client.send("?WATCH={\"enable\":true,\"json\":true}\n")
            let lines = try client.readLines(seconds: 30) { reportClass($0) == "SKY" && (json($0)?["satellites"] as? [Any]) != nil }
            let sky = (json(lines.last ?? "")?["satellites"] as? [[String: Any]]) ?? []
            let aboveHorizon = sky.filter { ($0["el"] as? Double).map { $0 >= 0 } ?? false }.count
            #expect(aboveHorizon > 0)
            #expect(page["sky_circles"] as? Int == aboveHorizon, "sky plot \(page["sky_circles"] ?? "-") against SKY \(aboveHorizon)")
            #expect(FileManager.default.fileExists(atPath: screenshot))
            print("console page screenshot: \(screenshot)")
        }
    }
}

/// The CLI as a person reads it: every subcommand's help wraps where the terminal is (no line
/// broken mid-sentence by the source), and a failure at run time exits 1 without the usage text.
@Suite("fieldloc help and exit codes")
struct CLIHelpTests {
    static let cli = Programs.fieldloc

    /// The subcommand names listed under SUBCOMMANDS in a help text.
    static func subcommands(_ help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }.compactMap { line in
            let trimmed = line.drop { $0 == " " }
            guard line.hasPrefix("  "), !line.hasPrefix("      "), let name = trimmed.split(separator: " ").first else { return nil }
            return String(name)
        }
    }

    /// Lines of the overview that were broken before the next word would have reached the width.
    static func brokenLines(_ help: String, width: Int = 80) -> [String] {
        let overview = help.components(separatedBy: "\nUSAGE:").first ?? help
        let lines = overview.components(separatedBy: "\n")
        var broken: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
            let word = next.split(separator: " ").first.map(String.init) ?? ""
            if line.count + 1 + word.count < width { broken.append(line) }
        }
        return broken
    }

    @Test("every subcommand's --help: exit 0, the text wrapped by the parser, no line broken short",
          .enabled(if: cli != nil, "needs the built fieldloc"))
    func everyHelp() throws {
        let root = try Programs.run("/usr/bin/env", ["COLUMNS=80", Self.cli!, "--help"], seconds: 30)
        #expect(root.status == 0)
        var paths = Self.subcommands(root.stdout).map { [$0] }
        #expect(paths.count >= 10, "subcommands listed: \(paths)")
        var checked = 0
        while let path = paths.first {
            paths.removeFirst()
            let result = try Programs.run("/usr/bin/env", ["COLUMNS=80", Self.cli!] + path + ["--help"], seconds: 30)
            #expect(result.status == 0, "fieldloc \(path.joined(separator: " ")) --help: \(result.stderr)")
            #expect(result.stdout.contains("USAGE:"))
            let broken = Self.brokenLines(result.stdout)
            #expect(broken.isEmpty, "fieldloc \(path.joined(separator: " ")) --help breaks lines short: \(broken)")
            if path.count < 3 { paths += Self.subcommands(result.stdout).filter { $0 != "help" }.map { path + [$0] } }
            checked += 1
        }
        #expect(checked >= 15)
    }

    @Test("a runtime failure exits 1 with the error and no usage; a usage error exits 64",
          .enabled(if: cli != nil, "needs the built fieldloc"))
    func exitCodes() throws {
        let missing = try Programs.run(Self.cli!, ["replay", "/no/such/file"], seconds: 30)
        #expect(missing.status == 1, "exit \(missing.status)")
        #expect(missing.stderr.contains("/no/such/file") && !missing.stderr.contains("Usage:"), "\(missing.stderr)")
        let usage = try Programs.run(Self.cli!, ["replay", "--no-such-flag"], seconds: 30)
        #expect(usage.status == 64, "exit \(usage.status)")
        #expect(usage.stderr.contains("Usage:") || usage.stderr.contains("USAGE:"), "\(usage.stderr)")
    }
}
