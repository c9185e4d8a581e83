import Foundation
import HardwareInterfaces
import LocationServices
import Testing

/// A point `north`/`east` metres from 47° N 8° E (as `location(north:east:)`).
func point(north: Double, east: Double) -> GeoPoint {
    GeoPoint(latitude: 47 + north / 111_195, longitude: 8 + east / (111_195 * 0.6819983600624985))
}

/// A square of side `2 * half` metres about 47° N 8° E, with an optional square hole of side `2 * hole`.
func square(_ half: Double, hole: Double? = nil) -> RegionPolygon {
    let ring = { (h: Double) in [point(north: -h, east: -h), point(north: -h, east: h), point(north: h, east: h), point(north: h, east: -h)] }
    return RegionPolygon(vertices: ring(half), holes: hole.map { [ring($0)] } ?? [])
}

/// SplitMix64: a seeded generator, so the random tests repeat.
struct RegionRNG: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct PolygonRegionTests {
    @Test func insideOutsideAndTheBoundingCap() {
        let region = CircularRegion(identifier: "plot", polygon: square(100))
        #expect(region.validate() == nil)
        #expect(abs(region.latitude - 47) < 1e-6 && abs(region.longitude - 8) < 1e-6)
        #expect(abs(region.radius - 100 * 2.0.squareRoot()) < 1)
        #expect(RegionMonitor.classify(region, location(north: 0, east: 0, accuracy: 3, t: 0)) == .inside)
        #expect(RegionMonitor.classify(region, location(north: 94, east: 0, accuracy: 3, t: 0)) == .inside)
        // 6 m of uncertainty (2 × 3 m) must fit: 96 m north leaves 4 m.
        #expect(RegionMonitor.classify(region, location(north: 96, east: 0, accuracy: 3, t: 0)) == nil)
        // Outside needs u + h = 6 + 11.3 m (h: 10 % of the 112.8 m radius of the circle of equal area).
        #expect(RegionMonitor.classify(region, location(north: 116, east: 0, accuracy: 3, t: 0)) == nil)
        #expect(RegionMonitor.classify(region, location(north: 118, east: 0, accuracy: 3, t: 0)) == .outside)
        // A corner: outside the square but inside its bounding circle.
        #expect(RegionMonitor.classify(region, location(north: 135, east: 135, accuracy: 3, t: 0)) == .outside)
    }

    @Test func hysteresisAtAPolygonEdge() {
        var m = RegionMonitor()
        #expect(m.add(CircularRegion(identifier: "plot", polygon: square(100))) == nil)
        var rng = RegionRNG(seed: 21)
        var events: [RegionEvent.Kind] = []
        events += m.update(location(north: 300, t: 0)).map(\.kind)
        for i in 1...200 { events += m.update(location(north: 100 + Double.random(in: -15...15, using: &rng), t: Double(i))).map(\.kind) }
        events += m.update(location(north: 20, t: 300)).map(\.kind)
        for i in 1...200 { events += m.update(location(north: 100 + Double.random(in: -15...15, using: &rng), t: 300 + Double(i))).map(\.kind) }
        events += m.update(location(north: 300, t: 600)).map(\.kind)
        #expect(events == [.determined(.outside), .enter, .exit])
    }

    @Test func aHoleIsOutside() {
        let region = CircularRegion(identifier: "yard", polygon: square(200, hole: 50))
        #expect(region.validate() == nil)
        #expect(RegionMonitor.classify(region, location(north: 0, east: 0, t: 0)) == .outside)
        #expect(RegionMonitor.classify(region, location(north: 120, east: 0, t: 0)) == .inside)
        #expect(RegionMonitor.classify(region, location(north: 52, east: 0, t: 0)) == nil)
    }

    @Test func acrossTheAntimeridianAndAroundThePole() {
        let dateline = RegionPolygon(vertices: [GeoPoint(latitude: -17, longitude: 179.99), GeoPoint(latitude: -17, longitude: -179.99),
                                                GeoPoint(latitude: -16.99, longitude: -179.99), GeoPoint(latitude: -16.99, longitude: 179.99)])
        let fiji = CircularRegion(identifier: "fiji", polygon: dateline)
        #expect(fiji.validate() == nil)
        #expect(fiji.radius < 2000)
        for lon in [180.0, -180.0, 179.995, -179.995] {
            #expect(RegionMonitor.classify(fiji, Location(latitude: -16.995, longitude: lon, horizontalAccuracy: 3, receivedAt: .zero)) == .inside)
        }
        #expect(RegionMonitor.classify(fiji, Location(latitude: -16.995, longitude: 179.97, horizontalAccuracy: 3, receivedAt: .zero)) == .outside)
        // A square about the north pole (its vertices at 89.99°): the pole is inside.
        let polar = RegionPolygon(vertices: [0.0, 90, 180, -90].map { GeoPoint(latitude: 89.99, longitude: $0) })
        let cap = CircularRegion(identifier: "pole", polygon: polar)
        #expect(cap.validate() == nil)
        #expect(RegionMonitor.classify(cap, Location(latitude: 90, longitude: 0, horizontalAccuracy: 3, receivedAt: .zero)) == .inside)
        #expect(RegionMonitor.classify(cap, Location(latitude: 89.999, longitude: 123, horizontalAccuracy: 3, receivedAt: .zero)) == .inside)
        #expect(RegionMonitor.classify(cap, Location(latitude: 89.9, longitude: 45, horizontalAccuracy: 3, receivedAt: .zero)) == .outside)
    }

    @Test func edgesAreGreatCircleArcs() {
        // An east–west edge 20 km long at 60° N: its midpoint bulges poleward of the parallel by
        // about L²/(8R)·tan φ ≈ 13.6 m. A fix 10 m north of the parallel at the middle is inside
        // a polygon whose northern edge follows that arc (the fix is south of the arc).
        let poly = RegionPolygon(vertices: [GeoPoint(latitude: 59.9, longitude: 9.82), GeoPoint(latitude: 59.9, longitude: 10.18),
                                            GeoPoint(latitude: 60, longitude: 10.18), GeoPoint(latitude: 60, longitude: 9.82)])
        let region = CircularRegion(identifier: "strip", polygon: poly)
        #expect(region.validate() == nil)
        let north10 = 60 + 10 / 111_412.0
        #expect(RegionMonitor.classify(region, Location(latitude: north10, longitude: 10, horizontalAccuracy: 0.5, receivedAt: .zero)) == .inside)
        // 20 m north of the parallel is beyond the arc (about 6 m), within the band: undecided.
        let north20 = 60 + 20 / 111_412.0
        #expect(RegionMonitor.classify(region, Location(latitude: north20, longitude: 10, horizontalAccuracy: 0.5, receivedAt: .zero)) == nil)
    }

    @Test func badPolygonsAreRefusedWithTheirReason() {
        let bowTie = RegionPolygon(vertices: [point(north: 0, east: 0), point(north: 100, east: 100), point(north: 100, east: 0), point(north: 0, east: 100)])
        #expect(CircularRegion(identifier: "b", polygon: bowTie).validate()?.contains("crosses") == true)
        let two = RegionPolygon(vertices: [point(north: 0, east: 0), point(north: 100, east: 100)])
        #expect(CircularRegion(identifier: "t", polygon: two).validate()?.contains("at least 3") == true)
        let off = RegionPolygon(vertices: [GeoPoint(latitude: 95, longitude: 0), point(north: 0, east: 0), point(north: 100, east: 0)])
        #expect(CircularRegion(identifier: "o", polygon: off).validate()?.contains("vertex 0") == true)
        let huge = RegionPolygon(vertices: [GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 3), GeoPoint(latitude: 3, longitude: 0)])
        #expect(CircularRegion(identifier: "h", polygon: huge).validate()?.contains("100000 m") == true)
        let outsideHole = RegionPolygon(vertices: square(100).vertices, holes: [[point(north: 500, east: 0), point(north: 500, east: 20), point(north: 520, east: 0)]])
        #expect(CircularRegion(identifier: "x", polygon: outsideHole).validate()?.contains("hole 1") == true)
    }

    @Test func polygonText() throws {
        let p = try RegionPolygon(parsing: "47,8; 47.001,8;47.001,8.001;|47.0002,8.0002;47.0004,8.0002;47.0004,8.0004")
        #expect(p.vertices.count == 3 && p.holes.count == 1 && p.holes[0].count == 3)
        #expect(try RegionPolygon(parsing: p.text) == p)
        do {
            _ = try RegionPolygon(parsing: "47,8;47.001;47.001,8.001")
            Issue.record("accepted a vertex without a longitude")
        } catch {
            #expect(error.offset == 5)
            #expect(error.description.contains("47.001"))
        }
    }

    @Test func codableFormsAreCompatible() throws {
        var region = CircularRegion(identifier: "plot", polygon: square(100, hole: 10), dwellTime: 30)
        region.expiresAfter = 3600
        let data = try JSONEncoder().encode(region)
        #expect(try JSONDecoder().decode(CircularRegion.self, from: data) == region)
        // A circle as written before polygons still reads, without the new keys.
        let old = #"{"identifier":"a","latitude":1,"longitude":2,"radius":5,"notifyOnEntry":true,"notifyOnExit":false}"#
        let circle = try JSONDecoder().decode(CircularRegion.self, from: Data(old.utf8))
        #expect(circle == CircularRegion(identifier: "a", latitude: 1, longitude: 2, radius: 5, notifyOnExit: false))
        #expect(circle.polygon == nil && circle.expiresAfter == nil && circle.expiresAt == nil)
        // A point is [lat, lon].
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(GeoPoint.self, from: Data("[1,2,3]".utf8)) }
    }
}

@Suite struct RegionRecordAndExpiryTests {
    @Test func theRecordKeepsTheLastEventAndItsTime() throws {
        var m = RegionMonitor()
        var r = CircularRegion(identifier: "gate", latitude: 47, longitude: 8, radius: 100, notifyOnExit: false, dwellTime: 30)
        r.notifyOnExit = false
        _ = m.add(r)
        #expect(m.record(for: "gate") == nil)
        _ = m.update(location(north: 300, t: 0))
        #expect(m.record(for: "gate")?.lastEvent == .determined(.outside))
        _ = m.update(location(north: 0, t: 10))
        #expect(m.record(for: "gate")?.lastEvent == .enter)
        #expect(m.record(for: "gate")?.time == 1_780_000_010)
        #expect(m.record(for: "gate")?.receivedAt == at(10))
        _ = m.update(location(north: 0, t: 45))
        #expect(m.record(for: "gate")?.lastEvent == .dwell)
        // An exit not reported (notifyOnExit off) is still the last event.
        #expect(m.update(location(north: 300, t: 50)).isEmpty)
        let record = try #require(m.record(for: "gate"))
        #expect(record.lastEvent == .exit && record.state == .outside)
        // Persisted with the entry.
        let entries = try JSONDecoder().decode([RegionMonitor.Entry].self, from: JSONEncoder().encode(m.sortedEntries))
        #expect(RegionMonitor(entries: entries).record(for: "gate") == record)
    }

    @Test func regionsLapseOnTheMonitorsClock() {
        var m = RegionMonitor()
        var soon = CircularRegion(identifier: "soon", latitude: 47, longitude: 8, radius: 100)
        soon.expiresAfter = 60
        var dated = CircularRegion(identifier: "dated", latitude: 47, longitude: 8, radius: 100)
        dated.expiresAt = 1_780_000_500
        _ = m.add(soon, now: 1000, wallClock: 1_780_000_000)
        _ = m.add(dated, now: 1000, wallClock: 1_780_000_000)
        _ = m.add(CircularRegion(identifier: "forever", latitude: 47, longitude: 8, radius: 100), now: 1000, wallClock: 1_780_000_000)
        #expect(m.nextExpiry == 1060)
        #expect(m.expire(now: 1059.9).isEmpty)
        #expect(m.expire(now: 1060).map(\.identifier) == ["soon"])
        #expect(m.entry("dated")?.expiryDate == 1_780_000_500)
        // After a restart the date is placed on the new clock: 200 s of wall time left.
        var restarted = RegionMonitor(entries: m.sortedEntries)
        restarted.restarted(now: 5, wallClock: 1_780_000_300)
        #expect(restarted.nextExpiry == 205)
        #expect(restarted.expire(now: 204).isEmpty)
        #expect(restarted.expire(now: 205).map(\.identifier) == ["dated"])
        #expect(restarted.regions.map(\.identifier) == ["forever"])
        var bad = CircularRegion(identifier: "bad", latitude: 47, longitude: 8, radius: 100)
        bad.expiresAfter = -1
        #expect(m.add(bad)?.contains("expiration -1.0 s") == true)
    }

    @Test func thousandsOfRegionsWithASanityLimit() {
        var m = RegionMonitor()
        for i in 0..<1000 {
            #expect(m.add(CircularRegion(identifier: "r\(i)", latitude: 47 + Double(i) * 0.001, longitude: 8, radius: 50)) == nil)
        }
        #expect(m.count == 1000)
        #expect(m.capacity == 100_000)
        m.capacity = 1000
        let refused = m.add(CircularRegion(identifier: "one more", latitude: 47, longitude: 8, radius: 50))
        #expect(refused?.contains("already monitoring 1000 regions") == true)
        // Replacing one is not adding one.
        #expect(m.add(CircularRegion(identifier: "r5", latitude: 47, longitude: 8, radius: 60)) == nil)
    }
}
