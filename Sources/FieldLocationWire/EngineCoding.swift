import Beacons
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import PowerPolicy

// The engine's values as JSON, in the form of ``ClientSocketProtocol`` (version 1). They live here,
// beside the protocol, because the engine's target does not need them.

extension HeadingUpdate: Codable {
    private enum CodingKeys: String, CodingKey {
        case magneticHeading, trueHeading, headingAccuracy, x, y, z, accelerationX, accelerationY, accelerationZ
        case pitch, roll, inclination, quality, flags, takenAt, attitude
    }

    /// Decodes a heading; an unknown `quality` is refused. `takenAt` is nanoseconds of the engine's clock.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .quality)
        guard let quality = HeadingQuality(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .quality, in: c, debugDescription: "heading quality '\(name)' is unknown")
        }
        func value(_ key: CodingKeys) throws -> Double { try c.decode(Double.self, forKey: key) }
        func optional(_ key: CodingKeys) throws -> Double? { try c.decodeIfPresent(Double.self, forKey: key) }
        self.init(magneticHeading: try value(.magneticHeading), trueHeading: try optional(.trueHeading),
                  headingAccuracy: try value(.headingAccuracy), field: (try value(.x), try value(.y), try value(.z)),
                  acceleration: (try value(.accelerationX), try value(.accelerationY), try value(.accelerationZ)),
                  pitch: try optional(.pitch), roll: try optional(.roll), inclination: try optional(.inclination),
                  quality: quality, flags: try c.decode([String].self, forKey: .flags),
                  takenAt: MonotonicInstant(nanoseconds: try c.decode(UInt64.self, forKey: .takenAt)))
        attitude = try c.decodeIfPresent(AttitudeEstimate.self, forKey: .attitude)
    }

    /// Encodes the heading.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(magneticHeading, forKey: .magneticHeading)
        try c.encodeIfPresent(trueHeading, forKey: .trueHeading)
        try c.encode(headingAccuracy, forKey: .headingAccuracy)
        try c.encode(x, forKey: .x)
        try c.encode(y, forKey: .y)
        try c.encode(z, forKey: .z)
        try c.encode(accelerationX, forKey: .accelerationX)
        try c.encode(accelerationY, forKey: .accelerationY)
        try c.encode(accelerationZ, forKey: .accelerationZ)
        try c.encodeIfPresent(pitch, forKey: .pitch)
        try c.encodeIfPresent(roll, forKey: .roll)
        try c.encodeIfPresent(inclination, forKey: .inclination)
        try c.encode(quality.rawValue, forKey: .quality)
        try c.encode(flags, forKey: .flags)
        try c.encode(takenAt.nanoseconds, forKey: .takenAt)
        try c.encodeIfPresent(attitude, forKey: .attitude)
    }
}

/// The attitude filter's state on a board with a gyroscope: `quaternion` as `[w, x, y, z]`, `roll`,
/// `pitch`, `yaw` in degrees, `sources` as the filter's bit set (1 gyroscope, 2 accelerometer,
/// 4 magnetometer, 8 GNSS course), body rates and gyroscope bias as `[x, y, z]` degrees per second;
/// `groundSpeed` and `groundCourse` only when a fix's were given with the sample.
extension AttitudeEstimate: Codable {
    private enum CodingKeys: String, CodingKey {
        case quaternion, roll, pitch, yaw, sources, rotationRate, gyroscopeBias, isStill, recoveries, groundSpeed, groundCourse
    }

    /// Decodes an estimate; arrays of the wrong length are refused.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func vector(_ key: CodingKeys, _ count: Int) throws -> [Double] {
            let values = try c.decode([Double].self, forKey: key)
            guard values.count == count else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "expected \(count) numbers, found \(values.count)")
            }
            return values
        }
        let q = try vector(.quaternion, 4), rate = try vector(.rotationRate, 3), bias = try vector(.gyroscopeBias, 3)
        self.init(quaternion: AttitudeQuaternion(w: q[0], x: q[1], y: q[2], z: q[3]),
                  roll: try c.decode(Double.self, forKey: .roll), pitch: try c.decode(Double.self, forKey: .pitch),
                  yaw: try c.decode(Double.self, forKey: .yaw),
                  sources: AttitudeSources(rawValue: try c.decode(UInt8.self, forKey: .sources)),
                  rotationRate: Vector3(rate[0], rate[1], rate[2]), gyroscopeBias: Vector3(bias[0], bias[1], bias[2]),
                  isStill: try c.decode(Bool.self, forKey: .isStill), recoveries: try c.decode(Int.self, forKey: .recoveries),
                  groundSpeed: try c.decodeIfPresent(Double.self, forKey: .groundSpeed),
                  groundCourse: try c.decodeIfPresent(Double.self, forKey: .groundCourse))
    }

    /// Encodes the estimate.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode([quaternion.w, quaternion.x, quaternion.y, quaternion.z], forKey: .quaternion)
        try c.encode(roll, forKey: .roll)
        try c.encode(pitch, forKey: .pitch)
        try c.encode(yaw, forKey: .yaw)
        try c.encode(sources.rawValue, forKey: .sources)
        try c.encode([rotationRate.x, rotationRate.y, rotationRate.z], forKey: .rotationRate)
        try c.encode([gyroscopeBias.x, gyroscopeBias.y, gyroscopeBias.z], forKey: .gyroscopeBias)
        try c.encode(isStill, forKey: .isStill)
        try c.encode(recoveries, forKey: .recoveries)
        try c.encodeIfPresent(groundSpeed, forKey: .groundSpeed)
        try c.encodeIfPresent(groundCourse, forKey: .groundCourse)
    }
}

extension ClientServices: Codable {
    private enum CodingKeys: String, CodingKey {
        case updatingLocation, desiredAccuracy, distanceFilter, activityType, pausesAutomatically, maximumAge, updatingHeading
        case headingFilter, headingOrientation, significantChanges, visits, reducedAccuracy, deferral, batchingMaximumDelay
        case updateInterval, minimumUpdateInterval, fixLossTimeout, rangingConstraints, maximumUpdates, updateDuration
        case accurateFirstFixWait, updatingSky, passive
    }

    private enum DeferralKeys: String, CodingKey { case distance, timeout }

    /// Decodes the whole set of services a client runs, in the ranges the manager enforces; a value
    /// out of range throws ``LocationError/invalidArgument(_:)`` naming it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        updatingLocation = try c.decode(Bool.self, forKey: .updatingLocation)
        desiredAccuracy = try c.decode(DesiredAccuracy.self, forKey: .desiredAccuracy)
        distanceFilter = try c.decodeIfPresent(Double.self, forKey: .distanceFilter)
        activityType = try c.decode(ActivityType.self, forKey: .activityType)
        pausesAutomatically = try c.decode(Bool.self, forKey: .pausesAutomatically)
        maximumAge = try c.decode(Double.self, forKey: .maximumAge)
        updatingHeading = try c.decode(Bool.self, forKey: .updatingHeading)
        headingFilter = try c.decodeIfPresent(Double.self, forKey: .headingFilter)
        let orientation = try c.decode(String.self, forKey: .headingOrientation)
        significantChanges = try c.decode(Bool.self, forKey: .significantChanges)
        visits = try c.decode(Bool.self, forKey: .visits)
        reducedAccuracy = try c.decode(Bool.self, forKey: .reducedAccuracy)
        if c.contains(.deferral), try !c.decodeNil(forKey: .deferral) {
            let d = try c.nestedContainer(keyedBy: DeferralKeys.self, forKey: .deferral)
            deferral = (try d.decodeIfPresent(Double.self, forKey: .distance), try d.decodeIfPresent(Double.self, forKey: .timeout))
        }
        batchingMaximumDelay = try c.decodeIfPresent(Double.self, forKey: .batchingMaximumDelay)
        updateInterval = try c.decodeIfPresent(Double.self, forKey: .updateInterval)
        minimumUpdateInterval = try c.decodeIfPresent(Double.self, forKey: .minimumUpdateInterval)
        fixLossTimeout = try c.decodeIfPresent(Double.self, forKey: .fixLossTimeout)
        maximumUpdates = try c.decodeIfPresent(Int.self, forKey: .maximumUpdates)
        updateDuration = try c.decodeIfPresent(Double.self, forKey: .updateDuration)
        accurateFirstFixWait = try c.decodeIfPresent(Double.self, forKey: .accurateFirstFixWait)
        updatingSky = try c.decodeIfPresent(Bool.self, forKey: .updatingSky) ?? false
        passive = try c.decodeIfPresent(Bool.self, forKey: .passive) ?? false
        let constraints = try c.decodeIfPresent([BeaconIdentityConstraint].self, forKey: .rangingConstraints) ?? []
        if constraints.count > 64 { throw LocationError.invalidArgument("services: at most 64 rangingConstraints") }
        rangingConstraints = Set(constraints)

        func positive(_ value: Double?, _ name: String) throws(LocationError) {
            if let v = value, !(v.isFinite && v > 0) { throw .invalidArgument("services: \(name) \(v) must be a positive number") }
        }
        try positive(distanceFilter, "distanceFilter")
        try positive(maximumAge, "maximumAge")
        try positive(batchingMaximumDelay, "batchingMaximumDelay")
        try positive(updateInterval, "updateInterval")
        try positive(minimumUpdateInterval, "minimumUpdateInterval")
        try positive(fixLossTimeout, "fixLossTimeout")
        try positive(updateDuration, "updateDuration")
        try positive(accurateFirstFixWait, "accurateFirstFixWait")
        if let m = maximumUpdates, m < 1 { throw LocationError.invalidArgument("services: maximumUpdates \(m) must be at least 1") }
        try positive(deferral?.distance, "deferral.distance")
        try positive(deferral?.timeout, "deferral.timeout")
        if let d = deferral, d.distance == nil && d.timeout == nil {
            throw LocationError.invalidArgument("services: a deferral needs a distance, a timeout or both")
        }
        if let h = headingFilter, !(h.isFinite && h >= 0 && h <= 360) {
            throw LocationError.invalidArgument("services: headingFilter \(h) must be 0 to 360 degrees")
        }
        guard let o = HeadingOrientation(rawValue: orientation) else {
            throw LocationError.invalidArgument("services: headingOrientation '\(orientation)' is not forward, right, backward or left")
        }
        headingOrientation = o
    }

    /// Encodes the services (`deferral` as `{"distance","timeout"}`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(updatingLocation, forKey: .updatingLocation)
        try c.encode(desiredAccuracy, forKey: .desiredAccuracy)
        try c.encodeIfPresent(distanceFilter, forKey: .distanceFilter)
        try c.encode(activityType, forKey: .activityType)
        try c.encode(pausesAutomatically, forKey: .pausesAutomatically)
        try c.encode(maximumAge, forKey: .maximumAge)
        try c.encode(updatingHeading, forKey: .updatingHeading)
        try c.encodeIfPresent(headingFilter, forKey: .headingFilter)
        try c.encode(headingOrientation.rawValue, forKey: .headingOrientation)
        try c.encode(significantChanges, forKey: .significantChanges)
        try c.encode(visits, forKey: .visits)
        try c.encode(reducedAccuracy, forKey: .reducedAccuracy)
        if let deferral {
            var d = c.nestedContainer(keyedBy: DeferralKeys.self, forKey: .deferral)
            try d.encodeIfPresent(deferral.distance, forKey: .distance)
            try d.encodeIfPresent(deferral.timeout, forKey: .timeout)
        }
        try c.encodeIfPresent(batchingMaximumDelay, forKey: .batchingMaximumDelay)
        try c.encodeIfPresent(updateInterval, forKey: .updateInterval)
        try c.encodeIfPresent(minimumUpdateInterval, forKey: .minimumUpdateInterval)
        try c.encodeIfPresent(fixLossTimeout, forKey: .fixLossTimeout)
        try c.encodeIfPresent(maximumUpdates, forKey: .maximumUpdates)
        try c.encodeIfPresent(updateDuration, forKey: .updateDuration)
        try c.encodeIfPresent(accurateFirstFixWait, forKey: .accurateFirstFixWait)
        if updatingSky { try c.encode(true, forKey: .updatingSky) }
        if passive { try c.encode(true, forKey: .passive) }
        if !rangingConstraints.isEmpty {
            try c.encode(rangingConstraints.sorted { $0.description < $1.description }, forKey: .rangingConstraints)
        }
    }
}

extension EngineEvent: Codable {
    private enum CodingKeys: String, CodingKey { case kind, locations, heading, region, visit, error, authorization, beacons, constraint, beaconRegion, enabled, sky, capabilities }

    /// Decodes `{"kind":…}` with the kind's key: `locations` (`locations`), `paused`, `resumed`,
    /// `heading` (`heading`), `region` (`region`), `regionExpired` (`region`), `visit` (`visit`), `deferredFinished` (`error`?), `error` (`error`),
    /// `authorization` (`authorization`), `servicesEnabled` (`enabled`), `sky` (`sky`),
    /// `capabilities` (`capabilities`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try c.decode(String.self, forKey: .kind)
        func required<T: Decodable>(_ type: T.Type, _ key: CodingKeys) throws -> T {
            guard let value = try c.decodeIfPresent(type, forKey: key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: c.codingPath, debugDescription: "\(kind) event without a \(key.stringValue)"))
            }
            return value
        }
        switch kind {
        case "locations": self = .locations(try c.decodeIfPresent([Location].self, forKey: .locations) ?? [])
        case "paused": self = .paused
        case "resumed": self = .resumed
        case "heading": self = .heading(try required(HeadingUpdate.self, .heading))
        case "region": self = .region(try required(RegionEvent.self, .region))
        case "regionExpired": self = .regionExpired(try required(CircularRegion.self, .region))
        case "visit": self = .visit(try required(Visit.self, .visit))
        case "deferredFinished": self = .deferredFinished(try c.decodeIfPresent(LocationError.self, forKey: .error))
        case "error": self = .error(try required(LocationError.self, .error))
        case "authorization": self = .authorization(try required(ProviderAuthorization.self, .authorization))
        case "servicesEnabled": self = .servicesEnabled(try required(Bool.self, .enabled))
        case "beacons": self = .beacons(try required([Beacon].self, .beacons), try required(BeaconIdentityConstraint.self, .constraint))
        case "rangingFailed": self = .rangingFailed(try required(BeaconIdentityConstraint.self, .constraint), try required(LocationError.self, .error))
        case "beaconRegion": self = .beaconRegion(try required(BeaconRegionEvent.self, .beaconRegion))
        case "sky": self = .sky(try required(SkyView.self, .sky))
        case "capabilities": self = .capabilities(try required(DeviceCapabilities.self, .capabilities))
        default: throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "event kind '\(kind)' is unknown")
        }
    }

    /// Encodes the event's kind and its value.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .locations(let l):
            try c.encode("locations", forKey: .kind)
            try c.encode(l, forKey: .locations)
        case .paused: try c.encode("paused", forKey: .kind)
        case .resumed: try c.encode("resumed", forKey: .kind)
        case .heading(let h):
            try c.encode("heading", forKey: .kind)
            try c.encode(h, forKey: .heading)
        case .region(let r):
            try c.encode("region", forKey: .kind)
            try c.encode(r, forKey: .region)
        case .regionExpired(let r):
            try c.encode("regionExpired", forKey: .kind)
            try c.encode(r, forKey: .region)
        case .visit(let v):
            try c.encode("visit", forKey: .kind)
            try c.encode(v, forKey: .visit)
        case .deferredFinished(let e):
            try c.encode("deferredFinished", forKey: .kind)
            try c.encodeIfPresent(e, forKey: .error)
        case .error(let e):
            try c.encode("error", forKey: .kind)
            try c.encode(e, forKey: .error)
        case .authorization(let grant):
            try c.encode("authorization", forKey: .kind)
            try c.encode(grant, forKey: .authorization)
        case .servicesEnabled(let on):
            try c.encode("servicesEnabled", forKey: .kind)
            try c.encode(on, forKey: .enabled)
        case .beacons(let beacons, let constraint):
            try c.encode("beacons", forKey: .kind)
            try c.encode(beacons, forKey: .beacons)
            try c.encode(constraint, forKey: .constraint)
        case .rangingFailed(let constraint, let e):
            try c.encode("rangingFailed", forKey: .kind)
            try c.encode(constraint, forKey: .constraint)
            try c.encode(e, forKey: .error)
        case .beaconRegion(let event):
            try c.encode("beaconRegion", forKey: .kind)
            try c.encode(event, forKey: .beaconRegion)
        case .sky(let sky):
            try c.encode("sky", forKey: .kind)
            try c.encode(sky, forKey: .sky)
        case .capabilities(let capabilities):
            try c.encode("capabilities", forKey: .kind)
            try c.encode(capabilities, forKey: .capabilities)
        }
    }
}

/// A grant on the wire: `{"status","accuracy","reason"?}` (the status and accuracy by their raw names).
extension ProviderAuthorization: Codable {
    private enum CodingKeys: String, CodingKey { case status, accuracy, reason }

    /// Decodes a grant; an unknown status or accuracy is refused.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(status: try c.decode(AuthorizationStatus.self, forKey: .status),
                  reason: try c.decodeIfPresent(String.self, forKey: .reason),
                  accuracy: try c.decode(AccuracyAuthorization.self, forKey: .accuracy))
    }

    /// Encodes the grant.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encode(accuracy, forKey: .accuracy)
        try c.encodeIfPresent(reason, forKey: .reason)
    }
}

/// A board's services on the wire: an array of `{"service","device","available","problem"?,"reason"?}`
/// (`service` one of location, heading, time, beacons; `problem` one of missing, permission, not-enabled).
extension DeviceCapabilities: Codable {
    private struct Entry: Codable {
        var service: String
        var device: String
        var available: Bool
        var problem: String?
        var reason: String?
    }

    /// Decodes the array; entries of services or problems this build does not know are skipped.
    public init(from decoder: any Decoder) throws {
        let entries = try [Entry](from: decoder)
        self.init(entries.compactMap { e in
            guard let service = DeviceService(rawValue: e.service) else { return nil }
            let problem = e.problem.flatMap(ServiceAvailability.Problem.init(rawValue:))
            return ServiceAvailability(service: service, device: e.device,
                                       problem: e.available ? nil : (problem ?? .missing), reason: e.available ? nil : e.reason)
        })
    }

    /// Encodes the array.
    public func encode(to encoder: any Encoder) throws {
        try services.map {
            Entry(service: $0.service.rawValue, device: $0.device, available: $0.isAvailable, problem: $0.problem?.rawValue, reason: $0.reason)
        }.encode(to: encoder)
    }
}
