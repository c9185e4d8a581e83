/// Earth-centred, earth-fixed (ECEF) solutions and their conversion to geodetic coordinates.
///
/// Older u-blox units (u-blox 4T/LEA-4T, 7, and the M8T timing firmware) send their position only as
/// ECEF (UBX-NAV-SOL, NAV-POSECEF) and their velocity only as ECEF (NAV-SOL, NAV-VELECEF). Turning
/// those into latitude, longitude, height and a north/east/down velocity takes trigonometry, which
/// the NMEA target does not have (standard library only). The caller supplies the conversion
/// (``AssemblerOptions/ecefConversion``; the engine's `Geodesy.wgs84ECEF`, WGS84), as it supplies
/// ``DistanceFunction``. Without one, an epoch whose only position is ECEF has no position.

/// A vector in the WGS84 ECEF frame: metres for a position, metres per second for a velocity.
public struct ECEFVector: Sendable, Hashable {
    /// Along the axis through 0°N 0°E, through 0°N 90°E, and through the north pole.
    public var x: Double, y: Double, z: Double

    /// A vector from its three components.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Whether the vector can be a receiver's position: finite and not (nearly) all zero, the way
    /// receivers without a solution fill the fields (gpsd drops the same: |x| + |y| + |z| <= 10 m).
    public var isPlausiblePosition: Bool {
        x.isFinite && y.isFinite && z.isFinite && abs(x) + abs(y) + abs(z) > 10
    }
}

/// A position (and, when a velocity was given, the local velocity) converted from ECEF.
public struct GeodeticSolution: Sendable, Hashable {
    /// Degrees, north and east positive; longitude in −180 … 180.
    public var latitude: Double, longitude: Double
    /// Metres above the WGS84 ellipsoid (not mean sea level: that takes a geoid model).
    public var heightAboveEllipsoid: Double
    /// Velocity north, east and down, m/s; `nil` when no velocity was given.
    public var velocityNorth: Double?, velocityEast: Double?, velocityDown: Double?
    /// Horizontal speed, m/s, and course over ground, degrees true in 0 ..< 360; `nil` without a velocity.
    public var speed: Double?, course: Double?

    /// A solution from its parts.
    public init(latitude: Double, longitude: Double, heightAboveEllipsoid: Double,
                velocityNorth: Double? = nil, velocityEast: Double? = nil, velocityDown: Double? = nil,
                speed: Double? = nil, course: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.heightAboveEllipsoid = heightAboveEllipsoid
        self.velocityNorth = velocityNorth
        self.velocityEast = velocityEast
        self.velocityDown = velocityDown
        self.speed = speed
        self.course = course
    }
}

/// Converts a WGS84 ECEF position (metres) and, when given, an ECEF velocity (m/s) at that position
/// into geodetic coordinates, height above the ellipsoid, and north/east/down velocity, speed, course.
public typealias ECEFConversion = @Sendable (_ position: ECEFVector, _ velocity: ECEFVector?) -> GeodeticSolution

/// The ECEF solution an epoch's binary messages stated, kept beside the fix until delivery.
struct ECEFState: Sendable {
    var position: ECEFVector?
    var velocity: ECEFVector?

    /// Sets the epoch's position and velocity from the ECEF solution when no message of the epoch
    /// stated them geodetically (NAV-PVT, NAV-POSLLH, NAV-VELNED or NMEA), as gpsd fills them in
    /// (`ecef_to_wgs84fix()` when a fix has no latitude/longitude). Only for a 2D or 3D fix; the
    /// height above the ellipsoid in both, as NAV-PVT's and NAV-POSLLH's heights are set.
    func fill(_ fix: inout Fix, using convert: ECEFConversion?) {
        guard let convert, let position, position.isPlausiblePosition, fix.mode >= .twoD,
              fix.latitude == nil || fix.longitude == nil else { return }
        let usable = velocity.flatMap { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite ? $0 : nil }
        let solution = convert(position, usable)
        guard solution.latitude.isFinite, solution.longitude.isFinite, abs(solution.latitude) <= 90,
              abs(solution.longitude) <= 180 else { return }
        fix.latitude = solution.latitude
        fix.longitude = solution.longitude
        fix.rawLatitude = nil
        fix.rawLongitude = nil
        if fix.altitudeHAE == nil, solution.heightAboveEllipsoid.isFinite {
            fix.altitudeHAE = solution.heightAboveEllipsoid
        }
        // The velocity, where no message of the epoch gave one in the local frame.
        guard fix.speed == nil, let speed = solution.speed, speed.isFinite else { return }
        fix.speed = speed
        fix.speedIsDerived = false
        if fix.course == nil, let course = solution.course, course.isFinite { fix.course = course }
        if fix.velocityNorth == nil, fix.velocityEast == nil {
            fix.velocityNorth = solution.velocityNorth
            fix.velocityEast = solution.velocityEast
            fix.velocityDown = solution.velocityDown
        }
    }
}
