@testable import FieldLocation
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import PowerPolicy
import Testing

/// The client registry's accurate first fix and request expiry, with locations of chosen accuracy at
/// chosen instants (no receiver): what is delivered, when, and what ends the updates.
@Suite("first fix hold and expiry in the client registry")
struct FirstFixAndExpiryTests {
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [EngineEvent] = []
        func append(_ item: EngineEvent) { lock.withLock { items.append(item) } }
        var accuracies: [Double] {
            lock.withLock { items.flatMap { e -> [Double] in if case .locations(let l) = e { return l.map(\.horizontalAccuracy) } else { return [] } } }
        }
        var errors: [LocationError] { lock.withLock { items.compactMap { e in if case .error(let x) = e { return x } else { return nil } } } }
    }

    let policy = PowerPolicy(profile: .ubloxM10)

    func at(_ seconds: Double) -> MonotonicInstant { MonotonicInstant.zero.advanced(by: .nanoseconds(Int64(seconds * 1e9))) }

    func location(_ accuracy: Double, _ seconds: Double) -> Location {
        Location(latitude: 47 + seconds * 1e-5, longitude: 8, horizontalAccuracy: accuracy, receivedAt: at(seconds))
    }

    /// A registry with one client whose services `configure` sets at instant `start`, and its events.
    func client(_ name: String, start: Double = 0, _ configure: (inout ClientServices) -> Void) -> (ClientRegistry, Events, Int) {
        let registry = ClientRegistry(stateDirectory: nil)
        let events = Events()
        let id = registry.register(name: name, persistentName: nil) { events.append($0) }.id
        registry.update(id, now: at(start)) { s in
            s.updatingLocation = true
            configure(&s)
        }
        return (registry, events, id)
    }

    func tick(_ registry: ClientRegistry, _ seconds: Double) {
        registry.housekeeping(registry.snapshot(), at: at(seconds), policy: policy, state: PolicyState(), moving: nil)
    }

    @Test("held for an accurate fix: coarse fixes wait, the first within the budget goes at once, then every fix")
    func accurateFixEndsTheHold() {
        let (registry, events, _) = client("logger") { s in
            s.desiredAccuracy = .nearestTenMeters
            s.accurateFirstFixWait = 30
        }
        for (second, accuracy) in [(1.0, 40.0), (2, 12), (3, 4), (4, 30)] {
            registry.deliver(location(accuracy, second), at: at(second))
            tick(registry, second)
        }
        #expect(events.accuracies == [4, 30], "the coarse first fixes are held; after the hold every fix goes")
    }

    @Test("at the deadline the most accurate fix held goes, while it is fresh; with none held the next fix goes")
    func deadline() {
        let (registry, events, _) = client("logger") { s in
            s.desiredAccuracy = .nearestTenMeters
            s.accurateFirstFixWait = 3
            s.maximumAge = 10
        }
        for (second, accuracy) in [(1.0, 40.0), (2, 12), (2.5, 25)] {
            registry.deliver(location(accuracy, second), at: at(second))
            tick(registry, second)
        }
        #expect(events.accuracies.isEmpty)
        tick(registry, 3)
        #expect(events.accuracies == [12], "the best held, 12 m, goes at the deadline")
        registry.deliver(location(20, 4), at: at(4))
        #expect(events.accuracies == [12, 20])

        let (late, lateEvents, _) = client("late") { s in
            s.accurateFirstFixWait = 2
        }
        tick(late, 2)
        late.deliver(location(50, 5), at: at(5))
        #expect(lateEvents.accuracies == [50], "the hold lapsed with nothing held: the next fix goes")
    }

    @Test("without a hold the first fix goes whatever its accuracy (Core Location's default)")
    func noHold() {
        let (registry, events, _) = client("nav") { _ in }
        registry.deliver(location(40, 1), at: at(1))
        #expect(events.accuracies == [40])
    }

    @Test("maximumUpdates counts deliveries, not fixes filtered out; duration counts from the start of updates")
    func expiryCounts() {
        let (registry, events, id) = client("two") { s in
            s.distanceFilter = 100
            s.maximumUpdates = 2
        }
        for second in 0..<30 {
            // 10 m a second: the distance filter lets one fix in ten through.
            let t = Double(second)
            registry.deliver(Location(latitude: 47 + t * 10 / 111_000, longitude: 8, horizontalAccuracy: 3, receivedAt: at(t)), at: at(t))
        }
        #expect(events.accuracies.count == 2)
        #expect(events.errors == [.requestExpired("2 updates delivered (maximumUpdates)")])
        #expect(registry.services(id)?.updatingLocation == false)

        let (timed, timedEvents, _) = client("timed", start: 10) { s in
            s.updateDuration = 5
        }
        tick(timed, 14.9)
        #expect(timedEvents.errors.isEmpty)
        tick(timed, 15)
        #expect(timedEvents.errors == [.requestExpired("its duration of 5.0 s passed (updateDuration)")])
    }
}
