import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import NMEA
import Testing

/// Replays every gpsd regression capture through the NMEA engine and scores our fixes against gpsd's
/// own TPV records with `../shared/tools/compare_tpv.py` (epochs level: gpsd's final TPV of each time).
///
/// Every log must match at least 95 % of gpsd's epochs, except the logs in ``floors``: each has the
/// measured ratio rounded down and the reason it cannot reach 95 %. A log that falls below its floor
/// fails the test. `docs/CONFORMANCE.md` has the per-log figures and every remaining mismatch explained.
enum Conformance {
    static let target = 0.95
    /// The whole corpus, with and without the four binary-sourced logs. Measured 1832 of 1874 (97.8 %)
    /// and 1378 of 1418 (97.2 %): 38 of the misses are bundg_zeus_9's, where we differ on purpose.
    static let overallTarget = 0.97

    /// Logs whose gpsd TPVs come from UBX or CASIC binary frames, not from the NMEA in the log
    /// (decoded by the binary navigation path; reported apart so the NMEA-only figure stays visible).
    static let binary: Set = ["quectel-l76k-binary.log", "quectel-l76k-dual.log", "ublox-neo-m8l.log", "ublox8-uniqid-monhw.log"]

    /// Logs below the target, with their floor and why.
    static let floors: [String: (floor: Double, reason: String)] = [
        "bundg_zeus_9.log": (0.74, "the plotter's GLL (a cycle-continuing sentence in gpsd) starts each second and is its cycle ender, so gpsd's final TPV of a time carries the GLL position, a speed derived from 0.2 m of movement and a track made from the compass HDG, before the second's RMC/VTG (5.6 kn, COG) arrive; we report the receiver's RMC/VTG speed and course"),
    ]
    /// `<package>/../shared`, or nil when it is absent.
    static var shared: URL? {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = package.appendingPathComponent("../shared").standardized
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("corpus/gpsd").path) ? url : nil
    }

    /// Every log with a non-empty .chk.
    static var logs: [String] {
        guard let shared else { return [] }
        let folder = shared.appendingPathComponent("corpus/gpsd")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { name in
            guard name.hasSuffix(".log") else { return false }
            let chk = folder.appendingPathComponent(name + ".chk").path
            let size = (try? FileManager.default.attributesOfItem(atPath: chk)[.size] as? Int) ?? 0
            return size > 0
        }.sorted()
    }

    struct Score {
        var matched: Int
        var compared: Int
        var ratio: Double { compared == 0 ? 1 : Double(matched) / Double(compared) }
    }

    /// Replays one log in-process and scores it with compare_tpv.py.
    static func score(_ name: String) throws -> Score {
        guard let shared else { throw ConformanceError.noShared }
        let log = shared.appendingPathComponent("corpus/gpsd/\(name)")
        var lines = ""
        try LogReplay(path: log.path).run { fix in
            guard fix.time != nil else { return }   // as `fieldloc replay --json` does
            lines += FixJSON.line(fix) + "\n"
        }
        let fixes = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString).jsonl")
        try lines.write(to: fixes, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: fixes) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", shared.appendingPathComponent("tools/compare_tpv.py").path,
                             log.path + ".chk", fixes.path, "--json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let epochs = json["epochs"] as? [String: Any],
              let matched = epochs["matched"] as? Int, let compared = epochs["compared"] as? Int
        else { throw ConformanceError.badOutput(name, String(decoding: data, as: UTF8.self)) }
        return Score(matched: matched, compared: compared)
    }

    enum ConformanceError: Error {
        case noShared
        case badOutput(String, String)
    }
}

@Suite("gpsd conformance", .enabled(if: Conformance.shared != nil, "../shared/corpus/gpsd is not beside the package"))
struct ConformanceTests {
    @Test("every capture of ../shared/corpus/gpsd matches gpsd's epochs at 95 % or its listed floor",
          arguments: Conformance.logs)
    func log(_ name: String) throws {
        let score = try Conformance.score(name)
        let floor = Conformance.floors[name]?.floor ?? Conformance.target
        print("conformance \(name): \(score.matched)/\(score.compared) epochs matched")
        #expect(score.ratio >= floor,
                "\(name): \(score.matched)/\(score.compared) epochs matched, floor \(floor) (\(Conformance.floors[name]?.reason ?? "target"))")
        // A log where gpsd reports fixes gives fixes here too.
        if score.compared > 0 { #expect(score.matched > 0, "\(name): no fix matched") }
    }

    @Test("the corpus is present, the floors name real logs, and the overall score is reported with and without the binary-sourced logs")
    func overall() throws {
        let logs = Conformance.logs
        #expect(logs.count >= 80)
        for name in Conformance.floors.keys { #expect(logs.contains(name), "floor for unknown log \(name)") }
        for name in Conformance.binary { #expect(logs.contains(name), "binary log \(name) not in the corpus") }
        var all = Conformance.Score(matched: 0, compared: 0)
        var nmea = Conformance.Score(matched: 0, compared: 0)
        var lowest = (name: "", ratio: 1.0)
        var atTarget = 0
        for name in logs {
            let score = try Conformance.score(name)
            all.matched += score.matched
            all.compared += score.compared
            if !Conformance.binary.contains(name) {
                nmea.matched += score.matched
                nmea.compared += score.compared
                if score.ratio < lowest.ratio { lowest = (name, score.ratio) }
            }
            if score.ratio >= Conformance.target { atTarget += 1 }
        }
        print("""
            conformance: \(all.matched)/\(all.compared) gpsd epochs matched overall (\(percent(all.ratio)));\
             without the \(Conformance.binary.count) binary-sourced logs \(nmea.matched)/\(nmea.compared) (\(percent(nmea.ratio)));\
             lowest of those \(lowest.name) \(percent(lowest.ratio)); \(atTarget) of \(logs.count) logs at >= 95 %
            """)
        #expect(all.compared > 1500)
        #expect(nmea.ratio >= Conformance.overallTarget, "\(nmea.matched)/\(nmea.compared)")
        #expect(all.ratio >= Conformance.overallTarget, "\(all.matched)/\(all.compared)")
    }

    private func percent(_ ratio: Double) -> String {
        let tenths = Int((ratio * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10) %"
    }
}
