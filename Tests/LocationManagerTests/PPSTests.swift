import BoardConfig
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LocationServices
import SimulatedHardware
import Testing

/// PPS on a simulated board with a PPS line: pulses pair with the fixes of their second, and a
/// missing or stuck line degrades the time status visibly.
@Suite struct PPSTests {
    func ppsBoard() throws -> (LocationEngine, SimulatedGPIOLine) {
        let text = (BoardCatalog.text(ofBuiltin: "sim") ?? "")
            .replacingOccurrences(of: "name = \"sim\"", with: "name = \"sim-pps\"")
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

    @Test func boardsWithoutALineSaySo() throws {
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"))
        #expect(engine.ppsStatus == .none)
    }
}
