import HardwareInterfaces
import LocationServices
import NMEA
import Testing

/// Issue 20, item 4: a location's fix type from the receiver's data, its unknown accuracy kept
/// unknown (negative), the course accuracy a speed accuracy gives, and what consumers make of them.
@Suite("Location fix type and unknown accuracy")
struct FixTypeTests {
    static func fix(_ mode: FixMode, _ quality: FixQuality) -> Fix {
        var fix = Fix()
        fix.mode = mode
        fix.quality = quality
        fix.latitude = 47.3769
        fix.longitude = 8.5417
        fix.horizontalAccuracy = 3
        fix.accuracySource = .gst
        return fix
    }

    @Test("mode and quality give none, 2D, 3D, DGPS, RTK float, RTK fixed and dead reckoning")
    func types() throws {
        let table: [(FixMode, FixQuality, LocationFixType)] = [
            (.twoD, .gps, .twoD), (.threeD, .gps, .threeD), (.threeD, .differential, .dgps), (.threeD, .pps, .dgps),
            (.threeD, .rtkFloat, .rtkFloat), (.threeD, .rtkFixed, .rtkFixed), (.twoD, .deadReckoning, .deadReckoning),
            (.noFix, .gps, .none), (.threeD, .invalid, .threeD),
        ]
        for (mode, quality, expected) in table {
            #expect(LocationFixType(mode: mode, quality: quality) == expected, "\(mode) \(quality)")
        }
        let rtk = try #require(Location(Self.fix(.threeD, .rtkFixed), receivedAt: MonotonicInstant(nanoseconds: 1)))
        #expect(rtk.fixType == .rtkFixed)
        #expect(Location(latitude: 1, longitude: 2, horizontalAccuracy: 5, receivedAt: MonotonicInstant(nanoseconds: 1), mode: .twoD).fixType == .twoD)
        #expect("\(LocationFixType.rtkFloat)" == "RTK float")
    }

    @Test("through the NMEA engine: GGA quality 4 is RTK fixed, 5 RTK float, 2 DGPS, 6 dead reckoning")
    func throughTheStream() throws {
        func location(quality: Int) throws -> Location {
            let stream = NMEAStream()
            var last: Fix?
            let body = "GPGGA,123519.00,4807.038,N,01131.000,E,\(quality),08,0.9,545.4,M,46.9,M,,"
            var sum: UInt8 = 0
            for b in body.utf8 { sum ^= b }
            let hex = String(sum, radix: 16, uppercase: true)
            let line = "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex) + "\r\n"
            let bytes = Array(line.utf8)
            stream.feed(bytes.span) { last = $0 }
            stream.finish { last = $0 }
            let fix = try #require(last)
            return try #require(Location(fix, receivedAt: MonotonicInstant(nanoseconds: 1)))
        }
        #expect(try location(quality: 4).fixType == .rtkFixed)
        #expect(try location(quality: 5).fixType == .rtkFloat)
        #expect(try location(quality: 2).fixType == .dgps)
        #expect(try location(quality: 6).fixType == .deadReckoning)
        #expect(try location(quality: 1).fixType == .threeD)
    }

    @Test("no estimate is unknown (negative), never 50 m; consumers do not take it for a radius")
    func unknownAccuracy() throws {
        var bare = Self.fix(.threeD, .gps)
        bare.horizontalAccuracy = nil
        bare.accuracySource = .none
        let location = try #require(Location(bare, receivedAt: MonotonicInstant(nanoseconds: 1)))
        #expect(location.horizontalAccuracy < 0 && !location.hasKnownHorizontalAccuracy && location.knownHorizontalAccuracy == nil)
        #expect(location.accuracyModel == .unknown && "\(location.accuracyModel)" == "unknown")
        #expect(location.description.hasSuffix("±? m"))
        #expect(location.accuracyConfidence == .oneSigma && location.accuracyConfidence.percent == 68)
        // Regions cannot tell inside from outside without an accuracy: no state change.
        let region = CircularRegion(identifier: "here", latitude: bare.latitude ?? 0, longitude: bare.longitude ?? 0, radius: 500)
        #expect(RegionMonitor.classify(region, location) == nil)
        var known = location
        known.horizontalAccuracy = 5
        #expect(RegionMonitor.classify(region, known) == .inside)
        // Reduced accuracy gives its own known 5 km.
        #expect(location.reduced().horizontalAccuracy == 5000)
    }

    @Test("course accuracy from speed accuracy: atan(sAcc / speed) while the speed exceeds it")
    func courseFromSpeed() throws {
        let derived = try #require(Location.courseAccuracy(speed: 10, speedAccuracy: 10 * 0.17632698070846498))
        #expect(abs(derived - 10) < 1e-9)
        #expect(Location.courseAccuracy(speed: 0.3, speedAccuracy: 0.5) == nil)
        #expect(Location.courseAccuracy(speed: 3, speedAccuracy: nil) == nil)
        var fix = Self.fix(.threeD, .gps)
        fix.speed = 5
        fix.receiverAccuracy = ReceiverAccuracy(model: .ubxAccuracyEstimate, horizontal: 2, speed: 0.5)
        let location = try #require(Location(fix, receivedAt: MonotonicInstant(nanoseconds: 1)))
        #expect(location.speedAccuracy == 0.5)
        #expect(abs((location.courseAccuracy ?? 0) - 5.710593137499643) < 1e-9)
        // The receiver's own heading accuracy wins.
        fix.receiverAccuracy?.course = 2.5
        #expect(Location(fix, receivedAt: MonotonicInstant(nanoseconds: 1))?.courseAccuracy == 2.5)
    }
}
