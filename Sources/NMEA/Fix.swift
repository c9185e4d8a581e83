/// The fix mode: how many dimensions the position has.
public enum FixMode: Int, Sendable, Hashable, Comparable {
    /// Nothing said yet.
    case unknown = 0
    /// The receiver reports no fix.
    case noFix = 1
    /// Latitude and longitude only.
    case twoD = 2
    /// Latitude, longitude and altitude.
    case threeD = 3

    public static func < (a: FixMode, b: FixMode) -> Bool { a.rawValue < b.rawValue }
}

/// How the position was obtained.
public enum FixQuality: Int, Sendable, Hashable {
    case invalid = 0, gps = 1, differential = 2, pps = 3, rtkFixed = 4, rtkFloat = 5
    case deadReckoning = 6, manual = 7, simulated = 8

    init(_ quality: GGAQuality) { self = FixQuality(rawValue: Int(quality.rawValue)) ?? .invalid }

    init?(_ mode: ModeIndicator) {
        switch mode {
        case .autonomous: self = .gps
        case .differential: self = .differential
        case .estimated: self = .deadReckoning
        case .floatRTK: self = .rtkFloat
        case .manual: self = .manual
        case .notValid: return nil
        case .precise: self = .pps
        case .rtk: self = .rtkFixed
        case .simulator: self = .simulated
        }
    }
}

/// A position's error ellipse (1 sigma), as a receiver's GST states it.
public struct ErrorEllipse: Sendable, Hashable {
    /// The semi-major axis, metres.
    public var semiMajor: Double
    /// The semi-minor axis, metres.
    public var semiMinor: Double
    /// The semi-major axis' direction, degrees clockwise from true north, in [0, 180).
    public var orientation: Double

    /// An ellipse; `nil` unless the axes are finite, non-negative and the major not shorter than the
    /// minor, and the orientation finite (brought into [0, 180)).
    public init?(semiMajor: Double, semiMinor: Double, orientation: Double) {
        guard semiMajor.isFinite, semiMinor.isFinite, orientation.isFinite, semiMinor >= 0, semiMajor >= semiMinor else { return nil }
        self.semiMajor = semiMajor
        self.semiMinor = semiMinor
        var o = orientation.truncatingRemainder(dividingBy: 180)
        if o < 0 { o += 180 }
        self.orientation = o
    }
}

/// Where an accuracy estimate came from.
public enum AccuracySource: Int, Sendable, Hashable {
    /// No estimate is possible (no DOP and no error statistics).
    case none
    /// The receiver's own error statistics (GST 1-sigma latitude/longitude/altitude errors).
    case gst
    /// The receiver's RAIM expected errors (GBS).
    case gbs
    /// Dilution of precision times a user equivalent range error (``Fix/userEquivalentRangeError(for:)``).
    case dop
    /// The receiver's own estimates from its binary solution (UBX hAcc/vAcc, CASIC variances):
    /// ``Fix/receiverAccuracy`` says which model.
    case receiver
}

/// The binary protocol a fix's binary part came from.
public enum BinaryProtocol: Int, Sendable, Hashable, CustomStringConvertible {
    /// u-blox UBX (NAV-PVT, HNR-PVT, or u-blox 6's NAV-SOL/POSLLH/VELNED).
    case ubx
    /// CASIC binary (NAV-PV, NAV-TIMEUTC) of Zhongkewei AT6558 receivers (Quectel L76K).
    case casic

    /// The driver name gpsd gives this protocol in `?DEVICES` (`u-blox`, `CASIC`).
    public var description: String { self == .ubx ? "u-blox" : "CASIC" }
}

/// How a receiver states its accuracy, which decides what the numbers mean.
public enum ReceiverAccuracyModel: Int, Sendable, Hashable, CustomStringConvertible {
    /// u-blox hAcc/vAcc/sAcc/headAcc: "accuracy estimates", in millimetres; u-blox does not document the
    /// statistic (gpsd and u-blox application notes treat them as about 1 sigma per axis).
    case ubxAccuracyEstimate
    /// CASIC NAV-PV hAcc/vAcc/sAcc/cAcc: variances; the values here are their square roots (1 sigma).
    case casicVariance

    public var description: String {
        switch self {
        case .ubxAccuracyEstimate: return "u-blox accuracy estimate"
        case .casicVariance: return "CASIC variance (1 sigma)"
        }
    }
}

/// The receiver's own accuracy estimates for one epoch, from its binary solution.
public struct ReceiverAccuracy: Sendable, Hashable {
    /// What the numbers mean.
    public var model: ReceiverAccuracyModel
    /// Horizontal position accuracy, metres.
    public var horizontal: Double?
    /// Vertical position accuracy, metres.
    public var vertical: Double?
    /// 3D position accuracy, metres (u-blox 6 NAV-SOL pAcc).
    public var position3D: Double?
    /// Speed accuracy, m/s.
    public var speed: Double?
    /// Course (heading of motion) accuracy, degrees.
    public var course: Double?
    /// Time accuracy, seconds.
    public var time: Double?

    public init(model: ReceiverAccuracyModel, horizontal: Double? = nil, vertical: Double? = nil, position3D: Double? = nil,
                speed: Double? = nil, course: Double? = nil, time: Double? = nil) {
        self.model = model
        self.horizontal = horizontal
        self.vertical = vertical
        self.position3D = position3D
        self.speed = speed
        self.course = course
        self.time = time
    }
}

/// What the receiver says about itself besides the fix: time to first fix, interference, time pulse.
public struct ReceiverStatus: Sendable, Hashable {
    /// Time to first fix, seconds (UBX NAV-STATUS).
    public var timeToFirstFix: Double?
    /// Spoofing indicator (UBX NAV-STATUS, u-blox 8 protocol 18 and later).
    public var spoofing: SpoofingState?
    /// Jamming state, noise per ms, AGC count and CW jamming indicator (UBX MON-RF).
    public var jamming: JammingState?
    public var noisePerMS: Int?
    public var agcCount: Int?
    public var jammingIndicator: Int?
    /// The next time pulse's quantisation error, seconds (UBX TIM-TP qErr), for the time service.
    public var timePulseQuantizationError: Double?

    public init() {}
}

/// Where fixes come from.
public enum Provenance: Int, Sendable, Hashable {
    case receiver, replay, simulator
}

/// One satellite in the sky view of a fix.
public struct SatelliteInfo: Sendable, Hashable {
    public var constellation: Constellation?
    /// The satellite number as the receiver numbered it.
    public var prn: UInt16
    public var elevation: Int16?
    public var azimuth: UInt16?
    /// Carrier-to-noise density, dB-Hz; `nil` when not tracked.
    public var snr: UInt8?
    /// Whether the satellite is used in the solution (from GSA).
    public var used: Bool
    /// NMEA 4.10 signal ID, or the UBX `sigId` (NAV-SIG), when the receiver sent one.
    public var signalID: UInt8?
    /// The UBX constellation id (`gnssId`) and satellite id (`svId`), when the sky came from UBX or CASIC.
    public var gnssID: UInt8?
    public var svID: UInt8?

    public init(constellation: Constellation?, prn: UInt16, elevation: Int16? = nil, azimuth: UInt16? = nil,
                snr: UInt8? = nil, used: Bool = false, signalID: UInt8? = nil) {
        self.constellation = constellation
        self.prn = prn
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
        self.used = used
        self.signalID = signalID
    }
}

/// A fixed-capacity list of satellites (no heap allocation).
public struct SatelliteList: Sendable {
    /// The most satellites kept; more are counted in ``dropped``.
    public static let capacity = 64
    var storage: InlineArray<64, SatelliteInfo>
    /// How many satellites are held.
    public private(set) var count: Int = 0
    /// How many satellites did not fit.
    public private(set) var dropped: Int = 0

    public init() { storage = InlineArray(repeating: SatelliteInfo(constellation: nil, prn: 0)) }

    /// The satellite at `index` (0..<count).
    public subscript(index: Int) -> SatelliteInfo {
        get { storage[min(max(index, 0), SatelliteList.capacity - 1)] }
        set { if index >= 0, index < count { storage[index] = newValue } }
    }

    /// Adds a satellite, or counts it as dropped when full.
    public mutating func append(_ satellite: SatelliteInfo) {
        guard count < SatelliteList.capacity else { dropped += 1; return }
        var table = storage.mutableSpan
        table[count] = satellite
        count += 1
    }

    /// Counts `added` satellites written past the last one (into ``storage``, by the caller) and
    /// `dropped` that did not fit.
    @inline(__always)
    mutating func appended(_ added: Int, dropped more: Int) {
        count &+= added
        dropped &+= more
    }

    /// Removes every satellite for which `predicate` is true.
    public mutating func removeAll(where predicate: (SatelliteInfo) -> Bool) {
        var kept = 0
        for index in 0..<count where !predicate(storage[index]) {
            storage[kept] = storage[index]
            kept += 1
        }
        count = kept
    }

    /// Removes the satellites whose bits are set in `mask` (bit `i` for satellite `i`), keeping the
    /// order of the others, which move down in blocks.
    mutating func remove(mask: UInt64) {
        let held = min(count, SatelliteList.capacity)
        let removed = mask & SatelliteList.live(held)
        guard removed != 0 else { return }
        var table = storage.mutableSpan
        table.withUnsafeMutableBufferPointer { table in
            SatelliteList.compact(UnsafeMutableRawPointer(table.baseAddress.unsafelyUnwrapped),
                                  stride: MemoryLayout<SatelliteInfo>.stride, count: held, removing: removed)
        }
        count = held &- removed.nonzeroBitCount
    }

    /// Bits `0..<count` set.
    @inline(__always)
    static func live(_ count: Int) -> UInt64 { count >= 64 ? ~0 : (1 &<< UInt64(count)) &- 1 }

    /// Moves the entries of a table of trivial values whose bits in `removing` are clear down over
    /// those whose bits are set, run by run (a run of kept entries is one overlapping copy).
    static func compact(_ base: UnsafeMutableRawPointer, stride: Int, count: Int, removing mask: UInt64) {
        var write = mask.trailingZeroBitCount
        var read = write
        while read < count {
            // Past the run of removed entries at `read`, then the run of kept ones after it.
            read &+= (~(mask &>> UInt64(read))).trailingZeroBitCount
            guard read < count else { break }
            let kept = min((mask &>> UInt64(read)).trailingZeroBitCount, count &- read)
            (base + write &* stride).copyMemory(from: base + read &* stride, byteCount: kept &* stride)
            write &+= kept
            read &+= kept
        }
    }

    /// Removes every satellite.
    public mutating func removeAll() {
        count = 0
        dropped = 0
    }

    /// The satellites as an array (allocates; for display and JSON, not the per-sentence path).
    public var array: [SatelliteInfo] { (0..<count).map { storage[$0] } }
}

/// Everything known about one navigation epoch, merged from the sentences that share its time.
public struct Fix: Sendable {
    /// UTC date and time; `nil` until a date is known (from RMC or ZDA). No date is ever invented.
    public var time: UTCTime?
    /// The epoch's time of day, known even before the date.
    public var timeOfDay: TimeOfDay?
    /// Whether ``time`` was moved forward by 1024 GPS weeks by the week-rollover guard.
    public var weekRolloverCorrected = false

    /// Signed decimal degrees (WGS84), present when the mode is 2D or 3D.
    public var latitude: Double?
    public var longitude: Double?
    /// The coordinates as the receiver wrote them.
    public var rawLatitude: Coordinate?
    public var rawLongitude: Coordinate?
    /// Altitude above mean sea level (the geoid), metres.
    public var altitudeMSL: Double?
    /// Geoid separation (ellipsoid minus MSL), metres.
    public var geoidSeparation: Double?
    /// Whether ``geoidSeparation`` (and the height made from it) came from the package's geoid
    /// (``EGM96``, ``completeHeightsFromGeoid()``) rather than from the receiver.
    public var geoidSeparationFromModel = false
    /// Altitude above the WGS84 ellipsoid, metres: the receiver's MSL altitude plus geoid separation,
    /// from the same sentence (GGA or GNS). A later altitude from another source (Garmin PGRMZ)
    /// changes ``altitudeMSL`` only, as gpsd does.
    public var altitudeHAE: Double?
    /// Speed over ground, m/s.
    public var speed: Double?
    /// Whether ``speed`` was derived from the distance to the previous fix (no sentence gave one).
    public var speedIsDerived = false
    /// Course over ground, degrees true.
    public var course: Double?
    /// Magnetic variation reported by the receiver, degrees (east positive).
    public var magneticVariation: Double?

    public var mode: FixMode = .unknown
    public var quality: FixQuality = .invalid
    /// Satellites used in the solution, as the receiver counted them (GGA/GNS) or from GSA.
    public var satellitesUsed: Int?
    /// Satellites in view: the most recent complete GSV view.
    public var satellites = SatelliteList()

    public var pdop: Double?
    public var hdop: Double?
    public var vdop: Double?

    /// Horizontal accuracy, metres: the radius of the ``accuracyConfidence`` circle (2D RMS error).
    public var horizontalAccuracy: Double?
    /// Vertical accuracy, metres (1 sigma).
    public var verticalAccuracy: Double?
    /// Where the accuracy came from.
    public var accuracySource: AccuracySource = .none
    /// The receiver's 1-sigma error ellipse of the position (GST's semi-major and semi-minor axes
    /// and orientation), when it states one.
    public var errorEllipse: ErrorEllipse?
    /// The RMS of the pseudorange residuals, metres (GST's second field), when the receiver states it.
    public var rangeResidualRMS: Double?
    /// The receiver's own accuracy estimates, when its binary solution gave them (UBX, CASIC).
    public var receiverAccuracy: ReceiverAccuracy?
    /// The one-sigma accuracy of the fix's time, seconds, from the receiver's time pulse (PPS) that
    /// marked its second: set by the engine when it paired the fix with a pulse.
    public var pulseTimeAccuracy: Double?
    /// The receiver's time-validity flags, when a binary message gave them.
    public var timeValidity: TimeValidity?
    /// GPS − UTC leap seconds, when the receiver stated them (UBX NAV-TIMEGPS / NAV-TIMELS).
    public var leapSeconds: Int?
    /// A leap second the receiver announces for an upcoming UTC day end: +1 inserted, -1 removed
    /// (UBX NAV-TIMELS with a valid event); `nil` when none is announced or the receiver does not say.
    public var leapSecondChange: Int?
    /// Where the GPS − UTC offset behind ``time`` came from when a binary message gave the time:
    /// the receiver, or the ``LeapSecondTable`` when the receiver gave only GPS time. `nil` for a fix
    /// from NMEA alone, whose times are the receiver's UTC.
    public var leapSecondsSource: LeapSecondSource?
    /// The talker of the sentence whose position the fix reports (the epoch's last sentence with a
    /// position, QUIRKS.md section 4); `nil` when no NMEA sentence gave the position.
    public var positionTalker: Talker?
    /// Whether the epoch's positions came from more than one device: a satellite receiver's talker and
    /// another (an instrument repeater on one bus, `$GPRMC` and `$IIRMC`); the fix reports the last,
    /// named by ``positionTalker``. A receiver's own talkers (`GP` and `GN`) are one device.
    public var positionTalkersDiffer = false
    /// Velocity north, east and down, m/s (binary solutions only).
    public var velocityNorth: Double?
    public var velocityEast: Double?
    public var velocityDown: Double?
    /// The binary protocol that contributed to this fix; `nil` for a fix from NMEA alone.
    public var binaryProtocol: BinaryProtocol?
    /// What the receiver reported about itself (TTFF, spoofing, jamming, time pulse), when it did.
    public var receiverStatus: ReceiverStatus?
    /// The stated confidence of the accuracy values, in percent (about 63-68 % for a 2D RMS radius).
    public static let accuracyConfidence = 68

    /// Where this fix came from.
    public var provenance: Provenance = .receiver
    /// Which of a board's receivers the fix came from (0 for the first), set by the engine on a
    /// board with several (its name is ``Location``'s `source` and gpsd's TPV `device`); `nil`
    /// otherwise. An index, not a name, so that a fix stays plain values.
    public var receiverIndex: Int?

    public init() {}

    /// Whether the fix carries a usable position.
    public var hasPosition: Bool { mode >= .twoD && latitude != nil && longitude != nil }

    /// The user equivalent range error (1 sigma, metres) that DOPs are multiplied by when the receiver
    /// sends no error statistics: 5.0 m autonomous, 1.5 m differential/PPS, 0.5 m RTK float,
    /// 0.05 m RTK fixed, 10 m dead reckoning.
    public static func userEquivalentRangeError(for quality: FixQuality) -> Double {
        switch quality {
        case .differential, .pps: return 1.5
        case .rtkFloat: return 0.5
        case .rtkFixed: return 0.05
        case .deadReckoning: return 10
        default: return 5.0
        }
    }
}
