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
