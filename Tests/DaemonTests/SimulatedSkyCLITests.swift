import Foundation
import Testing

/// `fieldloc status --board sim` as a person and a script read it: the simulated receiver runs on
/// the system's date by default (`--sim-time` fixes it), and its sky has four constellations, each
/// satellite carrying its constellation as gpsd's SKY does (`gnssid`, `svid`).
@Suite("fieldloc status on the simulated board: today's date, a multi-GNSS sky", .serialized)
struct SimulatedSkyCLITests {
    static let cli = Programs.fieldloc

    /// The UTC dates (YYYY-MM-DD) of `from` and `to`: the run's date is one of them.
    static func dates(_ from: Date, _ to: Date) -> Set<String> {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return [formatter.string(from: from), formatter.string(from: to)]
    }

    /// Runs `fieldloc status --board sim --daemon off --once` with `arguments`, in a fresh state folder.
    static func status(_ arguments: [String]) throws -> (stdout: String, dates: Set<String>) {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = Date()
        let result = try Programs.run(cli!, ["status", "--board", "sim", "--daemon", "off", "--once", "--speed", "5",
                                             "--state-dir", folder.path] + arguments, seconds: 120)
        #expect(result.status == 0 && !result.timedOut, "\(result.stderr)")
        return (result.stdout, dates(before, Date()))
    }

    /// The JSON object of `--once --json`.
    static func object(_ stdout: String) throws -> [String: Any] {
        let line = try #require(stdout.split(whereSeparator: \.isNewline).last { $0.hasPrefix("{") })
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("--once --json: the fix's date is today's (UTC); every satellite has gnssid and svid; GPS, GLONASS, Galileo and BeiDou are in view",
          .enabled(if: cli != nil, "needs the built fieldloc"))
    func json() throws {
        let (stdout, today) = try Self.status(["--json"])
        let object = try Self.object(stdout)
        let time = try #require(object["time"] as? String)
        #expect(today.contains(String(time.prefix(10))), "fix time \(time), today \(today)")
        let satellites = try #require(object["satellites"] as? [[String: Any]])
        let gnssids = satellites.compactMap { $0["gnssid"] as? Int }
        #expect(gnssids.count == satellites.count, "every satellite carries its constellation")
        #expect(satellites.allSatisfy { ($0["svid"] as? Int).map { $0 > 0 } == true })
        #expect(Set(gnssids).isSuperset(of: [0, 2, 3, 6]), "gnssid GPS 0, Galileo 2, BeiDou 3, GLONASS 6: \(Set(gnssids))")
        // The names agree with the numbers.
        let names: [Int: String] = [0: "GPS", 1: "SBAS", 2: "Galileo", 3: "BeiDou", 6: "GLONASS"]
        #expect(satellites.allSatisfy { sat in (sat["gnssid"] as? Int).flatMap { names[$0] } == sat["system"] as? String })
        let used = satellites.filter { $0["used"] as? Bool == true }.count
        #expect(object["satellites_used"] as? Int == used && used >= 12)
    }

    @Test("the text readout: the UTC line has today's date, the satellites line counts four constellations",
          .enabled(if: cli != nil, "needs the built fieldloc"))
    func text() throws {
        let (stdout, today) = try Self.status([])
        let lines = stdout.split(whereSeparator: \.isNewline).map(String.init)
        let utc = try #require(lines.last { $0.hasPrefix("UTC") })
        let date = utc.dropFirst(3).drop { $0 == " " }.prefix(10)
        #expect(today.contains(String(date)), "\(utc)")
        // "Satellites 30 used of 38 in view (GPS 10, SBAS 2, GLONASS 8, Galileo 9, BeiDou 9)"
        let line = try #require(lines.last { $0.hasPrefix("Satellites") })
        let words = line.split(separator: " ")
        let inView = try #require(words.firstIndex(of: "of").flatMap { Int(words[$0 + 1]) })
        let open = try #require(line.firstIndex(of: "("))
        var counts: [String: Int] = [:]
        for part in line[line.index(after: open)...].dropLast().split(separator: ",") {
            let pair = part.split(separator: " ")
            if pair.count == 2, let n = Int(pair[1]) { counts[String(pair[0])] = n }
        }
        #expect(counts.values.reduce(0, +) == inView, "\(line)")
        for system in ["GPS", "GLONASS", "Galileo", "BeiDou"] { #expect((counts[system] ?? 0) >= 3, "\(system) in \(line)") }
    }

    @Test("--sim-time fixes the start: the first fix is at the given instant's next seconds, whatever today is",
          .enabled(if: cli != nil, "needs the built fieldloc"))
    func fixedStart() throws {
        let (stdout, _) = try Self.status(["--json", "--sim-time", "2026-05-01T12:00:00Z"])
        let time = try #require(try Self.object(stdout)["time"] as? String)
        #expect(time.hasPrefix("2026-05-01T12:0"), "\(time)")
        let bad = try Programs.run(Self.cli!, ["status", "--board", "sim", "--daemon", "off", "--once", "--sim-time", "yesterday"], seconds: 30)
        #expect(bad.status != 0 && bad.stderr.contains("--sim-time"))
    }
}
