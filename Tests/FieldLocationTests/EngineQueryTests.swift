import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
@testable import FieldLocation
import Foundation
import HardwareInterfaces
import Heading
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Testing

/// A real board's engine runs forever on its own thread; the status readout and the daemon ask it
/// questions and change its settings from other threads meanwhile. None of that may wait for the
/// loop to end.
@Suite("Engine queries while a real-time loop runs", .serialized)
struct EngineQueryTests {
    /// Runs `body` on another thread and says whether it finished within `seconds`.
    static func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread { body(); done.signal() }.start()
        return done.wait(timeout: .now() + seconds) == .success
    }

    @Test("status queries answer and settings take effect while the loop runs, from other threads")
    func queriesDoNotWaitForTheLoop() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let sim = try BoardHardware.simulatedBoard(for: board)
        let engine = LocationEngine(board: board, platform: SimulatedPlatformVariant(SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver), pacing: .realTime))
        let client = engine.register(name: "status", sink: { _ in }).id
        engine.update(client) { $0.updatingLocation = true }
        engine.runInBackground()
        defer { engine.stop() }
        // Let the loop start and hold its lock.
        Thread.sleep(forTimeInterval: 0.2)
        let answered = Self.finishes(within: 5) {
            for _ in 0..<20 {
                _ = engine.hardwareProblem
                _ = engine.ppsStatus
                _ = engine.energyUsed
                _ = engine.receiverFailures
                _ = engine.controlsReceiver
                _ = engine.calibration
            }
        }
        #expect(answered, "a status query waited for the run loop")
        var stored = MagnetometerCalibration.identity
        stored.offset = Vector3(1, 2, 3)
        let calibration = stored
        let set = Self.finishes(within: 5) {
            engine.calibration = calibration
            engine.watchdogTimeout = .seconds(9)
        }
        #expect(set, "a setting waited for the run loop")
        #expect(engine.calibration == calibration && engine.watchdogTimeout == .seconds(9))
        // The loop applies them at its next step, and then publishes the sensors' own value.
        let applied = Self.finishes(within: 5) {
            while !engine.published.withLock({ $0.pendingSettings.isEmpty }) { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(engine.published.withLock { $0.state.calibration } == calibration)
        engine.stop()
        #expect(applied)
        engine.unregister(client)
    }
}
