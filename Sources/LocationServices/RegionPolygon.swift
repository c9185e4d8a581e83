/// A point on the globe, degrees (geodetic latitude and longitude, WGS 84).
///
/// Its `Codable` form is the pair `[latitude, longitude]`.
public struct GeoPoint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Latitude, degrees (−90...90).
    public var latitude: Double
    /// Longitude, degrees (−180...180).
    public var longitude: Double

    /// A point at `latitude`, `longitude`.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Decodes `[latitude, longitude]`.
    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        latitude = try c.decode(Double.self)
        longitude = try c.decode(Double.self)
        guard c.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "a point is [latitude, longitude]: more than two numbers")
        }
    }

    /// Encodes `[latitude, longitude]`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(latitude)
        try c.encode(longitude)
    }

    public var description: String { "\(latitude),\(longitude)" }
}

/// The outline of a polygon region: an outer ring and optional holes.
///
/// **Edge model.** Each edge is the great-circle arc between its two vertices on a sphere whose
/// latitudes and longitudes are the geodetic ones (the shortest path, as a geodesic: not a line of
/// constant bearing, and not a straight line on a lat/lon map). Distances to the boundary are
/// measured on the sphere of the mean Earth radius (6 371 008.8 m). Against the WGS 84 ellipsoid's
/// geodesics this model errs by at most about f·L²/(8R) across an edge of length L (f = 1/298.257:
/// under 1 cm for a 10 km edge, about 0.7 m for a 100 km one), and the distances that the
/// hysteresis compares are off by at most 0.5 % of themselves (0.05 m at 10 m): both far below
/// a GNSS fix's uncertainty. A 10 km east–west edge at 60° latitude bulges about 3.4 m poleward
/// of the line of constant latitude through its ends: draw long east–west edges as several
/// shorter ones when the fence follows a parallel.
///
/// Rings need not be closed (a last vertex equal to the first is dropped) and may go either way
/// round. A polygon must fit within a cap of ``CircularRegion/maximumRadius`` (100 km), have no
/// crossing edges, and hold at most ``maximumVertices`` vertices in all; holes lie inside the outer
/// ring. Crossing the antimeridian is fine (edges are arcs, longitudes are not compared).
public struct RegionPolygon: Sendable, Hashable, Codable {
    /// The outer ring, at least three vertices.
    public var vertices: [GeoPoint]
    /// Rings cut out of the region (at least three vertices each).
    public var holes: [[GeoPoint]]

    /// The most vertices (outer ring and holes together) one polygon may have.
    public static let maximumVertices = 1_000

    /// A polygon with `vertices` as its outer ring and `holes` cut out.
    public init(vertices: [GeoPoint], holes: [[GeoPoint]] = []) {
        self.vertices = vertices
        self.holes = holes
    }

    private enum CodingKeys: String, CodingKey { case vertices, holes }

    /// Decodes `{"vertices":[[lat,lon],...],"holes"?:[[[lat,lon],...],...]}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        vertices = try c.decode([GeoPoint].self, forKey: .vertices)
        holes = try c.decodeIfPresent([[GeoPoint]].self, forKey: .holes) ?? []
    }

    /// Encodes the polygon (`holes` only when there are some).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(vertices, forKey: .vertices)
        if !holes.isEmpty { try c.encode(holes, forKey: .holes) }
    }

    /// Why a polygon text could not be read: the byte offset and what was there.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Byte offset of the bad vertex in the text.
        public var offset: Int
        /// What is wrong.
        public var reason: String
        public var description: String { "polygon, byte \(offset): \(reason)" }
    }

    /// Reads `"lat,lon;lat,lon;..."` (spaces allowed around numbers); a `|` starts a hole:
    /// `"outer…|hole…|hole…"`.
    public init(parsing text: String) throws(ParseError) {
        var rings: [[GeoPoint]] = []
        var offset = 0
        for ringText in text.split(separator: "|", omittingEmptySubsequences: false) {
            var ring: [GeoPoint] = []
            let points = ringText.split(separator: ";", omittingEmptySubsequences: false)
            for (index, pointText) in points.enumerated() {
                defer { offset += pointText.utf8.count + 1 }
                let trimmed = pointText.filter { $0 != " " && $0 != "\t" }
                // A trailing ';' is allowed.
                if trimmed.isEmpty && index == points.count - 1 && index > 0 { continue }
                let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
                    throw ParseError(offset: offset, reason: "'\(pointText)' is not 'latitude,longitude'")
                }
                ring.append(GeoPoint(latitude: lat, longitude: lon))
            }
            rings.append(ring)
        }
        guard let outer = rings.first else { throw ParseError(offset: 0, reason: "no vertices") }
        self.init(vertices: outer, holes: Array(rings.dropFirst()))
    }

    /// The text form `"lat,lon;lat,lon;...|hole..."` that ``init(parsing:)`` reads.
    public var text: String {
        ([vertices] + holes).map { ring in ring.map(\.description).joined(separator: ";") }.joined(separator: "|")
    }
}
