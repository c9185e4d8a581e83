import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import SimulatedHardware
import Testing

/// Faults injected into the simulated hardware under a running manager: each is reported to the
/// client, the engine recovers by itself, and updates resume.
@Suite struct FaultTests {
    func running(_ seconds: Int = 30) throws -> (LocationEngine, LocationManager, Recorder, SimulatedSerialPort) {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 4 * 3600, speed: 1.4, course: 30)], receiverTracking: true)
        manager.startUpdatingLocation()
        manager.startUpdatingHeading()
        engine.advance(by: .seconds(seconds))
        let port = try #require(engine.simulatedPlatform?.serialPort(BoardHardware.simulatedPortName))
        return (engine, manager, recorder, port)
    }

    @Test func uartUnplugIsReportedAndUpdatesResumeWithinTwoSecondsOfReplug() throws {
        let (engine, manager, recorder, port) = try running()
        #expect(!recorder.locations.isEmpty)
        port.unplug()
        engine.advance(by: .seconds(20))
        let unpluggedAt = engine.clock.now()
        #expect(recorder.errors.contains { if case .hardware(.portGone, _) = $0 { return $0.isTransient } else { return false } })
        recorder.clear()
        port.replug()
        engine.advance(by: .seconds(5))
        let first = try #require(recorder.locations.first)
        print("figure: UART replug -> first location after \((first.receivedAt - unpluggedAt).secondsDouble) s")
        #expect((first.receivedAt - unpluggedAt).secondsDouble <= 2.0, "first location \((first.receivedAt - unpluggedAt).secondsDouble) s after the replug")
        #expect(engine.statistics.portFailures >= 1 && engine.statistics.portReopens == 1)
        _ = manager
    }

    @Test func silentReceiverIsWokenThenPowerCycled() throws {
        let (engine, manager, recorder, _) = try running()
        let receiver = try #require(engine.simulatedReceiver)
        // The receiver loses its supply behind the engine's back (a brown-out): it goes silent.
        receiver.setPower(false, at: engine.clock.now())
        recorder.clear()
        engine.advance(by: .seconds(30))
        let messages = recorder.errors.map(\.description)
        #expect(messages.contains { $0.contains("waking the receiver") }, "\(messages)")
        #expect(engine.statistics.watchdogWakes >= 1)
        #expect(engine.statistics.powerCycles >= 1)
        let back = recorder.events.firstIndex { if case .locations = $0 { return true } else { return false } }
        if let back, case .locations(let l) = recorder.events[back], let firstBack = l.first {
            print("figure: silent receiver -> \(engine.statistics.watchdogWakes) wake(s), \(engine.statistics.powerCycles) power cycle(s), locations again \(Int((firstBack.receivedAt - engine.clock.now()).secondsDouble + 30)) s after the brown-out")
        }
        // Updates came back after the power cycle.
        let lastError = try #require(recorder.events.lastIndex { if case .error = $0 { return true } else { return false } })
        #expect(recorder.events[lastError...].contains { if case .locations = $0 { return true } else { return false } })
        _ = manager
    }

    @Test func aBaudChangeIsFoundByAutobaud() throws {
        let (engine, manager, recorder, port) = try running()
        port.setPeerBaudRate(BaudRate(38400)!)
        recorder.clear()
        engine.advance(by: .seconds(30))
        #expect(engine.statistics.autobaudRecoveries == 1)
        print("figure: baud change 9600 -> 38400 found by autobaud; \(engine.statistics.garbageBytes) garbage bytes counted; \(recorder.locations.count) locations in the next 30 s")
        #expect(port.baudRate.rawValue == 38400)
        #expect(engine.statistics.garbageBytes > 0)
        #expect(recorder.locations.count >= 10)
        _ = manager
    }

    @Test func garbageOnTheLineIsCountedAndNothingIsLost() throws {
        let (engine, manager, recorder, port) = try running(5)
        var rng = SplitMix64(seed: 7)
        for _ in 0..<50 {
            port.injectGarbage((0..<200).map { _ in UInt8(min(255, rng.uniform() * 256)) })
            engine.advance(by: .seconds(1))
        }
        #expect(engine.statistics.garbageBytes >= 5_000)
        print("figure: 10,000 random bytes injected -> \(engine.statistics.garbageBytes) garbage bytes, \(engine.statistics.sentencesRejected) sentences rejected, \(recorder.locations.count) locations delivered in the 55 s run")
        #expect(recorder.locations.count >= 45)
        _ = manager
    }

    @Test func sensorNotAcknowledgingIsReportedAndRecovers() throws {
        let (engine, manager, recorder, _) = try running(5)
        // Every heading the engine makes (10 Hz), not only those 1° from the last: the sim board's
        // fused heading of a unit turning at 2 °/s changes by 1° only twice a second.
        manager.headingFilter = nil
        let bus = try #require(engine.simulatedPlatform?.bus(1))
        let mag = try #require(I2CAddress(UInt8(0x1E)))
        bus.inject(.noAcknowledgeAddress, at: mag)
        recorder.clear()
        engine.advance(by: .seconds(10))
        #expect(recorder.errors.contains { if case .hardware(.sensorNotAcknowledging, _) = $0 { return true } else { return false } })
        let during = recorder.headings.count
        #expect(during <= 3, "\(during) headings while the magnetometer does not answer")
        bus.clearFaults(at: mag)
        engine.advance(by: .seconds(10))
        #expect(engine.statistics.sensorReopens >= 1)
        print("figure: magnetometer NACK for 10 s -> \(engine.statistics.sensorFailures) failed reads, \(engine.statistics.sensorReopens) reopen(s), \(recorder.headings.count - during) headings in the 10 s after it answers")
        #expect(recorder.headings.count >= during + 50)
        _ = manager
    }
}
