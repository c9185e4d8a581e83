import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationClient
import FieldLocationDaemon
import FieldLocationWire
import Foundation
import LocationAPI
import LocationServices
import NMEA
import SimulatedHardware
import Synchronization
import Testing

/// Passive clients outside the process: the gpsd watchers' engine client under the board key
/// `gpsd_clients = "passive"` (on the manual clock), and a passive manager over the client socket.
@Suite("passive clients of the daemon")
struct PassiveClientsTests {
    /// Runs a gpsd feed over the `sim` board with `gpsdClients`, one watcher from the start, for
    /// `seconds` of the manual clock (with an active session in the process from `activeFrom`);
    /// returns the position fixes the watchers were handed before and after `activeFrom`.
    static func watch(_ gpsdClients: GPSDClientDemand, seconds: Int, activeFrom: Int? = nil) throws
        -> (before: Int, after: Int, idleBefore: Bool) {
        var board = try BoardCatalog.load(builtin: "sim")
        board.gpsdClients = gpsdClients
        let clock = ManualClock()
        let engine = try LocationEngine.simulated(board: board, clock: clock, receiverTracking: false)
        let feed = EngineFeed(engine: engine)
        let fixes = Mutex(0)
        feed.start { observation in
            if case .fix(let fix, _) = observation, fix.hasPosition { fixes.withLock { $0 += 1 } }
        }
        feed.demandChanged(GPSDDemand(active: true, heading: false))
        var idleBefore = true
        let split = activeFrom ?? seconds
        for _ in 0..<split {
            engine.advance(by: .seconds(1))
            if case .idle = engine.decision?.receiver {} else { idleBefore = false }
        }
        let before = fixes.withLock { $0 }
        var session: LocationSession?
        if activeFrom != nil {
            session = try engine.session(LocationRequest(desiredAccuracy: .best))
            engine.advance(by: .seconds(Int64(seconds - split)))
        }
        withExtendedLifetime(session) {}
        feed.stop()
        return (before, fixes.withLock { $0 } - before, idleBefore)
    }

    @Test("gpsd_clients = \"passive\": a watcher alone gets no fix and the receiver stays off; beside an active client it gets them")
    func passiveWatchers() throws {
        let passive = try Self.watch(.passive, seconds: 240, activeFrom: 120)
        #expect(passive.idleBefore, "a passive watcher alone adds no demand")
        #expect(passive.before == 0)
        #expect(passive.after >= 30, "\(passive)")
    }

    @Test("the plain sim board: a watcher alone runs the receiver and gets fixes")
    func activeWatchers() throws {
        let active = try Self.watch(.best, seconds: 120)
        #expect(!active.idleBefore)
        #expect(active.before >= 30, "\(active)")
    }

    @Test("a passive manager over the socket adds no demand and gets the fixes another client causes")
    func passiveOverTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let listener = LocationManager(provider: provider, name: "listener")
            let heard = CSRecorder()
            listener.delegate = heard
            listener.passive = true
            listener.startUpdatingLocation()
            #expect(await csWait(seconds: 10) { f.engine.services(f.firstClient() ?? -1)?.passive == true })
            #expect(await csWait(seconds: 10) { if case .idle = f.engine.decision?.receiver { true } else { false } },
                    "\(String(describing: f.engine.decision))")
            let count = heard.locations.count
            try await Task.sleep(for: .milliseconds(600))  // 30 s of the board at 50x
            #expect(heard.locations.count == count, "no fix while nobody else wants the receiver")
            if case .idle = f.engine.decision?.receiver {} else { Issue.record("the receiver runs: \(String(describing: f.engine.decision))") }

            let active = LocationManager(provider: provider, name: "active")
            active.startUpdatingLocation()
            #expect(await csWait(seconds: 10) { heard.locations.count >= count + 5 }, "\(heard.events)")
            #expect(f.engine.decision?.governingClient?.contains("active") == true, "\(String(describing: f.engine.decision))")
        }
    }

    @Test("passive travels in the services line, absent when false, and reads back")
    func codec() throws {
        var services = ClientServices()
        services.updatingLocation = true
        services.passive = true
        let line = String(decoding: try JSONEncoder().encode(services), as: UTF8.self)
        #expect(line.contains("\"passive\":true"), "\(line)")
        #expect(try JSONDecoder().decode(ClientServices.self, from: Data(line.utf8)).passive)
        let plain = String(decoding: try JSONEncoder().encode(ClientServices()), as: UTF8.self)
        #expect(!plain.contains("passive"), "\(plain)")
        #expect(try JSONDecoder().decode(ClientServices.self, from: Data(plain.utf8)).passive == false)
    }
}
