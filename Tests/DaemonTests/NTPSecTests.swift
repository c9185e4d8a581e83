#if canImport(Glibc)
import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import Glibc
#endif
import FieldLocationDaemon
import Foundation
import HardwareInterfaces
import LinuxHardware
import NMEA
import Testing

/// ntpsec's `ntpd` reads our NTP shared-memory segment (its `refclock shm` driver, `refclock_shm.c`).
///
/// Debian's `ntpsec` package conflicts with `chrony` (both provide `time-daemon`), so the test does
/// not need it installed: `NTPSEC_NTPD` may name an `ntpd` unpacked from the package
/// (`apt-get download ntpsec && dpkg -x ntpsec_*.deb DIR`, then `DIR/usr/sbin/ntpd`; it needs only
/// libbsd0, libcap2 and libssl3). ntpd runs with `disable ntp` and `disable kernel` (it never
/// disciplines the clock) and the source `noselect`; the offsets come from its `peerstats` file.
@Suite("Time service: ntpsec's ntpd reads the SHM segment", .serialized)
struct NTPSecTests {
    static let ntpd: String? = {
        let candidates = [ProcessInfo.processInfo.environment["NTPSEC_NTPD"], Programs.find("ntpd")].compactMap { $0 }
        for candidate in candidates where access(candidate, X_OK) == 0 {
            if let result = try? Programs.run(candidate, ["--version"], seconds: 10), (result.stdout + result.stderr).contains("ntpsec") {
                return candidate
            }
        }
        return nil
    }()

    @Test("ntpd's SHM driver reads our segment with the injected +50 ms offset within 2 ms",
          .enabled(if: ntpd != nil && getuid() == 0, "needs ntpsec's ntpd (installed, or unpacked and named by NTPSEC_NTPD) and root"))
    func sharedMemory() async throws {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let unit = 79
        NTPSharedMemorySink.remove(unit: unit)
        defer { NTPSharedMemorySink.remove(unit: unit) }
        let sink = try NTPSharedMemorySink(unit: unit)
        let config = """
            refclock shm unit \(unit) refid SHM minpoll 3 maxpoll 3 noselect
            disable ntp
            disable kernel
            statsdir \(folder.path)/
            statistics peerstats
            filegen peerstats file peerstats type none enable
            interface ignore all
            """
        let conf = folder.appendingPathComponent("ntp.conf")
        try config.write(to: conf, atomically: true, encoding: .utf8)
        let daemon = try Programs.Running(try #require(Self.ntpd), ["-n", "-c", conf.path], folder: folder)
        let service = TimeService(sinks: .init(serial: [sink]), baudRate: nil)
        let clock = SystemMonotonicClock()
        let peerstats = folder.appendingPathComponent("peerstats")
        var lines: [[String]] = []
        for _ in 0..<60 {
            let now = clock.now()
            var fix = Fix()
            fix.mode = .threeD
            fix.latitude = 47.38
            fix.longitude = 8.54
            fix.time = UTCTime(nanosecondsSinceEpoch: TimeService.linuxSystemTime(now) + 50_000_000)
            service.observe(.fix(fix, now))
            try await Task.sleep(for: .milliseconds(500))
            let text = (try? String(contentsOf: peerstats, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.filter { $0.count >= 5 && $0[2] == "SHM(\(unit))" }
            if lines.count >= 2 { break }
            if !daemon.isRunning { break }
        }
        let stderr = daemon.stderr
        await daemon.stop()
        try #require(lines.count >= 2, "ntpd's peerstats: \(lines); ntpd stderr: \(stderr)")
        for line in lines {
            print("ntpd peerstats:", line.joined(separator: " "))
            // MJD, seconds, source, status, offset (true minus local, seconds), delay, dispersion, jitter
            let offset = try #require(Double(line[4]))
            #expect(abs(offset - 0.050) < 0.002, "offset \(line)")
        }
    }
}
