import RealModule

/// A 3-vector of doubles: a field in µT, a specific force in g or m/s², a direction.
public struct Vector3: Hashable, Sendable, CustomStringConvertible {
    /// First component (forward, in the body frame).
    public var x: Double
    /// Second component (right, in the body frame).
    public var y: Double
    /// Third component (down, in the body frame).
    public var z: Double

    /// Creates a vector.
    @inlinable public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    public static let zero = Vector3(0, 0, 0)

    /// Euclidean length.
    @inlinable public var length: Double { (x * x + y * y + z * z).squareRoot() }

    /// The same direction with length 1 (the zero vector stays zero).
    @inlinable public var normalized: Vector3 {
        let l = length
        return l > 0 ? self / l : .zero
    }

    /// Dot product.
    @inlinable public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }

    /// Cross product.
    @inlinable public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }

    /// Whether every component is finite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }

    /// Component `i` (0, 1, 2); other indices read 0.
    @inlinable public subscript(i: Int) -> Double {
        switch i {
        case 0: return x
        case 1: return y
        case 2: return z
        default: return 0
        }
    }

    public var description: String { "(\(x), \(y), \(z))" }
}

/// A 3×3 matrix of doubles, row-major: a mount orientation, a soft-iron correction.
public struct Matrix3: Hashable, Sendable, CustomStringConvertible {
    /// First row.
    public var r0: Vector3
    /// Second row.
    public var r1: Vector3
    /// Third row.
    public var r2: Vector3

    /// Creates a matrix from rows.
    @inlinable public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        self.r0 = r0
        self.r1 = r1
        self.r2 = r2
    }

    /// Creates a matrix from nine values in row order; `nil` unless exactly nine are given.
    public init?(_ values: [Double]) {
        guard values.count == 9 else { return nil }
        r0 = Vector3(values[0], values[1], values[2])
        r1 = Vector3(values[3], values[4], values[5])
        r2 = Vector3(values[6], values[7], values[8])
    }

    /// The identity.
    public static let identity = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

    /// A diagonal matrix.
    public static func diagonal(_ a: Double, _ b: Double, _ c: Double) -> Matrix3 {
        Matrix3(rows: Vector3(a, 0, 0), Vector3(0, b, 0), Vector3(0, 0, c))
    }

    /// Element at row `r`, column `c` (0-based; out-of-range reads 0).
    @inlinable public subscript(r: Int, c: Int) -> Double {
        switch r {
        case 0: return r0[c]
        case 1: return r1[c]
        case 2: return r2[c]
        default: return 0
        }
    }

    /// The nine values in row order.
    public var values: [Double] { (0..<3).flatMap { r in (0..<3).map { c in self[r, c] } } }

    /// Columns, left to right.
    @inlinable public var transposed: Matrix3 {
        Matrix3(rows: Vector3(r0.x, r1.x, r2.x), Vector3(r0.y, r1.y, r2.y),
                Vector3(r0.z, r1.z, r2.z))
    }

    /// Matrix × vector.
    @inlinable public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(m.r0.dot(v), m.r1.dot(v), m.r2.dot(v))
    }

    /// Matrix × matrix.
    @inlinable public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let t = b.transposed
        return Matrix3(rows: Vector3(a.r0.dot(t.r0), a.r0.dot(t.r1), a.r0.dot(t.r2)),
                       Vector3(a.r1.dot(t.r0), a.r1.dot(t.r1), a.r1.dot(t.r2)),
                       Vector3(a.r2.dot(t.r0), a.r2.dot(t.r1), a.r2.dot(t.r2)))
    }

    /// Scalar × matrix.
    @inlinable public static func * (s: Double, m: Matrix3) -> Matrix3 {
        Matrix3(rows: m.r0 * s, m.r1 * s, m.r2 * s)
    }

    /// The determinant.
    @inlinable public var determinant: Double { r0.dot(r1.cross(r2)) }

    /// The inverse, or `nil` when the matrix is singular (|det| < 1e-15 relative to its scale).
    public var inverse: Matrix3? {
        let det = determinant
        let scale = max(r0.length, r1.length, r2.length)
        guard det.isFinite, abs(det) > 1e-15 * scale * scale * scale else { return nil }
        // Columns of the inverse are the cross products of rows, over the determinant.
        let c0 = r1.cross(r2), c1 = r2.cross(r0), c2 = r0.cross(r1)
        return Matrix3(rows: c0 / det, c1 / det, c2 / det).transposed
    }

    /// Whether the matrix is a rotation: orthonormal rows and determinant +1, within `tolerance`.
    public func isRotation(tolerance: Double = 1e-6) -> Bool {
        let p = self * transposed
        for r in 0..<3 {
            for c in 0..<3 where abs(p[r, c] - (r == c ? 1 : 0)) > tolerance { return false }
        }
        return abs(determinant - 1) <= tolerance
    }

    /// Eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: eigenvalues and the
    /// matrix whose columns are the eigenvectors. Only the upper triangle is read.
    public func symmetricEigen() -> (values: Vector3, vectors: Matrix3) {
        var a = [[self[0, 0], self[0, 1], self[0, 2]], [self[0, 1], self[1, 1], self[1, 2]], [self[0, 2], self[1, 2], self[2, 2]]]
        var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            if !(off > 1e-30) { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 {
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq
                    v[k][q] = s * vkp + c * vkq
                }
            }
        }
        return (Vector3(a[0][0], a[1][1], a[2][2]),
                Matrix3(rows: Vector3(v[0][0], v[0][1], v[0][2]), Vector3(v[1][0], v[1][1], v[1][2]),
                        Vector3(v[2][0], v[2][1], v[2][2])))
    }

    /// The symmetric square root of a symmetric positive-definite matrix, or `nil` when an
    /// eigenvalue is not positive.
    public func symmetricSquareRoot() -> Matrix3? {
        let (values, vectors) = symmetricEigen()
        guard values.x > 0, values.y > 0, values.z > 0 else { return nil }
        let d = Matrix3.diagonal(values.x.squareRoot(), values.y.squareRoot(), values.z.squareRoot())
        return vectors * d * vectors.transposed
    }

    public var description: String { "[\(r0), \(r1), \(r2)]" }
}

/// Solves the square system `a · x = b` by Gaussian elimination with partial pivoting; `nil`
/// when the system is singular or not square.
func solveLinear(_ a: [[Double]], _ b: [Double]) -> [Double]? {
    let n = b.count
    guard a.count == n, a.allSatisfy({ $0.count == n }) else { return nil }
    var m = a
    var y = b
    for col in 0..<n {
        var pivot = col
        for r in col + 1..<max(col + 1, n) where abs(m[r][col]) > abs(m[pivot][col]) { pivot = r }
        guard abs(m[pivot][col]) > 1e-300, m[pivot][col].isFinite else { return nil }
        if pivot != col {
            m.swapAt(pivot, col)
            y.swapAt(pivot, col)
        }
        for r in col + 1..<max(col + 1, n) {
            let f = m[r][col] / m[col][col]
            if f == 0 { continue }
            for c in col..<n { m[r][c] -= f * m[col][c] }
            y[r] -= f * y[col]
        }
    }
    var x = [Double](repeating: 0, count: n)
    for r in stride(from: n - 1, through: 0, by: -1) {
        var s = y[r]
        for c in r + 1..<max(r + 1, n) { s -= m[r][c] * x[c] }
        x[r] = s / m[r][r]
    }
    return x.allSatisfy(\.isFinite) ? x : nil
}

/// Degrees in [0, 360).
@inlinable public func wrap360(_ degrees: Double) -> Double {
    var d = degrees.truncatingRemainder(dividingBy: 360)
    if d < 0 { d += 360 }
    if d >= 360 { d -= 360 }
    return d
}

/// Degrees in (-180, 180].
@inlinable public func wrap180(_ degrees: Double) -> Double {
    var d = wrap360(degrees)
    if d > 180 { d -= 360 }
    return d
}

@usableFromInline let degreesPerRadian = 180.0 / Double.pi
/// Radians per degree (a multiplication where a division by `degreesPerRadian` would be).
@usableFromInline let radiansPerDegree = Double.pi / 180.0
