import HardwareInterfaces
import NMEA
import PowerPolicy

/// One location as the services deliver it: a position fix with its accuracy, its receiver
/// time and the monotonic instant it reached the engine (which decides its age).
public struct Location: Sendable, Hashable, CustomStringConvertible {
    /// Latitude, degrees north (WGS84).
    public var latitude: Double
    /// Longitude, degrees east (WGS84).
    public var longitude: Double
    /// Altitude above mean sea level, metres.
    public var altitude: Double?
    /// Altitude above the WGS84 ellipsoid, metres.
    public var ellipsoidalAltitude: Double?
    /// Radius of the 68 % confidence circle, metres (as Core Location's `horizontalAccuracy`).
    public var horizontalAccuracy: Double
    /// One-sigma vertical accuracy, metres.
    public var verticalAccuracy: Double?
    /// Speed over ground, m/s.
    public var speed: Double?
    /// Course over ground, degrees true.
    public var course: Double?
    /// The receiver's UTC time of the fix, seconds since 1970; `nil` before the receiver knows the date.
    public var timestamp: Double?
    /// When the fix reached the engine, on the engine's monotonic clock.
    public var receivedAt: MonotonicInstant
    /// Satellites used in the solution.
    public var satellitesUsed: Int?
    /// 2D or 3D.
    public var mode: FixMode
    /// Where the fix came from (a receiver, a replayed log, the simulator).
    public var provenance: Provenance
    /// Whether the position was coarsened for reduced-accuracy authorisation.
    public var isReduced = false
    /// One-sigma speed accuracy, m/s, when the receiver estimated it (UBX sAcc, CASIC sAcc).
    public var speedAccuracy: Double?
    /// One-sigma course accuracy, degrees, when the receiver estimated it (UBX headAcc, CASIC cAcc).
    public var courseAccuracy: Double?
    /// Which model the accuracy values came from.
    public var accuracyModel: LocationAccuracyModel = .assumed
    /// The differential corrections behind this location and their link, on a unit with an NTRIP
    /// client (`nil` without one).
    public var corrections: CorrectionStatus?

    /// Creates a location.
    public init(latitude: Double, longitude: Double, horizontalAccuracy: Double, receivedAt: MonotonicInstant,
                altitude: Double? = nil, ellipsoidalAltitude: Double? = nil, verticalAccuracy: Double? = nil,
                speed: Double? = nil, course: Double? = nil, timestamp: Double? = nil, satellitesUsed: Int? = nil,
                mode: FixMode = .threeD, provenance: Provenance = .receiver) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.receivedAt = receivedAt
        self.altitude = altitude
        self.ellipsoidalAltitude = ellipsoidalAltitude
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
        self.satellitesUsed = satellitesUsed
        self.mode = mode
        self.provenance = provenance
    }

    /// The location of an assembled fix, or `nil` when the fix has no position.
    ///
    /// The accuracies are the receiver's own estimates when its binary solution gave them (u-blox
    /// hAcc/vAcc/sAcc/headAcc, CASIC variances as 1 sigma), else the NMEA-derived ones (GST, GBS, or
    /// HDOP times an assumed range error); ``accuracyModel`` says which. A fix without any accuracy
    /// estimate gets 50 m, the worst a consumer receiver's DOP-based estimate gives with a usable geometry.
    public init?(_ fix: Fix, receivedAt: MonotonicInstant) {
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude,
              latitude.isFinite, longitude.isFinite else { return nil }
        let own = fix.receiverAccuracy
        let horizontal = own?.horizontal.flatMap { $0.isFinite ? $0 : nil }
        self.init(latitude: latitude, longitude: longitude, horizontalAccuracy: horizontal ?? fix.horizontalAccuracy ?? 50,
                  receivedAt: receivedAt, altitude: fix.altitudeMSL, ellipsoidalAltitude: fix.altitudeHAE,
                  verticalAccuracy: horizontal != nil ? (own?.vertical ?? fix.verticalAccuracy) : fix.verticalAccuracy,
                  speed: fix.speed, course: fix.course,
                  timestamp: fix.time?.secondsSinceEpoch, satellitesUsed: fix.satellitesUsed, mode: fix.mode,
                  provenance: fix.provenance)
        speedAccuracy = own?.speed
        courseAccuracy = own?.course
        if let own, horizontal != nil {
            accuracyModel = .receiver(own.model)
        } else {
            switch fix.horizontalAccuracy == nil ? .none : fix.accuracySource {
            case .gst: accuracyModel = .gst
            case .gbs: accuracyModel = .gbs
            case .dop: accuracyModel = .dopTimesRangeError
            case .receiver, .none: accuracyModel = .assumed
            }
        }
    }

    /// Seconds between this location's arrival and `now`.
    public func age(at now: MonotonicInstant) -> Double { (now - receivedAt).secondsDouble }

    /// Distance to another location, metres (WGS84).
    public func distance(to other: Location) -> Double {
        Geodesy.distance(latitude1: latitude, longitude1: longitude, latitude2: other.latitude, longitude2: other.longitude)
    }

    /// This location coarsened for reduced-accuracy authorisation: snapped to a grid of
    /// 0.05° (about 5 km) with the accuracy widened to at least 5 km, speed and course removed.
    public func reduced() -> Location {
        var copy = self
        let step = 0.05
        copy.latitude = (latitude / step).rounded() * step
        copy.longitude = (longitude / step).rounded() * step
        copy.horizontalAccuracy = max(horizontalAccuracy, 5000)
        copy.speed = nil
        copy.course = nil
        copy.speedAccuracy = nil
        copy.courseAccuracy = nil
        copy.altitude = nil
        copy.ellipsoidalAltitude = nil
        copy.isReduced = true
        return copy
    }

    public var description: String {
        "\(latitude), \(longitude) ±\(wholeNumberText(horizontalAccuracy)) m"
    }
}


/// Where a ``Location``'s accuracy values came from.
public enum LocationAccuracyModel: Sendable, Hashable, CustomStringConvertible {
    /// The receiver's own estimates from its binary solution, in that receiver's model.
    case receiver(ReceiverAccuracyModel)
    /// The receiver's NMEA error statistics (GST 1-sigma latitude/longitude/altitude errors).
    case gst
    /// The receiver's RAIM expected errors (GBS).
    case gbs
    /// HDOP/VDOP times an assumed user equivalent range error (``Fix/userEquivalentRangeError(for:)``).
    case dopTimesRangeError
    /// No estimate from the receiver: the 50 m default.
    case assumed

    public var description: String {
        switch self {
        case .receiver(let model): return model.description
        case .gst: return "GST error statistics"
        case .gbs: return "GBS RAIM errors"
        case .dopTimesRangeError: return "DOP x assumed range error"
        case .assumed: return "assumed 50 m"
        }
    }
}
