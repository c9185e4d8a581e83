import HardwareInterfaces
import NMEA
import PowerPolicy
import RealModule

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
    /// Radius of the 68 % confidence circle, metres (as Core Location's `horizontalAccuracy`; see
    /// ``accuracyConfidence``). Negative (``Location/unknownAccuracy``) when the receiver gave no
    /// estimate, as Core Location marks an invalid accuracy: never an invented figure. Check
    /// ``hasKnownHorizontalAccuracy`` before comparing it.
    public var horizontalAccuracy: Double
    /// One-sigma vertical accuracy, metres; `nil` when unknown.
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
    /// How the position was solved: 2D, 3D, differential, RTK float or fixed, dead reckoning (from
    /// GGA's quality, the GSA/RMC/GNS mode letter, UBX NAV-PVT fixType/diffSoln/carrSoln, CASIC's
    /// position type). The memberwise initialiser derives 2D or 3D from `mode`.
    public var fixType: LocationFixType
    /// Where the fix came from (a receiver, a replayed log, the simulator).
    public var provenance: Provenance
    /// Whether the position was coarsened for reduced-accuracy authorisation.
    public var isReduced = false
    /// The receiver the fix came from: the device its bytes were read from (`/dev/ttyACM0`), as
    /// gpsd's TPV `device` names it; set by the engine, `nil` when not known (a location built by hand).
    public var source: String?
    /// One-sigma speed accuracy, m/s, when the receiver estimated it (UBX sAcc, CASIC sAcc); `nil`
    /// when unknown (NMEA has no speed error statistic).
    public var speedAccuracy: Double?
    /// One-sigma course accuracy, degrees, when the receiver estimated it (UBX headAcc, CASIC cAcc),
    /// or derived from the speed accuracy (`atan(speedAccuracy / speed)`) while the speed exceeds it;
    /// `nil` when unknown.
    public var courseAccuracy: Double?
    /// Which model the accuracy values came from.
    public var accuracyModel: LocationAccuracyModel = .unknown
    /// The confidence level of the accuracy values: every accuracy a fix gives is brought to one
    /// sigma (68 %, the 2D RMS radius for ``horizontalAccuracy``), as Core Location states its own.
    public var accuracyConfidence: AccuracyConfidence = .oneSigma
    /// The differential corrections behind this location and their link, on a unit with an NTRIP
    /// client (`nil` without one).
    public var corrections: CorrectionStatus?
    /// The receiver's 1-sigma error ellipse (GST: semi-major and semi-minor axes in metres, the
    /// major axis' direction in degrees from true north), when it states one; `nil` otherwise, and on
    /// a reduced-accuracy location.
    public var errorEllipse: ErrorEllipse?
    /// The one-sigma uncertainty of ``timestamp``, seconds, when it was measured: the receiver's own
    /// time accuracy (u-blox NAV-PVT or NAV-TIMEUTC tAcc), else the estimate from GST's
    /// pseudorange residuals (their RMS over the speed of light); `nil` when unknown, never a
    /// made-up figure. ``timeAccuracySource`` says which.
    public var timeAccuracy: Double?
    /// Where ``timeAccuracy`` came from; `nil` when it is unknown.
    public var timeAccuracySource: TimeAccuracySource?
    /// GPS − UTC in whole seconds (18 since 2017) behind ``timestamp``, when known; `nil` for a
    /// fix whose receiver gave UTC without saying (plain NMEA). ``leapSecondsSource`` says where
    /// it came from.
    public var leapSeconds: Int?
    /// Where ``leapSeconds`` came from: the receiver (UBX NAV-TIMEGPS, NAV-TIMELS), the leap-second
    /// table, or the table's last count assumed unchanged past its expiry.
    public var leapSecondsSource: LeapSecondSource?

    /// The value of an accuracy that is not known (Core Location's convention: negative).
    public static let unknownAccuracy = -1.0

    /// Whether ``horizontalAccuracy`` is an estimate (not negative, not NaN).
    public var hasKnownHorizontalAccuracy: Bool { horizontalAccuracy >= 0 }

    /// The horizontal accuracy when known, else `nil`.
    public var knownHorizontalAccuracy: Double? { hasKnownHorizontalAccuracy ? horizontalAccuracy : nil }

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
        fixType = Self.plainFixType(mode)
    }

    /// The fix type a mode alone gives: 2D, 3D, or none.
    static func plainFixType(_ mode: FixMode) -> LocationFixType {
        mode == .twoD ? .twoD : mode == .threeD ? .threeD : .none
    }

    /// The location of an assembled fix, or `nil` when the fix has no position.
    ///
    /// The accuracies are the receiver's own estimates when its binary solution gave them (u-blox
    /// hAcc/vAcc/sAcc/headAcc, CASIC variances as 1 sigma), else the NMEA-derived ones (GST, GBS, or
    /// HDOP times an assumed range error); ``accuracyModel`` says which. A fix without any accuracy
    /// estimate has ``unknownAccuracy`` (negative) and ``LocationAccuracyModel/unknown``: no figure is invented.
    public init?(_ fix: Fix, receivedAt: MonotonicInstant) {
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude,
              latitude.isFinite, longitude.isFinite else { return nil }
        let own = fix.receiverAccuracy
        let horizontal = own?.horizontal.flatMap { $0.isFinite ? $0 : nil }
        self.init(latitude: latitude, longitude: longitude, horizontalAccuracy: horizontal ?? fix.horizontalAccuracy.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? Self.unknownAccuracy,
                  receivedAt: receivedAt, altitude: fix.altitudeMSL, ellipsoidalAltitude: fix.altitudeHAE,
                  verticalAccuracy: horizontal != nil ? (own?.vertical ?? fix.verticalAccuracy) : fix.verticalAccuracy,
                  speed: fix.speed, course: fix.course,
                  timestamp: fix.time?.secondsSinceEpoch, satellitesUsed: fix.satellitesUsed, mode: fix.mode,
                  provenance: fix.provenance)
        fixType = LocationFixType(mode: fix.mode, quality: fix.quality)
        errorEllipse = fix.errorEllipse
        if let time = Self.timeAccuracy(of: fix) { (timeAccuracy, timeAccuracySource) = (time.seconds, time.source) }
        if let leap = fix.leapSeconds { (leapSeconds, leapSecondsSource) = (leap, fix.leapSecondsSource ?? .receiver) }
        speedAccuracy = own?.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        courseAccuracy = own?.course.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            ?? Self.courseAccuracy(speed: fix.speed, speedAccuracy: speedAccuracy)
        if let own, horizontal != nil {
            accuracyModel = .receiver(own.model)
        } else {
            switch fix.horizontalAccuracy == nil ? .none : fix.accuracySource {
            case .gst: accuracyModel = .gst
            case .gbs: accuracyModel = .gbs
            case .dop: accuracyModel = .dopTimesRangeError
            case .receiver, .none: accuracyModel = .unknown
            }
        }
    }

    /// The course's one-sigma error, degrees, that a speed error gives: `atan(speedAccuracy / speed)`,
    /// while the speed exceeds its error (below it the course means nothing); else `nil`.
    public static func courseAccuracy(speed: Double?, speedAccuracy: Double?) -> Double? {
        guard let v = speed, let e = speedAccuracy, v.isFinite, e.isFinite, e >= 0, v > e else { return nil }
        return Double.atan2(y: e, x: v) * 180 / Double.pi
    }

    /// Seconds between this location's arrival and `now`.
    public func age(at now: MonotonicInstant) -> Double { (now - receivedAt).secondsDouble }

    /// Distance to another location, metres (WGS84).
    public func distance(to other: Location) -> Double {
        Geodesy.distance(latitude1: latitude, longitude1: longitude, latitude2: other.latitude, longitude2: other.longitude)
    }

    public var description: String {
        "\(latitude), \(longitude) ±" + (hasKnownHorizontalAccuracy ? "\(wholeNumberText(horizontalAccuracy)) m" : "? m")
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
    /// No estimate: the accuracy is ``Location/unknownAccuracy`` (negative).
    case unknown

    public var description: String {
        switch self {
        case .receiver(let model): return model.description
        case .gst: return "GST error statistics"
        case .gbs: return "GBS RAIM errors"
        case .dopTimesRangeError: return "DOP x assumed range error"
        case .unknown: return "unknown"
        }
    }
}

/// How a ``Location``'s position was solved (Core Location has no such field; gpsd's `mode` and
/// `status`, u-blox's fixType with carrSoln/diffSoln, GGA's quality).
public enum LocationFixType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No position (a location built without one, or a receiver that reports no fix).
    case none
    /// Latitude and longitude only.
    case twoD
    /// Latitude, longitude and altitude, autonomous.
    case threeD
    /// Differentially corrected (SBAS, DGPS; GGA quality 2, mode letter D, UBX diffSoln).
    case dgps
    /// RTK with float ambiguities (GGA quality 5, mode letter F, UBX carrSoln 1).
    case rtkFloat
    /// RTK with fixed ambiguities (GGA quality 4, mode letter R, UBX carrSoln 2).
    case rtkFixed
    /// Dead reckoning, alone or combined with GNSS (GGA quality 6, mode letter E, UBX fixType 1 or 4).
    case deadReckoning

    /// The fix type of an NMEA fix's mode and quality.
    public init(mode: FixMode, quality: FixQuality) {
        guard mode >= .twoD else { self = .none; return }
        switch quality {
        case .differential, .pps: self = .dgps
        case .rtkFloat: self = .rtkFloat
        case .rtkFixed: self = .rtkFixed
        case .deadReckoning: self = .deadReckoning
        default: self = mode == .twoD ? .twoD : .threeD
        }
    }

    public var description: String {
        switch self {
        case .none: return "no fix"
        case .twoD: return "2D"
        case .threeD: return "3D"
        case .dgps: return "DGPS"
        case .rtkFloat: return "RTK float"
        case .rtkFixed: return "RTK fixed"
        case .deadReckoning: return "dead reckoning"
        }
    }
}

/// The confidence level a ``Location``'s accuracy values are stated at.
public enum AccuracyConfidence: String, Sendable, Hashable, CaseIterable {
    /// One sigma: 68 % (for a horizontal radius, the 2D RMS error, 63-68 %). Core Location's level,
    /// and the one every location the engine makes is given at.
    case oneSigma
    /// 95 % (gpsd's `eph`/`epv`, Garmin's EPE): 2.45 times the 2D RMS radius (sqrt(-2 ln 0.05)).
    case ninetyFivePercent

    /// The level in percent.
    public var percent: Int { self == .oneSigma ? 68 : 95 }
}

/// Where a location's ``Location/timeAccuracy`` came from.
public enum TimeAccuracySource: String, Sendable, Hashable, CaseIterable {
    /// The receiver's own estimate of its time's accuracy (u-blox tAcc in NAV-PVT or NAV-TIMEUTC).
    case receiver
    /// Estimated from GST's RMS of the pseudorange residuals: that range over the speed of light.
    case gst
    /// The receiver's time pulse (PPS), paired with this fix's second: the pulse's datasheet
    /// accuracy combined with the error bound of the host's timestamp of the edge. Used when the
    /// receiver stated no time accuracy of its own (it is then the better figure than GST's).
    case pps
}

extension Location {
    /// The speed of light, m/s, turning a range error into a time error.
    public static let speedOfLight = 299_792_458.0

    /// The measured one-sigma uncertainty of `fix`'s time, seconds, and its source: the receiver's
    /// tAcc when a binary solution stated it, else the time pulse's figure when a pulse marked the
    /// fix's second (``Fix/pulseTimeAccuracy``), else GST's pseudorange residual RMS over the speed
    /// of light; `nil` when the fix has no time or nothing measured it.
    public static func timeAccuracy(of fix: Fix) -> (seconds: Double, source: TimeAccuracySource)? {
        guard fix.time != nil else { return nil }
        if let t = fix.receiverAccuracy?.time, t.isFinite, t >= 0 { return (t, .receiver) }
        if let t = fix.pulseTimeAccuracy, t.isFinite, t >= 0 { return (t, .pps) }
        if let rms = fix.rangeResidualRMS, rms.isFinite, rms >= 0 { return (rms / speedOfLight, .gst) }
        return nil
    }

    /// The time accuracy of a fix paired with a PPS edge: the pulse's one-sigma accuracy
    /// `pulseAccuracy` (seconds, from the receiver's datasheet) and the host's error bound of the
    /// edge's timestamp `edgeErrorNanoseconds` (0 or `nil` for a stamp the kernel took on the
    /// system clock), combined as independent errors. Replaces a GST estimate, never the
    /// receiver's own figure; does nothing without a pulse accuracy.
    public mutating func notePulse(pulseAccuracy: Double?, edgeErrorNanoseconds: Int64?) {
        guard timeAccuracySource != .receiver,
              let combined = Self.pulseTimeAccuracy(pulseAccuracy: pulseAccuracy, edgeErrorNanoseconds: edgeErrorNanoseconds) else { return }
        timeAccuracy = combined
        timeAccuracySource = .pps
    }

    /// The time accuracy a PPS edge gives (see ``notePulse(pulseAccuracy:edgeErrorNanoseconds:)``),
    /// seconds; `nil` without a pulse accuracy.
    public static func pulseTimeAccuracy(pulseAccuracy: Double?, edgeErrorNanoseconds: Int64?) -> Double? {
        guard let pulse = pulseAccuracy, pulse.isFinite, pulse >= 0 else { return nil }
        let host = Double(max(0, edgeErrorNanoseconds ?? 0)) * 1e-9
        return (pulse * pulse + host * host).squareRoot()
    }
}
