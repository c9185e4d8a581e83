import FieldLocation
import Foundation
import NMEA
import Testing

/// Replays every gpsd regression capture through the NMEA engine and scores our fixes against gpsd's
/// own TPV records with `../shared/tools/compare_tpv.py` (epochs level: gpsd's final TPV of each time).
///
/// Every log must match at least 99 % of gpsd's epochs, except the logs in ``floors``: each has the
/// measured ratio rounded down and the reason it cannot reach 99 %. A log that falls below its floor
/// fails the test.
enum Conformance {
    static let target = 0.99

    /// Logs below the target, with their floor and why.
    static let floors: [String: (floor: Double, reason: String)] = [
        "bundg_zeus_9.log": (0.74, "the plotter's GLL carries the next second's time, so gpsd's final TPV of a time is the GLL's, with the previous epoch's position and a derived speed"),
        "humminbird-M37.log": (0.95, "first epoch: before gpsd has learned the cycle end it reports only on position or mode changes, so the VTG after the GLL never reaches a TPV (gpsd's speed is derived)"),
        "rst39.log": (0.97, "10 Hz GGA with RMC/ZDA added once a second: the first whole second is emitted at the learned GGA ender before its RMC arrives; later ones wait for the change of time"),
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

@Suite("gpsd conformance")
struct ConformanceTests {
    @Test("every capture of ../shared/corpus/gpsd matches gpsd's epochs at 99 % or its listed floor",
          arguments: Conformance.logs)
    func log(_ name: String) throws {
        let score = try Conformance.score(name)
        let floor = Conformance.floors[name]?.floor ?? Conformance.target
        #expect(score.ratio >= floor,
                "\(name): \(score.matched)/\(score.compared) epochs matched, floor \(floor) (\(Conformance.floors[name]?.reason ?? "target"))")
    }

    @Test("the corpus is present, the floors name real logs, and the overall score is reported")
    func overall() throws {
        guard Conformance.shared != nil else {
            print("skipped: ../shared/corpus/gpsd not found beside the package; conformance not measured")
            return
        }
        let logs = Conformance.logs
        #expect(logs.count >= 80)
        for name in Conformance.floors.keys { #expect(logs.contains(name), "floor for unknown log \(name)") }
        var matched = 0
        var compared = 0
        var pureMatched = 0
        var pureCompared = 0
        let binary: Set = ["quectel-l76k-binary.log", "quectel-l76k-dual.log", "ublox-neo-m8l.log",
                           "ublox8-uniqid-monhw.log", "ublox-zed-f9r.log"]
        var atTarget = 0
        for name in logs {
            let score = try Conformance.score(name)
            matched += score.matched
            compared += score.compared
            if !binary.contains(name) {
                pureMatched += score.matched
                pureCompared += score.compared
            }
            if score.ratio >= Conformance.target { atTarget += 1 }
        }
        print("conformance: \(matched)/\(compared) gpsd epochs matched overall; pure-NMEA logs \(pureMatched)/\(pureCompared); \(atTarget) of \(logs.count) logs at >= 99 %")
        #expect(compared > 1500)
    }
}
