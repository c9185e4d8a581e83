import BoardConfig
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LocationServices
import NMEA
import SimulatedHardware
import Testing

/// PPS on a simulated board with a PPS line: pulses pair with the fixes of their second, and a
/// missing or stuck line degrades the time status visibly.
@Suite struct PPSTests {
    /// The sim board with a PPS line; `receiver` replaces its receiver's family and model lines.
    func ppsBoard(receiver: String? = nil) throws -> (LocationEngine, SimulatedGPIOLine) {
        var text = (BoardCatalog.text(ofBuiltin: "sim") ?? "")
            .replacingOccurrences(of: "name = \"sim\"", with: "name = \"sim-pps\"")
        if let receiver {
            text = text.replacingOccurrences(of: "family = \"mtk\"\nmodel = \"MT3339 (simulated)\"", with: receiver)
            #expect(text.contains(receiver))
        }
        text = text
            .replacingOccurrences(of: "[setup]", with: "[gpio]\nchip = \"gpiochip0\"\ngnss_pps = \"gnss-pps\"\n\n[setup]")
        let board = try BoardLoader.load(text: text, file: "sim-pps.toml")
        let clock = ManualClock()
        let engine = try LocationEngine.simulated(board: board, clock: clock)
        let line = try #require(engine.simulatedPlatform?.gpioChip(named: "gpiochip0")?.line(named: "gnss-pps"))
        // The receiver's epochs are at whole seconds of the clock; its pulse leads each by nothing.
        line.schedulePulses(GPIOPulseTrain(start: clock.now().advanced(by: .seconds(1))))
        return (engine, line)
    }

    @Test func pulsesPairWithTheirSecondAndTheStatusLocks() throws {
        let (engine, _) = try ppsBoard()
        final class Box: @unchecked Sendable { var samples: [PPSSample] = []; var fixes: [Double] = [] }
        let box = Box()
        _ = engine.observe { o in
            if case .pps(let s) = o { box.samples.append(s) }
            if case .fix(let f, _) = o, let t = f.time { box.fixes.append(t.secondsSinceEpoch) }
        }
        let monitor = StatusMonitor(engine: engine)
        engine.advance(by: .seconds(20))
        #expect(engine.ppsStatus == .locked)
        #expect(box.samples.count >= 17, "\(box.samples.count) pairings in 20 s")
        for sample in box.samples {
            // Each pulse is paired with the fix of the second it starts, which arrives after it.
            #expect(box.fixes.contains(Double(sample.utcSecond)))
            #expect(sample.nmeaArrival >= sample.edge)  // the simulated port delivers an epoch at its instant
            #expect((sample.nmeaArrival - sample.edge).secondsDouble < 1)
        }
        #expect(StatusView.text(monitor.snapshot()).contains("PPS locked"))
    }

    @Test func aStuckLineDegradesTheTimeStatus() throws {
        let (engine, line) = try ppsBoard()
        let monitor = StatusMonitor(engine: engine)
        engine.advance(by: .seconds(10))
        #expect(engine.ppsStatus == .locked)
        line.setStuck(true)
        engine.advance(by: .seconds(5))
        guard case .missing(let seconds, _) = engine.ppsStatus else {
            Issue.record("status \(engine.ppsStatus) with the line stuck")
            return
        }
        #expect(seconds >= 3)
        #expect(monitor.snapshot().warnings.contains { $0.contains("PPS: no pulse") })
        line.setStuck(false)
        engine.advance(by: .seconds(3))
        #expect(engine.ppsStatus == .locked)
    }

    @Test("a fix paired with a pulse carries the pulse's datasheet accuracy as its time accuracy, unless the receiver stated its own")
    func pulseTimeAccuracy() throws {
        // A u-blox unit speaking NMEA (no NAV-PVT tAcc): u-blox states its pulse as RMS 30 ns.
        let (ublox, _) = try ppsBoard(receiver: "family = \"ublox\"\nmodel = \"NEO-M8N (simulated)\"\noutput = \"nmea\"")
        final class Box: @unchecked Sendable {
            var paired: Set<Int64> = []
            var fixes: [Fix] = []
        }
        let box = Box()
        _ = ublox.observe { o in
            if case .pps(let s) = o { box.paired.insert(s.utcSecond) }
            if case .fix(let f, _) = o { box.fixes.append(f) }
        }
        // A client keeps the receiver tracking (with none the policy idles it); a cold start of the
        // emulated M8 takes its datasheet's 26 s or so.
        let client = ublox.register(name: "t") { _ in }.id
        ublox.update(client) { $0.updatingLocation = true }
        ublox.advance(by: .seconds(60))
        #expect(ublox.ppsStatus == .locked)
        let located = try #require(ublox.lastLocation)
        let second = try #require(located.timestamp)
        #expect(box.paired.contains(Int64(second)), "the last location's second \(second) was paired with a pulse")
        #expect(located.timeAccuracySource == .pps)
        #expect(located.timeAccuracy.map { abs($0 - 30e-9) < 1e-15 } == true, "\(String(describing: located.timeAccuracy))")
        // The socket's JSON carries it and reads it back; NMEA's UTC has no leap-second count.
        let back = try JSONDecoder().decode(Location.self, from: JSONEncoder().encode(located))
        #expect(back.timeAccuracySource == .pps && back.timeAccuracy == located.timeAccuracy)
        #expect(located.leapSeconds == nil)
        // The raw fix observers get (gpsd's TPV is made from it) carries the pulse's figure too, so
        // its `ept` is the pulse's 30 ns rather than gpsd's 5 ms.
        let wanted = Int64(second)
        let raw = try #require(box.fixes.last { (f: Fix) -> Bool in
            guard let time = f.time else { return false }
            return Int64(time.secondsSinceEpoch) == wanted
        })
        let measured = try #require(Location.timeAccuracy(of: raw))
        #expect(measured.source == .pps && measured.seconds == located.timeAccuracy)

        // The MT3339's datasheet states no pulse accuracy: no figure is made up.
        let (mtk, _) = try ppsBoard()
        let other = mtk.register(name: "t") { _ in }.id
        mtk.update(other) { $0.updatingLocation = true }
        mtk.advance(by: .seconds(60))
        #expect(mtk.ppsStatus == .locked)
        let plain = try #require(mtk.lastLocation)
        #expect(plain.timeAccuracySource != .pps)

        // The receiver's own figure wins over the pulse's.
        var own = located
        own.timeAccuracy = 2e-8
        own.timeAccuracySource = .receiver
        own.notePulse(pulseAccuracy: 30e-9, edgeErrorNanoseconds: 500)
        #expect(own.timeAccuracySource == .receiver && own.timeAccuracy == 2e-8)
        // A GPIO edge's conversion error adds to the pulse's: sqrt(30² + 40²) = 50 ns.
        var gst = located
        gst.timeAccuracySource = .gst
        gst.notePulse(pulseAccuracy: 30e-9, edgeErrorNanoseconds: 40)
        #expect(gst.timeAccuracySource == .pps && gst.timeAccuracy.map { abs($0 - 50e-9) < 1e-15 } == true)
    }

    @Test func boardsWithoutALineSaySo() throws {
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"))
        #expect(engine.ppsStatus == .none)
    }
}
