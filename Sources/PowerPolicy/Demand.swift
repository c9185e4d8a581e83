/// How accurate the locations a client asks for must be, mirroring Core Location's constants.
public enum DesiredAccuracy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Highest accuracy plus the highest rate; meant for units on external power.
    case bestForNavigation
    /// Highest accuracy at 1 Hz.
    case best
    /// Within about ten metres.
    case nearestTenMeters
    /// Within about a hundred metres.
    case hundredMeters
    /// Within about a kilometre.
    case kilometer
    /// Within about three kilometres.
    case threeKilometers
    /// Deliberately coarse (reduced accuracy authorisation).
    case reduced

    /// The accuracy budget in metres (`nil` for the continuous levels).
    public var budget: Double? {
        switch self {
        case .bestForNavigation, .best: return nil
        case .nearestTenMeters: return 10
        case .hundredMeters: return 100
        case .kilometer: return 1000
        case .threeKilometers: return 3000
        case .reduced: return 5000
        }
    }

    /// The shortest period this level samples at before moving to a faster rung, seconds.
    public var minimumPeriod: Double {
        switch self {
        case .bestForNavigation, .best: return 0
        case .nearestTenMeters: return 1
        default: return 10
        }
    }

    /// The longest period this level ever samples at, seconds.
    public var maximumPeriod: Double {
        switch self {
        case .bestForNavigation, .best: return 1
        case .nearestTenMeters: return 10
        case .hundredMeters: return 60
        case .kilometer: return 600
        case .threeKilometers: return 1800
        case .reduced: return 900
        }
    }

    /// Rank: a smaller rank is more demanding.
    public var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

/// What the client is doing, as a prior on speed and on when to pause.
public enum ActivityType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Unknown.
    case other
    /// On foot.
    case fitness
    /// Boats, trains, bicycles, off-road.
    case otherNavigation
    /// In a car.
    case automotiveNavigation
    /// In the air.
    case airborne

    /// The speed assumed while moving when fixes show less, m/s.
    public var speedFloor: Double {
        switch self {
        case .other: return 0.5
        case .fitness: return 1.0
        case .otherNavigation: return 2
        case .automotiveNavigation: return 3
        case .airborne: return 10
        }
    }

    /// The speed assumed when there is no recent fix, m/s.
    public var speedCap: Double {
        switch self {
        case .other: return 3
        case .fitness: return 6
        case .otherNavigation: return 20
        case .automotiveNavigation: return 40
        case .airborne: return 150
        }
    }

    /// Stillness after which updates pause (when the client allows it), seconds; `nil` = never.
    public var pauseAfter: Double? {
        switch self {
        case .other: return 180
        case .fitness: return 120
        case .otherNavigation, .automotiveNavigation: return 300
        case .airborne: return nil
        }
    }
}

/// One client's request, as the manager hands it to the policy.
public struct ClientDemand: Sendable, Hashable {
    /// Identifies the client (for messages).
    public var client: String
    /// Wanted accuracy; `nil` when the client wants no locations (heading only).
    public var desiredAccuracy: DesiredAccuracy?
    /// Metres between deliveries; `nil` for every fix.
    public var distanceFilter: Double?
    /// The period the client wants fixes at, seconds (Android's fused provider's interval): it
    /// sets the client's period whatever the accuracy level and motion (a distance filter may still
    /// ask for fixes sooner while moving); `nil` leaves the period to the accuracy budget and speed.
    public var updateInterval: Double?
    /// What the client is doing.
    public var activity: ActivityType
    /// Whether updates may pause after stillness.
    public var pausesAutomatically: Bool
    /// Whether the client wants headings.
    public var wantsHeading: Bool
    /// Degrees of heading change between deliveries; `nil` for every reading.
    public var headingFilter: Double?
    /// Significant-change monitoring only (500 m events, motion gated).
    public var significantChangesOnly: Bool
    /// One fix is wanted now (a location request, a visit's anchor): the receiver tracks until
    /// it arrives, even when the unit is still.
    public var oneShot: Bool

    /// Creates a demand.
    public init(client: String, desiredAccuracy: DesiredAccuracy? = .best, distanceFilter: Double? = nil,
                updateInterval: Double? = nil, activity: ActivityType = .other, pausesAutomatically: Bool = true,
                wantsHeading: Bool = false, headingFilter: Double? = nil, significantChangesOnly: Bool = false,
                oneShot: Bool = false) {
        self.client = client
        self.desiredAccuracy = desiredAccuracy
        self.distanceFilter = distanceFilter
        self.updateInterval = updateInterval
        self.activity = activity
        self.pausesAutomatically = pausesAutomatically
        self.wantsHeading = wantsHeading
        self.headingFilter = headingFilter
        self.significantChangesOnly = significantChangesOnly
        self.oneShot = oneShot
    }
}

/// What the unit knows about itself when the policy decides.
public struct PolicyState: Sendable, Hashable {
    /// Seconds since the last fix; `nil` when there has been none.
    public var timeSinceFix: Double?
    /// 95th percentile of GNSS speed over the last two minutes, m/s; `nil` without fixes.
    public var recentSpeed: Double?
    /// The accelerometer says the unit moves (`nil` when there is no accelerometer).
    public var moving: Bool?
    /// Seconds the unit has been still (accelerometer inactivity and GNSS speed under 0.5 m/s).
    public var stillFor: Double
    /// Age of the receiver's ephemerides, seconds; `nil` when it has none (cold).
    public var ephemerisAge: Double?
    /// Satellites used in the last fix.
    public var satellitesUsed: Int
    /// Horizontal accuracy of the last fix, metres (95 %).
    public var horizontalAccuracy: Double?
    /// Failed acquisitions in a row.
    public var failedAcquisitions: Int

    /// Creates a state.
    public init(timeSinceFix: Double? = nil, recentSpeed: Double? = nil, moving: Bool? = nil, stillFor: Double = 0,
                ephemerisAge: Double? = nil, satellitesUsed: Int = 0, horizontalAccuracy: Double? = nil,
                failedAcquisitions: Int = 0) {
        self.timeSinceFix = timeSinceFix
        self.recentSpeed = recentSpeed
        self.moving = moving
        self.stillFor = stillFor
        self.ephemerisAge = ephemerisAge
        self.satellitesUsed = satellitesUsed
        self.horizontalAccuracy = horizontalAccuracy
        self.failedAcquisitions = failedAcquisitions
    }
}
