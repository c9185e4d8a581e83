#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `fieldlocd` itself reads its access policy again on SIGHUP: a file that denies ends a watch
/// with an ERROR; a file with an error is logged with its file and line and changes nothing.
@Suite("fieldlocd reloads its access policy", .serialized, .enabled(if: Programs.fieldlocd != nil, "fieldlocd is not built beside the tests"))
struct PolicyReloadDaemonTests {
    @Test("SIGHUP: a bad file is refused with file and line, a denying file ends the watch")
    func sighup() async throws {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("access.policy").path
        try "default = always\n".write(toFile: file, atomically: true, encoding: .utf8)
        try await Daemon.with(["--board", "sim", "--speed", "10", "--policy", file, "--client-socket", "none"], holdFix: false) { daemon in
            let client = try LineClient(port: daemon.port)
            _ = client.readLine()
            try client.send("?WATCH={\"enable\":true,\"json\":true}\n")
            _ = try client.readLines(seconds: 20) { reportClass($0) == "TPV" }

            try "default = always\nfrobnicate = yes\n".write(toFile: file, atomically: true, encoding: .utf8)
            kill(daemon.process.pid, SIGHUP)
            #expect(await waitUntil(seconds: 10) { daemon.process.stderr.contains("not reloaded (SIGHUP): \(file):2:") },
                    "\(daemon.process.stderr.suffix(800))")
            #expect(daemon.process.isRunning)

            try "default = denied\n".write(toFile: file, atomically: true, encoding: .utf8)
            kill(daemon.process.pid, SIGHUP)
            var error: String?
            _ = try client.readLines(seconds: 20) { line in
                guard reportClass(line) == "ERROR" else { return false }
                error = line
                return true
            }
            #expect(error?.contains("withdrawn by the reloaded access policy") == true, "\(String(describing: error))")
            #expect(await waitUntil(seconds: 10) { daemon.process.stderr.contains("reloaded (SIGHUP)") })
        }
    }
}
