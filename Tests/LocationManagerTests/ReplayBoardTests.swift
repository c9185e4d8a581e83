#if canImport(Glibc)
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import Glibc
#endif
import BoardConfig
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import SimulatedHardware
import NMEA
import Testing

/// The replay board kind (issue 21, item 5): `fieldloc record`'s two files played back through
/// `LocationEngine` and `LocationManager` on the manual clock.
@Suite("Replay board")
struct ReplayBoardTests {
    /// The `fieldloc` built beside this test bundle (or `$FIELDLOC_BINARY`).
    static let fieldloc: String? = {
        if let explicit = ProcessInfo.processInfo.environment["FIELDLOC_BINARY"], access(explicit, X_OK) == 0 { return explicit }
        let argument0 = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        let folders = [argument0.deletingLastPathComponent(), argument0.deletingLastPathComponent().deletingLastPathComponent(),
                       URL(fileURLWithPath: Bundle.main.bundlePath).deletingLastPathComponent()]
        for folder in folders {
            let candidate = folder.appendingPathComponent("fieldloc").path
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }()

    /// A replay board file for `log` in `folder` (the log named relative to the board file).
    static func board(in folder: String, log: String) throws -> BoardDescription {
        let text = """
        name = "replay"
        title = "A recorded session"
        simulated = true

        [replay]
        log = "\(log)"
        """
        let path = folder + "/replay.toml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try BoardLoader.load(text: text, file: path)
    }

    /// A recording's lines of `kind`.
    static func lines(_ events: String, _ kind: String) -> [[String: Any]] {
        events.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], o["class"] as? String == kind else { return nil }
            return o
        }
    }

    /// A FIX line without its time and source (the replay's fixes say `replay`).
    static func comparable(_ line: String) -> String {
        var out = line
        for key in [",\"source\":\"simulator\"", ",\"source\":\"replay\""] { out = out.replacingOccurrences(of: key, with: "") }
        if let t = out.range(of: ",\"t\":") { out = String(out[..<t.lowerBound]) + "}" }
        return out
    }

    @Test("fieldloc record on the sim board, replayed through the engine and the manager: the same fixes at the same times, the same headings",
          .enabled(if: fieldloc != nil, "needs the built fieldloc (swift build --product fieldloc, or set FIELDLOC_BINARY)"))
    func recordRoundTrip() throws {
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = folder + "/session.nmea"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.fieldloc))
        process.arguments = ["record", "--board", "sim", "--duration", "40s", "--out", log]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let events = try String(contentsOfFile: log + ".events.jsonl", encoding: .utf8)
        let recordedFixes = events.split(separator: "\n").filter { $0.hasPrefix("{\"class\":\"FIX\"") }.map(String.init)
        let recordedHeadings = Self.lines(events, "HEADING")
        #expect(recordedFixes.count >= 30 && recordedHeadings.count >= 100, "\(recordedFixes.count) fixes, \(recordedHeadings.count) headings")

        let board = try Self.board(in: folder, log: "session.nmea")
        #expect(board.replay?.log == log && board.replay?.events == log + ".events.jsonl")
        let unused = try SimulatedPlatform(SimulatedPlatformDescription())
        let platform = try BoardHardware.enginePlatform(for: board, linux: unused)
        let replay = try #require(platform as? ReplayEnginePlatform)
        let engine = LocationEngine(board: board, platform: replay)
        #expect(engine.headingAvailable)
        let start = engine.clock.now()
        let fixes = Collected<String>()
        _ = engine.observe { observation in
            guard case .fix(let fix, let at) = observation else { return }
            let t = FixText.fixed((at - start).secondsDouble, 3)
            fixes.append(String(FixJSON.line(fix).dropLast()) + ",\"t\":\(t)}")
        }
        let manager = LocationManager(engine: engine)
        let recorder = Recorder()
        manager.delegate = recorder
        manager.pausesLocationUpdatesAutomatically = false
        manager.headingFilter = nil
        manager.startUpdatingLocation()
        manager.startUpdatingHeading()
        engine.advance(by: .seconds(45))

        // The engine decodes the same fixes, at the same times after the start.
        let replayed = fixes.items
        #expect(replayed.count == recordedFixes.count)
        #expect(replayed.map(Self.comparable) == recordedFixes.map(Self.comparable))
        let recordedTimes = recordedFixes.compactMap { line in line.range(of: "\"t\":").map { String(line[$0.upperBound...].dropLast()) } }
        let replayedTimes = replayed.compactMap { line in line.range(of: "\"t\":").map { String(line[$0.upperBound...].dropLast()) } }
        #expect(replayedTimes == recordedTimes)

        // The manager delivers the recorded positions, each at its recorded time, in order (two fixes
        // read at one instant are one delivery, as they were live); and every recorded heading.
        let recordedPositions = Self.lines(events, "FIX").compactMap { o -> (t: String, lat: Double, lon: Double)? in
            guard let lat = o["lat"] as? Double, let lon = o["lon"] as? Double, let t = o["t"] as? Double else { return nil }
            return (FixText.fixed(t, 3), lat, lon)
        }
        let delivered = recorder.locations
        let instants = Set(recordedPositions.map(\.t)).count
        #expect(delivered.count == instants, "\(delivered.count) locations for \(instants) instants with a position")
        var cursor = 0
        for location in delivered {
            let t = FixText.fixed((location.receivedAt - start).secondsDouble, 3)
            guard let match = recordedPositions[cursor...].firstIndex(where: {
                $0.t == t && abs($0.lat - location.latitude) < 1e-9 && abs($0.lon - location.longitude) < 1e-9
            }) else {
                Issue.record("a location at \(t) s (\(location.latitude), \(location.longitude)) matches no later recorded fix")
                break
            }
            cursor = match + 1
        }
        #expect(recorder.errors.isEmpty, "\(recorder.errors)")
        #expect(delivered.allSatisfy { $0.provenance == .replay })
        let headings = recorder.headings
        #expect(headings.map { FixText.fixed($0.magneticHeading, 2) } == recordedHeadings.map { FixText.fixed(($0["magnetic"] as? Double) ?? -1, 2) })
        #expect(headings.map(\.quality.rawValue) == recordedHeadings.map { ($0["quality"] as? String) ?? "" })
        manager.stopUpdatingLocation()
        manager.stopUpdatingHeading()
    }

    @Test("A recording is read with its reads' timing; a bad events line names the file and line; [replay] is checked")
    func recordingsAreChecked() throws {
        let raw = Array("$GPGGA,1*00\r\n$GPRMC,2*00\r\n".utf8)
        let good = """
        {"class":"CHUNK","t":0.5,"offset":0,"length":13}
        {"class":"HEADING","t":0.6,"magnetic":12.5,"true":15.25,"accuracy":3,"quality":"good"}
        {"class":"CHUNK","t":1.5,"offset":13,"length":13}
        {"class":"PPS","t":1.6,"utc":1777593601,"edge":1.0,"nmea_delay":0.2}
        """
        let session = try RecordedSession.parse(raw: raw, events: good, eventsFile: "s.events.jsonl")
        #expect(session.chunks.map(\.t) == [0.5, 1.5] && session.chunks.map(\.bytes.count) == [13, 13])
        #expect(session.headings.first?.trueHeading == 15.25 && session.pulses.first?.utc == 1_777_593_601)
        #expect(session.duration == 1.6)
        let cases: [(String, String)] = [
            ("{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":3,\"length\":13}", "s.events.jsonl:1: CHUNK: offset 3"),
            ("{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":99}", "s.events.jsonl:1: CHUNK: length 99"),
            ("{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":13}\nnot json", "s.events.jsonl:2: not a JSON object"),
            ("{\"class\":\"HEADING\",\"t\":0.5,\"magnetic\":1,\"quality\":\"great\"}", "s.events.jsonl:1: HEADING: key 'quality'"),
            ("{\"class\":\"CHUNK\",\"t\":2,\"offset\":0,\"length\":13}\n{\"class\":\"CHUNK\",\"t\":1,\"offset\":13,\"length\":13}",
             "s.events.jsonl:2: CHUNK: t = 1.0 goes back"),
            ("{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":13}", "s.events.jsonl: its CHUNK lines cover 13 of the log's 26 bytes"),
        ]
        expectRefused(raw: raw, cases)
        // The engine plays the bytes at their times on the manual clock.
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(raw).write(to: URL(fileURLWithPath: folder + "/s.nmea"))
        try good.write(toFile: folder + "/s.nmea.events.jsonl", atomically: true, encoding: .utf8)
        let board = try Self.board(in: folder, log: "s.nmea")
        let engine = LocationEngine(board: board, platform: try ReplayEnginePlatform(board: board))
        let start = engine.clock.now()
        let reads = Collected<(Double, Int)>()
        let clock = engine.clock
        _ = engine.observe { o in if case .bytes(let b) = o { reads.append(((clock.now() - start).secondsDouble, b.count)) } }
        let client = engine.register(name: "t") { _ in }.id
        engine.update(client) { $0.updatingLocation = true }
        engine.advance(by: .seconds(3))
        #expect(reads.items.map(\.1) == [13, 13])
        #expect(reads.items.map { FixText.fixed($0.0, 1) } == ["0.5", "1.5"])
        #expect(engine.lastHeading?.trueHeading == 15.25)
        // [replay] with [sim], on a real board, or with an unknown key is refused with the key.
        let bad = [
            "name = \"x\"\ntitle = \"x\"\nsimulated = false\n[receiver]\nuart = \"/dev/ttyS0\"\nbaud = 9600\nfamily = \"ublox\"\n[replay]\nlog = \"a\"\n",
            "name = \"x\"\ntitle = \"x\"\nsimulated = true\n[sim]\nlatitude = 1\nlongitude = 2\n[replay]\nlog = \"a\"\n",
            "name = \"x\"\ntitle = \"x\"\nsimulated = true\n[replay]\nlog = \"a\"\nspeed = 2\n",
        ]
        for text in bad {
            #expect(throws: BoardError.self) { try BoardLoader.load(text: text, file: "x.toml") }
        }
    }
}

/// Values collected from the engine's thread.
final class Collected<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []
    func append(_ element: Element) { lock.withLock { storage.append(element) } }
    var items: [Element] { lock.withLock { storage } }
}
