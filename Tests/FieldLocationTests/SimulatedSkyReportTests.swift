import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import GPSDProtocol
import NMEA
import Testing

/// The simulated board's multi-GNSS sky through the engine to gpsd's SKY report and the status JSON:
/// each satellite keeps its constellation (`gnssid`, `svid`, as gpsd numbers them).
@Suite("Simulated sky in gpsd SKY and status JSON")
struct SimulatedSkyReportTests {
    @Test("SKY: gnssid 0, 1, 2, 3, 6 with svids in each system's range; status --json carries the same")
    func sky() throws {
        let engine = try LocationEngine.simulated(board: try BoardCatalog.load(builtin: "sim"))
        let monitor = StatusMonitor(engine: engine)
        defer { monitor.close() }
        engine.advance(by: .seconds(5))
        let snapshot = monitor.snapshot()
        let fix = try #require(snapshot.fix)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(GPSDReport.sky(fix).utf8)) as? [String: Any])
        let satellites = try #require(report["satellites"] as? [[String: Any]])
        #expect(satellites.count == fix.satellites.count && satellites.count >= 20)
        var byGNSS: [Int: [Int]] = [:]
        for sat in satellites {
            let gnssid = try #require(sat["gnssid"] as? Int, "\(sat)")
            byGNSS[gnssid, default: []].append(try #require(sat["svid"] as? Int))
        }
        #expect(Set(byGNSS.keys) == [0, 1, 2, 3, 6])
        let ranges: [Int: ClosedRange<Int>] = [0: 1...32, 1: 120...158, 2: 1...36, 3: 1...63, 6: 1...32]
        for (gnssid, svids) in byGNSS { #expect(svids.allSatisfy { ranges[gnssid]?.contains($0) == true }, "gnssid \(gnssid): \(svids)") }
        // The status JSON: the same satellites, each with gnssid and svid.
        let status = try #require(try JSONSerialization.jsonObject(with: Data(StatusView.json(snapshot).utf8)) as? [String: Any])
        let listed = try #require(status["satellites"] as? [[String: Any]])
        let pairs = Set(listed.compactMap { s in (s["gnssid"] as? Int).flatMap { g in (s["svid"] as? Int).map { "\(g):\($0)" } } })
        #expect(listed.count == satellites.count && pairs == Set(satellites.map { "\($0["gnssid"] as? Int ?? -1):\($0["svid"] as? Int ?? -1)" }))
    }
}
