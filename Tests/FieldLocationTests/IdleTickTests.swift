import BoardConfig
import EnginePlatforms
@testable import FieldLocation
import HardwareInterfaces
import LocationServices
import PowerPolicy
import SimulatedHardware
import Synchronization
import Testing

/// The engine's tick with nothing demanded: on the built-in `sim` board and a manual clock, an
/// engine with no client ticks only at its deadlines (no tick a second), and a change in the
/// clients' demand ticks at once. Time is the manual clock's: an hour runs in a moment.
@Suite("Idle engine: no tick without demand")
struct IdleTickTests {
    /// The `sim` board's engine on a manual clock, with its simulated receiver.
    static func engine() throws -> (LocationEngine, ReceiverEmulator) {
        let board = try BoardCatalog.load(builtin: "sim")
        let engine = try LocationEngine.simulated(board: board)
        return (engine, try #require(engine.simulatedReceiver))
    }

    /// Runs `engine` from start-up until it has settled with no client (receiver asleep, no tick
    /// of its own), and a little past a whole second so that a tick a second would not fall on
    /// the instant the caller looks next.
    static func settle(_ engine: LocationEngine) {
        engine.advance(by: .seconds(30))
        engine.advance(by: .milliseconds(500))
    }

    @Test("with no client, an hour passes without a tick: the receiver sleeps, its charge still counts")
    func idleHour() throws {
        let (engine, receiver) = try Self.engine()
        Self.settle(engine)
        let decision = try #require(engine.decision)
        guard case .idle = decision.receiver else {
            Issue.record("no client: the receiver idles, decided \(decision.receiver)")
            return
        }
        #expect(receiver.powerState == .backup || receiver.powerState == .standby || receiver.powerState == .off,
                "the receiver sleeps (\(receiver.powerState))")
        let before = engine.statistics
        let ledger = engine.energyUsed.totalCharge
        engine.advance(by: .seconds(3600))
        let after = engine.statistics
        // A tick a second would be 3,600 (the motion latch is read every 5 s without one).
        #expect(after.ticks == before.ticks, "ticks in an idle hour: \(after.ticks - before.ticks)")
        #expect(after.modeChanges == before.modeChanges)
        #expect(engine.energyUsed.totalCharge > ledger, "the sleeping receiver's charge still counts")
    }

    @Test("a client's demand ticks at once, not at the next second; its locations flow; when it leaves the ticks stop again")
    func demandWakes() throws {
        let (engine, receiver) = try Self.engine()
        Self.settle(engine)
        let ticks = engine.statistics.ticks
        let fixes = Mutex(0)
        let id = engine.register(name: "c") { event in
            if case .locations(let batch) = event { fixes.withLock { $0 += batch.count } }
        }.id
        engine.update(id) { $0.updatingLocation = true }
        // 10 ms of engine time: a tick a second would not come before 500 ms.
        engine.advance(by: .milliseconds(10))
        #expect(engine.statistics.ticks == ticks + 1, "the registration and the service's start: one tick, at once")
        let decision = try #require(engine.decision)
        if case .idle = decision.receiver { Issue.record("the client's demand reached the policy: \(decision.receiver)") }
        #expect(receiver.powerState != .backup && receiver.powerState != .off, "the receiver was woken (\(receiver.powerState))")
        // While the client runs, the engine ticks every second.
        engine.advance(by: .seconds(60))
        #expect(engine.statistics.ticks >= ticks + 1 + 59)
        #expect(fixes.withLock { $0 } > 0, "locations reach the client")

        engine.unregister(id)
        engine.advance(by: .milliseconds(10))
        if case .idle = try #require(engine.decision).receiver {} else {
            Issue.record("the last client left: the receiver idles at once")
        }
        engine.advance(by: .seconds(10))
        let quiet = engine.statistics.ticks
        engine.advance(by: .seconds(600))
        #expect(engine.statistics.ticks == quiet, "idle again: \(engine.statistics.ticks - quiet) ticks in 10 minutes")
    }

    @Test("a one-shot request and a region are demands: each ticks at once and keeps the ticks coming until it ends")
    func requestAndRegion() throws {
        let (engine, _) = try Self.engine()
        Self.settle(engine)
        let id = engine.register(name: "c") { _ in }.id
        engine.advance(by: .milliseconds(10))
        let ticks = engine.statistics.ticks
        engine.requestLocation(id, timeout: .seconds(5))
        engine.advance(by: .milliseconds(10))
        #expect(engine.statistics.ticks == ticks + 1)
        // The request ends (answered or timed out) within its timeout; then the engine is idle again.
        engine.advance(by: .seconds(20))
        let afterRequest = engine.statistics.ticks
        #expect(afterRequest >= ticks + 5, "ticks while the request ran: \(afterRequest - ticks)")
        engine.advance(by: .seconds(300))
        #expect(engine.statistics.ticks == afterRequest, "idle again after the request")

        let region = CircularRegion(identifier: "home", latitude: 47.3769, longitude: 8.5417, radius: 200)
        #expect(engine.startMonitoring(id, region) == nil)
        let before = engine.statistics.ticks
        engine.advance(by: .milliseconds(10))
        #expect(engine.statistics.ticks == before + 1)
        engine.advance(by: .seconds(30))
        #expect(engine.statistics.ticks >= before + 30, "a monitored region keeps the engine ticking")
    }

    @Test("every change to the clients' demand is signalled; queries and observers are not")
    func registrySignals() throws {
        let count = Atomic<Int>(0)
        let registry = ClientRegistry(stateDirectory: nil, demandChanged: { count.add(1, ordering: .relaxed) })
        func signals(_ body: () -> Void) -> Int {
            let before = count.load(ordering: .relaxed)
            body()
            return count.load(ordering: .relaxed) - before
        }
        var id = 0
        #expect(signals { id = registry.register(name: "c", persistentName: nil) { _ in }.id } == 1)
        #expect(signals { registry.update(id) { $0.updatingLocation = true } } == 1)
        #expect(signals { registry.requestLocation(id, now: .zero, timeout: .seconds(5)) } == 1)
        #expect(signals { registry.cancelRequest(id) } == 1)
        let region = CircularRegion(identifier: "r", latitude: 47, longitude: 8, radius: 100)
        #expect(signals { _ = registry.startMonitoring(id, region) } == 1)
        #expect(signals { _ = registry.stopMonitoring(id, identifier: "r") } == 1)
        #expect(signals { _ = registry.stopMonitoring(id, identifier: "r") } == 0, "nothing removed, nothing changed")
        #expect(signals {
            _ = registry.services(id)
            _ = registry.monitoredRegions(id)
            let observer = registry.observe { _ in }
            registry.removeObserver(observer)
        } == 0)
        #expect(signals { registry.unregister(id) } == 1)
        #expect(signals { registry.unregister(id) } == 0, "an unknown client changes nothing")
    }
}
