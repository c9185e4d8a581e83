import Foundation
import LocationServices
import NMEA
import Testing

/// WGS84 ECEF ⇄ geodetic conversion and the ECEF → north/east/down velocity rotation.
@Suite("Geodesy: ECEF")
struct GeodesyECEFTests {
    static let a = 6_378_137.0
    static let b = 6_356_752.314245179  // a (1 − f), f = 1/298.257223563

    /// The longitude difference on the circle (−180 and 180 are the same meridian).
    static func longitudeDifference(_ x: Double, _ y: Double) -> Double {
        let d = abs(x - y).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }

    @Test("points on the axes: equator at 0°, 90°E, 180°, poles, below the south pole")
    func axes() {
        let cases: [(ECEFVector, Double, Double, Double)] = [
            (ECEFVector(x: Self.a, y: 0, z: 0), 0, 0, 0),
            (ECEFVector(x: 0, y: Self.a + 100, z: 0), 0, 90, 100),
            (ECEFVector(x: -Self.a, y: 0, z: 0), 0, 180, 0),
            (ECEFVector(x: 0, y: -Self.a, z: 0), 0, -90, 0),
            (ECEFVector(x: 0, y: 0, z: Self.b), 90, 0, 0),
            (ECEFVector(x: 0, y: 0, z: -Self.b - 1000), -90, 0, 1000),
        ]
        for (position, latitude, longitude, height) in cases {
            let g = Geodesy.geodetic(position)
            #expect(abs(g.latitude - latitude) < 1e-12, "\(position)")
            #expect(Self.longitudeDifference(g.longitude, longitude) < 1e-12, "\(position)")
            #expect(abs(g.height - height) < 1e-6, "\(position)")
        }
    }

    @Test("geodetic → ECEF → geodetic: < 1e-9° and 1 mm at poles, equator, antimeridian, from the Dead Sea to geostationary height")
    func roundTrip() {
        let latitudes = [-90, -89.999_999_9, -60.5, -45, -0.000_000_1, 0, 0.000_000_1, 1e-9, 33.3, 45, 67.89, 89.999_999_9, 90]
        let longitudes = [-180, -179.999_999_9, -90, -0.5, 0, 12.345_678_9, 90, 179.999_999_9, 180]
        let heights = [-430.0, 0, 1.234, 8_848.86, 100_000, 20_200_000, 35_786_000]
        var worstAngle = 0.0, worstHeight = 0.0
        for latitude in latitudes {
            for longitude in longitudes {
                for height in heights {
                    let position = Geodesy.ecef(latitude: latitude, longitude: longitude, height: height)
                    let back = Geodesy.geodetic(position)
                    worstAngle = max(worstAngle, abs(back.latitude - latitude))
                    if abs(latitude) < 90 {
                        // At a pole every longitude names the same point.
                        worstAngle = max(worstAngle, Self.longitudeDifference(back.longitude, longitude))
                    }
                    worstHeight = max(worstHeight, abs(back.height - height))
                }
            }
        }
        #expect(worstAngle < 1e-9, "worst angle \(worstAngle)°")
        #expect(worstHeight < 0.001, "worst height \(worstHeight) m")
    }

    @Test("the forward formula against an independent one (Foundation's trigonometry, the textbook form)")
    func forwardIndependent() {
        let f = 1 / 298.257223563, e2 = f * (2 - f)
        for (latitude, longitude, height) in [(44.068809596, -121.314309171, 1110.6751), (-33.9, 151.2, 50.0), (0.0, 0.0, 0.0), (89.9, -179.9, 3000.0)] {
            let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
            let n = Self.a / sqrt(1 - e2 * sin(phi) * sin(phi))
            let x = (n + height) * cos(phi) * cos(lambda), y = (n + height) * cos(phi) * sin(lambda)
            let z = (n * (1 - e2) + height) * sin(phi)
            let ours = Geodesy.ecef(latitude: latitude, longitude: longitude, height: height)
            #expect(abs(ours.x - x) < 1e-6 && abs(ours.y - y) < 1e-6 && abs(ours.z - z) < 1e-6)
        }
    }

    /// gpsd's TPV for 2018-10-25T20:55:46 in ublox-neo-m8t.log (a u-blox M8T that sends NAV-SOL, no
    /// NAV-POSLLH): ecefx/y/z -2386071.06, -3922190.51, 4414360.73 m → lat 44.068809596,
    /// lon -121.314309171, altHAE 1110.6751 (gpsd prints 9 and 4 decimals).
    @Test("an M8T's NAV-SOL position gives gpsd's latitude, longitude and height (ublox-neo-m8t.log)")
    func gpsdValue() {
        let g = Geodesy.geodetic(ECEFVector(x: -2_386_071.06, y: -3_922_190.51, z: 4_414_360.73))
        #expect(abs(g.latitude - 44.068809596) < 1e-9)
        #expect(abs(g.longitude - -121.314309171) < 1e-9)
        #expect(abs(g.height - 1110.6751) < 0.001)
    }

    @Test("ECEF velocity → north, east, down; speed and course")
    func velocity() throws {
        // At 0°N 0°E: east is +y, north +z, down −x.
        var ned = Geodesy.northEastDown(ECEFVector(x: -1, y: 2, z: 3), latitude: 0, longitude: 0)
        #expect(abs(ned.north - 3) < 1e-12 && abs(ned.east - 2) < 1e-12 && abs(ned.down - 1) < 1e-12)
        // At 0°N 90°E: east is −x. At the north pole on the 0° meridian: north is −x, down −z.
        ned = Geodesy.northEastDown(ECEFVector(x: -4, y: 0, z: 0), latitude: 0, longitude: 90)
        #expect(abs(ned.east - 4) < 1e-12 && abs(ned.north) < 1e-12 && abs(ned.down) < 1e-12)
        ned = Geodesy.northEastDown(ECEFVector(x: -1, y: 0, z: -2), latitude: 90, longitude: 0)
        #expect(abs(ned.north - 1) < 1e-12 && abs(ned.east) < 1e-12 && abs(ned.down - 2) < 1e-12)
        // The rotation keeps the length, at any place.
        let v = ECEFVector(x: 3.5, y: -7.25, z: 1.125)
        ned = Geodesy.northEastDown(v, latitude: -37.8, longitude: 144.96)
        let length = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
        #expect(abs((ned.north * ned.north + ned.east * ned.east + ned.down * ned.down).squareRoot() - length) < 1e-12)
        // Due west at 45°N 10°E, climbing 1 m/s: course 270, speed 5.
        let phi = 45.0 * .pi / 180, lambda = 10.0 * .pi / 180
        let (n, e, up) = (0.0, -5.0, 1.0)
        let west = ECEFVector(x: -sin(phi) * cos(lambda) * n - sin(lambda) * e + cos(phi) * cos(lambda) * up,
                              y: -sin(phi) * sin(lambda) * n + cos(lambda) * e + cos(phi) * sin(lambda) * up,
                              z: cos(phi) * n + sin(phi) * up)
        let s = Geodesy.solution(position: Geodesy.ecef(latitude: 45, longitude: 10, height: 200), velocity: west)
        let speed = try #require(s.speed), course = try #require(s.course), down = try #require(s.velocityDown)
        #expect(abs(speed - 5) < 1e-9 && abs(course - 270) < 1e-9)
        #expect(abs(down + 1) < 1e-9 && abs(s.heightAboveEllipsoid - 200) < 1e-6)
        // Standing still: speed 0, course 0 (not −0, not 360); no velocity: none.
        let still = Geodesy.solution(position: ECEFVector(x: Self.a, y: 0, z: 0), velocity: ECEFVector(x: 0, y: -0.0, z: 0))
        #expect(still.speed == 0 && still.course == 0 && still.course?.sign == .plus)
        #expect(Geodesy.solution(position: ECEFVector(x: Self.a, y: 0, z: 0), velocity: nil).speed == nil)
    }

    /// gpsd's TPV for 2018-10-25T20:55:47 in ublox-neo-m8t.log: ecefvx/vy/vz 0.01, 0.01, −0.01 m/s
    /// → velN 0.002, velE 0.003, velD 0.017 (3 decimals).
    @Test("an M8T's NAV-SOL velocity gives gpsd's north/east/down (ublox-neo-m8t.log)")
    func gpsdVelocity() {
        let ned = Geodesy.northEastDown(ECEFVector(x: 0.01, y: 0.01, z: -0.01), latitude: 44.068809737, longitude: -121.314308893)
        #expect(abs(ned.north - 0.002) < 0.0005 && abs(ned.east - 0.003) < 0.0005 && abs(ned.down - 0.017) < 0.0005)
    }
}
