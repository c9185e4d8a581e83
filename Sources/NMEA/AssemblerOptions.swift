/// The distance in metres between two points given in degrees (latitude 1, longitude 1, latitude 2,
/// longitude 2). The NMEA target has no trigonometry of its own (standard library only), so callers
/// that want speed derived from positions supply one (the engine's `Geodesy.distance`, WGS84).
public typealias DistanceFunction = @Sendable (Double, Double, Double, Double) -> Double

/// What becomes of the untimed sentences with fix data (VTG, PGRMZ) that come after the last timed
/// sentence of a second (QUIRKS.md M-1). The two gpsd versions FieldLocation is measured against differ
/// here, so the choice is the user's.
public enum UntimedAfterCycleEnd: Sendable, Hashable {
    /// They join the second's fix, which waits for them when they directly follow its last timed
    /// sentence: the gpsd of the shared corpus (46977faa8f94) reports again on the sentence just after
    /// its cycle ender (`$INGLL` then `$INVTG`: the VTG's course).
    case joinEpoch
    /// They are held, and join the fix only when another timed sentence of the same second follows;
    /// otherwise they are left out: gpsd 3.22 reports at its cycle ender and not again (`$GPRMC` then
    /// `$GPVTG`: the RMC's course and speed).
    case leftOut
}

/// Options for turning sentences into fixes.
public struct AssemblerOptions: Sendable {
    /// Dates before this one are taken as a GPS week-number rollover and moved forward by 1024 weeks
    /// (repeatedly, until they are not earlier). `nil` disables the guard, as for replaying old logs.
    public var weekRolloverPivot: CalendarDate?
    /// Where fixes come from.
    public var provenance: Provenance
    /// When set, an epoch with a position but no speed sentence gets a speed derived from the
    /// distance to the previous fix over the time between them, as gpsd does
    /// (``Fix/speedIsDerived`` marks it).
    public var distance: DistanceFunction?
    /// When set, an epoch whose binary messages state the position only in ECEF (UBX NAV-SOL,
    /// NAV-POSECEF, NAV-VELECEF) gets latitude, longitude, height above the ellipsoid and velocity
    /// from it, as gpsd does (the engine's `Geodesy.wgs84ECEF`). Without it such an epoch has no position.
    public var ecefConversion: ECEFConversion?
    /// GPS − UTC for receivers that give GPS time without their leap seconds (u-blox NAV-SOL with no
    /// NAV-TIMEGPS, NAV-TIMELS or NAV-TIMEUTC): the built-in IERS history by default, or a newer list
    /// (``LeapSecondTable/init(leapSecondsList:)``).
    public var leapSecondTable: LeapSecondTable
    /// Untimed sentences after a second's last timed sentence (``UntimedAfterCycleEnd``):
    /// ``UntimedAfterCycleEnd/joinEpoch`` unless set.
    public var untimedAfterCycleEnd: UntimedAfterCycleEnd = .joinEpoch

    /// Creates options. The default pivot suits live receivers: no fix can be older than 2024.
    public init(weekRolloverPivot: CalendarDate? = CalendarDate(year: 2024, month: 1, day: 1),
                provenance: Provenance = .receiver, distance: DistanceFunction? = nil,
                ecefConversion: ECEFConversion? = nil, leapSecondTable: LeapSecondTable = .iers) {
        self.weekRolloverPivot = weekRolloverPivot
        self.provenance = provenance
        self.distance = distance
        self.ecefConversion = ecefConversion
        self.leapSecondTable = leapSecondTable
    }
}

/// Counters of sentences accepted and rejected, by type and by reason, and of optional fields that
/// could not be read (by sentence type and field number), which the accepted sentences lack.
public struct SentenceCounters: Sendable {
    var acceptedByType = InlineArray<18, Int>(repeating: 0)
    var rejectedByReason = InlineArray<8, Int>(repeating: 0)
    /// Unreadable fields: slot `type * 32 + field - 1` (fields 1...32; later ones are not counted).
    var unreadableByField = InlineArray<576, UInt32>(repeating: 0)
    /// Fixes emitted.
    public internal(set) var fixes = 0
    /// Accepted sentences with data after their checksum, up to the line end (a logger's timestamp:
    /// Android's GnssLogger writes `...*63,1699400577561`). The checksum was checked; the data is
    /// not part of any field.
    public internal(set) var trailingData = 0
    /// The bytes of that data, over every such sentence.
    public internal(set) var trailingDataBytes = 0

    public init() {}

    /// Sentences of `type` accepted.
    public func accepted(_ type: SentenceType) -> Int { acceptedByType[SentenceCounters.slot(type)] }
    /// Sentences or frames rejected for `reason`.
    public func rejected(_ reason: RejectionReason) -> Int { rejectedByReason[reason.rawValue] }
    /// All sentences accepted.
    public var totalAccepted: Int { (0..<18).reduce(0) { $0 + acceptedByType[$1] } }
    /// All sentences and frames rejected.
    public var totalRejected: Int { (0..<8).reduce(0) { $0 + rejectedByReason[$1] } }

    /// How many accepted sentences of `type` had field `field` (1...32) unreadable and taken as absent.
    public func unreadable(_ type: SentenceType, field: Int) -> Int {
        guard field >= 1, field <= 32 else { return 0 }
        return Int(unreadableByField[SentenceCounters.slot(type) * 32 + field - 1])
    }

    /// All unreadable fields counted, over every sentence type.
    public var totalUnreadableFields: Int { (0..<576).reduce(0) { $0 + Int(unreadableByField[$1]) } }

    mutating func accept(_ type: SentenceType) { acceptedByType[SentenceCounters.slot(type)] += 1 }

    @inline(never)
    mutating func noteUnreadable(_ type: SentenceType, _ fields: UnreadableFields) {
        let base = SentenceCounters.slot(type) * 32
        for field in fields where field <= 32 {
            unreadableByField[base + field - 1] &+= 1
        }
    }
    mutating func reject(_ reason: RejectionReason) { rejectedByReason[reason.rawValue] += 1 }

    mutating func noteTrailingData(_ bytes: Int) {
        guard bytes > 0 else { return }
        trailingData &+= 1
        trailingDataBytes &+= bytes
    }

    static func slot(_ type: SentenceType) -> Int {
        switch type {
        case .rmc: return 0
        case .gga: return 1
        case .gsa: return 2
        case .gsv: return 3
        case .vtg: return 4
        case .gll: return 5
        case .zda: return 6
        case .gns: return 7
        case .gst: return 8
        case .gbs: return 9
        case .hdt: return 10
        case .hdg: return 11
        case .ths: return 12
        case .txt: return 13
        case .dtm: return 14
        case .otherStandard: return 15
        case .proprietary: return 16
        case .encapsulated: return 17
        }
    }
}
