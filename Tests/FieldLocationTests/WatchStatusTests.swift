import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
import Foundation
import GPSDProtocol
import LocationServices
import Synchronization
import SimulatedHardware
import Testing

@Suite("fieldloc watch: fix loss and recovery as STATUS lines, and the update interval")
struct WatchStatusTests {
    @Test("a 20 s outage on the sim board prints the loss (mode 1) and the recovery before the next fix")
    func outage() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let simulated = try BoardHardware.simulatedBoard(for: board)
        simulated.receiver.addSkyOutage(from: 30, seconds: 20)
        var watch = BoardWatch(board: board, platform: SimulatedEnginePlatform(platform: simulated.platform, receiver: simulated.receiver))
        watch.headingRate = 0
        var lines: [String] = []
        _ = try watch.run(duration: .seconds(90)) { lines.append($0) }
        let statuses = lines.filter { $0.hasPrefix(#"{"class":"STATUS""#) }
        #expect(statuses.count == 2, "\(statuses)")
        let lost = try #require(statuses.first)
        #expect(lost.contains(#""status":"fix lost","mode":1,"transient":true"#), "\(lost)")
        #expect(lost.contains("no usable fix for 10 s"), "\(lost)")
        let recovered = try #require(lines.firstIndex { $0.contains(#""status":"fix recovered""#) })
        #expect(lines[recovered].contains(#""diagnostic":"fix recovered after "#), "\(lines[recovered])")
        // The diagnostic flags: the loss says locationUnavailable, the recovery none, with the fix type.
        #expect(lost.hasSuffix(#","flags":["locationUnavailable"]}"#), "\(lost)")
        #expect(lines[recovered].hasSuffix(#","flags":[]}"#) && lines[recovered].contains(#""fix_type":""#), "\(lines[recovered])")
        let outage = try #require(lines[recovered].split(separator: ",").first { $0.hasPrefix(#""outage_s":"#) })
        let seconds = try #require(Double(outage.dropFirst(#""outage_s":"#.count)))
        #expect(seconds >= 20 && seconds <= 23, "\(outage)")
        // Fixes with a position come again right after the recovery.
        #expect(lines[recovered + 1].hasPrefix(#"{"class":"FIX""#), "\(lines[recovered + 1])")
        #expect(try #require(lines.firstIndex(of: lost)) < recovered)
    }

    @Test("an interval of 300 s prints one fix each five minutes")
    func interval() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let simulated = try BoardHardware.simulatedBoard(for: board)
        var watch = BoardWatch(board: board, platform: SimulatedEnginePlatform(platform: simulated.platform, receiver: simulated.receiver))
        watch.headingRate = 0
        watch.updateInterval = 300
        var lines: [String] = []
        let summary = try watch.run(duration: .seconds(1200)) { lines.append($0) }
        #expect(summary.fixes == 4, "\(lines.filter { $0.hasPrefix(#"{"class":"FIX""#) })")
        #expect(!lines.contains { $0.contains(#""class":"STATUS""#) })
    }

    @Test("during the outage the gpsd socket's TPV says mode 1 before standard updates report the loss, and mode 3 again at the recovery")
    func gpsdModeAgrees() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let engine = try LocationEngine.simulated(board: board)
        try #require(engine.simulatedReceiver).addSkyOutage(from: 30, seconds: 20)
        let seen = Mutex<[(at: Double, line: String)]>([])
        let observer = engine.observe { o in
            if case .fix(let fix, let at) = o { seen.withLock { $0.append((at.seconds, "TPV " + GPSDReport.tpv(fix))) } }
        }
        defer { engine.removeObserver(observer) }
        let client = engine.register(name: "test") { event in
            switch event {
            case .error(let e) where e.isFixLoss: seen.withLock { $0.append((engine.clock.now().seconds, "LOST")) }
            case .locations(let l): seen.withLock { $0.append(contentsOf: l.map { ($0.receivedAt.seconds, "LOCATION") }) }
            default: break
            }
        }.id
        defer { engine.unregister(client) }
        engine.update(client) { s in
            s.updatingLocation = true
            s.pausesAutomatically = false
        }
        engine.advance(by: .seconds(70))
        let events = seen.withLock { $0 }
        let lost = try #require(events.firstIndex { $0.line == "LOST" })
        // Every TPV between the last location before the loss and the loss itself is mode 1.
        let lastBefore = try #require(events[..<lost].lastIndex { $0.line == "LOCATION" })
        let between = events[(lastBefore + 1)..<lost].filter { $0.line.hasPrefix("TPV") }
        #expect(between.count >= 9, "\(between.count) epochs before the loss")
        #expect(between.allSatisfy { $0.line.contains(#""mode":1"#) })
        // The first location after the loss comes with a mode 3 TPV, at the end of the outage.
        let back = try #require(events[lost...].firstIndex { $0.line == "LOCATION" })
        let tpv = try #require(events[..<back].last { $0.line.hasPrefix("TPV") })
        #expect(tpv.line.contains(#""mode":3"#), "\(tpv.line)")
        #expect(events[back].at >= 50)
    }
}
