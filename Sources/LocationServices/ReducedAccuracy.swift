import NMEA

/// The one reduced-accuracy rule (Core Location's approximate location), for every way a position
/// leaves the unit coarsened: a ``Location`` delivered to a client with reduced accuracy, and a
/// ``Fix`` published to a gpsd client that may have only approximate positions. The position is
/// snapped to a grid of 0.05° (about 5 km), the horizontal accuracy widened to at least 5 km, and
/// altitude, speed and course are removed.
public enum ReducedAccuracy {
    /// The grid the position is snapped to, degrees (about 5 km of latitude).
    public static let gridDegrees = 0.05
    /// The smallest horizontal accuracy of a coarsened position, metres.
    public static let minimumAccuracy = 5000.0

    /// A latitude or longitude snapped to the grid.
    public static func snapped(_ degrees: Double) -> Double { (degrees / gridDegrees).rounded() * gridDegrees }

    /// A horizontal accuracy widened to the minimum.
    public static func widened(_ accuracy: Double) -> Double { max(accuracy, minimumAccuracy) }
}

extension Location {
    /// This location coarsened for reduced-accuracy authorisation (``ReducedAccuracy``): snapped to
    /// the grid with the accuracy widened, altitudes, speed and course (and their accuracies) and the
    /// error ellipse removed.
    public func reduced() -> Location {
        var copy = self
        copy.latitude = ReducedAccuracy.snapped(latitude)
        copy.longitude = ReducedAccuracy.snapped(longitude)
        copy.horizontalAccuracy = ReducedAccuracy.widened(horizontalAccuracy)
        copy.speed = nil
        copy.course = nil
        copy.speedAccuracy = nil
        copy.courseAccuracy = nil
        copy.altitude = nil
        copy.ellipsoidalAltitude = nil
        copy.errorEllipse = nil
        copy.isReduced = true
        return copy
    }
}

extension Fix {
    /// This fix coarsened as ``Location/reduced()`` coarsens a location (``ReducedAccuracy``), for
    /// reduced-accuracy gpsd clients: position snapped (the receiver's raw position removed), accuracy
    /// at least 5 km (an unknown one too), no altitude, geoid separation, speed, course, magnetic
    /// variation, vertical accuracy or error ellipse.
    public func reduced() -> Fix {
        var copy = self
        copy.latitude = latitude.map(ReducedAccuracy.snapped)
        copy.longitude = longitude.map(ReducedAccuracy.snapped)
        copy.rawLatitude = nil
        copy.rawLongitude = nil
        copy.altitudeMSL = nil
        copy.altitudeHAE = nil
        copy.geoidSeparation = nil
        copy.geoidSeparationFromModel = false
        copy.speed = nil
        copy.course = nil
        copy.magneticVariation = nil
        copy.horizontalAccuracy = ReducedAccuracy.widened(horizontalAccuracy ?? 0)
        copy.verticalAccuracy = nil
        copy.errorEllipse = nil
        return copy
    }
}
