import FieldLocationStore
import EnginePlatforms
import LocationAPI
import LocationServices
import FieldLocation
import FieldLocationOutput
import Foundation
import NMEA
import Testing

@Suite("Replay and JSON output")
struct ReplayTests {
    /// The log shipped with the repository for the quick start.
    static var shippedLog: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data/ublox-neo-m9n-nmea.log").path
    }

    @Test("the shipped log replays to one fix per second with date, position and altitude")
    func shippedLog() throws {
        var fixes: [Fix] = []
        let stream = try LogReplay(path: Self.shippedLog).run { fixes.append($0) }
        #expect(fixes.count == 61)
        #expect(fixes.first?.time?.description == "2020-07-11T22:37:45.000Z")
        #expect(fixes.allSatisfy { $0.mode == .threeD && $0.altitudeMSL != nil && $0.provenance == .replay })
        #expect(stream.counters.totalRejected == 0)
        #expect(stream.framer.counters.sentences == 1403)
    }

    @Test("a missing file is an error that names the file and the reason")
    func missingFile() {
        do {
            try LogReplay(path: "/nonexistent/fieldloc-test.log").run { _ in }
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("/nonexistent/fieldloc-test.log"))
            #expect(error.description.contains("No such file"))
        }
    }

    @Test("paced replay waits the log's own time between fixes, divided by the speed")
    func pacing() throws {
        var waits: [Double] = []
        try LogReplay(path: Self.shippedLog, speed: 4).run(sleep: { waits.append($0) }) { _ in }
        #expect(waits.count == 60)
        #expect(waits.allSatisfy { abs($0 - 0.25) < 1e-9 })
    }

    @Test("JSON lines omit missing values and never print NaN or null")
    func jsonOmitsMissing() throws {
        var fix = Fix()
        fix.mode = .twoD
        fix.latitude = 48.1173
        fix.longitude = 11.516666666666667
        fix.speed = .nan
        let line = FixJSON.line(fix)
        #expect(line.contains("\"lat\":48.1173"))
        #expect(!line.contains("speed") && !line.contains("null") && !line.contains("nan") && !line.contains("time"))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["mode"] as? Int == 2)
    }

    @Test("the text line for people shows the fix at a glance")
    func textLine() throws {
        var first: Fix?
        try LogReplay(path: Self.shippedLog).run { if first == nil { first = $0 } }
        let line = FixText.line(try #require(first))
        #expect(line.hasPrefix("2020-07-11T22:37:45.000Z 3D  38.1104940 -122.6268970  alt 83.1 m"))
    }

    @Test("geodesic distance matches a known WGS84 value")
    func geodesy() {
        // One degree of latitude at the equator on WGS84 is 110,574.389 m.
        let d = Geodesy.distance(latitude1: 0, longitude1: 0, latitude2: 1, longitude2: 0)
        #expect(abs(d - 110_574.389) < 0.01)
        #expect(Geodesy.distance(latitude1: 10, longitude1: 20, latitude2: 10, longitude2: 20) == 0)
    }
}
