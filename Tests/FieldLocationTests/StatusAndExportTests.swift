import BoardConfig
import FieldLocation
import FieldLocationOutput
import Foundation
import NMEA
import Testing

@Suite struct StatusAndExportTests {
    @Test func statusShowsFixSatellitesHeadingPowerAndEnergy() throws {
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"))
        let monitor = StatusMonitor(engine: engine)
        engine.advance(by: .seconds(30))
        let snapshot = monitor.snapshot()
        let text = StatusView.text(snapshot)
        #expect(text.contains("3D fix"))
        // The emulated multi-GNSS sky: "Satellites 27 used of 36 in view (GPS 8, SBAS 5, GLONASS 9, Galileo 6, BeiDou 8)".
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("Satellites ") })
        let words = line.split(separator: " ")
        let used = try #require(Int(words[1])), inView = try #require(Int(words[4]))
        #expect(words[2] == "used" && words[3] == "of" && used >= 12 && inView >= 20 && used <= inView, "\(line)")
        for system in ["GPS", "GLONASS", "Galileo", "BeiDou"] { #expect(line.contains("\(system) "), "\(line)") }
        #expect(text.contains("Heading    true "))
        #expect(text.contains("receiver continuous 1.0 Hz"))
        #expect(snapshot.energy.charge(.receiver) > 0)
        let json = StatusView.json(snapshot)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["mode"] as? Int == 3)
        #expect((object["satellites"] as? [Any])?.count == inView && object["satellites_used"] as? Int == used)
        #expect(object["heading_true"] != nil)
        monitor.close()
        engine.advance(by: .seconds(3))
        #expect(engine.clientCount == 0)
        #expect(engine.decision?.receiver == .idle(.backup))
    }

    @Test func gpxFromJSONLinesNamesTheBadLine() throws {
        let good = #"{"class":"FIX","time":"2026-05-01T12:00:01.000Z","mode":3,"lat":47.1,"lon":8.2,"alt":400.5,"sats_used":7}"#
        let points = try GPXWriter.points(jsonLines: good + "\n{\"class\":\"HEADING\"}\n", file: "f.jsonl")
        #expect(points.count == 1)
        let gpx = GPXWriter.document(points, name: "a <b> & c")
        #expect(gpx.contains(#"<trkpt lat="47.100000000" lon="8.200000000"><ele>400.500</ele><time>2026-05-01T12:00:01.000Z</time><fix>3d</fix><sat>7</sat></trkpt>"#))
        #expect(gpx.contains("<name>a &lt;b&gt; &amp; c</name>"))
        do {
            _ = try GPXWriter.points(jsonLines: good + "\n{\"class\":\"FIX\",\"lat\":\n", file: "f.jsonl")
            Issue.record("accepted a broken line")
        } catch {
            #expect(error.description == "f.jsonl:2: not valid JSON")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel"),
                   "/usr/bin/gpsbabel is not installed (apt-get install gpsbabel)"))
    func gpsbabelAcceptsTheExport() throws {
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"))
        let client = engine.register(name: "test") { _ in }.id
        engine.update(client) { $0.updatingLocation = true }
        final class Box: @unchecked Sendable { var fixes: [Fix] = [] }
        let box = Box()
        _ = engine.observe { if case .fix(let f, _) = $0 { box.fixes.append(f) } }
        engine.advance(by: .seconds(60))
        let points = box.fixes.compactMap(GPXWriter.Point.init)
        #expect(points.count >= 55)
        let path = NSTemporaryDirectory() + "fieldloc-export-\(UUID().uuidString).gpx"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try GPXWriter.document(points, name: "sim").write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gpsbabel")
        process.arguments = ["-t", "-i", "gpx", "-f", path, "-x", "transform,wpt=trk", "-o", "unicsv", "-F", "-"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        let rows = output.split(whereSeparator: \.isNewline).dropFirst()
        // Every point back, with our coordinates, fix type and time.
        #expect(rows.first?.contains("\"3d\"") == true)
        #expect(rows.first?.contains(String(format: "%.6f", points[0].latitude)) == true)
        #expect(rows.count == points.count, "gpsbabel read \(rows.count) of \(points.count) points:\n\(output.prefix(400))")
    }
}
