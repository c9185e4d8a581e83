import HardwareInterfaces
import RealModule

/// A monitored region's precomputed geometry: how to classify a fix, and the latitude/longitude box
/// outside which the fix cannot be inside the region.
struct RegionShape: Sendable {
    /// The polygon's geometry; `nil` for a circle.
    var polygon: PolygonGeometry?
    /// The box, degrees. `lonMin > lonMax` means the box crosses the antimeridian; a box holding a
    /// pole spans every longitude (−180...180).
    var latMin = -90.0, latMax = 90.0, lonMin = -180.0, lonMax = 180.0

    /// The geometry of a valid region.
    init(_ region: CircularRegion) {
        var centre = Sphere.unit(latitude: region.latitude, longitude: region.longitude)
        var angle: Double
        if let p = region.polygon, case .success(let g) = PolygonGeometry.make(p) {
            polygon = g
            centre = g.centre
            angle = g.capAngle
        } else {
            // An ellipsoidal distance r subtends at most r / M_min on the sphere of geodetic
            // coordinates (M_min = a(1 − e²) = 6 335 439 m, the smallest radius of curvature).
            angle = region.radius / 6_335_439
        }
        angle = angle * 1.01 + 1e-7
        let lat = Sphere.latitude(centre), lon = Sphere.longitude(centre)
        let span = angle / Sphere.degree
        latMin = max(-90, lat - span)
        latMax = min(90, lat + span)
        if lat + span >= 90 || lat - span <= -90 { return }
        let ratio = Double.sin(angle) / Double.cos(lat * Sphere.degree)
        if ratio >= 1 { return }
        let dLon = Double.asin(ratio) / Sphere.degree
        if dLon >= 180 { return }
        lonMin = lon - dLon
        lonMax = lon + dLon
        // Longitude 180 is written −180 (queries normalise it the same way).
        if lonMin <= -180 { lonMin += 360 }
        if lonMax >= 180 { lonMax -= 360 }
    }

    /// Whether the box holds a point.
    @inline(__always)
    func boxContains(latitude: Double, longitude: Double) -> Bool {
        let longitude = longitude >= 180 ? longitude - 360 : longitude
        guard latitude >= latMin && latitude <= latMax else { return false }
        if lonMin <= lonMax { return longitude >= lonMin && longitude <= lonMax }
        return longitude >= lonMin || longitude <= lonMax
    }

    /// The state `location` shows for `region`, `nil` when it cannot tell. Inside: the whole
    /// uncertainty circle (radius `u`, twice the 68 % accuracy) is within the region. Outside: the
    /// fix is beyond the boundary by at least `u` plus the band `h`. For a circle `h` is
    /// max(10 m, 10 % of the radius) and distances are ellipsoidal (as before polygons); for a
    /// polygon `h` is max(10 m, 10 % of the radius of the circle of the same area) and the distance
    /// is to the nearest edge (see ``RegionPolygon`` for the model).
    @inline(__always)
    func classify(_ region: CircularRegion, _ location: Location) -> RegionState? {
        // An unknown accuracy draws no hysteresis: such a fix tells nothing about the region.
        guard let accuracy = location.knownHorizontalAccuracy else { return nil }
        let u = max(0, accuracy * 2)
        guard let g = polygon else {
            let d = region.distance(to: location)
            let h = max(10, 0.1 * region.radius)
            if d + u <= region.radius { return .inside }
            if d - u >= region.radius + h { return .outside }
            return nil
        }
        let p = Sphere.unit(latitude: location.latitude, longitude: location.longitude)
        let h = g.band
        // Beyond the bounding cap by the margin: outside, without looking at the edges.
        if (Sphere.angle(p, g.centre) - g.capAngle) * Sphere.radius >= u + h { return .outside }
        let distance = g.boundaryAngle(p) * Sphere.radius
        if g.contains(p) { return distance >= u ? .inside : nil }
        return distance >= u + h ? .outside : nil
    }
}

/// A uniform grid of latitude/longitude cells over the regions' boxes, kept as flat arrays sorted
/// by cell (a cell key, where each cell's members start, the members), so a lookup is one binary
/// search and no allocation. Regions whose box covers more than ``maximumCellsPerRegion`` cells
/// (a pole inside, or much larger than the rest) are kept in a short list checked box by box.
struct RegionGrid: Sendable {
    static let maximumCellsPerRegion = 256
    /// The cell's side, degrees: twice the median box height, within 0.002°...2°.
    private(set) var cell = 0.1
    private var columns = 3600
    private var rows = 1800
    private var keys: [Int] = []
    private var starts: [Int32] = []
    private(set) var members: [Int32] = []
    /// Regions checked against every fix (their box only).
    private(set) var large: [Int32] = []

    init() {}

    /// Rebuilds the grid over `shapes`.
    init(_ shapes: [RegionShape]) {
        guard !shapes.isEmpty else { return }
        var heights = shapes.map { $0.latMax - $0.latMin }
        heights.sort()
        cell = min(2, max(0.002, 2 * heights[heights.count / 2]))
        columns = Int((360 / cell).rounded(.up))
        rows = Int((180 / cell).rounded(.up))
        var pairs: [(key: Int, slot: Int32)] = []
        pairs.reserveCapacity(shapes.count * 4)
        for (slot, s) in shapes.enumerated() {
            let r0 = row(s.latMin), r1 = row(s.latMax)
            let fullLongitude = s.lonMin == -180 && s.lonMax == 180
            let c0 = fullLongitude ? 0 : column(s.lonMin), c1 = fullLongitude ? columns - 1 : column(s.lonMax)
            let width = c0 <= c1 ? c1 - c0 + 1 : columns - c0 + c1 + 1
            if (r1 - r0 + 1) * width > Self.maximumCellsPerRegion {
                large.append(Int32(slot))
                continue
            }
            for r in r0...r1 {
                for k in 0..<width { pairs.append((r * columns + (c0 + k) % columns, Int32(slot))) }
            }
        }
        pairs.sort { $0.key < $1.key || ($0.key == $1.key && $0.slot < $1.slot) }
        members.reserveCapacity(pairs.count)
        for p in pairs {
            if keys.last != p.key {
                keys.append(p.key)
                starts.append(Int32(members.count))
            }
            members.append(p.slot)
        }
        starts.append(Int32(members.count))
    }

    private func row(_ latitude: Double) -> Int { min(rows - 1, max(0, Int(((latitude + 90) / cell).rounded(.down)))) }

    private func column(_ longitude: Double) -> Int {
        let longitude = longitude >= 180 ? longitude - 360 : longitude
        let c = Int(((longitude + 180) / cell).rounded(.down))
        return ((c % columns) + columns) % columns
    }

    /// The range of `members` in the cell of a point (empty when none).
    func cellRange(latitude: Double, longitude: Double) -> Range<Int> {
        guard !keys.isEmpty, latitude.isFinite, longitude.isFinite else { return 0..<0 }
        let key = row(latitude) * columns + column(longitude)
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        guard lo < keys.count, keys[lo] == key else { return 0..<0 }
        return Int(starts[lo])..<Int(starts[lo + 1])
    }
}
