import RealModule

/// A magnetometer calibration: `calibrated = softIron · (raw − offset)`, in the sensor's axes.
///
/// The offset removes hard iron and the sensor's own offset; the symmetric soft-iron matrix maps
/// the ellipsoid the raw samples lie on back to a sphere of radius ``fieldStrength``.
public struct MagnetometerCalibration: Sendable, Hashable {
    /// Hard-iron offset, µT, in sensor axes.
    public var offset: Vector3
    /// Soft-iron correction (symmetric), unitless.
    public var softIron: Matrix3
    /// The field magnitude the calibration maps to, µT (the WMM total intensity when it was known).
    public var fieldStrength: Double
    /// How good the fit is, and why.
    public var quality: CalibrationQuality

    /// Creates a calibration.
    public init(offset: Vector3, softIron: Matrix3, fieldStrength: Double, quality: CalibrationQuality) {
        self.offset = offset
        self.softIron = softIron
        self.fieldStrength = fieldStrength
        self.quality = quality
    }

    /// No correction: an uncalibrated sensor.
    public static let identity = MagnetometerCalibration(
        offset: .zero, softIron: .identity, fieldStrength: 50,
        quality: CalibrationQuality(residualRMS: .infinity, relativeResidual: .infinity, coverage: 0,
                                    shapeRatio: 1, scaleRatio: nil, sampleCount: 0, method: .none))

    /// Applies the calibration to a raw sample.
    @inlinable public func apply(_ raw: Vector3) -> Vector3 { softIron * (raw - offset) }
}

/// How a calibration was fitted.
public enum CalibrationMethod: String, Sendable, Hashable, Codable {
    /// No fit (identity).
    case none
    /// Offset and one radius (the samples did not determine an ellipsoid).
    case sphere
    /// Offset and a full symmetric soft-iron matrix.
    case ellipsoid
}

/// The verdict on a calibration.
public enum CalibrationVerdict: String, Sendable, Hashable, Comparable, Codable {
    /// Not fit for heading: too little orientation coverage, a large residual, or an implausible shape.
    case poor
    /// Usable with reduced accuracy.
    case fair
    /// Full accuracy expected.
    case good

    public static func < (a: CalibrationVerdict, b: CalibrationVerdict) -> Bool {
        let order: [CalibrationVerdict] = [.poor, .fair, .good]
        return (order.firstIndex(of: a) ?? 0) < (order.firstIndex(of: b) ?? 0)
    }
}

/// The measures a calibration is judged by, and the verdict.
///
/// The residual alone is not a quality measure: samples taken only near level fit an ellipsoid
/// with a small residual while the offset is badly wrong. The verdict therefore also requires
/// orientation coverage (the share of 72 equal-area cells of the unit sphere that calibrated
/// directions fall in), a plausible shape and, when the expected field is known, a plausible scale.
public struct CalibrationQuality: Sendable, Hashable {
    /// RMS of `|calibrated| − fieldStrength` over the samples, µT.
    public var residualRMS: Double
    /// ``residualRMS`` as a fraction of the field strength.
    public var relativeResidual: Double
    /// Share of the 72 equal-area cells of the sphere hit by calibrated directions, 0…1.
    public var coverage: Double
    /// Largest over smallest eigenvalue of the soft-iron matrix (1 for a perfect sphere).
    public var shapeRatio: Double
    /// Fitted raw radius over the expected field, when an expected field was given.
    public var scaleRatio: Double?
    /// Samples used.
    public var sampleCount: Int
    /// How the calibration was fitted.
    public var method: CalibrationMethod

    /// Creates a quality record (as stored with a persisted calibration).
    public init(residualRMS: Double, relativeResidual: Double, coverage: Double, shapeRatio: Double,
                scaleRatio: Double?, sampleCount: Int, method: CalibrationMethod) {
        self.residualRMS = residualRMS
        self.relativeResidual = relativeResidual
        self.coverage = coverage
        self.shapeRatio = shapeRatio
        self.scaleRatio = scaleRatio
        self.sampleCount = sampleCount
        self.method = method
    }

    /// Coverage at or above which a calibration can be good.
    public static let goodCoverage = 0.70
    /// Coverage at or above which a calibration can be fair.
    public static let fairCoverage = 0.50
    /// Relative residual at or below which a calibration can be good (2 % of the field).
    public static let goodResidual = 0.02
    /// Relative residual at or below which a calibration can be fair.
    public static let fairResidual = 0.04

    /// The verdict: good, fair or poor.
    public var verdict: CalibrationVerdict { reasons.isEmpty ? .good : (blocksFair ? .poor : .fair) }

    /// A score from 0 to 100 for progress displays and for comparing two calibrations.
    public var score: Double {
        guard sampleCount > 0, relativeResidual.isFinite else { return 0 }
        let c = min(1, coverage / Self.goodCoverage)
        let r = max(0, min(1, 1 - (relativeResidual - Self.goodResidual) / (3 * Self.goodResidual)))
        let s = shapeRatio < 2 ? 1.0 : max(0, 1 - (shapeRatio - 2) / 2)
        return (100 * c * c * r * s).rounded()
    }

    /// What keeps the calibration from being good, in words; empty when it is good.
    public var reasons: [String] {
        var out: [String] = []
        if method == .none { out.append("not calibrated") }
        if coverage < Self.goodCoverage {
            out.append("orientation coverage \(percent(coverage)) is below \(percent(Self.goodCoverage)): rotate the unit through every orientation, including upside down and on each side")
        }
        if !(relativeResidual <= Self.goodResidual) {
            out.append("residual \(percent(relativeResidual)) of the field is above \(percent(Self.goodResidual)): move away from iron and electronics, keep still cables")
        }
        if shapeRatio >= 2 {
            out.append("soft-iron shape ratio \(shapeRatio) is implausible for a breakout: strong iron nearby")
        }
        if let scaleRatio, scaleRatio < 1 / 1.5 || scaleRatio > 1.5 {
            out.append("fitted field is \(percent(scaleRatio)) of the expected one: wrong units or strong iron")
        }
        if method == .sphere { out.append("only a sphere could be fitted (soft iron not determined)") }
        return out
    }

    var blocksFair: Bool {
        method == .none || coverage < Self.fairCoverage || !(relativeResidual <= Self.fairResidual) || shapeRatio >= 3
            || (scaleRatio.map { $0 < 1 / 1.5 || $0 > 1.5 } ?? false)
    }

    /// Whether this calibration is better than `other`: verdict first, then score.
    public func isBetter(than other: CalibrationQuality) -> Bool {
        if verdict != other.verdict { return verdict > other.verdict }
        return score > other.score
    }
}

func percent(_ x: Double) -> String {
    let scaled = (x * 100).rounded()
    // Beyond ±1e9 % the figure says nothing more, and an Int conversion could trap.
    guard scaled.isFinite, abs(scaled) < 1e9 else { return x.sign == .minus ? "-∞ %" : "∞ %" }
    return "\(Int(scaled)) %"
}

/// Why a calibration could not be fitted at all.
public enum CalibrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer samples than the fit needs.
    case tooFewSamples(count: Int, needed: Int)
    /// A sample is NaN or infinite (its index).
    case notFinite(index: Int)
    /// The samples do not determine even a sphere (all equal, or on a plane).
    case degenerate

    public var description: String {
        switch self {
        case .tooFewSamples(let count, let needed): return "\(count) samples; at least \(needed) are needed"
        case .notFinite(let index): return "sample \(index + 1) is not a finite number"
        case .degenerate: return "the samples do not span the sphere (all equal, or in one plane): rotate the unit while sampling"
        }
    }
}

/// Fits hard- and soft-iron calibrations: a linear sphere fit first, then an algebraic
/// ellipsoid fit (general quadric, least squares) with the sphere fit as its conditioning.
public enum CalibrationFitter {
    /// The fewest samples a fit accepts.
    public static let minimumSamples = 12

    /// Fits `samples` (raw µT in sensor axes). With `expectedField` (the WMM total intensity at
    /// the unit's position, µT) the calibration maps to that magnitude; without it, to the mean
    /// radius of the samples.
    public static func fit(_ samples: [Vector3], expectedField: Double? = nil) throws(CalibrationError)
        -> MagnetometerCalibration
    {
        guard samples.count >= minimumSamples else {
            throw .tooFewSamples(count: samples.count, needed: minimumSamples)
        }
        if let bad = samples.firstIndex(where: { !$0.isFinite }) { throw .notFinite(index: bad) }
        let (center, radius) = try sphere(samples)
        var offset = center
        var shape = Matrix3.identity
        var method = CalibrationMethod.sphere
        if let (c, s) = ellipsoid(samples, center: center, radius: radius) {
            offset = c
            shape = s
            method = .ellipsoid
        }
        // Scale so the calibrated samples have the wanted mean magnitude.
        var meanRadius = 0.0
        for m in samples { meanRadius += (shape * (m - offset)).length }
        meanRadius /= Double(samples.count)
        guard meanRadius > 0, meanRadius.isFinite else { throw .degenerate }
        let target = expectedField ?? meanRadius
        let softIron = (target / meanRadius) * shape
        // Samples on a plane or a line can give a "sphere" centred absurdly far away with a vanishing
        // scale (the fuzzer found one centred 1e141 µT out): no sensor can be corrected by that.
        guard offset.isFinite, softIron.inverse != nil else { throw .degenerate }
        let calibration = MagnetometerCalibration(offset: offset, softIron: softIron, fieldStrength: target,
                                                  quality: CalibrationQuality(residualRMS: 0, relativeResidual: 0,
                                                                              coverage: 0, shapeRatio: 1, scaleRatio: nil,
                                                                              sampleCount: samples.count, method: method))
        return evaluate(calibration, samples: samples, expectedField: expectedField, rawRadius: meanRadius,
                        method: method)
    }

    /// Measures `calibration` on `samples`: residual, coverage, shape, scale.
    public static func evaluate(_ calibration: MagnetometerCalibration, samples: [Vector3], expectedField: Double?,
                                rawRadius: Double? = nil, method: CalibrationMethod? = nil) -> MagnetometerCalibration
    {
        var sum = 0.0
        var coverage = SphereCoverage()
        for m in samples {
            let v = calibration.apply(m)
            let d = v.length - calibration.fieldStrength
            sum += d * d
            coverage.add(v)
        }
        let rms = samples.isEmpty ? Double.infinity : (sum / Double(samples.count)).squareRoot()
        let eigen = calibration.softIron.symmetricEigen().values
        let lo = min(eigen.x, eigen.y, eigen.z), hi = max(eigen.x, eigen.y, eigen.z)
        var result = calibration
        result.quality = CalibrationQuality(
            residualRMS: rms, relativeResidual: rms / calibration.fieldStrength, coverage: coverage.fraction,
            shapeRatio: lo > 0 ? hi / lo : .infinity,
            scaleRatio: expectedField.flatMap { f in rawRadius.map { $0 / f } },
            sampleCount: samples.count, method: method ?? calibration.quality.method)
        return result
    }

    /// Linear least-squares sphere: `|m|² = 2 m·b + k`, radius² = k + |b|².
    static func sphere(_ samples: [Vector3]) throws(CalibrationError) -> (Vector3, Double) {
        var ata = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
        var atb = [Double](repeating: 0, count: 4)
        // Centre the data on its mean first for conditioning.
        var mean = Vector3.zero
        for m in samples { mean = mean + m }
        mean = mean / Double(samples.count)
        for s in samples {
            let m = s - mean
            let row = [2 * m.x, 2 * m.y, 2 * m.z, 1]
            let rhs = m.dot(m)
            for i in 0..<4 {
                atb[i] += row[i] * rhs
                for j in 0..<4 { ata[i][j] += row[i] * row[j] }
            }
        }
        guard let x = solveLinear(ata, atb) else { throw .degenerate }
        let b = Vector3(x[0], x[1], x[2])
        let r2 = x[3] + b.dot(b)
        guard r2 > 0, r2.isFinite else { throw .degenerate }
        return (b + mean, r2.squareRoot())
    }

    /// Algebraic ellipsoid `xᵀQx + 2uᵀx = 1` on samples normalised by the sphere fit; returns the
    /// centre and the symmetric shape matrix (radius 1 in normalised units), or `nil` when the
    /// quadric is not an ellipsoid (too little coverage to determine one).
    static func ellipsoid(_ samples: [Vector3], center: Vector3, radius: Double) -> (Vector3, Matrix3)? {
        var ata = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 9)
        var atb = [Double](repeating: 0, count: 9)
        for s in samples {
            let p = (s - center) / radius
            let row = [p.x * p.x, p.y * p.y, p.z * p.z, 2 * p.y * p.z, 2 * p.x * p.z, 2 * p.x * p.y, 2 * p.x, 2 * p.y, 2 * p.z]
            for i in 0..<9 {
                atb[i] += row[i]
                for j in 0..<9 { ata[i][j] += row[i] * row[j] }
            }
        }
        guard let v = solveLinear(ata, atb) else { return nil }
        let q = Matrix3(rows: Vector3(v[0], v[5], v[4]), Vector3(v[5], v[1], v[3]), Vector3(v[4], v[3], v[2]))
        let u = Vector3(v[6], v[7], v[8])
        guard let qi = q.inverse else { return nil }
        let c = -(qi * u)
        let k = 1 + c.dot(q * c)
        guard k > 0, let root = q.symmetricSquareRoot() else { return nil }
        let shape = (1 / k.squareRoot()) * root
        return (center + c * radius, shape)
    }
}

/// Counts which of 72 equal-area cells of the unit sphere directions fall in: 6 bands of equal
/// height in z (equal area, by Archimedes) × 12 sectors of longitude.
public struct SphereCoverage: Sendable, Hashable {
    /// Cells in the grid.
    public static let cellCount = 72
    private var hits: UInt128 = 0

    /// An empty grid.
    public init() {}

    /// Adds a direction (any length; zero is ignored).
    public mutating func add(_ v: Vector3) {
        let l = v.length
        guard l > 0, l.isFinite else { return }
        let z = max(-1, min(1, v.z / l))
        let band = min(5, Int(((z + 1) / 2 * 6).rounded(.down)))
        var angle = Double.atan2(y: v.y, x: v.x)
        if angle < 0 { angle += 2 * Double.pi }
        let sector = min(11, Int((angle / (2 * Double.pi) * 12).rounded(.down)))
        hits |= UInt128(1) << UInt128(band * 12 + sector)
    }

    /// Cells hit.
    public var cellsHit: Int { hits.nonzeroBitCount }

    /// Share of cells hit, 0…1.
    public var fraction: Double { Double(cellsHit) / Double(Self.cellCount) }
}
