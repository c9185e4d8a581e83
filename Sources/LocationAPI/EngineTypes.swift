import Beacons
import HardwareInterfaces
import Heading
import LocationServices
import NMEA
import PowerPolicy

/// A heading as the services deliver it.
public struct HeadingUpdate: Sendable, Hashable {
    /// Heading relative to magnetic north of the client's reference axis, degrees.
    public var magneticHeading: Double
    /// Heading relative to true north; `nil` until a fix gives the position for the declination.
    public var trueHeading: Double?
    /// Estimated error of the heading, degrees (negative when invalid, as Core Location).
    public var headingAccuracy: Double
    /// The calibrated field in body axes, µT (x forward, y right, z down).
    public var x: Double, y: Double, z: Double
    /// The acceleration in body axes, g.
    public var accelerationX: Double, accelerationY: Double, accelerationZ: Double
    /// Pitch and roll, degrees.
    public var pitch: Double?, roll: Double?
    /// The measured field's inclination (dip) below the horizontal, degrees.
    public var inclination: Double?
    /// The engine's quality verdict and integrity flags.
    public var quality: HeadingQuality
    /// Flag names (see `HeadingFlags`).
    public var flags: [String]
    /// When the reading was taken, on the engine's clock.
    public var takenAt: MonotonicInstant
    /// On a board with a gyroscope, the attitude filter's state (roll, pitch, yaw, quaternion,
    /// the sources it believed, the measured rates and the bias estimate); `nil` where the heading
    /// is today's tilt compensation. Pitch and roll above are then the filter's.
    public var attitude: AttitudeEstimate? = nil

    /// Every value given, as the engine's sensor subsystem makes it.
    package init(magneticHeading: Double, trueHeading: Double?, headingAccuracy: Double, x: Double, y: Double, z: Double,
                 accelerationX: Double, accelerationY: Double, accelerationZ: Double, pitch: Double?, roll: Double?,
                 inclination: Double?, quality: HeadingQuality, flags: [String], takenAt: MonotonicInstant,
                 attitude: AttitudeEstimate? = nil) {
        self.magneticHeading = magneticHeading
        self.trueHeading = trueHeading
        self.headingAccuracy = headingAccuracy
        (self.x, self.y, self.z) = (x, y, z)
        (self.accelerationX, self.accelerationY, self.accelerationZ) = (accelerationX, accelerationY, accelerationZ)
        self.pitch = pitch
        self.roll = roll
        self.inclination = inclination
        self.quality = quality
        self.flags = flags
        self.takenAt = takenAt
        self.attitude = attitude
    }
}

/// Which body axis a heading is reported for (Core Location's `headingOrientation`, mapped to a board).
public enum HeadingOrientation: String, Sendable, Hashable, CaseIterable {
    /// The board's x axis (forward in its mount matrix).
    case forward
    /// The board's y axis (right).
    case right
    /// Backward (−x).
    case backward
    /// Left (−y).
    case left

    /// Degrees added to the forward heading.
    package var offset: Double {
        switch self {
        case .forward: return 0
        case .right: return 90
        case .backward: return 180
        case .left: return 270
        }
    }
}

/// What a client receives from the engine.
public enum EngineEvent: Sendable {
    /// Locations, oldest first (one, or a batch).
    case locations([Location])
    /// Updates paused for stillness.
    case paused
    /// Updates resumed on motion.
    case resumed
    /// A heading.
    case heading(HeadingUpdate)
    /// A region event.
    case region(RegionEvent)
    /// A region lapsed (its `expiresAfter` or `expiresAt`) and is no longer monitored.
    case regionExpired(CircularRegion)
    /// A visit arrival (no departure yet) or departure.
    case visit(Visit)
    /// A deferral ended (nil error) or failed.
    case deferredFinished(LocationError?)
    /// An error.
    case error(LocationError)
    /// The client's grant changed (the daemon reloaded its access policy): a manager evaluates its
    /// authorisation again and tells its delegate.
    case authorization(ProviderAuthorization)
    /// Location services were switched off (`false`, the board's privacy switch was asserted) or
    /// back on (`true`): a manager tells its delegate that authorisation changed, as Core Location
    /// does when the user turns Location Services off or on.
    case servicesEnabled(Bool)
    /// A device of the board appeared, went or changed permissions: the services' availability
    /// now (a manager tells its delegate, as for an authorisation change).
    case capabilities(DeviceCapabilities)
    /// The beacons a ranging constraint covers, nearest first (once a second while ranging).
    case beacons([Beacon], BeaconIdentityConstraint)
    /// Ranging for a constraint failed (no adapter, or the scanner failed).
    case rangingFailed(BeaconIdentityConstraint, LocationError)
    /// A beacon region event.
    case beaconRegion(BeaconRegionEvent)
    /// The receiver's sky at an epoch (clients running ``ClientServices/updatingSky``).
    case sky(SkyView)
}

/// What the engine saw, for observers that publish everything (the daemon's gpsd socket, `fieldloc
/// record`): observing adds no demand.
public enum EngineObservation: Sendable {
    /// Bytes read from the receiver, in order.
    case bytes([UInt8])
    /// The frames the last bytes completed, as they were received (``RawFrame``: sentences with
    /// CR LF, binary frames whole), before the fixes they complete; only to observers that asked
    /// for them (``LocationEngine/setObserver(_:wantsFrames:)``).
    case frames([RawFrame])
    /// An assembled fix (also those without a position), with when it arrived.
    case fix(Fix, MonotonicInstant)
    /// A heading computed.
    case heading(HeadingUpdate)
    /// A PPS edge paired with the UTC second it starts (boards with a PPS line).
    case pps(PPSSample)
    /// A burst of raw sensor readings, before calibration and mounting; only to observers that
    /// asked for raw inputs (``LocationEngine/setObserver(_:wantsRawInputs:)``).
    case sensorSample(RawSensorSample)
    /// A Bluetooth LE advertising report as received; only to observers that asked for raw inputs.
    case advert(RecordedAdvert)
    /// On a board with several receivers: the bytes one read of receiver `receiver` (its index among
    /// the board's receivers, the first 0) returned, every receiver's and not only the chosen one's,
    /// in the order read; only to observers that asked for raw inputs.
    case receiverBytes(receiver: Int, [UInt8])
    /// On a board with several receivers: receiver `receiver`'s port was opened (`true`) or failed
    /// (`false`); only to observers that asked for raw inputs.
    case receiverPort(receiver: Int, open: Bool)
}

/// What one client of the engine wants: the services it runs and their options.
public struct ClientServices: Sendable {
    /// Standard location updates.
    public var updatingLocation = false
    /// Accuracy wanted.
    public var desiredAccuracy: DesiredAccuracy = .best
    /// Metres between deliveries; `nil` for every fix.
    public var distanceFilter: Double?
    /// What the unit is doing.
    public var activityType: ActivityType = .other
    /// Whether updates pause after stillness.
    public var pausesAutomatically = true
    /// The oldest a delivered location may be, seconds.
    public var maximumAge = 2.0
    /// Headings.
    public var updatingHeading = false
    /// Degrees between heading deliveries; `nil` for every reading.
    public var headingFilter: Double? = 1
    /// Reference axis for headings.
    public var headingOrientation: HeadingOrientation = .forward
    /// Significant-change monitoring.
    public var significantChanges = false
    /// Visit monitoring.
    public var visits = false
    /// Positions coarsened (reduced accuracy).
    public var reducedAccuracy = false
    /// Deferred delivery: metres and seconds, while set.
    public var deferral: (distance: Double?, timeout: Double?)?
    /// Batching: the longest a location is held, seconds; `nil` delivers at once.
    public var batchingMaximumDelay: Double?
    /// The period the client wants fixes at, seconds (Android's fused provider's interval): the
    /// receiver is scheduled for one fix each interval whatever the accuracy level, and sleeps
    /// between them. `nil` leaves the period to the accuracy and the speed.
    public var updateInterval: Double?
    /// The shortest time between two deliveries of standard updates, seconds (Android's minimum
    /// update interval); `nil` means ``updateInterval`` (every fix when that is `nil` too). Fixes
    /// are taken to be on time within half a second (10 % of shorter intervals), the receiver's epoch jitter.
    public var minimumUpdateInterval: Double?
    /// Seconds without a usable fix, while fixes are expected, before standard updates report
    /// `locationUnknown` (transient); `nil` means `max(3 × the expected fix period, 10 s)`, the
    /// expected period being the longer of ``updateInterval`` and the schedule in force.
    public var fixLossTimeout: Double?
    /// Location updates end on their own after this many deliveries (Android's `maxUpdates`):
    /// the client gets ``LocationError/requestExpired(_:)`` and ``updatingLocation`` turns off.
    /// `nil` for no limit. Counted from when updates start.
    public var maximumUpdates: Int?
    /// Location updates end on their own this many seconds after they start (Android's
    /// `durationMillis`), with ``LocationError/requestExpired(_:)``; `nil` for no limit.
    public var updateDuration: Double?
    /// Seconds standard updates may hold their first delivery for a location within
    /// ``desiredAccuracy`` (twice the horizontal accuracy within its budget, as a one-shot request
    /// settles; 10 m for `best`): the first such fix goes at once; at the deadline the most accurate
    /// fix seen so far goes instead while it is within ``maximumAge``, else the next fix. `nil` delivers the first fresh fix at once, as Core Location and
    /// Android do by default (Android's `waitForAccurateLocation`).
    public var accurateFirstFixWait: Double?
    /// Whether the client gets the receiver's sky at each epoch (``EngineEvent/sky(_:)``, gpsd's
    /// SKY): the satellites in view and the dilutions of precision. It adds no demand of its own:
    /// the sky comes with the fixes the client's (or another client's) updates bring.
    public var updatingSky = false
    /// Passive updates (Android's `PRIORITY_PASSIVE`): the client receives the fixes other
    /// clients' demand brings, through its own filters, but adds no demand of its own for any
    /// service (updates, headings, one-shot requests, regions, visits), so the power policy never sees it and it alone keeps the
    /// receiver off. Fix loss is not reported to it, and it is charged no energy.
    public var passive = false
    /// The beacons ranged (Core Location's `startRangingBeacons(satisfying:)`); ranging updates
    /// arrive once a second for each constraint.
    public var rangingConstraints: Set<BeaconIdentityConstraint> = []

    /// Creates a client's services (none running).
    public init() {}
}

