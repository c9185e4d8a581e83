import RealModule

/// Why a model coefficient file could not be read.
public enum WMMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The first line is not `epoch name date`.
    case badHeader(line: Int)
    /// A coefficient row is malformed: `field` names what is wrong.
    case badRow(line: Int, field: String)
    /// A row's degree or order is out of range or out of order.
    case badDegree(line: Int, n: Int, m: Int)
    /// Rows are missing: the file ends before degree `maximumDegree` is complete.
    case incomplete(rows: Int, expected: Int)

    public var description: String {
        switch self {
        case .badHeader(let line): return "line \(line): expected 'epoch model-name release-date'"
        case .badRow(let line, let field): return "line \(line): \(field)"
        case .badDegree(let line, let n, let m): return "line \(line): degree \(n), order \(m) out of range or out of order"
        case .incomplete(let rows, let expected): return "only \(rows) coefficient rows, expected \(expected)"
        }
    }
}

/// The magnetic field at a place and time, with its yearly rates of change.
public struct GeomagneticElements: Sendable, Hashable {
    /// North, east and down components, nanotesla.
    public var x: Double
    public var y: Double
    public var z: Double
    /// Horizontal and total intensity, nanotesla.
    public var horizontalIntensity: Double
    public var totalIntensity: Double
    /// Inclination (dip), degrees, positive down.
    public var inclination: Double
    /// Declination (magnetic variation), degrees, east positive.
    public var declination: Double
    /// Grid variation, degrees: declination relative to grid north of a polar stereographic grid,
    /// defined where |latitude| >= 55 degrees (nil elsewhere).
    public var gridVariation: Double?
    /// Yearly rates of change (nT/year, degrees/year).
    public var xRate: Double
    public var yRate: Double
    public var zRate: Double
    public var horizontalIntensityRate: Double
    public var totalIntensityRate: Double
    public var inclinationRate: Double
    public var declinationRate: Double
    /// Whether the date lies outside the model's validity period (epoch to epoch + 5 years).
    public var outsideValidityPeriod: Bool
    /// Whether the horizontal intensity is below 2000 nT, where compasses are unreliable
    /// (NOAA's "blackout zone"); below 6000 nT is a caution zone.
    public var inBlackoutZone: Bool
}

/// The World Magnetic Model: spherical harmonics to degree 12 with linear secular variation.
///
/// Immutable after creation, so it is `Sendable`; evaluation allocates nothing (scratch space is on
/// the stack).
public final class WorldMagneticModel: Sendable {
    /// The model's epoch (decimal year), for example 2025.0.
    public let epoch: Double
    /// The model name from the coefficient file, for example `WMM-2025`.
    public let name: String
    /// The maximum degree and order (12 for the WMM).
    public let maximumDegree: Int

    // Coefficients indexed by n(n+1)/2 + m.
    let g: [Double]
    let h: [Double]
    let gRate: [Double]
    let hRate: [Double]
    /// The coefficients multiplied by their Schmidt factors, so evaluation works on the
    /// unnormalised Legendre functions without a normalisation pass.
    let gS: [Double]
    let hS: [Double]
    let gRateS: [Double]
    let hRateS: [Double]
    /// Recursion constants ((n-1)^2 - m^2) / ((2n-1)(2n-3)), same index.
    let recursion: [Double]

    /// The geomagnetic reference radius, km.
    static let referenceRadius = 6371.2
    /// WGS84 semi-major axis, km, and first eccentricity squared.
    static let semiMajorAxis = 6378.137
    static let eccentricitySquared = 0.0066943799901413169961

    /// WMM2025, shipped with the package.
    public static let wmm2025: WorldMagneticModel = {
        var rows: [Row] = []
        for (n, m, g, h, gd, hd) in wmm2025Rows { rows.append(Row(n: n, m: m, g: g, h: h, gRate: gd, hRate: hd)) }
        return WorldMagneticModel(epoch: 2025.0, name: "WMM-2025", maximumDegree: 12, rows: rows)
    }()

    struct Row: Equatable {
        var n: Int, m: Int, g: Double, h: Double, gRate: Double, hRate: Double
    }

    init(epoch: Double, name: String, maximumDegree: Int, rows: [Row]) {
        self.epoch = epoch
        self.name = name
        self.maximumDegree = maximumDegree
        let count = (maximumDegree + 1) * (maximumDegree + 2) / 2
        var g = [Double](repeating: 0, count: count)
        var h = g, gRate = g, hRate = g
        for row in rows where row.n >= 1 && row.n <= maximumDegree && row.m >= 0 && row.m <= row.n {
            let index = row.n * (row.n + 1) / 2 + row.m
            g[index] = row.g
            h[index] = row.h
            gRate[index] = row.gRate
            hRate[index] = row.hRate
        }
        var schmidt = [Double](repeating: 1, count: count)
        var recursion = [Double](repeating: 0, count: count)
        if maximumDegree >= 1 {
            for n in 1...maximumDegree {
                let first = n * (n + 1) / 2
                schmidt[first] = schmidt[(n - 1) * n / 2] * Double(2 * n - 1) / Double(n)
                for m in 1...n {
                    let factor = Double((n - m + 1) * (m == 1 ? 2 : 1)) / Double(n + m)
                    schmidt[first + m] = schmidt[first + m - 1] * factor.squareRoot()
                }
                if n >= 2 {
                    for m in 0...n {
                        recursion[first + m] = Double((n - 1) * (n - 1) - m * m) / Double((2 * n - 1) * (2 * n - 3))
                    }
                }
            }
        }
        self.g = g
        self.h = h
        self.gRate = gRate
        self.hRate = hRate
        self.recursion = recursion
        self.gS = zip(g, schmidt).map { $0 * $1 }
        self.hS = zip(h, schmidt).map { $0 * $1 }
        self.gRateS = zip(gRate, schmidt).map { $0 * $1 }
        self.hRateS = zip(hRate, schmidt).map { $0 * $1 }
    }

    /// Reads a coefficient file in NOAA's `.COF` layout (header line, then `n m g h gdot hdot` rows,
    /// ending with a line of 9s). Errors name the line.
    public convenience init(cof text: String) throws(WMMError) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard let header = lines.first, header.count >= 2, let epoch = Double(header[0]) else { throw .badHeader(line: 1) }
        var rows: [Row] = []
        var maximum = 0
        for (offset, fields) in lines.dropFirst().enumerated() {
            let line = offset + 2
            // The file ends with lines of 9s (a row of degree 9 starts with a single "9").
            if let first = fields.first, first.count >= 4, first.allSatisfy({ $0 == "9" }) { break }
            guard fields.count >= 6 else { throw .badRow(line: line, field: "expected 6 columns, found \(fields.count)") }
            guard let n = Int(fields[0]), let m = Int(fields[1]) else { throw .badRow(line: line, field: "degree/order not integers") }
            let names = ["g", "h", "gdot", "hdot"]
            var values: [Double] = []
            for (index, name) in names.enumerated() {
                guard let value = Double(fields[index + 2]), value.isFinite else { throw .badRow(line: line, field: "\(name) is not a number") }
                values.append(value)
            }
            guard n >= 1, n <= 30, m >= 0, m <= n else { throw .badDegree(line: line, n: n, m: m) }
            if let previous = rows.last, !(n == previous.n && m == previous.m + 1) && !(n == previous.n + 1 && m == 0) {
                throw .badDegree(line: line, n: n, m: m)
            }
            if rows.isEmpty, !(n == 1 && m == 0) { throw .badDegree(line: line, n: n, m: m) }
            rows.append(Row(n: n, m: m, g: values[0], h: values[1], gRate: values[2], hRate: values[3]))
            maximum = max(maximum, n)
        }
        let expected = maximum * (maximum + 3) / 2
        guard maximum >= 1, rows.count == expected else { throw .incomplete(rows: rows.count, expected: max(expected, 1)) }
        self.init(epoch: epoch, name: String(header[1]), maximumDegree: maximum, rows: rows)
    }

    /// The coefficient rows, for comparing models (tests).
    var rows: [Row] {
        var result: [Row] = []
        for n in 1...max(maximumDegree, 1) {
            for m in 0...n {
                let index = n * (n + 1) / 2 + m
                result.append(Row(n: n, m: m, g: g[index], h: h[index], gRate: gRate[index], hRate: hRate[index]))
            }
        }
        return result
    }

    /// The field at a geodetic position (WGS84) and time.
    ///
    /// - Parameters:
    ///   - latitude: geodetic latitude, degrees (-90...90). At the poles themselves the east component
    ///     has no direction; the latitude is taken 1e-7 degree from the pole (a few centimetres),
    ///     which keeps every element finite and continuous.
    ///   - longitude: degrees, any range (0...360 or -180...180).
    ///   - heightKm: height above the WGS84 ellipsoid, kilometres.
    ///   - decimalYear: for example 2027.5; outside the validity period the result says so.
    public func evaluate(latitude: Double, longitude: Double, heightKm: Double, decimalYear: Double) -> GeomagneticElements {
        let degree = Double.pi / 180
        let latitude = min(max(latitude, -90 + 1e-7), 90 - 1e-7)
        let phi = latitude * degree
        let lambda = longitude * degree
        // Geodetic to geocentric spherical coordinates.
        let sinPhi = Double.sin(phi), cosPhi = Double.cos(phi)
        let e2 = WorldMagneticModel.eccentricitySquared
        let rc = WorldMagneticModel.semiMajorAxis / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let xp = (rc + heightKm) * cosPhi
        let zp = (rc * (1 - e2) + heightKm) * sinPhi
        let r = (xp * xp + zp * zp).squareRoot()
        // Geocentric latitude by its sine and cosine: no inverse trigonometry needed.
        let sinPhiG = zp / r
        let cosPhiG = xp / r
        let dt = decimalYear - epoch
        let maximum = maximumDegree
        let count = (maximum + 1) * (maximum + 2) / 2

        // Sums of the static (epoch) coefficients and of the secular variation, kept apart: the
        // field at the date is static + dt x rate, and the yearly rates are the rate sums.
        var bx = 0.0, by = 0.0, bz = 0.0, bxRate = 0.0, byRate = 0.0, bzRate = 0.0
        // Scratch on the stack: three small buffers (each well under the stack-allocation limit).
        withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { pBuffer in
        withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { dpBuffer in
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * (maximum + 1)) { trigBuffer in
        gS.withUnsafeBufferPointer { g in
        hS.withUnsafeBufferPointer { h in
        gRateS.withUnsafeBufferPointer { gRate in
        hRateS.withUnsafeBufferPointer { hRate in
        recursion.withUnsafeBufferPointer { recursion in
            guard let p = pBuffer.baseAddress, let dp = dpBuffer.baseAddress, let cosM = trigBuffer.baseAddress else { return }
            let sinM = cosM + (maximum + 1)
            // Unnormalised associated Legendre functions of sin(geocentric latitude) and their
            // derivatives; the Schmidt factors are already in the coefficients.
            let x = sinPhiG
            let z = cosPhiG
            p[0] = 1
            dp[0] = 0
            if maximum >= 1 {
                for n in 1...maximum {
                    let first = n * (n + 1) / 2
                    let previous = (n - 1) * n / 2
                    for m in 0...n {
                        let index = first + m
                        if n == m {
                            p[index] = z * p[previous + m - 1]
                            dp[index] = z * dp[previous + m - 1] + x * p[previous + m - 1]
                        } else if n == 1 || m > n - 2 {
                            p[index] = x * p[previous + m]
                            dp[index] = x * dp[previous + m] - z * p[previous + m]
                        } else {
                            let older = (n - 2) * (n - 1) / 2 + m
                            let k = recursion[index]
                            p[index] = x * p[previous + m] - k * p[older]
                            dp[index] = x * dp[previous + m] - z * p[previous + m] - k * dp[older]
                        }
                    }
                }
            }
            // cos(m lambda), sin(m lambda) by recurrence.
            cosM[0] = 1
            sinM[0] = 0
            let cosL = Double.cos(lambda), sinL = Double.sin(lambda)
            if maximum >= 1 {
                for m in 1...maximum {
                    cosM[m] = cosM[m - 1] * cosL - sinM[m - 1] * sinL
                    sinM[m] = cosM[m - 1] * sinL + sinM[m - 1] * cosL
                }
            }
            let ratio = WorldMagneticModel.referenceRadius / r
            var power = ratio * ratio  // (a/r)^(n+2) starts at n = 0
            guard maximum >= 1 else { return }
            for n in 1...maximum {
                power *= ratio
                let first = n * (n + 1) / 2
                let nPlusOne = Double(n + 1)
                var sumZ = 0.0, sumY = 0.0, sumX = 0.0, rateZ = 0.0, rateY = 0.0, rateX = 0.0
                for m in 0...n {
                    let index = first + m
                    let c = cosM[m], s = sinM[m]
                    let cosTerm = g[index] * c + h[index] * s
                    let sinTerm = g[index] * s - h[index] * c
                    let cosRate = gRate[index] * c + hRate[index] * s
                    let sinRate = gRate[index] * s - hRate[index] * c
                    let pm = p[index], dpm = dp[index], mpm = Double(m) * pm
                    sumZ += cosTerm * pm
                    sumY += sinTerm * mpm
                    sumX += cosTerm * dpm
                    rateZ += cosRate * pm
                    rateY += sinRate * mpm
                    rateX += cosRate * dpm
                }
                bz -= power * nPlusOne * sumZ
                by += power * sumY
                bx += power * sumX
                bzRate -= power * nPlusOne * rateZ
                byRate += power * rateY
                bxRate += power * rateX
            }
        }
        }
        }
        }
        }
        }
        }
        }
        bx += dt * bxRate
        by += dt * byRate
        bz += dt * bzRate
        // cos of the geocentric latitude is at least ~1e-9 after the pole clamp above.
        by /= cosPhiG
        byRate /= cosPhiG
        // Rotate from the geocentric sphere to the geodetic frame by psi = phiG - phi.
        let sinPsi = sinPhiG * cosPhi - cosPhiG * sinPhi
        let cosPsi = cosPhiG * cosPhi + sinPhiG * sinPhi
        let x = bx * cosPsi - bz * sinPsi
        let zDown = bx * sinPsi + bz * cosPsi
        let xRate = bxRate * cosPsi - bzRate * sinPsi
        let zRate = bxRate * sinPsi + bzRate * cosPsi
        let y = by, yRate = byRate

        let horizontal = (x * x + y * y).squareRoot()
        let total = (horizontal * horizontal + zDown * zDown).squareRoot()
        let inclination = Double.atan2(y: zDown, x: horizontal) / degree
        let declination = Double.atan2(y: y, x: x) / degree
        let horizontalRate = horizontal > 0 ? (x * xRate + y * yRate) / horizontal : 0
        let totalRate = total > 0 ? (x * xRate + y * yRate + zDown * zRate) / total : 0
        let inclinationRate = total > 0 ? (horizontal * zRate - zDown * horizontalRate) / (total * total) / degree : 0
        let declinationRate = horizontal > 0 ? (x * yRate - y * xRate) / (horizontal * horizontal) / degree : 0
        var grid: Double?
        if latitude >= 55 || latitude <= -55 {
            var value = latitude > 0 ? declination - longitude : declination + longitude
            value = value.truncatingRemainder(dividingBy: 360)
            if value > 180 { value -= 360 }
            if value <= -180 { value += 360 }
            grid = value
        }
        return GeomagneticElements(
            x: x, y: y, z: zDown, horizontalIntensity: horizontal, totalIntensity: total,
            inclination: inclination, declination: declination, gridVariation: grid,
            xRate: xRate, yRate: yRate, zRate: zRate, horizontalIntensityRate: horizontalRate,
            totalIntensityRate: totalRate, inclinationRate: inclinationRate, declinationRate: declinationRate,
            outsideValidityPeriod: decimalYear < epoch || decimalYear >= epoch + 5,
            inBlackoutZone: horizontal < 2000)
    }
}
