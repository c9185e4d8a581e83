import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import SimulatedHardware
import Testing

/// Records expiries beside the other callbacks.
final class ExpiryRecorder: LocationManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    /// "enter id", "exit id", "determined id state", "expired id", in order.
    var log: [String] { lock.withLock { storage } }
    private func add(_ s: String) { lock.withLock { storage.append(s) } }
    func locationManager(_ m: LocationManager, didEnterRegion region: CircularRegion, location: Location) { add("enter \(region.identifier)") }
    func locationManager(_ m: LocationManager, didExitRegion region: CircularRegion, location: Location) { add("exit \(region.identifier)") }
    func locationManager(_ m: LocationManager, didDetermineState state: RegionState, for region: CircularRegion) {
        add("determined \(region.identifier) \(state.rawValue)")
    }
    func locationManager(_ m: LocationManager, didExpire region: CircularRegion) { add("expired \(region.identifier)") }
    func locationManager(_ m: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError) {
        add("failed \(region?.identifier ?? "-")")
    }
}

/// A square polygon of side `2 * half` metres about `centre`.
private func squareAround(_ centre: Trajectory.Point, half: Double) -> RegionPolygon {
    let dLat = half / 111_195, dLon = half / (111_195 * cos(centre.latitude * .pi / 180))
    return RegionPolygon(vertices: [GeoPoint(latitude: centre.latitude - dLat, longitude: centre.longitude - dLon),
                                    GeoPoint(latitude: centre.latitude - dLat, longitude: centre.longitude + dLon),
                                    GeoPoint(latitude: centre.latitude + dLat, longitude: centre.longitude + dLon),
                                    GeoPoint(latitude: centre.latitude + dLat, longitude: centre.longitude - dLon)])
}

@Suite struct PolygonRegionManagerTests {
    @Test func walkThroughAPolygonGivesOneEnterAndOneExitAndARecord() throws {
        // 10 minutes east at 1.4 m/s on the sim board; a 200 m square centred 420 m east.
        let (engine, _, track) = try simEngine([.init(duration: 600, speed: 1.4, course: 90), .init(duration: 60, speed: 0, course: 90)])
        let manager = LocationManager(engine: engine)
        let recorder = ExpiryRecorder()
        manager.delegate = recorder
        manager.startMonitoring(identifier: "paddock", polygon: squareAround(track.at(300), half: 100))
        #expect(manager.monitoredRegions.first?.isPolygon == true)
        engine.advance(by: .seconds(660))
        #expect(recorder.log == ["determined paddock outside", "enter paddock", "exit paddock"])
        let record = try #require(manager.record(for: "paddock"))
        #expect(record.lastEvent == .exit && record.state == .outside)
        #expect(record.time != nil)
        #expect(manager.record(for: "nothing") == nil)
    }

    @Test func polygonsRecordsAndExpiriesArePersistedAcrossRestarts() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var record: RegionRecord?
        let region: CircularRegion
        do {
            let (engine, _, track) = try simEngine([.init(duration: 120, speed: 0, course: 0)], stateDirectory: directory)
            var r = CircularRegion(identifier: "depot", polygon: squareAround(track.at(0), half: 150))
            r.expiresAfter = 3600
            region = r
            let manager = LocationManager(engine: engine, name: "fleet")
            manager.startMonitoring(for: region)
            engine.advance(by: .seconds(60))
            record = manager.record(for: "depot")
            #expect(record?.lastEvent == .determined(.inside))
        }
        let (engine, clock, _) = try simEngine([.init(duration: 120, speed: 0, course: 0)], stateDirectory: directory)
        let manager = LocationManager(engine: engine, name: "fleet")
        let recorder = ExpiryRecorder()
        manager.delegate = recorder
        #expect(manager.restoreProblems.isEmpty)
        #expect(manager.monitoredRegions == [region])
        #expect(manager.record(for: "depot") == record)
        // The expiry date was kept: about an hour from the first run, counted on the new clock.
        engine.advance(by: .seconds(3500))
        #expect(!recorder.log.contains("expired depot"))
        engine.advance(by: .seconds(200))
        #expect(recorder.log.last == "expired depot")
        #expect(manager.monitoredRegions.isEmpty)
        #expect(clock.now().seconds >= 3700)
        // The file no longer holds it.
        let again = LocationManager(engine: engine, name: "fleet")
        #expect(again.monitoredRegions.isEmpty)
    }

    @Test func aRegionLapsesOnTheManagersClockWithAnEvent() throws {
        let (engine, _, track) = try simEngine([.init(duration: 300, speed: 0, course: 0)])
        let manager = LocationManager(engine: engine)
        let recorder = ExpiryRecorder()
        manager.delegate = recorder
        var short = CircularRegion(identifier: "short", latitude: track.at(0).latitude, longitude: track.at(0).longitude, radius: 200)
        short.expiresAfter = 90
        manager.startMonitoring(for: short)
        manager.startMonitoring(for: CircularRegion(identifier: "long", latitude: track.at(0).latitude, longitude: track.at(0).longitude, radius: 200))
        engine.advance(by: .seconds(89))
        #expect(manager.monitoredRegions.count == 2)
        #expect(!recorder.log.contains("expired short"))
        engine.advance(by: .seconds(2))
        #expect(recorder.log.filter { $0.hasPrefix("expired") } == ["expired short"])
        #expect(manager.monitoredRegions.map(\.identifier) == ["long"])
        #expect(manager.record(for: "short") == nil)
    }

    @Test func moreThanTheOldHundredRegionsPerManager() throws {
        let (engine, _, track) = try simEngine([.init(duration: 60, speed: 0, course: 0)])
        let manager = LocationManager(engine: engine)
        let recorder = ExpiryRecorder()
        manager.delegate = recorder
        let here = track.at(0)
        for i in 0..<500 {
            manager.startMonitoring(for: CircularRegion(identifier: "r\(i)", latitude: here.latitude + Double(i) * 0.01, longitude: here.longitude, radius: 100))
        }
        #expect(manager.monitoredRegions.count == 500)
        engine.advance(by: .seconds(30))
        #expect(recorder.log.filter { $0.hasPrefix("failed") }.isEmpty)
        #expect(recorder.log.contains("determined r0 inside"))
        #expect(recorder.log.filter { $0.hasPrefix("determined") }.count == 500)
    }

    @Test func expiryTextTakesDurationsAndDates() throws {
        #expect(try RegionExpiryText.parse("2h", now: 1000) == 8200)
        #expect(try RegionExpiryText.parse("45m", now: 0) == 2700)
        #expect(try RegionExpiryText.parse("7d", now: 0) == 604_800)
        #expect(try RegionExpiryText.parse("90", now: 10) == 100)
        #expect(try RegionExpiryText.parse("2026-12-01T00:00:00Z", now: 0) == 1_796_083_200)
        #expect(try RegionExpiryText.parse("2026-12-01T01:00:00.5+01:00", now: 0) == 1_796_083_200.5)
        #expect(throws: RegionExpiryText.ParseError.self) { try RegionExpiryText.parse("-2h", now: 0) }
        #expect(throws: RegionExpiryText.ParseError.self) { try RegionExpiryText.parse("2026-12-01", now: 0) }
    }

    @Test func theAsyncSequenceEndsAPolygonWithItsExpiry() async throws {
        let (engine, _, track) = try simEngine([.init(duration: 600, speed: 1.4, course: 90), .init(duration: 60, speed: 0, course: 90)])
        var region = CircularRegion(identifier: "plot", polygon: squareAround(track.at(300), half: 80))
        region.expiresAfter = 500
        let activity = try engine.regionActivity([region])
        engine.advance(by: .seconds(660))
        var seen: [String] = []
        for await a in activity {
            switch a {
            case .event(let e): seen.append(e.kind.name)
            case .expired(let r): seen.append("expired \(r.identifier)")
            }
            if seen.count == 4 { break }
        }
        #expect(seen == ["determined", "enter", "exit", "expired plot"])
    }
}

