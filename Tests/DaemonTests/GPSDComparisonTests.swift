#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Side by side with gpsd: the same NMEA log fed to a real gpsd by gpsfake and to `fieldlocd
/// --replay`, both watched with `gpspipe -w`, their TPVs compared field by field per epoch.
@Suite("fieldlocd --replay against gpsd under gpsfake", .serialized)
struct GPSDComparisonTests {
    static let gpsfake = Programs.find("gpsfake")
    static let gpspipe = Programs.find("gpspipe")
    static let gpsd = Programs.find("gpsd")
    static let ready = gpsfake != nil && gpspipe != nil && gpsd != nil && Programs.fieldlocd != nil && Programs.shared != nil

    /// The logs compared: `$FIELDLOC_GPSD_COMPARE_LOGS` (comma-separated names in ../shared/corpus/gpsd),
    /// else two pure-NMEA captures (an MTK3339 HAT like the Pi boards', and a u-blox NEO-M8N).
    static var logs: [String] {
        if let names = ProcessInfo.processInfo.environment["FIELDLOC_GPSD_COMPARE_LOGS"], !names.isEmpty {
            return names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return ["mt3339.log", "neo-m8n.log"]
    }

    /// gpsd 3.22 moves dates before its rollover horizon forward by 1024 GPS weeks (the recorded
    /// session shows 2015 logs reported in 2034); such times are compared 1024 weeks back.
    static let weekRollover: Int64 = 619_315_200

    struct Epoch {
        var seconds: Int64
        var fields: [String: Double]
    }

    /// The final TPV (mode 2 or 3, with a time) of each epoch in gpspipe output, by whole UTC second.
    static func epochs(_ output: String) -> [Int64: Epoch] {
        var out: [Int64: Epoch] = [:]
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for line in output.split(whereSeparator: \.isNewline) {
            guard let object = json(String(line)), object["class"] as? String == "TPV",
                  let mode = object["mode"] as? Int, mode >= 2,
                  let time = object["time"] as? String, let date = formatter.date(from: time) else { continue }
            let seconds = Int64(date.timeIntervalSince1970.rounded())
            var fields: [String: Double] = ["mode": Double(mode)]
            for key in ["lat", "lon", "altHAE", "altMSL", "speed", "track"] {
                if let value = object[key] as? Double { fields[key] = value }
            }
            out[seconds] = Epoch(seconds: seconds, fields: fields)
        }
        return out
    }

    /// Tolerances per field (gpsd prints lat/lon with 9 decimals, altitudes with 4, speed 3, track 4).
    static let tolerances: [String: Double] = ["lat": 1e-7, "lon": 1e-7, "altHAE": 0.01, "altMSL": 0.01,
                                               "speed": 0.011, "track": 0.01, "mode": 0]

    struct Comparison {
        var compared = 0
        var matched = 0
        var shifted = 0
        var gpsdOnly = 0
        var oursOnly = 0
        var fieldMismatches: [String: Int] = [:]
        var examples: [String] = []
        var ratio: Double { compared == 0 ? 0 : Double(matched) / Double(compared) }
    }

    static func compare(gpsd: [Int64: Epoch], ours: [Int64: Epoch]) -> Comparison {
        var result = Comparison()
        var used: Set<Int64> = []
        for (seconds, theirs) in gpsd.sorted(by: { $0.key < $1.key }) {
            var mine = ours[seconds]
            if mine == nil, let back = ours[seconds - weekRollover] {
                mine = back
                result.shifted += 1
            }
            guard let mine else {
                result.gpsdOnly += 1
                continue
            }
            used.insert(mine.seconds)
            result.compared += 1
            var good = true
            for (key, value) in theirs.fields {
                guard let tolerance = tolerances[key] else { continue }
                guard let other = mine.fields[key] else {
                    good = false
                    result.fieldMismatches["\(key) missing", default: 0] += 1
                    continue
                }
                var difference = abs(value - other)
                if key == "track" { difference = min(difference, 360 - difference) }
                if difference > tolerance {
                    good = false
                    result.fieldMismatches[key, default: 0] += 1
                    if result.examples.count < 5 { result.examples.append("\(seconds) \(key): gpsd \(value), ours \(other)") }
                }
            }
            if good { result.matched += 1 }
        }
        result.oursOnly = ours.keys.filter { !used.contains($0) }.count
        return result
    }

    @Test("TPVs per epoch: time, lat, lon, altHAE, altMSL, speed, track and mode match gpsd's",
          .enabled(if: ready, "needs gpsfake, gpsd, gpspipe (apt install gpsd gpsd-clients python3-gps), the built fieldlocd and ../shared"))
    func sideBySide() async throws {
        let shared = try #require(Programs.shared)
        var total = Comparison()
        for name in Self.logs {
            let log = shared.appendingPathComponent("corpus/gpsd/\(name)").path
            guard FileManager.default.fileExists(atPath: log) else {
                Issue.record("no such log \(log)")
                continue
            }
            async let gpsdOutput = Self.gpsdTPVs(log: log)
            async let ourOutput = Self.ourTPVs(log: log)
            let (theirs, ours) = try await (gpsdOutput, ourOutput)
            let gpsdEpochs = Self.epochs(theirs)
            let ourEpochs = Self.epochs(ours)
            let result = Self.compare(gpsd: gpsdEpochs, ours: ourEpochs)
            let percent = String(format: "%.1f", result.ratio * 100)
            print("""
                gpsd comparison \(name): \(result.matched)/\(result.compared) epochs match (\(percent) %); \
                gpsd epochs \(gpsdEpochs.count), ours \(ourEpochs.count), only gpsd \(result.gpsdOnly), only ours \(result.oursOnly), \
                compared 1024 weeks back (gpsd 3.22 rollover) \(result.shifted); field mismatches \(result.fieldMismatches) \(result.examples)
                """)
            #expect(gpsdEpochs.count >= 10, "gpsd produced \(gpsdEpochs.count) epochs for \(name)")
            #expect(result.compared >= gpsdEpochs.count * 9 / 10, "\(name): only \(result.compared) of gpsd's \(gpsdEpochs.count) epochs found in ours")
            #expect(result.ratio >= 0.95, "\(name): \(percent) % of epochs match")
            total.compared += result.compared
            total.matched += result.matched
        }
        print("gpsd comparison overall: \(total.matched)/\(total.compared) epochs match (\(String(format: "%.1f", total.ratio * 100)) %)")
    }

    /// gpsd fed by `gpsfake -1 -p` (its own watcher makes gpsd open the pty and waits 1.4 s before
    /// feeding), with `gpspipe -w` attached to the same private gpsd during that wait.
    static func gpsdTPVs(log: String) async throws -> String {
        // gpsfake starts its own gpsd and connects to it; on a loaded machine that gpsd can be
        // late and gpsfake gives up ("Connection refused"). That is gpsfake's start-up, not the
        // comparison, so it gets up to three tries.
        var attempt = 1
        while true {
            do {
                return try await gpsdTPVsOnce(log: log)
            } catch let failure as TestFailure where attempt < 3
                        && ("\(failure)".contains("did not listen") || "\(failure)".contains("attached late")) {
                attempt += 1
            }
        }
    }

    static func gpsdTPVsOnce(log: String) async throws -> String {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try Programs.freePort()
        let fake = try Programs.Running(gpsfake!, ["-1", "-p", "-q", "-P", "\(port)", log], folder: folder)
        do {
            guard await Programs.waitForListener(port: port, seconds: 10) else {
                throw TestFailure("gpsfake's gpsd did not listen: \(fake.stderr)")
            }
            let pipe = try Programs.Running(gpspipe!, ["-w", "127.0.0.1:\(port)"], folder: folder)
            let finished = await fake.wait(seconds: 60)
            #expect(finished, "gpsfake did not finish the log within 60 s")
            if !(await pipe.wait(seconds: 5)) { await pipe.stop() }
            await fake.stop()
            let output = pipe.stdout
            // gpspipe must have seen the stream from its start; gpsfake's own watcher is the cross-check.
            let own = fake.stdout.split(whereSeparator: \.isNewline).filter { $0.contains("\"class\":\"TPV\"") }.count
            let piped = output.split(whereSeparator: \.isNewline).filter { $0.contains("\"class\":\"TPV\"") }.count
            // On a loaded machine gpspipe can connect after gpsfake's 1.4 s wait and miss the first
            // reports: that run says nothing about the comparison, and is tried again.
            guard piped == own else { throw TestFailure("gpspipe attached late: it saw \(piped) TPVs, gpsfake's watcher \(own)") }
            return output
        } catch {
            await fake.stop()
            throw error
        }
    }

    /// `fieldlocd --replay LOG --replay-once --speed 50` with `gpspipe -w` (the replay starts with the
    /// first watcher and the daemon exits at its end, closing gpspipe's stream).
    static func ourTPVs(log: String) async throws -> String {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try Programs.freePort()
        let daemon = try Programs.Running(Programs.fieldlocd!, ["--replay", log, "--replay-once", "--speed", "50", "--port", "\(port)"],
                                          folder: folder)
        do {
            guard await Programs.waitForListener(port: port, seconds: 10) else {
                throw TestFailure("fieldlocd --replay did not listen: \(daemon.stderr)")
            }
            let pipe = try Programs.Running(gpspipe!, ["-w", "127.0.0.1:\(port)"], folder: folder)
            let finished = await daemon.wait(seconds: 60)
            #expect(finished, "the replay did not finish within 60 s")
            #expect(daemon.terminationStatus == 0, "fieldlocd: \(daemon.stderr.suffix(500))")
            if !(await pipe.wait(seconds: 5)) { await pipe.stop() }
            return pipe.stdout
        } catch {
            await daemon.stop()
            throw error
        }
    }
}
