import Foundation
import LocationServices
import NMEA
import Testing

/// u-blox units that state their solution only in ECEF (u-blox 4T, 7, M8T timing firmware): UBX frames
/// built here, through a whole `NMEAStream` with the engine's conversion, against values computed here
/// with Foundation's trigonometry.
@Suite("UBX ECEF solutions through the stream")
struct UBXECEFStreamTests {
    /// Little-endian payload writer.
    struct Payload {
        var bytes: [UInt8]
        init(_ count: Int) { bytes = [UInt8](repeating: 0, count: count) }
        mutating func u8(_ offset: Int, _ value: UInt8) { bytes[offset] = value }
        mutating func u32(_ offset: Int, _ value: UInt32) { for k in 0..<4 { bytes[offset + k] = UInt8(value >> (8 * k) & 0xFF) } }
        mutating func i32(_ offset: Int, _ value: Int32) { u32(offset, UInt32(bitPattern: value)) }
        mutating func u16(_ offset: Int, _ value: UInt16) { for k in 0..<2 { bytes[offset + k] = UInt8(value >> (8 * k) & 0xFF) } }
    }

    /// The place of the tests: 46.4046109°N 117.0207312°W, 272.081 m above the ellipsoid, moving
    /// 3 m/s north, 4 m/s east, 0.5 m/s down (speed 5, course atan2(4, 3) = 53.130102°).
    static let latitude = 46.4046109, longitude = -117.0207312, height = 272.081
    static let north = 3.0, east = 4.0, down = 0.5

    /// ECEF centimetres of the place and cm/s of the velocity, by the textbook formulas.
    static func ecef() -> (position: (Int32, Int32, Int32), velocity: (Int32, Int32, Int32)) {
        let f = 1 / 298.257223563, e2 = f * (2 - f), a = 6_378_137.0
        let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
        let n = a / sqrt(1 - e2 * sin(phi) * sin(phi))
        let x = (n + height) * cos(phi) * cos(lambda), y = (n + height) * cos(phi) * sin(lambda)
        let z = (n * (1 - e2) + height) * sin(phi)
        let up = -down
        let vx = -sin(phi) * cos(lambda) * north - sin(lambda) * east + cos(phi) * cos(lambda) * up
        let vy = -sin(phi) * sin(lambda) * north + cos(lambda) * east + cos(phi) * sin(lambda) * up
        let vz = cos(phi) * north + sin(phi) * up
        func cm(_ v: Double) -> Int32 { Int32((v * 100).rounded()) }
        return ((cm(x), cm(y), cm(z)), (cm(vx), cm(vy), cm(vz)))
    }

    static let iTOW: UInt32 = 74_563_000

    /// NAV-TIMEGPS: week 2307, `iTOW`, 18 leap seconds, all valid: 2024-03-24T20:42:25Z.
    static func timeGPS(_ iTOW: UInt32 = iTOW) -> [UInt8] {
        var p = Payload(16)
        p.u32(0, iTOW); p.u16(8, 2307); p.u8(10, 18); p.u8(11, 0x07)
        return UBXFraming.encode(class: 0x01, id: 0x20, payload: p.bytes)
    }

    static func navSOL(fix: UInt8 = 3, flags: UInt8 = 0x0D, iTOW: UInt32 = iTOW, velocity: Bool = true) -> [UInt8] {
        let (position, speed) = ecef()
        var p = Payload(52)
        p.u32(0, iTOW); p.u16(8, 2307); p.u8(10, fix); p.u8(11, flags)
        p.i32(12, position.0); p.i32(16, position.1); p.i32(20, position.2); p.u32(24, 250)
        if velocity { p.i32(28, speed.0); p.i32(32, speed.1); p.i32(36, speed.2) }
        p.u32(40, 20); p.u16(44, 150); p.u8(47, 9)
        return UBXFraming.encode(class: 0x01, id: 0x06, payload: p.bytes)
    }

    static func vector(id: UInt8, _ v: (Int32, Int32, Int32), iTOW: UInt32 = iTOW) -> [UInt8] {
        var p = Payload(20)
        p.u32(0, iTOW); p.i32(4, v.0); p.i32(8, v.1); p.i32(12, v.2); p.u32(16, 250)
        return UBXFraming.encode(class: 0x01, id: id, payload: p.bytes)
    }

    static func status(gpsFix: UInt8, flags: UInt8 = 0x0D, iTOW: UInt32 = iTOW) -> [UInt8] {
        var p = Payload(16)
        p.u32(0, iTOW); p.u8(4, gpsFix); p.u8(5, flags)
        return UBXFraming.encode(class: 0x01, id: 0x03, payload: p.bytes)
    }

    /// The fixes of `bytes`, fed whole, one byte at a time, and in 7-byte bursts; all three must agree.
    static func fixes(_ bytes: [UInt8], conversion: ECEFConversion? = Geodesy.wgs84ECEF) -> [Fix] {
        var results: [[Fix]] = []
        for chunk in [bytes.count, 1, 7] {
            let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, distance: Geodesy.wgs84Distance,
                                                                       ecefConversion: conversion))
            var fixes: [Fix] = []
            var index = 0
            while index < bytes.count {
                let end = min(bytes.count, index + max(chunk, 1))
                let slice = Array(bytes[index..<end])
                stream.feed(slice.span) { fixes.append($0) }
                index = end
            }
            stream.finish { fixes.append($0) }
            results.append(fixes)
        }
        #expect(results[1].map(\.latitude) == results[0].map(\.latitude) && results[2].map(\.latitude) == results[0].map(\.latitude))
        #expect(results[1].map(\.speed) == results[0].map(\.speed) && results[2].map(\.course) == results[0].map(\.course))
        return results[0]
    }

    static func expectPlace(_ fix: Fix, velocity: Bool = true) throws {
        // Centimetre rounding of the ECEF input: < 1e-7° and 1 cm; cm/s rounding of each velocity
        // component: < 0.009 m/s after the rotation, 0.1° of course at 5 m/s.
        let lat = try #require(fix.latitude), lon = try #require(fix.longitude), hae = try #require(fix.altitudeHAE)
        #expect(abs(lat - latitude) < 1e-7 && abs(lon - longitude) < 1e-7 && abs(hae - height) < 0.01)
        #expect(fix.altitudeMSL == nil && fix.geoidSeparation == nil, "no geoid model: mean sea level stays unknown")
        guard velocity else { return }
        let speed = try #require(fix.speed), course = try #require(fix.course)
        #expect(abs(speed - 5) < 0.015 && !fix.speedIsDerived)
        #expect(abs(course - atan2(east, north) * 180 / .pi) < 0.2)
        let n = try #require(fix.velocityNorth), e = try #require(fix.velocityEast), d = try #require(fix.velocityDown)
        #expect(abs(n - north) < 0.01 && abs(e - east) < 0.01 && abs(d - down) < 0.01)
    }

    @Test("NAV-TIMEGPS + NAV-SOL (u-blox 4T, 7, M8T): position, height above the ellipsoid, velocity from ECEF")
    func navSOL() throws {
        let fixes = Self.fixes(Self.timeGPS() + Self.navSOL())
        #expect(fixes.count == 1)
        let fix = try #require(fixes.first)
        #expect(fix.time?.iso8601(fractionDigits: 3) == "2024-03-24T20:42:25.000Z")
        #expect(fix.mode == .threeD && fix.satellitesUsed == 9 && fix.binaryProtocol == .ubx)
        try Self.expectPlace(fix)
        #expect(fix.receiverAccuracy?.position3D == 2.5)
    }

    @Test("NAV-SOL without velocity, then NAV-POSECEF and NAV-VELECEF (NEO-M8T): the ECEF messages give the velocity")
    func posECEFAndVelECEF() throws {
        let (position, velocity) = Self.ecef()
        let bytes = Self.timeGPS() + Self.navSOL(velocity: false) + Self.vector(id: 0x01, position) + Self.vector(id: 0x11, velocity)
        let fix = try #require(Self.fixes(bytes).first)
        try Self.expectPlace(fix)
    }

    @Test("NAV-STATUS, NAV-POSECEF, NAV-VELECEF only: mode from NAV-STATUS, position and velocity from ECEF")
    func statusAndECEF() throws {
        let (position, velocity) = Self.ecef()
        let bytes = Self.timeGPS() + Self.status(gpsFix: 3) + Self.vector(id: 0x01, position) + Self.vector(id: 0x11, velocity)
        let fix = try #require(Self.fixes(bytes).first)
        #expect(fix.mode == .threeD && fix.quality == .gps)
        try Self.expectPlace(fix)
        // gpsFixOk clear: no fix, no position, whatever the fix type says.
        let bad = try #require(Self.fixes(Self.timeGPS() + Self.status(gpsFix: 3, flags: 0x0C) + Self.vector(id: 0x01, position)).first)
        #expect(bad.mode == .noFix && bad.latitude == nil)
    }

    @Test("NAV-SOL in 2D: position and the height the receiver holds; no fix: no position")
    func twoDAndNoFix() throws {
        let flat = try #require(Self.fixes(Self.timeGPS() + Self.navSOL(fix: 2)).first)
        #expect(flat.mode == .twoD)
        try Self.expectPlace(flat)
        let none = try #require(Self.fixes(Self.timeGPS() + Self.navSOL(fix: 0, flags: 0x0C)).first)
        #expect(none.mode == .noFix && none.latitude == nil && none.altitudeHAE == nil && none.speed == nil)
    }

    @Test("without a conversion (a caller that supplies none) an ECEF-only epoch keeps its mode and time but has no position")
    func withoutConversion() throws {
        let fix = try #require(Self.fixes(Self.timeGPS() + Self.navSOL(), conversion: nil).first)
        #expect(fix.mode == .threeD && fix.time != nil)
        #expect(fix.latitude == nil && fix.altitudeHAE == nil && fix.speed == nil)
    }

    @Test("a geodetic position of the epoch (NAV-POSLLH) is kept; ECEF fills only what nothing stated")
    func geodeticWins() throws {
        var llh = Payload(28)
        llh.u32(0, Self.iTOW); llh.i32(4, -1_170_000_000); llh.i32(8, 464_000_000); llh.i32(12, 100_000); llh.i32(16, 118_000)
        let bytes = Self.timeGPS() + Self.navSOL() + UBXFraming.encode(class: 0x01, id: 0x02, payload: llh.bytes)
        let fix = try #require(Self.fixes(bytes).first)
        #expect(fix.latitude == 46.4 && fix.longitude == -117 && fix.altitudeHAE == 100 && fix.altitudeMSL == 118)
        #expect(fix.speed == nil, "gpsd converts the ECEF velocity only with the ECEF position")
    }

    @Test("consecutive ECEF epochs with velocity keep the receiver's speed; a position-only epoch gets a derived one")
    func derivedSpeed() throws {
        let (position, _) = Self.ecef()
        var bytes: [UInt8] = []
        for second: UInt32 in 0..<3 {
            let moved = (position.0, position.1, position.2 + Int32(second) * 1000)  // 10 m along the axis a second
            bytes += Self.timeGPS(Self.iTOW + second * 1000) + Self.status(gpsFix: 3, iTOW: Self.iTOW + second * 1000)
                + Self.vector(id: 0x01, moved, iTOW: Self.iTOW + second * 1000)
        }
        let fixes = Self.fixes(bytes)
        #expect(fixes.count == 3)
        #expect(fixes[0].speed == nil, "no previous fix")
        // 10 m along the earth's axis is 10 cos φ north (and 10 sin φ up): 6.896 m/s over the ground.
        let expected = 10 * cos(Self.latitude * .pi / 180)
        for fix in fixes.dropFirst() {
            #expect(fix.speedIsDerived && abs((fix.speed ?? 0) - expected) < 0.01)
        }
    }
}
