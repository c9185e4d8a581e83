import Foundation
import HardwareInterfaces
import LocationServices
import Testing

/// The point `distance` metres from `latitude`, `longitude` along `bearing` (degrees), on the sphere.
func destination(_ latitude: Double, _ longitude: Double, bearing: Double, distance: Double) -> GeoPoint {
    let d = distance / 6_371_008.8, b = bearing * .pi / 180, phi = latitude * .pi / 180, lambda = longitude * .pi / 180
    let phi2 = asin(sin(phi) * cos(d) + cos(phi) * sin(d) * cos(b))
    let lambda2 = lambda + atan2(sin(b) * sin(d) * cos(phi), cos(d) - sin(phi) * sin(phi2))
    var lon = lambda2 * 180 / .pi
    while lon > 180 { lon -= 360 }
    while lon < -180 { lon += 360 }
    return GeoPoint(latitude: phi2 * 180 / .pi, longitude: lon)
}

/// Circles and regular polygons scattered within `spread` metres of each of `areas`.
func scatteredRegions(_ count: Int, areas: [GeoPoint], spread: Double, rng: inout RegionRNG) -> [CircularRegion] {
    (0..<count).map { i in
        let area = areas[i % areas.count]
        let c = destination(area.latitude, area.longitude, bearing: .random(in: 0..<360, using: &rng), distance: .random(in: 0...spread, using: &rng))
        let size = Double.random(in: 20...1500, using: &rng)
        if i % 2 == 0 {
            return CircularRegion(identifier: "c\(i)", latitude: c.latitude, longitude: c.longitude, radius: size,
                                  notifyOnExit: i % 3 != 0, dwellTime: i % 5 == 0 ? 30 : nil)
        }
        let sides = Int.random(in: 3...8, using: &rng), turn = Double.random(in: 0..<360, using: &rng)
        let ring = (0..<sides).map { destination(c.latitude, c.longitude, bearing: turn + Double($0) * 360 / Double(sides), distance: size) }
        return CircularRegion(identifier: "p\(i)", polygon: RegionPolygon(vertices: ring), notifyOnEntry: i % 7 != 0)
    }
}

@Suite struct RegionIndexTests {
    /// The index must give exactly the linear scan's events: over seeded random walks through
    /// dense fences at Zürich, across the antimeridian, and about both poles, with regions added
    /// and removed on the way.
    @Test func theIndexAgreesWithTheLinearScan() {
        var rng = RegionRNG(seed: 2126)
        let areas = [GeoPoint(latitude: 47.37, longitude: 8.54), GeoPoint(latitude: -17, longitude: 180),
                     GeoPoint(latitude: 89.97, longitude: 0), GeoPoint(latitude: -89.98, longitude: 120)]
        let regions = scatteredRegions(1200, areas: areas, spread: 5000, rng: &rng)
        var indexed = RegionMonitor(), linear = RegionMonitor()
        for r in regions {
            #expect(r.validate() == nil, "\(r)")
            _ = indexed.add(r)
            _ = linear.add(r)
        }
        var events = 0, kinds: Set<String> = []
        var t = 0.0
        for walk in 0..<16 {
            let area = areas[walk % areas.count]
            var here = destination(area.latitude, area.longitude, bearing: .random(in: 0..<360, using: &rng), distance: .random(in: 0...3000, using: &rng))
            for _ in 0..<100 {
                t += 5
                here = destination(here.latitude, here.longitude, bearing: .random(in: 0..<360, using: &rng), distance: .random(in: 0...400, using: &rng))
                let fix = Location(latitude: here.latitude, longitude: here.longitude, horizontalAccuracy: .random(in: 1...40, using: &rng),
                                   receivedAt: MonotonicInstant(nanoseconds: UInt64(t * 1e9)), timestamp: 1_780_000_000 + t)
                let a = indexed.update(fix), b = linear.updateLinear(fix)
                #expect(a == b)
                if a != b { return }
                events += a.count
                for e in a { kinds.insert(e.kind.name) }
            }
            // Churn: remove a few, add a few (the index is rebuilt).
            for _ in 0..<10 {
                let victim = regions[Int.random(in: 0..<regions.count, using: &rng)].identifier
                #expect(indexed.remove(victim) == linear.remove(victim))
            }
            for r in scatteredRegions(10, areas: [area], spread: 3000, rng: &rng) {
                var renamed = r
                renamed.identifier = "w\(walk)-" + r.identifier
                _ = indexed.add(renamed)
                _ = linear.add(renamed)
            }
        }
        #expect(indexed.sortedEntries == linear.sortedEntries)
        #expect(events > 500)
        #expect(kinds == ["determined", "enter", "exit", "dwell"])
    }
}
