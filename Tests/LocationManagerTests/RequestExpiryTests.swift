import EnginePlatforms
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import PowerPolicy
import SimulatedHardware
import Testing

/// Requests that end on their own (Android's `maxUpdates` and `durationMillis`): the sequence and
/// the session on the `sim` board with the manual clock, and the demand going with them.
@Suite("request expiry: maximumUpdates and duration")
struct RequestExpiryTests {
    @Test("maximumUpdates 3: three deliveries, then requestExpired naming the limit, the sequence finishes and the receiver idles")
    func maximumUpdates() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        let updates = try engine.locationUpdates(LocationRequest(desiredAccuracy: .best, maximumUpdates: 3))
        engine.advance(by: .seconds(120))
        var locations = 0
        var ending: LocationError?
        var afterEnd = 0
        for await update in updates {
            switch update {
            case .locations(let l): if ending == nil { locations += l.count } else { afterEnd += 1 }
            case .error(let e): ending = e
            default: break
            }
        }
        #expect(locations == 3)
        #expect(afterEnd == 0)
        #expect(ending == .requestExpired("3 updates delivered (maximumUpdates)"), "\(String(describing: ending))")
        #expect(ending?.isTransient == false)
        #expect(engine.decision?.receiver == .idle(.backup), "\(String(describing: engine.decision))")
    }

    @Test("duration 30 s: updates for 30 s of the engine's clock, then requestExpired and no demand")
    func duration() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        let start = engine.clock.now()
        let updates = try engine.locationUpdates(LocationRequest(desiredAccuracy: .best, duration: 30))
        engine.advance(by: .seconds(120))
        var times: [Double] = []
        var ending: LocationError?
        for await update in updates {
            switch update {
            case .locations(let l): times += l.map { ($0.receivedAt - start).secondsDouble }
            case .error(let e): ending = e
            default: break
            }
        }
        #expect(ending == .requestExpired("its duration of 30.0 s passed (updateDuration)"), "\(String(describing: ending))")
        #expect(times.count >= 20, "\(times)")
        #expect(times.allSatisfy { $0 <= 31 }, "\(times)")
        #expect(engine.decision?.receiver == .idle(.backup))
    }

    @Test("a session with a duration releases its demand when it lapses")
    func session() throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        let session = try engine.session(LocationRequest(desiredAccuracy: .best, duration: 20))
        engine.advance(by: .seconds(10))
        #expect(engine.decision?.receiver != .idle(.backup))
        engine.advance(by: .seconds(30))
        #expect(engine.decision?.receiver == .idle(.backup), "\(String(describing: engine.decision))")
        withExtendedLifetime(session) {}
    }

    @Test("limits out of range are refused, naming the argument")
    func validation() {
        #expect(throws: LocationError.invalidArgument("maximumUpdates 0: must be at least 1, or nil for no limit")) {
            try LocationRequest(maximumUpdates: 0).validate()
        }
        #expect(throws: LocationError.invalidArgument("duration -1.0: must be a positive number of seconds, or nil")) {
            try LocationRequest(duration: -1).validate()
        }
    }
}

/// The first delivery and its accuracy on the `sim` board, whose first fixes after a cold start
/// state about 5 m and improve to about 2 m within ten seconds.
@Suite("accurate first fix: streaming and one-shot")
struct AccurateFirstFixTests {
    /// The first location a sequence for `request` delivers, with its time after the start.
    func firstDelivery(_ request: LocationRequest) async throws -> (Double, Location)? {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        let start = engine.clock.now()
        let updates = try engine.locationUpdates(request)
        engine.advance(by: .seconds(60))
        for await update in updates {
            if case .locations(let l) = update, let first = l.first { return ((first.receivedAt - start).secondsDouble, first) }
        }
        return nil
    }

    @Test("streaming: without a hold the first fix goes at once; with one the first fix within 10 m (95 %) goes, a second later")
    func streaming() async throws {
        let (plainAt, plain) = try #require(try await firstDelivery(LocationRequest(desiredAccuracy: .nearestTenMeters)))
        #expect(plain.horizontalAccuracy * 2 > 10, "the sim's first fix is coarser than the budget (\(plain.horizontalAccuracy) m)")
        let (heldAt, held) = try #require(try await firstDelivery(LocationRequest(desiredAccuracy: .nearestTenMeters, accurateFirstFixWait: 30)))
        #expect(held.horizontalAccuracy * 2 <= 10, "\(held.horizontalAccuracy) m")
        #expect(heldAt > plainAt && heldAt < plainAt + 5, "first at \(plainAt) s unheld, \(heldAt) s held")
    }

    @Test("one-shot: requestLocation answers with a fix within the budget, not the first coarse one")
    func oneShot() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 600, speed: 1.4, course: 0)])
        manager.desiredAccuracy = .nearestTenMeters
        manager.requestLocation()
        engine.advance(by: .seconds(60))
        let answer = try #require(recorder.locations.first)
        #expect(recorder.locations.count == 1)
        #expect(answer.horizontalAccuracy * 2 <= 10, "\(answer.horizontalAccuracy) m")
    }
}

/// The sky view: satellites per constellation and the DOPs, each epoch, for the clients that ask.
@Suite("sky view")
struct SkyViewTests {
    @Test("skyUpdates on the sim board: satellites with constellation, elevation, azimuth, C/N0 and use, and the DOPs, once an epoch")
    func sequence() async throws {
        let (engine, _, _) = try simEngine([.init(duration: 600, speed: 1.4, course: 0)])
        let sky = engine.skyUpdates()
        engine.advance(by: .seconds(20))
        var views: [SkyView] = []
        for await view in sky {
            views.append(view)
            if views.count == 5 { break }
        }
        let view = try #require(views.last)
        #expect(view.satellites.count >= 6, "\(view.satellites.count) in view")
        #expect(view.usedCount >= 4 && view.hdop != nil && view.pdop != nil)
        #expect(view.satellites.allSatisfy { $0.constellation != "unknown" && $0.elevation != nil && $0.azimuth != nil })
        #expect(view.satellites.contains { $0.cn0 != nil })
        #expect(!view.byConstellation.isEmpty)
        // The emulated receiver is multi-GNSS: each satellite keeps its constellation into the view.
        #expect(Set(view.satellites.map(\.constellation)).isSuperset(of: ["gps", "glonass", "galileo", "beidou", "sbas"]))
        let times = views.compactMap(\.timestamp)
        #expect(times.count == views.count && zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "one view per epoch, in order: \(times)")
        engine.advance(by: .seconds(2))
        #expect(engine.clientCount == 0, "ending the iteration ends the demand")
    }

    @Test("a client that does not ask gets no sky")
    func onlyThoseWhoAsk() throws {
        let (engine, manager, recorder, _, _) = try managed([.init(duration: 600, speed: 1.4, course: 0)])
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(20))
        #expect(!recorder.locations.isEmpty)
        #expect(!recorder.events.contains { "\($0)".contains("sky") })
    }
}
