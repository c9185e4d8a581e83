import HardwareInterfaces
import NMEA

// The services' values as JSON (or any Codable format): the form `fieldlocd`'s local client socket
// sends (protocol version 1). Instants (`receivedAt`, `arrivedAt`, `departedAt`) are nanoseconds of
// the engine's monotonic clock; absent optionals are absent keys.

extension Location: Codable {
    private enum CodingKeys: String, CodingKey {
        case latitude, longitude, altitude, ellipsoidalAltitude, horizontalAccuracy, verticalAccuracy, speed, course
        case timestamp, receivedAt, satellitesUsed, mode, provenance, isReduced
        case fixType, speedAccuracy, courseAccuracy, accuracyModel, accuracyConfidence, corrections, errorEllipse
        case timeAccuracy, timeAccuracySource, leapSeconds, leapSecondsSource, source
    }

    /// Decodes a location; a position off the globe or an unknown mode, provenance, fix type,
    /// accuracy model or confidence is refused. A negative `horizontalAccuracy` is unknown
    /// (``Location/unknownAccuracy``); absent `fixType`, `accuracyModel` and `accuracyConfidence`
    /// (older daemons, or the defaults) give the mode's 2D/3D, `unknown` and one sigma.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let latitude = try c.decode(Double.self, forKey: .latitude)
        let longitude = try c.decode(Double.self, forKey: .longitude)
        guard latitude.isFinite, (-90...90).contains(latitude), longitude.isFinite, (-180...180).contains(longitude) else {
            throw DecodingError.dataCorruptedError(forKey: .latitude, in: c, debugDescription: "location \(latitude), \(longitude) is not a position")
        }
        let modeValue = try c.decode(Int.self, forKey: .mode)
        let provenanceValue = try c.decode(Int.self, forKey: .provenance)
        guard let mode = FixMode(rawValue: modeValue), let provenance = Provenance(rawValue: provenanceValue) else {
            throw DecodingError.dataCorruptedError(forKey: .mode, in: c,
                                                   debugDescription: "location: mode \(modeValue) or provenance \(provenanceValue) is unknown")
        }
        self.init(latitude: latitude, longitude: longitude, horizontalAccuracy: try c.decode(Double.self, forKey: .horizontalAccuracy),
                  receivedAt: MonotonicInstant(nanoseconds: try c.decode(UInt64.self, forKey: .receivedAt)),
                  altitude: try c.decodeIfPresent(Double.self, forKey: .altitude),
                  ellipsoidalAltitude: try c.decodeIfPresent(Double.self, forKey: .ellipsoidalAltitude),
                  verticalAccuracy: try c.decodeIfPresent(Double.self, forKey: .verticalAccuracy),
                  speed: try c.decodeIfPresent(Double.self, forKey: .speed), course: try c.decodeIfPresent(Double.self, forKey: .course),
                  timestamp: try c.decodeIfPresent(Double.self, forKey: .timestamp),
                  satellitesUsed: try c.decodeIfPresent(Int.self, forKey: .satellitesUsed), mode: mode, provenance: provenance)
        isReduced = try c.decodeIfPresent(Bool.self, forKey: .isReduced) ?? false
        source = try c.decodeIfPresent(String.self, forKey: .source)
        if let name = try c.decodeIfPresent(String.self, forKey: .fixType) {
            guard let type = LocationFixType(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .fixType, in: c, debugDescription: "location: fix type '\(name)' is unknown")
            }
            fixType = type
        }
        speedAccuracy = try c.decodeIfPresent(Double.self, forKey: .speedAccuracy)
        courseAccuracy = try c.decodeIfPresent(Double.self, forKey: .courseAccuracy)
        if let name = try c.decodeIfPresent(String.self, forKey: .accuracyModel) {
            guard let model = LocationAccuracyModel(code: name) else {
                throw DecodingError.dataCorruptedError(forKey: .accuracyModel, in: c, debugDescription: "location: accuracy model '\(name)' is unknown")
            }
            accuracyModel = model
        }
        if let name = try c.decodeIfPresent(String.self, forKey: .accuracyConfidence) {
            guard let confidence = AccuracyConfidence(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .accuracyConfidence, in: c,
                                                       debugDescription: "location: accuracy confidence '\(name)' is unknown")
            }
            accuracyConfidence = confidence
        }
        corrections = try c.decodeIfPresent(CorrectionStatus.self, forKey: .corrections)
        if let e = try c.decodeIfPresent([String: Double].self, forKey: .errorEllipse) {
            guard let major = e["semiMajor"], let minor = e["semiMinor"], let orientation = e["orientation"],
                  let ellipse = ErrorEllipse(semiMajor: major, semiMinor: minor, orientation: orientation) else {
                throw DecodingError.dataCorruptedError(forKey: .errorEllipse, in: c,
                                                       debugDescription: "location: errorEllipse needs semiMajor >= semiMinor >= 0 and an orientation")
            }
            errorEllipse = ellipse
        }
        if let t = try c.decodeIfPresent(Double.self, forKey: .timeAccuracy) {
            let name = try c.decodeIfPresent(String.self, forKey: .timeAccuracySource) ?? ""
            guard t.isFinite, t >= 0, let source = TimeAccuracySource(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .timeAccuracy, in: c,
                                                       debugDescription: "location: timeAccuracy needs a non-negative number of seconds and a timeAccuracySource (receiver, gst or pps)")
            }
            (timeAccuracy, timeAccuracySource) = (t, source)
        }
        if let leap = try c.decodeIfPresent(Int.self, forKey: .leapSeconds) {
            let name = try c.decodeIfPresent(String.self, forKey: .leapSecondsSource) ?? ""
            guard (0...100).contains(leap), let source = LeapSecondSource(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .leapSeconds, in: c,
                                                       debugDescription: "location: leapSeconds needs a count of 0 to 100 and a leapSecondsSource (receiver, table or assumed)")
            }
            (leapSeconds, leapSecondsSource) = (leap, source)
        }
    }

    /// Encodes the location (`isReduced` only when true).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        try c.encodeIfPresent(altitude, forKey: .altitude)
        try c.encodeIfPresent(ellipsoidalAltitude, forKey: .ellipsoidalAltitude)
        try c.encode(horizontalAccuracy, forKey: .horizontalAccuracy)
        try c.encodeIfPresent(verticalAccuracy, forKey: .verticalAccuracy)
        try c.encodeIfPresent(speed, forKey: .speed)
        try c.encodeIfPresent(course, forKey: .course)
        try c.encodeIfPresent(timestamp, forKey: .timestamp)
        try c.encode(receivedAt.nanoseconds, forKey: .receivedAt)
        try c.encodeIfPresent(satellitesUsed, forKey: .satellitesUsed)
        try c.encodeIfPresent(source, forKey: .source)
        try c.encode(mode.rawValue, forKey: .mode)
        try c.encode(provenance.rawValue, forKey: .provenance)
        if isReduced { try c.encode(true, forKey: .isReduced) }
        // The newer keys only when they say more than version 1's bytes (a fix type other than the
        // mode's 2D/3D, a known accuracy model, a confidence other than one sigma).
        if fixType != Location.plainFixType(mode) { try c.encode(fixType.rawValue, forKey: .fixType) }
        try c.encodeIfPresent(speedAccuracy, forKey: .speedAccuracy)
        try c.encodeIfPresent(courseAccuracy, forKey: .courseAccuracy)
        if accuracyModel != .unknown { try c.encode(accuracyModel.code, forKey: .accuracyModel) }
        if accuracyConfidence != .oneSigma { try c.encode(accuracyConfidence.rawValue, forKey: .accuracyConfidence) }
        try c.encodeIfPresent(corrections, forKey: .corrections)
        if let e = errorEllipse {
            try c.encode(["semiMajor": e.semiMajor, "semiMinor": e.semiMinor, "orientation": e.orientation], forKey: .errorEllipse)
        }
        if let t = timeAccuracy, let source = timeAccuracySource {
            try c.encode(t, forKey: .timeAccuracy)
            try c.encode(source.rawValue, forKey: .timeAccuracySource)
        }
        if let leap = leapSeconds, let source = leapSecondsSource {
            try c.encode(leap, forKey: .leapSeconds)
            try c.encode(source.rawValue, forKey: .leapSecondsSource)
        }
    }
}

extension LocationAccuracyModel {
    /// The model's name on the wire: `ubx`, `casic`, `gst`, `gbs`, `dop` or `unknown`.
    public var code: String {
        switch self {
        case .receiver(.ubxAccuracyEstimate): return "ubx"
        case .receiver(.casicVariance): return "casic"
        case .gst: return "gst"
        case .gbs: return "gbs"
        case .dopTimesRangeError: return "dop"
        case .unknown: return "unknown"
        }
    }

    /// The model named `code`, or `nil`.
    public init?(code: String) {
        switch code {
        case "ubx": self = .receiver(.ubxAccuracyEstimate)
        case "casic": self = .receiver(.casicVariance)
        case "gst": self = .gst
        case "gbs": self = .gbs
        case "dop": self = .dopTimesRangeError
        case "unknown": self = .unknown
        default: return nil
        }
    }
}

extension Visit: Codable {
    private enum CodingKeys: String, CodingKey {
        case latitude, longitude, horizontalAccuracy, arrivalTime, arrivedAt, departureTime, departedAt
    }

    /// Decodes a visit.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let departureTime = try c.decodeIfPresent(Double.self, forKey: .departureTime)
        self.init(latitude: try c.decode(Double.self, forKey: .latitude), longitude: try c.decode(Double.self, forKey: .longitude),
                  horizontalAccuracy: try c.decode(Double.self, forKey: .horizontalAccuracy),
                  arrival: (try c.decodeIfPresent(Double.self, forKey: .arrivalTime),
                            MonotonicInstant(nanoseconds: try c.decode(UInt64.self, forKey: .arrivedAt))),
                  departure: try c.decodeIfPresent(UInt64.self, forKey: .departedAt).map { (departureTime, MonotonicInstant(nanoseconds: $0)) })
    }

    /// Encodes the visit.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        try c.encode(horizontalAccuracy, forKey: .horizontalAccuracy)
        try c.encodeIfPresent(arrivalTime, forKey: .arrivalTime)
        try c.encode(arrivedAt.nanoseconds, forKey: .arrivedAt)
        try c.encodeIfPresent(departureTime, forKey: .departureTime)
        try c.encodeIfPresent(departedAt?.nanoseconds, forKey: .departedAt)
    }
}

extension RegionEvent: Codable {
    private enum CodingKeys: String, CodingKey { case kind, state, region, location }

    /// Decodes a region event: `kind` is `enter`, `exit`, `dwell` or `determined` (with `state`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .kind)
        let kind: Kind
        switch name {
        case "enter": kind = .enter
        case "exit": kind = .exit
        case "dwell": kind = .dwell
        case "determined":
            let state = try c.decodeIfPresent(String.self, forKey: .state)
            guard let s = state.flatMap(RegionState.init(rawValue:)) else {
                throw DecodingError.dataCorruptedError(forKey: .state, in: c, debugDescription: "region event: state '\(state ?? "")' is unknown")
            }
            kind = .determined(s)
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "region event kind '\(name)' is unknown")
        }
        self.init(kind, region: try c.decode(CircularRegion.self, forKey: .region), location: try c.decode(Location.self, forKey: .location))
    }

    /// Encodes the event.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch kind {
        case .enter: try c.encode("enter", forKey: .kind)
        case .exit: try c.encode("exit", forKey: .kind)
        case .dwell: try c.encode("dwell", forKey: .kind)
        case .determined(let state):
            try c.encode("determined", forKey: .kind)
            try c.encode(state, forKey: .state)
        }
        try c.encode(region, forKey: .region)
        try c.encode(location, forKey: .location)
    }
}

extension LocationError: Codable {
    private enum CodingKeys: String, CodingKey { case code, message, region, cause }

    /// The case's name: `locationUnknown`, `denied`, `headingFailure`, `regionMonitoringFailure`,
    /// `deferredFailed`, `invalidArgument`, `hardware`, `regionMonitoringDenied`,
    /// `regionMonitoringSetupDelayed`, `rangingUnavailable`, `rangingFailure`, `promptDeclined`,
    /// `requestExpired` or `network`.
    public var code: String {
        switch self {
        case .locationUnknown: return "locationUnknown"
        case .denied: return "denied"
        case .headingFailure: return "headingFailure"
        case .regionMonitoringFailure: return "regionMonitoringFailure"
        case .deferredFailed: return "deferredFailed"
        case .invalidArgument: return "invalidArgument"
        case .hardware: return "hardware"
        case .regionMonitoringDenied: return "regionMonitoringDenied"
        case .regionMonitoringSetupDelayed: return "regionMonitoringSetupDelayed"
        case .rangingUnavailable: return "rangingUnavailable"
        case .rangingFailure: return "rangingFailure"
        case .promptDeclined: return "promptDeclined"
        case .requestExpired: return "requestExpired"
        case .network: return "network"
        }
    }

    /// The case's text (without the prefix ``description`` adds).
    public var message: String {
        switch self {
        case .locationUnknown(let s), .denied(let s), .headingFailure(let s), .deferredFailed(let s), .invalidArgument(let s): return s
        case .regionMonitoringDenied(let s), .rangingUnavailable(let s), .rangingFailure(let s), .promptDeclined(let s): return s
        case .requestExpired(let s), .network(let s): return s
        case .regionMonitoringFailure(_, let s), .regionMonitoringSetupDelayed(_, let s), .hardware(_, let s): return s
        }
    }

    /// Decodes `{"code","message","region"?,"cause"?}`; an unknown code becomes a hardware error
    /// of cause `other` whose message names the code, an unknown cause becomes `other`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let code = try c.decode(String.self, forKey: .code)
        let message = try c.decode(String.self, forKey: .message)
        switch code {
        case "locationUnknown": self = .locationUnknown(message)
        case "denied": self = .denied(message)
        case "headingFailure": self = .headingFailure(message)
        case "regionMonitoringFailure": self = .regionMonitoringFailure(region: try c.decodeIfPresent(String.self, forKey: .region) ?? "", reason: message)
        case "deferredFailed": self = .deferredFailed(message)
        case "invalidArgument": self = .invalidArgument(message)
        case "regionMonitoringDenied": self = .regionMonitoringDenied(message)
        case "regionMonitoringSetupDelayed":
            self = .regionMonitoringSetupDelayed(region: try c.decodeIfPresent(String.self, forKey: .region) ?? "", reason: message)
        case "rangingUnavailable": self = .rangingUnavailable(message)
        case "rangingFailure": self = .rangingFailure(message)
        case "promptDeclined": self = .promptDeclined(message)
        case "requestExpired": self = .requestExpired(message)
        case "network": self = .network(message)
        case "hardware":
            let cause = try c.decodeIfPresent(String.self, forKey: .cause)
            self = .hardware(cause.flatMap(HardwareCause.init(rawValue:)) ?? .other, message)
        default: self = .hardware(.other, "fieldlocd: \(code): \(message)")
        }
    }

    /// Encodes `code`, `message`, and `region` or `cause` for the cases that have one.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(message, forKey: .message)
        switch self {
        case .regionMonitoringFailure(let region, _), .regionMonitoringSetupDelayed(let region, _): try c.encode(region, forKey: .region)
        case .hardware(let cause, _): try c.encode(cause.rawValue, forKey: .cause)
        default: break
        }
    }
}
