#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The whole time path on the simulated board: `fieldlocd --board sim --sim-time-offset 0.05
/// --chrony-sock PATH` feeding a real chronyd (run with `-x`, as in `TimeServiceTests`).
@Suite("Time service: fieldlocd on the simulated board to a real chronyd", .serialized)
struct SimulatedChronyTests {
    @Test("chronyd measures the simulated receiver's +50 ms as -50 ms (local minus source) within 2 ms",
          .enabled(if: TimeServiceTests.canRunChrony && Programs.fieldlocd != nil,
                   "needs chronyd and chronyc (apt install chrony), root, and the fieldlocd built beside the tests"))
    func simulatedOffset() async throws {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        chmod(folder.path, 0o700)
        let sock = folder.appendingPathComponent("gnss.sock").path
        let config = """
            refclock SOCK \(sock) refid GPS poll 0 filter 4 noselect
            bindcmdaddress \(folder.path)/chronyd.sock
            cmdport 0
            pidfile \(folder.path)/chronyd.pid
            """
        let conf = folder.appendingPathComponent("chrony.conf")
        try config.write(to: conf, atomically: true, encoding: .utf8)
        let policy = folder.appendingPathComponent("access.policy")
        try "".write(to: policy, atomically: true, encoding: .utf8)
        let chronyd = try Programs.Running(try #require(TimeServiceTests.chronyd), ["-u", "root", "-x", "-d", "-f", conf.path], folder: folder)
        let started = await waitUntil(seconds: 10) { FileManager.default.fileExists(atPath: sock) }
        let port = try Programs.freePort()
        let daemon = try Programs.Running(try #require(Programs.fieldlocd), [
            "--board", "sim", "--port", String(port), "--client-socket", "none", "--policy", policy.path,
            "--state-dir", folder.path, "--sim-time-offset", "0.05", "--chrony-sock", sock,
        ], folder: folder)
        var row: [String]?
        if started {
            for _ in 0..<40 {
                try await Task.sleep(for: .milliseconds(500))
                let result = try Programs.run(try #require(TimeServiceTests.chronyc), ["-h", "\(folder.path)/chronyd.sock", "-n", "-c", "sources"], seconds: 10)
                let rows = result.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
                if let found = rows.first(where: { $0.count > 8 && $0[2] == "GPS" }), Int(found[5], radix: 8).map({ $0 != 0 }) == true,
                   Double(found[8]).map({ $0 != 0 }) == true {
                    row = found
                    break
                }
            }
        }
        let logs = daemon.stderr + chronyd.stderr
        await daemon.stop()
        await chronyd.stop()
        let found = try #require(row, "chronyd saw no sample from fieldlocd: \(logs)")
        print("chronyc sources (sim):", found.joined(separator: ","))
        let measured = try #require(Double(found[8]))
        #expect(abs(measured + 0.050) < 0.002, "offset \(found)")
    }
}
