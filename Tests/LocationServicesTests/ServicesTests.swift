import HardwareInterfaces
import LocationServices
import NMEA
import Testing

/// `#expect` for conditions that call mutating methods (the macro cannot decompose those).
func check(_ condition: Bool, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(condition, comment, sourceLocation: sourceLocation)
}

func at(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(seconds * 1e9)) }

/// A location `north` and `east` metres from 47° N 8° E, received at `t` seconds.
func location(north: Double = 0, east: Double = 0, accuracy: Double = 3, t: Double) -> Location {
    let lat = 47 + north / 111_195
    let lon = 8 + east / (111_195 * 0.6819983600624985)
    return Location(latitude: lat, longitude: lon, horizontalAccuracy: accuracy, receivedAt: at(t), timestamp: 1_780_000_000 + t)
}

@Suite struct FilterTests {
    @Test func staleFixesAreNeverDeliveredAsCurrent() {
        var f = UpdateFilter(maximumAge: 2)
        check(f.admit(location(t: 10), now: at(10.5)))
        check(!f.admit(location(t: 11), now: at(13.5)), "3.5 s old")
        check(f.admit(location(t: 12), now: at(12)))
        check(!f.admit(location(t: 12), now: at(12)), "the same fix twice")
        check(!f.admit(location(t: 11.5), now: at(12.1)), "older than the last delivered")
    }

    @Test func distanceFilter() {
        var f = UpdateFilter(distanceFilter: 20)
        check(f.admit(location(t: 1), now: at(1)))
        check(!f.admit(location(north: 19, t: 2), now: at(2)))
        check(f.admit(location(north: 21, t: 3), now: at(3)))
    }

    @Test func significantChangeFilter() {
        var f = SignificantChangeFilter()
        check(f.admit(location(t: 0)))
        check(!f.admit(location(north: 499, t: 1)))
        check(f.admit(location(north: 501, t: 2)))
        check(!f.admit(location(north: 900, t: 3)))
    }

    @Test func headingFilterWrapsAroundNorth() {
        var f = HeadingFilter(headingFilter: 5)
        check(f.admit(heading: 358, hasTrueHeading: false))
        check(!f.admit(heading: 2, hasTrueHeading: false), "4° across north")
        check(f.admit(heading: 4, hasTrueHeading: false), "6° across north")
        check(f.admit(heading: 5, hasTrueHeading: true), "the first true heading is news")
    }

    @Test func batcherTravelTimeoutAndOrder() {
        var b = DeferredBatcher(untilTraveled: 95)
        for i in 0..<10 { check(b.add(location(north: Double(i) * 10, t: Double(i))) == nil) }
        let batch = b.add(location(north: 100, t: 10))
        #expect(batch?.reason == .traveled)
        #expect(batch?.batch.count == 11)
        var timed = DeferredBatcher(timeout: 30)
        _ = timed.add(location(t: 0))
        check(timed.due(now: at(29)) == nil)
        check(timed.due(now: at(30))?.reason == .timeout)
        check(timed.flush() == nil)
    }
}

@Suite struct RegionTests {
    let region = CircularRegion(identifier: "r", latitude: 47, longitude: 8, radius: 100)

    @Test func hysteresisAbsorbsNoiseAtTheBorder() {
        var m = RegionMonitor()
        check(m.add(region) == nil)
        var rng = SystemRandomNumberGenerator()
        var events: [RegionEvent.Kind] = []
        // Outside, then 200 fixes jittering ±15 m around the border, then deep inside, then out.
        events += m.update(location(north: 300, t: 0)).map(\.kind)
        for i in 1...200 { events += m.update(location(north: 100 + Double.random(in: -15...15, using: &rng), t: Double(i))).map(\.kind) }
        events += m.update(location(north: 20, t: 300)).map(\.kind)
        for i in 1...200 { events += m.update(location(north: 100 + Double.random(in: -15...15, using: &rng), t: 300 + Double(i))).map(\.kind) }
        events += m.update(location(north: 300, t: 600)).map(\.kind)
        #expect(events == [.determined(.outside), .enter, .exit])
    }

    @Test func aCoarseFixDecidesNothing() {
        var m = RegionMonitor()
        _ = m.add(region)
        check(m.update(location(north: 0, accuracy: 80, t: 0)).isEmpty)
        #expect(m.state(of: "r", location: nil) == .unknown)
        check(m.update(location(north: 0, accuracy: 10, t: 1)).map(\.kind) == [.determined(.inside)])
    }

    @Test func dwellOncePerStay() {
        var m = RegionMonitor()
        var r = region
        r.dwellTime = 60
        _ = m.add(r)
        _ = m.update(location(north: 300, t: 0))
        var kinds: [RegionEvent.Kind] = []
        for t in stride(from: 1.0, through: 200, by: 10) { kinds += m.update(location(t: t)).map(\.kind) }
        #expect(kinds == [.enter, .dwell])
    }

    @Test func badRegionsAreRefused() {
        var m = RegionMonitor()
        check(m.add(CircularRegion(identifier: "", latitude: 0, longitude: 0, radius: 1)) != nil)
        check(m.add(CircularRegion(identifier: "a", latitude: 91, longitude: 0, radius: 1))?.contains("latitude") == true)
        check(m.add(CircularRegion(identifier: "a", latitude: 0, longitude: .infinity, radius: 1))?.contains("longitude") == true)
        check(m.add(CircularRegion(identifier: "a", latitude: 0, longitude: 0, radius: -3))?.contains("radius") == true)
        check(m.add(CircularRegion(identifier: "a", latitude: 0, longitude: 0, radius: 5, dwellTime: .nan))?.contains("dwell") == true)
        m.capacity = 2
        check(m.add(CircularRegion(identifier: "a", latitude: 0, longitude: 0, radius: 5)) == nil)
        check(m.add(CircularRegion(identifier: "b", latitude: 0, longitude: 0, radius: 5)) == nil)
        check(m.add(CircularRegion(identifier: "c", latitude: 0, longitude: 0, radius: 5))?.contains("2 regions") == true)
    }
}

@Suite struct VisitAndMotionTests {
    @Test func fixesSpanningTheStayMakeAVisit() {
        var v = VisitDetector()
        var out: [Visit] = []
        for t in stride(from: 0.0, through: 200, by: 10) { if let x = v.update(location(north: t * 1.4, t: t)) { out.append(x) } }
        for t in stride(from: 210.0, through: 700, by: 10) { if let x = v.update(location(north: 280 + Double(Int(t) % 7), t: t)) { out.append(x) } }
        for t in stride(from: 710.0, through: 900, by: 10) { if let x = v.update(location(north: 280 + (t - 700) * 1.4, t: t)) { out.append(x) } }
        #expect(out.count == 2)
        #expect(out.first?.departedAt == nil)
        #expect(out.first.map { $0.arrivedAt.seconds >= 200 && $0.arrivedAt.seconds <= 220 } == true)
        #expect(out.last?.departedAt.map { $0.seconds >= 750 && $0.seconds <= 790 } == true)
    }

    @Test func stillnessAfterAFixMakesAVisit() {
        var v = VisitDetector()
        check(v.update(location(t: 100)) == nil)
        check(v.motion(still: true, at: at(102)) == nil)
        check(v.motion(still: true, at: at(350)) == nil)
        let arrival = v.motion(still: true, at: at(400))
        #expect(arrival?.arrivedAt == at(100))
        // Motion that never produced a far fix is no departure.
        check(v.motion(still: false, at: at(500)) == nil)
        check(v.update(location(north: 30, t: 510)) == nil)
        check(v.update(location(north: 200, t: 600))?.departedAt == at(510))
    }

    @Test("a resumed visit in progress (a restart) is not reported again and departs with its own arrival")
    func resumedVisitDeparts() throws {
        var first = VisitDetector()
        var arrival: Visit?
        for t in stride(from: 0.0, through: 400, by: 10) { arrival = first.update(location(north: Double(Int(t) % 5), t: t)) ?? arrival }
        var resumed = try #require(arrival)
        #expect(resumed.departedAt == nil)
        // A new detector (the restarted daemon), the arrival moved to its clock.
        resumed.arrivedAt = at(50)
        var second = VisitDetector()
        second.resume(resumed)
        #expect(second.current == resumed)
        var out: [Visit] = []
        for t in stride(from: 1000.0, through: 1500, by: 10) { if let x = second.update(location(north: Double(Int(t) % 5), t: t)) { out.append(x) } }
        #expect(out.isEmpty)
        for t in stride(from: 1510.0, through: 1700, by: 10) { if let x = second.update(location(north: (t - 1500) * 1.4, t: t)) { out.append(x) } }
        #expect(out.count == 1)
        #expect(out.first?.arrivedAt == at(50) && out.first?.departedAt != nil)
        #expect(out.first?.latitude == resumed.latitude && out.first?.arrivalTime == resumed.arrivalTime)
        // A departed visit is not resumed.
        var third = VisitDetector()
        third.resume(out[0])
        #expect(third.current == nil)
    }

    @Test func motionDetectorSeparatesVibrationFromNoise() {
        var d = MotionDetector()
        var rng = SystemRandomNumberGenerator()
        var t = 0.0
        for _ in 0..<40 { d.add(x: Double.random(in: -0.003...0.003, using: &rng), y: 0, z: 1 + Double.random(in: -0.003...0.003, using: &rng), at: at(t)); t += 0.25 }
        #expect(d.moving == false)
        #expect(d.stillFor(at: at(t)) >= 5)
        for _ in 0..<12 { d.add(x: 0, y: 0, z: 1 + 0.06 * Double.sin(2 * Double.pi * 1.9 * t), at: at(t)); t += 0.25 }
        #expect(d.moving == true)
        #expect(d.stillFor(at: at(t)) == 0)
    }

    @Test("latched intervals continue a stillness, restart it after motion, and samples after them keep the verdict until a window is full")
    func motionDetectorTakesLatchedIntervals() {
        var d = MotionDetector()
        d.addLatched(moved: false, from: at(0), to: at(5))
        #expect(d.moving == false && d.stillSince == at(0) && d.stillFor(at: at(5)) == 5)
        for k in 1..<120 { d.addLatched(moved: false, from: at(Double(5 * k)), to: at(Double(5 * k + 5))) }
        #expect(d.stillFor(at: at(600)) == 600, "ten minutes of quiet reads: still since the latch was armed")
        // Samples after the latch: the verdict stands while the window fills, then the stillness goes on.
        var t = 600.0
        for _ in 0..<12 { d.add(x: 0, y: 0, z: 1.001, at: at(t)); t += 0.25 }
        #expect(d.moving == false && d.stillSince == at(0))
        // Motion somewhere in an interval counts at its end: no stillness claimed across it.
        d.addLatched(moved: true, from: at(603), to: at(608))
        #expect(d.moving == true && d.lastMotion == at(608) && d.stillFor(at: at(608)) == 0)
        d.addLatched(moved: false, from: at(608), to: at(613))
        #expect(d.moving == false && d.stillFor(at: at(613)) == 5, "stillness starts again where the quiet interval began")
        // A moving verdict is not undone by samples before their window is full.
        d.addLatched(moved: true, from: at(613), to: at(618))
        d.add(x: 0, y: 0, z: 1, at: at(618.25))
        #expect(d.moving == true)
    }

    @Test func reducedLocationsAreCoarse() {
        let r = location(north: 1234, east: 567, t: 0).reduced()
        #expect(r.isReduced && r.horizontalAccuracy >= 5000 && r.speed == nil)
        #expect(abs(r.latitude / 0.05 - (r.latitude / 0.05).rounded()) < 1e-9)
    }

    @Test("a fix for a reduced-accuracy gpsd client is coarsened by the same rule as a location")
    func reducedFixesFollowTheLocationRule() throws {
        var fix = Fix()
        fix.latitude = 47.28522
        fix.longitude = 8.56522
        fix.horizontalAccuracy = 3
        fix.altitudeMSL = 512
        fix.speed = 4
        fix.course = 90
        let reduced = fix.reduced()
        let location = Location(latitude: 47.28522, longitude: 8.56522, horizontalAccuracy: 3, receivedAt: .zero).reduced()
        #expect(reduced.latitude == location.latitude && reduced.longitude == location.longitude)
        let latitude = try #require(reduced.latitude), longitude = try #require(reduced.longitude)
        #expect(abs(latitude - 47.3) < 1e-9 && abs(longitude - 8.55) < 1e-9)
        #expect(reduced.horizontalAccuracy == location.horizontalAccuracy && location.horizontalAccuracy == 5000)
        #expect(reduced.altitudeMSL == nil && reduced.speed == nil && reduced.course == nil)
        fix.horizontalAccuracy = nil
        #expect(fix.reduced().horizontalAccuracy == 5000, "an unknown accuracy is widened too")
    }
}
