import RealModule

/// Points as unit vectors of the sphere of geodetic latitude and longitude (see ``RegionPolygon``).
enum Sphere {
    /// The mean Earth radius (IUGG R1), metres.
    static let radius = 6_371_008.8
    static let degree = Double.pi / 180

    static func unit(latitude: Double, longitude: Double) -> SIMD3<Double> {
        let phi = latitude * degree, lambda = longitude * degree
        let c = Double.cos(phi)
        return SIMD3(c * Double.cos(lambda), c * Double.sin(lambda), Double.sin(phi))
    }

    static func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    static func length(_ a: SIMD3<Double>) -> Double { dot(a, a).squareRoot() }

    /// The angle between two unit vectors, radians (accurate at small angles).
    static func angle(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { Double.atan2(y: length(cross(a, b)), x: dot(a, b)) }

    static func latitude(_ p: SIMD3<Double>) -> Double { Double.atan2(y: p.z, x: (p.x * p.x + p.y * p.y).squareRoot()) / degree }
    static func longitude(_ p: SIMD3<Double>) -> Double { Double.atan2(y: p.y, x: p.x) / degree }
}

/// A polygon's precomputed geometry: unit vectors, each edge's great-circle normal, and the
/// gnomonic projection about the bounding cap's centre (in which great-circle arcs are straight
/// lines, so the even–odd test on the plane is exact for arcs on the sphere).
struct PolygonGeometry: Sendable {
    /// Vertices of all rings, ring after ring.
    var points: [SIMD3<Double>] = []
    /// Start of each ring in `points`, plus `points.count` at the end.
    var ringStarts: [Int] = []
    /// Gnomonic coordinates of `points`.
    var planeX: [Double] = []
    var planeY: [Double] = []
    /// Unit normal of the edge from `points[i]` to the next vertex of its ring.
    var normals: [SIMD3<Double>] = []
    /// The bounding cap: centre and angular radius, radians.
    var centre = SIMD3<Double>(0, 0, 1)
    var capAngle = 0.0
    /// The hysteresis band, metres: max(10 m, 10 % of the radius of the circle of the same area).
    var band = 10.0
    private var e1 = SIMD3<Double>(1, 0, 0), e2 = SIMD3<Double>(0, 1, 0)

    /// Builds the geometry, or returns why the polygon cannot be monitored.
    static func make(_ polygon: RegionPolygon) -> Result<PolygonGeometry, PolygonProblem> {
        var g = PolygonGeometry()
        let rings = [polygon.vertices] + polygon.holes
        var total = 0
        for (r, ring) in rings.enumerated() {
            var ring = ring
            if ring.count > 1, ring.first == ring.last { ring.removeLast() }
            let name = r == 0 ? "the outer ring" : "hole \(r)"
            guard ring.count >= 3 else { return .failure(PolygonProblem("\(name) has \(ring.count) vertices, at least 3 are needed")) }
            total += ring.count
            guard total <= RegionPolygon.maximumVertices else {
                return .failure(PolygonProblem("more than \(RegionPolygon.maximumVertices) vertices"))
            }
            g.ringStarts.append(g.points.count)
            for (i, v) in ring.enumerated() {
                guard v.latitude.isFinite, (-90...90).contains(v.latitude), v.longitude.isFinite, (-180...180).contains(v.longitude) else {
                    return .failure(PolygonProblem("\(name), vertex \(i): \(v.latitude), \(v.longitude) is not a position"))
                }
                g.points.append(Sphere.unit(latitude: v.latitude, longitude: v.longitude))
            }
        }
        g.ringStarts.append(g.points.count)
        // The cap: about the mean of the outer ring's vertices, wide enough for every vertex (a cap
        // narrower than a hemisphere is convex, so the arcs between vertices stay inside it too).
        var sum = SIMD3<Double>(0, 0, 0)
        for i in g.ringStarts[0]..<g.ringStarts[1] { sum += g.points[i] }
        let norm = Sphere.length(sum)
        guard norm > 1e-9 else { return .failure(PolygonProblem("the outer ring spans the globe")) }
        g.centre = sum / norm
        for p in g.points { g.capAngle = max(g.capAngle, Sphere.angle(g.centre, p)) }
        guard g.capAngle * Sphere.radius <= CircularRegion.maximumRadius else {
            return .failure(PolygonProblem("does not fit within \(Int(CircularRegion.maximumRadius)) m of its centre"))
        }
        let axis = abs(g.centre.z) < 0.9 ? SIMD3<Double>(0, 0, 1) : SIMD3<Double>(1, 0, 0)
        g.e1 = Sphere.cross(axis, g.centre)
        g.e1 /= Sphere.length(g.e1)
        g.e2 = Sphere.cross(g.centre, g.e1)
        for p in g.points {
            let (x, y) = g.project(p)
            g.planeX.append(x)
            g.planeY.append(y)
        }
        for r in 0..<(g.ringStarts.count - 1) {
            let start = g.ringStarts[r], end = g.ringStarts[r + 1]
            for i in start..<end {
                let j = i + 1 == end ? start : i + 1
                let n = Sphere.cross(g.points[i], g.points[j])
                let l = Sphere.length(n)
                guard l > 1e-12 else { return .failure(PolygonProblem("\(r == 0 ? "the outer ring" : "hole \(r)"), vertex \(i - start) repeats the next one")) }
                g.normals.append(n / l)
            }
        }
        if let crossing = g.firstCrossing() { return .failure(PolygonProblem(crossing)) }
        for r in 1..<(g.ringStarts.count - 1) {
            let p = g.ringStarts[r]
            guard g.ringContains(0, x: g.planeX[p], y: g.planeY[p]) else {
                return .failure(PolygonProblem("hole \(r) is not inside the outer ring"))
            }
        }
        var area = abs(g.ringArea(0))
        for r in 1..<(g.ringStarts.count - 1) { area -= abs(g.ringArea(r)) }
        g.band = max(10, 0.1 * (max(0, area) * Sphere.radius * Sphere.radius / Double.pi).squareRoot())
        return .success(g)
    }

    func project(_ p: SIMD3<Double>) -> (Double, Double) {
        let d = Sphere.dot(p, centre)
        return (Sphere.dot(p, e1) / d, Sphere.dot(p, e2) / d)
    }

    /// Shoelace area of a ring on the gnomonic plane (the plane's scale is within 0.05 % of the
    /// sphere's inside a 100 km cap).
    private func ringArea(_ r: Int) -> Double {
        let start = ringStarts[r], end = ringStarts[r + 1]
        var a = 0.0
        for i in start..<end {
            let j = i + 1 == end ? start : i + 1
            a += planeX[i] * planeY[j] - planeX[j] * planeY[i]
        }
        return a / 2
    }

    private func ringContains(_ r: Int, x: Double, y: Double) -> Bool {
        let start = ringStarts[r], end = ringStarts[r + 1]
        var inside = false
        var j = end - 1
        for i in start..<end {
            let yi = planeY[i], yj = planeY[j]
            if (yi > y) != (yj > y) {
                let xCross = planeX[i] + (y - yi) / (yj - yi) * (planeX[j] - planeX[i])
                if x < xCross { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Whether `p` (a unit vector) is inside: in the outer ring and in no hole (even–odd over all rings).
    func contains(_ p: SIMD3<Double>) -> Bool {
        guard Sphere.dot(p, centre) > 0 else { return false }
        let (x, y) = project(p)
        var inside = false
        for r in 0..<(ringStarts.count - 1) where ringContains(r, x: x, y: y) { inside.toggle() }
        return inside
    }

    /// The angle from `p` to the nearest point of any ring, radians.
    func boundaryAngle(_ p: SIMD3<Double>) -> Double {
        var best = Double.infinity
        for r in 0..<(ringStarts.count - 1) {
            let start = ringStarts[r], end = ringStarts[r + 1]
            for i in start..<end {
                let a = points[i], b = points[i + 1 == end ? start : i + 1], n = normals[i]
                let s = Sphere.dot(p, n)
                let q = p - s * n
                let angle: Double
                if Sphere.dot(Sphere.cross(a, q), n) >= 0 && Sphere.dot(Sphere.cross(q, b), n) >= 0 {
                    angle = Double.asin(min(1, abs(s)))
                } else {
                    angle = min(Sphere.angle(p, a), Sphere.angle(p, b))
                }
                best = min(best, angle)
            }
        }
        return best
    }

    /// The first pair of edges that cross (on the gnomonic plane, where arcs are segments), described.
    private func firstCrossing() -> String? {
        let n = points.count
        var ringOf = [Int](repeating: 0, count: n)
        var next = [Int](repeating: 0, count: n)
        for r in 0..<(ringStarts.count - 1) {
            for i in ringStarts[r]..<ringStarts[r + 1] {
                ringOf[i] = r
                next[i] = i + 1 == ringStarts[r + 1] ? ringStarts[r] : i + 1
            }
        }
        func orient(_ a: Int, _ b: Int, _ c: Int) -> Double {
            (planeX[b] - planeX[a]) * (planeY[c] - planeY[a]) - (planeY[b] - planeY[a]) * (planeX[c] - planeX[a])
        }
        for i in 0..<n {
            let i2 = next[i]
            for j in (i + 1)..<max(i + 1, n) {
                let j2 = next[j]
                if j == i2 || j2 == i { continue }
                let d1 = orient(i, i2, j), d2 = orient(i, i2, j2), d3 = orient(j, j2, i), d4 = orient(j, j2, i2)
                if ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0)) && d1 != 0 && d2 != 0 && d3 != 0 && d4 != 0 {
                    let name = { (k: Int) in ringOf[k] == 0 ? "outer ring edge \(k - ringStarts[0])" : "hole \(ringOf[k]) edge \(k - ringStarts[ringOf[k]])" }
                    return "\(name(i)) crosses \(name(j))"
                }
            }
        }
        return nil
    }
}

/// Why a polygon cannot be monitored.
struct PolygonProblem: Error {
    var text: String
    init(_ text: String) { self.text = text }
}
