import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import PowerPolicy
import SimulatedHardware
import Testing

/// The async surfaces over the same engine: a sequence holds demand while it is iterated.
@Suite struct AsyncTests {
    @Test func locationSequenceDeliversAndEndingItReleasesTheHardware() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 900, speed: 1.4, course: 0)])
        let updates = try engine.locationUpdates(LocationRequest(desiredAccuracy: .best))
        #expect(engine.clientCount == 1)
        engine.advance(by: .seconds(60))
        var received: [Location] = []
        for await update in updates {
            if case .locations(let l) = update { received += l }
            if received.count >= 20 { break }
        }
        #expect(received.count == 20)
        for (a, b) in zip(received, received.dropFirst()) { #expect(a.receivedAt < b.receivedAt) }
        // The iteration ended: the client is gone and the next tick idles the receiver.
        #expect(engine.clientCount == 0)
        engine.advance(by: .seconds(3))
        #expect(engine.decision?.receiver == .idle(.backup))
    }

    @Test func cancellingTheConsumingTaskStopsTheService() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 900, speed: 1.4, course: 0)])
        let headings = engine.headingUpdates(filter: nil)
        let task = Task { var n = 0; for await _ in headings { n += 1 }; return n }
        engine.advance(by: .seconds(2))
        task.cancel()
        let count = await task.value
        #expect(count >= 10)
        #expect(engine.clientCount == 0)
    }

    @Test func regionAndVisitSequences() async throws {
        let (engine, _, track) = try simEngine([.init(duration: 600, speed: 1.4, course: 90), .init(duration: 60, speed: 0, course: 90)])
        let centre = track.at(300)
        let events = try engine.regionEvents([CircularRegion(identifier: "mid", latitude: centre.latitude, longitude: centre.longitude, radius: 80)])
        #expect(throws: LocationError.self) { try engine.regionEvents([CircularRegion(identifier: "bad", latitude: 0, longitude: 0, radius: -1)]) }
        engine.advance(by: .seconds(660))
        var kinds: [RegionEvent.Kind] = []
        for await e in events {
            kinds.append(e.kind)
            if kinds.count == 3 { break }
        }
        #expect(kinds == [.determined(.outside), .enter, .exit])
    }

    @Test func sessionsHoldDemandWhileTheyLive() throws {
        let (engine, _, _) = try simEngine([.init(duration: 900, speed: 1.4, course: 0)])
        var session: LocationSession? = try engine.session(LocationRequest(desiredAccuracy: .best))
        engine.advance(by: .seconds(20))
        #expect(engine.decision?.receiver == .continuous(rate: 1))
        #expect(session != nil)
        session = nil
        engine.advance(by: .seconds(3))
        #expect(engine.decision?.receiver == .idle(.backup))
        #expect(engine.clientCount == 0)
    }

    @Test func delegateCallbacksRunOnTheChosenActorInOrder() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 900, speed: 1.4, course: 0)])
        let collector = Collector()
        let recorder = ActorRecorder(collector: collector)
        let manager = LocationManager(engine: engine, delivery: .actor(collector))
        manager.delegate = recorder
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(60))
        var count = 0
        for _ in 0..<400 where count < 50 { try await Task.sleep(for: .milliseconds(5)); count = await collector.locations.count }
        let locations = await collector.locations
        #expect(locations.count >= 50)
        for (a, b) in zip(locations, locations.dropFirst()) { #expect(a.receivedAt < b.receivedAt) }
    }
}

actor Collector {
    var locations: [Location] = []
    func add(_ l: [Location]) { locations += l }
}

/// Runs on the collector's executor (the manager's delivery target), so it may touch its state synchronously.
final class ActorRecorder: LocationManagerDelegate, Sendable {
    let collector: Collector
    init(collector: Collector) { self.collector = collector }
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {
        collector.assumeIsolated { $0.add(locations) }
    }
}
