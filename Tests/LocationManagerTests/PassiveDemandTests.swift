import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import PowerPolicy
import SimulatedHardware
import Testing

/// Passive clients (Android's `PRIORITY_PASSIVE`) and the energy each client's demand costs, on the
/// `sim` board with the manual clock.
@Suite("passive demand and energy per client")
struct PassiveDemandTests {
    static let walk: [Trajectory.Leg] = [.init(duration: 900, speed: 1.4, course: 0)]

    @Test("a passive client alone keeps the receiver off and gets no fix; made active, it gets them")
    func passiveAlone() throws {
        let (engine, manager, recorder, _, _) = try managed(Self.walk)
        manager.passive = true
        manager.startUpdatingLocation()
        for _ in 0..<12 {
            engine.advance(by: .seconds(10))
            #expect(engine.decision?.receiver == .idle(.backup), "\(String(describing: engine.decision))")
        }
        #expect(recorder.locations.isEmpty)
        #expect(recorder.errors.isEmpty, "\(recorder.errors)")
        // The same client asking actively: the receiver runs and fixes come.
        manager.passive = false
        engine.advance(by: .seconds(120))
        #expect(engine.decision?.receiver != .idle(.backup))
        #expect(!recorder.locations.isEmpty)
    }

    @Test("a passive sequence alone gets nothing and adds no demand")
    func passiveSequence() async throws {
        let (engine, _, _) = try simEngine(Self.walk)
        let updates = try engine.locationUpdates(LocationRequest(desiredAccuracy: .best, maximumUpdates: 1, passive: true))
        engine.advance(by: .seconds(120))
        #expect(engine.decision?.receiver == .idle(.backup), "\(String(describing: engine.decision))")
        // An active session beside it: the sequence's one update comes, then it ends.
        let session = try engine.session(LocationRequest(desiredAccuracy: .best))
        engine.advance(by: .seconds(120))
        var locations = 0
        for await update in updates { if case .locations(let l) = update { locations += l.count } }
        #expect(locations == 1)
        withExtendedLifetime(session) {}
    }

    @Test("beside an active client a passive one gets the same fixes; when the active one stops, so do they")
    func passiveBesideActive() throws {
        let (engine, passiveManager, passive, _, _) = try managed(Self.walk)
        passiveManager.passive = true
        passiveManager.startUpdatingLocation()
        let active = LocationManager(engine: engine, name: "fleet")
        let activeRecorder = Recorder()
        active.delegate = activeRecorder
        active.startUpdatingLocation()
        engine.advance(by: .seconds(120))
        #expect(activeRecorder.locations.count >= 30, "\(activeRecorder.locations.count)")
        #expect(passive.locations.count == activeRecorder.locations.count)
        #expect(passive.locations.map(\.timestamp) == activeRecorder.locations.map(\.timestamp))
        active.stopUpdatingLocation()
        engine.advance(by: .seconds(5))
        let count = passive.locations.count
        engine.advance(by: .seconds(120))
        #expect(engine.decision?.receiver == .idle(.backup), "\(String(describing: engine.decision))")
        #expect(passive.locations.count == count)
        #expect(passive.errors.isEmpty, "a passive client is told of no fix loss: \(passive.errors)")
    }

    @Test("energy by client: the active client pays, the passive one 0, the accounts sum to the total; status shows them")
    func energyByClient() throws {
        let (engine, passiveManager, _, _, _) = try managed(Self.walk)
        passiveManager.passive = true
        passiveManager.startUpdatingLocation()
        let active = LocationManager(engine: engine, name: "fleet")
        active.startUpdatingLocation()
        engine.advance(by: .seconds(300))
        active.stopUpdatingLocation()
        engine.advance(by: .seconds(60))
        let accounts = engine.energyByClient
        let total = engine.energyUsed.totalCharge
        #expect(total > 0)
        let sum = accounts.reduce(0) { $0 + $1.charge }
        #expect(abs(sum - total) <= 1e-9 * max(1, total), "\(accounts) sum \(sum) total \(total)")
        let fleet = accounts.filter { $0.client.hasPrefix("fleet#") }
        let passive = accounts.filter { $0.client.hasPrefix("default#") }
        #expect(fleet.count == 1 && passive.count == 1, "\(accounts)")
        #expect((fleet.first?.charge ?? 0) > 0.5 * total, "\(accounts)")
        #expect(passive.first?.charge == 0, "\(accounts)")

        let monitor = StatusMonitor(engine: engine, demand: false)
        let snapshot = monitor.snapshot()
        let text = StatusView.text(snapshot)
        #expect(text.contains("by client: \(fleet.first?.client ?? "?")"), "\(text)")
        #expect(text.contains("\(passive.first?.client ?? "?") 0.000 mAh"), "\(text)")
        #expect(StatusView.json(snapshot).contains("\"energy_by_client\":[{\"client\":"))
    }
}
