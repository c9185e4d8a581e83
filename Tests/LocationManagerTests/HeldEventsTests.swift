import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import SimulatedHardware
import Testing

/// Monitoring events that reach a manager before its delegate is set (a daemon's queue delivered
/// at registration, inside `LocationManager.init`) are held and handed to the delegate when it is set.
@Suite struct HeldEventsTests {
    @Test("region events before a delegate is set are held, in order, and delivered when it is set; later events go straight through")
    func eventsBeforeTheDelegateAreHeld() throws {
        // 10 minutes east at 1.4 m/s; a 100 m circle 420 m east of the start.
        let (engine, _, track) = try simEngine([.init(duration: 600, speed: 1.4, course: 90), .init(duration: 60, speed: 0, course: 90)])
        let manager = LocationManager(engine: engine)
        let centre = track.at(300)
        manager.startMonitoring(for: CircularRegion(identifier: "gate", latitude: centre.latitude, longitude: centre.longitude, radius: 100))
        engine.advance(by: .seconds(330))
        let recorder = ExpiryRecorder()
        #expect(recorder.log.isEmpty)
        manager.delegate = recorder
        #expect(recorder.log == ["determined gate outside", "enter gate"], "the held events, in order")
        engine.advance(by: .seconds(330))
        #expect(recorder.log == ["determined gate outside", "enter gate", "exit gate"], "then live")
        #expect(manager.heldEventsDropped == 0)
    }

    @Test("at most heldEventLimit events are held: the oldest go first and are counted")
    func heldEventsAreBounded() throws {
        let (engine, _, track) = try simEngine([.init(duration: 120, speed: 0, course: 0)])
        let manager = LocationManager(engine: engine)
        let start = track.at(0)
        // More regions than the limit, each determined by the first good fix: one event each.
        for index in 0..<(LocationManager.heldEventLimit + 8) {
            manager.startMonitoring(for: CircularRegion(identifier: String(format: "r%04d", index), latitude: start.latitude,
                                                        longitude: start.longitude, radius: 500))
        }
        engine.advance(by: .seconds(30))
        let recorder = ExpiryRecorder()
        manager.delegate = recorder
        #expect(recorder.log.count == LocationManager.heldEventLimit)
        #expect(manager.heldEventsDropped == 8)
        #expect(recorder.log.first == "determined r0008 inside", "the oldest were dropped: \(recorder.log.prefix(2))")
    }
}
