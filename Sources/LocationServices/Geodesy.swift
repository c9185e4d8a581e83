import NMEA
import RealModule

/// Distances on the WGS84 ellipsoid.
public enum Geodesy {
    static let semiMajorAxis = 6_378_137.0
    static let flattening = 1.0 / 298.257223563
    static let semiMinorAxis = semiMajorAxis * (1 - flattening)

    /// The geodesic distance in metres between two points (Vincenty's inverse formula, WGS84).
    /// Falls back to a spherical great-circle distance for nearly antipodal points where the
    /// iteration does not converge.
    public static func distance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        let degree = Double.pi / 180
        let a = semiMajorAxis, b = semiMinorAxis, f = flattening
        let l = (longitude2 - longitude1) * degree
        let u1 = Double.atan((1 - f) * Double.tan(latitude1 * degree))
        let u2 = Double.atan((1 - f) * Double.tan(latitude2 * degree))
        let sinU1 = Double.sin(u1), cosU1 = Double.cos(u1), sinU2 = Double.sin(u2), cosU2 = Double.cos(u2)
        var lambda = l
        var iterations = 0
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cosSqAlpha = 0.0, cos2SigmaM = 0.0
        while true {
            let sinLambda = Double.sin(lambda), cosLambda = Double.cos(lambda)
            let t1 = cosU2 * sinLambda
            let t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            if sinSigma == 0 { return 0 }
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = Double.atan2(y: sinSigma, x: cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cosSqAlpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cosSqAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSqAlpha : 0
            let c = f / 16 * cosSqAlpha * (4 + f * (4 - 3 * cosSqAlpha))
            let previous = lambda
            lambda = l + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            iterations += 1
            if Swift.abs(lambda - previous) < 1e-12 { break }
            if iterations >= 100 {
                return greatCircle(latitude1: latitude1, longitude1: longitude1, latitude2: latitude2, longitude2: longitude2)
            }
        }
        let uSq = cosSqAlpha * (a * a - b * b) / (b * b)
        let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
        let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
        let deltaSigma = bigB * sinSigma * (cos2SigmaM + bigB / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
            - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        return b * bigA * (sigma - deltaSigma)
    }

    /// ``distance(latitude1:longitude1:latitude2:longitude2:)`` as a function value for ``AssemblerOptions``.
    public static let wgs84Distance: DistanceFunction = { distance(latitude1: $0, longitude1: $1, latitude2: $2, longitude2: $3) }

    /// Great-circle distance on a sphere of the WGS84 mean radius, metres.
    public static func greatCircle(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        let degree = Double.pi / 180
        let dLat = (latitude2 - latitude1) * degree
        let dLon = (longitude2 - longitude1) * degree
        let h = Double.sin(dLat / 2) * Double.sin(dLat / 2) + Double.cos(latitude1 * degree) * Double.cos(latitude2 * degree) * Double.sin(dLon / 2) * Double.sin(dLon / 2)
        return 2 * 6_371_008.8 * Double.asin(min(1, h.squareRoot()))
    }
}

// MARK: ECEF

extension Geodesy {
    /// First eccentricity squared of the WGS84 ellipsoid, e² = f (2 − f).
    static let eccentricitySquared = flattening * (2 - flattening)

    /// The WGS84 ECEF position (metres) of a geodetic latitude and longitude (degrees) and a height
    /// above the ellipsoid (metres).
    public static func ecef(latitude: Double, longitude: Double, height: Double) -> ECEFVector {
        let degree = Double.pi / 180
        let phi = latitude * degree, lambda = longitude * degree
        let sinPhi = Double.sin(phi), cosPhi = Double.cos(phi)
        let n = semiMajorAxis / (1 - eccentricitySquared * sinPhi * sinPhi).squareRoot()
        return ECEFVector(x: (n + height) * cosPhi * Double.cos(lambda),
                          y: (n + height) * cosPhi * Double.sin(lambda),
                          z: (n * (1 - eccentricitySquared) + height) * sinPhi)
    }

    /// The geodetic latitude and longitude (degrees) and height above the WGS84 ellipsoid (metres) of an
    /// ECEF position (metres).
    ///
    /// Bowring's formula iterated to convergence: each step takes the parametric latitude β to the
    /// geodetic latitude φ = atan2(z + e'² b sin³β, p − e² a cos³β) and back, β = atan(tan φ · (1 − f)),
    /// until φ moves less than 1e-14 rad (under a micrometre). At the surface one step already gives
    /// 1e-10°; higher up (satellite orbits) it takes a few more. The height is
    /// h = p cos φ + (z + e² N sin φ) sin φ − N, which holds at the poles and the equator alike
    /// (no division by cos φ). On the polar axis the latitude is ±90° and the longitude 0.
    public static func geodetic(_ position: ECEFVector) -> (latitude: Double, longitude: Double, height: Double) {
        let a = semiMajorAxis, b = semiMinorAxis, f = flattening, e2 = eccentricitySquared
        let ep2 = e2 / (1 - e2)
        let x = position.x, y = position.y, z = position.z
        let p = (x * x + y * y).squareRoot()
        let degree = 180 / Double.pi
        guard p > 0 else {
            return (z < 0 ? -90 : 90, 0, Swift.abs(z) - b)
        }
        let lambda = Double.atan2(y: y, x: x)
        var beta = Double.atan2(y: z, x: (1 - f) * p)
        var phi = Double.atan2(y: z, x: p)
        for _ in 0..<16 {
            let sinBeta = Double.sin(beta), cosBeta = Double.cos(beta)
            let next = Double.atan2(y: z + ep2 * b * sinBeta * sinBeta * sinBeta,
                                    x: p - e2 * a * cosBeta * cosBeta * cosBeta)
            let moved = Swift.abs(next - phi)
            phi = next
            if moved < 1e-14 { break }
            beta = Double.atan2(y: (1 - f) * Double.sin(phi), x: Double.cos(phi))
        }
        let sinPhi = Double.sin(phi), cosPhi = Double.cos(phi)
        let n = a / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let height = p * cosPhi + (z + e2 * n * sinPhi) * sinPhi - n
        return (phi * degree, lambda * degree, height)
    }

    /// Rotates an ECEF velocity (m/s) into north, east and down at a geodetic latitude and longitude (degrees).
    public static func northEastDown(_ velocity: ECEFVector, latitude: Double, longitude: Double)
        -> (north: Double, east: Double, down: Double) {
        let degree = Double.pi / 180
        let sinPhi = Double.sin(latitude * degree), cosPhi = Double.cos(latitude * degree)
        let sinLambda = Double.sin(longitude * degree), cosLambda = Double.cos(longitude * degree)
        let vx = velocity.x, vy = velocity.y, vz = velocity.z
        let north = -sinPhi * cosLambda * vx - sinPhi * sinLambda * vy + cosPhi * vz
        let east = -sinLambda * vx + cosLambda * vy
        let up = cosPhi * cosLambda * vx + cosPhi * sinLambda * vy + sinPhi * vz
        return (north, east, -up)
    }

    /// ``geodetic(_:)`` and ``northEastDown(_:latitude:longitude:)`` as one conversion: position,
    /// height above the ellipsoid, local velocity, horizontal speed and course (degrees true, 0 ..< 360).
    public static func solution(position: ECEFVector, velocity: ECEFVector?) -> GeodeticSolution {
        let place = geodetic(position)
        var solution = GeodeticSolution(latitude: place.latitude, longitude: place.longitude,
                                        heightAboveEllipsoid: place.height)
        guard let velocity else { return solution }
        let ned = northEastDown(velocity, latitude: place.latitude, longitude: place.longitude)
        solution.velocityNorth = ned.north
        solution.velocityEast = ned.east
        solution.velocityDown = ned.down
        solution.speed = (ned.north * ned.north + ned.east * ned.east).squareRoot()
        var course = Double.atan2(y: ned.east, x: ned.north) * 180 / Double.pi
        course = course < 0 ? course + 360 : course + 0.0  // + 0.0: no "-0" course
        solution.course = course < 360 ? course : 0
        return solution
    }

    /// ``solution(position:velocity:)`` as a function value for ``AssemblerOptions/ecefConversion``.
    public static let wgs84ECEF: ECEFConversion = { solution(position: $0, velocity: $1) }
}
