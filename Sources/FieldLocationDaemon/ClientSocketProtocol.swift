import FieldLocation
import Foundation
import HardwareInterfaces
import Heading
import LocationServices
import NIOCore
import NMEA
import PowerPolicy

/// The wire protocol of `fieldlocd`'s local client socket: the ``LocationProvider`` interface as JSON
/// lines, so programs on the unit share one receiver through ``LocationManager`` (over
/// ``RemoteLocationProvider``) with the same semantics as in process.
///
/// **Transport.** A Unix stream socket (``defaultPath``, or ``pathVariable`` from the environment;
/// mode 0660). Every message is one JSON object
/// on one line ending in LF (a CR before it is ignored, empty lines are ignored), UTF-8, at most
/// ``maximumLineLength`` bytes without the LF, in both directions. The daemon answers a longer line
/// with one error reply and skips it up to its LF; the connection stays open.
///
/// **Version.** This is version 1 (``version``). The daemon announces it in `hello`; a request may
/// carry `"version": 1`, and a request naming another version is refused. Version 1 readers ignore
/// keys they do not know, so keys may be added without a new version.
///
/// **Hello.** On connecting, the daemon reads the peer's credentials (`SO_PEERCRED`) and sends:
/// ```json
/// {"type":"hello","version":1,"server":"fieldlocd","board":"sim","locationServicesEnabled":true,
///  "headingAvailable":true,"authorization":"authorizedAlways","accuracy":"fullAccuracy",
///  "peer":{"pid":4242,"uid":1000,"gid":1000,"user":"alice","groups":["alice","dialout"]},"now":81234000000}
/// ```
/// `authorization` is the access policy's status for that user (`authorizedAlways`,
/// `authorizedWhenInUse`, `denied`, `restricted`) with a `reason` when it refuses; `accuracy` is
/// `fullAccuracy` or `reducedAccuracy` (positions coarsened to about 5 km). `now` is the engine's
/// monotonic clock in nanoseconds; every instant on the wire (`receivedAt`, `takenAt`, `arrivedAt`,
/// `departedAt`) is on that clock.
///
/// **Requests** (client to daemon) carry an `id` (an integer the client chooses, echoed in the reply),
/// an `op`, and for the client operations a `client`: an integer the connection chooses for each
/// of its clients (1 to 2³¹−1, unique on the connection).
///
/// | op | fields | reply |
/// | --- | --- | --- |
/// | `hello` | | the hello message again, as a reply |
/// | `register` | `client`, `name`, `persistent`? | `problems` (restoring stored regions) |
/// | `services` | `client`, `services` | — |
/// | `request` | `client`, `timeout` (seconds, 0 < t ≤ 86400) | — (the answer comes as an event) |
/// | `monitor` | `client`, `region` | — or an error (`regionMonitoringFailure`) |
/// | `unmonitor` | `client`, `identifier` | — or an error |
/// | `regions` | `client` | `regions` |
/// | `state` | `client`, `identifier` | `state`: `unknown`, `inside`, `outside` |
/// | `fullAccuracy` | `client`, `purpose` | — or an error (`invalidArgument`: the key is not declared) |
/// | `last` | `client`? | `location`?, `heading`? (the engine's last values) |
/// | `unregister` | `client` | — |
///
/// `services` is the whole set a client runs (``ClientServices``): `updatingLocation`,
/// `desiredAccuracy` (`best`, `bestForNavigation`, `nearestTenMeters`, `hundredMeters`, `kilometer`,
/// `threeKilometers`, `reduced`), `distanceFilter`?, `activityType`, `pausesAutomatically`,
/// `maximumAge`, `updatingHeading`, `headingFilter`?, `headingOrientation` (`forward`, `right`,
/// `backward`, `left`), `significantChanges`, `visits`, `reducedAccuracy`, `deferral`?
/// (`{"distance":…,"timeout":…}`), `batchingMaximumDelay`?. A region is
/// `{"identifier","latitude","longitude","radius","notifyOnEntry","notifyOnExit","dwellTime"?}`.
///
/// **Replies**: `{"type":"reply","id":7,"ok":true,…}` or
/// `{"type":"reply","id":7,"ok":false,"error":{"code":"denied","message":"…"}}`. Error codes are
/// ``LocationError``'s cases (`locationUnknown`, `denied`, `headingFailure`,
/// `regionMonitoringFailure` with `region`, `deferredFailed`, `invalidArgument`, `hardware` with
/// `cause`). A line that is not a JSON object, lacks `op`, names an unknown op or has fields of the
/// wrong type is answered with `invalidArgument` (with the `id` when one could be read), and the
/// connection stays open. A client whose policy status is `denied` or `restricted` gets `denied` for
/// every op but `hello`.
///
/// **Events** (daemon to client, at any time between replies):
/// `{"type":"event","client":1,"now":…,"event":{"kind":…}}` with `kind` `locations` (`locations`,
/// oldest first; a batch longer than ``locationsPerEvent`` is split over several events, all but the
/// last with `"continues":true`, and is one delivery), `paused`, `resumed`, `heading` (`heading`),
/// `region` (`region`: `{"kind":"enter"|"exit"|"dwell"|"determined","state"?,"region","location"}`),
/// `visit` (`visit`), `deferredFinished` (`error`?), `error` (`error`).
///
/// **Lifetime.** Closing the connection unregisters its clients: their demand goes (the last one out
/// idles the receiver). Regions of a client registered with `persistent` by a user the policy
/// authorises `always` are kept in the daemon's state folder under that user's uid and the name
/// (`regions-uid1000-NAME.json`) and restored when it registers again under that name; other
/// clients' regions live as long as the connection. A client that leaves more than the daemon's
/// output limit unread (256 KiB by default) is disconnected.
public enum ClientSocketProtocol {
    /// The protocol version this build speaks.
    public static let version = 1
    /// The longest line accepted or sent, in bytes without its LF.
    public static let maximumLineLength = 65_536
    /// Where the daemon listens by default.
    public static let defaultPath = "/run/fieldloc/client.sock"
    /// The environment variable that moves the socket for the daemon and its clients alike (for
    /// development without root: `FIELDLOC_CLIENT_SOCKET=/tmp/fieldloc.sock`).
    public static let pathVariable = "FIELDLOC_CLIENT_SOCKET"
    /// The socket's path: ``pathVariable`` when set and not empty, else ``defaultPath``.
    public static var configuredPath: String {
        if let value = ProcessInfo.processInfo.environment[pathVariable], !value.isEmpty { return value }
        return defaultPath
    }
    /// The most locations in one event line; longer batches continue over several lines.
    public static let locationsPerEvent = 100
    /// The longest error message sent (longer ones are cut).
    static let maximumMessageLength = 4096
    /// The longest client name and region identifier accepted, bytes.
    static let maximumNameLength = 256
    /// The ops a daemon of this version answers.
    static let operations = ["hello", "register", "services", "request", "monitor", "unmonitor", "regions", "state",
                             "fullAccuracy", "last", "unregister"]
}

// MARK: values

/// A location on the wire: ``Location``'s properties, `receivedAt` in nanoseconds of the engine's clock.
struct WireLocation: Codable, Sendable, Equatable {
    var latitude: Double
    var longitude: Double
    var altitude: Double?
    var ellipsoidalAltitude: Double?
    var horizontalAccuracy: Double
    var verticalAccuracy: Double?
    var speed: Double?
    var course: Double?
    var timestamp: Double?
    var receivedAt: UInt64
    var satellitesUsed: Int?
    var mode: Int
    var provenance: Int
    var isReduced: Bool?

    init(_ l: Location) {
        latitude = l.latitude
        longitude = l.longitude
        altitude = l.altitude
        ellipsoidalAltitude = l.ellipsoidalAltitude
        horizontalAccuracy = l.horizontalAccuracy
        verticalAccuracy = l.verticalAccuracy
        speed = l.speed
        course = l.course
        timestamp = l.timestamp
        receivedAt = l.receivedAt.nanoseconds
        satellitesUsed = l.satellitesUsed
        mode = l.mode.rawValue
        provenance = l.provenance.rawValue
        isReduced = l.isReduced ? true : nil
    }

    /// The location, or why these values are not one.
    func location() throws(WireError) -> Location {
        guard latitude.isFinite, (-90...90).contains(latitude), longitude.isFinite, (-180...180).contains(longitude) else {
            throw WireError.invalid("location \(latitude), \(longitude) is not a position")
        }
        guard let mode = FixMode(rawValue: mode), let provenance = Provenance(rawValue: provenance) else {
            throw WireError.invalid("location: mode \(self.mode) or provenance \(self.provenance) is unknown")
        }
        var l = Location(latitude: latitude, longitude: longitude, horizontalAccuracy: horizontalAccuracy,
                         receivedAt: MonotonicInstant(nanoseconds: receivedAt), altitude: altitude,
                         ellipsoidalAltitude: ellipsoidalAltitude, verticalAccuracy: verticalAccuracy, speed: speed,
                         course: course, timestamp: timestamp, satellitesUsed: satellitesUsed, mode: mode, provenance: provenance)
        l.isReduced = isReduced ?? false
        return l
    }
}

/// A heading on the wire: ``HeadingUpdate``'s properties, `takenAt` in nanoseconds of the engine's clock.
struct WireHeading: Codable, Sendable, Equatable {
    var magneticHeading: Double
    var trueHeading: Double?
    var headingAccuracy: Double
    var x: Double, y: Double, z: Double
    var accelerationX: Double, accelerationY: Double, accelerationZ: Double
    var pitch: Double?, roll: Double?, inclination: Double?
    var quality: String
    var flags: [String]
    var takenAt: UInt64

    init(_ h: HeadingUpdate) {
        magneticHeading = h.magneticHeading
        trueHeading = h.trueHeading
        headingAccuracy = h.headingAccuracy
        x = h.x; y = h.y; z = h.z
        accelerationX = h.accelerationX; accelerationY = h.accelerationY; accelerationZ = h.accelerationZ
        pitch = h.pitch; roll = h.roll; inclination = h.inclination
        quality = h.quality.rawValue
        flags = h.flags
        takenAt = h.takenAt.nanoseconds
    }

    func heading() throws(WireError) -> HeadingUpdate {
        guard let quality = HeadingQuality(rawValue: quality) else { throw WireError.invalid("heading quality '\(quality)' is unknown") }
        return HeadingUpdate(magneticHeading: magneticHeading, trueHeading: trueHeading, headingAccuracy: headingAccuracy,
                             field: (x, y, z), acceleration: (accelerationX, accelerationY, accelerationZ),
                             pitch: pitch, roll: roll, inclination: inclination, quality: quality, flags: flags,
                             takenAt: MonotonicInstant(nanoseconds: takenAt))
    }
}

/// A region event on the wire.
struct WireRegionEvent: Codable, Sendable, Equatable {
    var kind: String
    var state: String?
    var region: CircularRegion
    var location: WireLocation

    init(_ e: RegionEvent) {
        switch e.kind {
        case .enter: kind = "enter"
        case .exit: kind = "exit"
        case .dwell: kind = "dwell"
        case .determined(let s): kind = "determined"; state = s.rawValue
        }
        region = e.region
        location = WireLocation(e.location)
    }

    func event() throws(WireError) -> RegionEvent {
        let k: RegionEvent.Kind
        switch kind {
        case "enter": k = .enter
        case "exit": k = .exit
        case "dwell": k = .dwell
        case "determined":
            guard let s = state.flatMap(RegionState.init(rawValue:)) else { throw WireError.invalid("region event: state '\(state ?? "")' is unknown") }
            k = .determined(s)
        default: throw WireError.invalid("region event kind '\(kind)' is unknown")
        }
        return RegionEvent(k, region: region, location: try location.location())
    }
}

/// A visit on the wire.
struct WireVisit: Codable, Sendable, Equatable {
    var latitude: Double
    var longitude: Double
    var horizontalAccuracy: Double
    var arrivalTime: Double?
    var arrivedAt: UInt64
    var departureTime: Double?
    var departedAt: UInt64?

    init(_ v: Visit) {
        latitude = v.latitude
        longitude = v.longitude
        horizontalAccuracy = v.horizontalAccuracy
        arrivalTime = v.arrivalTime
        arrivedAt = v.arrivedAt.nanoseconds
        departureTime = v.departureTime
        departedAt = v.departedAt?.nanoseconds
    }

    var visit: Visit {
        Visit(latitude: latitude, longitude: longitude, horizontalAccuracy: horizontalAccuracy,
              arrival: (arrivalTime, MonotonicInstant(nanoseconds: arrivedAt)),
              departure: departedAt.map { (departureTime, MonotonicInstant(nanoseconds: $0)) })
    }
}

/// A ``LocationError`` on the wire: `code` is the case, `message` its text.
struct WireError: Codable, Sendable, Equatable, Error {
    var code: String
    var message: String
    var region: String?
    var cause: String?

    init(code: String, message: String, region: String? = nil, cause: String? = nil) {
        self.code = code
        self.message = message.utf8.count > ClientSocketProtocol.maximumMessageLength
            ? String(decoding: message.utf8.prefix(ClientSocketProtocol.maximumMessageLength), as: UTF8.self) : message
        self.region = region
        self.cause = cause
    }

    /// A request the daemon cannot read or act on.
    static func invalid(_ message: String) -> WireError { WireError(code: "invalidArgument", message: message) }

    init(_ e: LocationError) {
        switch e {
        case .locationUnknown(let s): self.init(code: "locationUnknown", message: s)
        case .denied(let s): self.init(code: "denied", message: s)
        case .headingFailure(let s): self.init(code: "headingFailure", message: s)
        case .regionMonitoringFailure(let r, let s): self.init(code: "regionMonitoringFailure", message: s, region: r)
        case .deferredFailed(let s): self.init(code: "deferredFailed", message: s)
        case .invalidArgument(let s): self.init(code: "invalidArgument", message: s)
        case .hardware(let c, let s): self.init(code: "hardware", message: s, cause: c.rawValue)
        }
    }

    /// The error as the services report it (an unknown code becomes a hardware error of cause `other`).
    var locationError: LocationError {
        switch code {
        case "locationUnknown": return .locationUnknown(message)
        case "denied": return .denied(message)
        case "headingFailure": return .headingFailure(message)
        case "regionMonitoringFailure": return .regionMonitoringFailure(region: region ?? "", reason: message)
        case "deferredFailed": return .deferredFailed(message)
        case "invalidArgument": return .invalidArgument(message)
        case "hardware": return .hardware(cause.flatMap(LocationError.HardwareCause.init(rawValue:)) ?? .other, message)
        default: return .hardware(.other, "fieldlocd: \(code): \(message)")
        }
    }
}

/// ``ClientServices`` on the wire.
struct WireServices: Codable, Sendable, Equatable {
    struct Deferral: Codable, Sendable, Equatable {
        var distance: Double?
        var timeout: Double?
    }
    var updatingLocation: Bool
    var desiredAccuracy: DesiredAccuracy
    var distanceFilter: Double?
    var activityType: ActivityType
    var pausesAutomatically: Bool
    var maximumAge: Double
    var updatingHeading: Bool
    var headingFilter: Double?
    var headingOrientation: String
    var significantChanges: Bool
    var visits: Bool
    var reducedAccuracy: Bool
    var deferral: Deferral?
    var batchingMaximumDelay: Double?

    init(_ s: ClientServices) {
        updatingLocation = s.updatingLocation
        desiredAccuracy = s.desiredAccuracy
        distanceFilter = s.distanceFilter
        activityType = s.activityType
        pausesAutomatically = s.pausesAutomatically
        maximumAge = s.maximumAge
        updatingHeading = s.updatingHeading
        headingFilter = s.headingFilter
        headingOrientation = s.headingOrientation.rawValue
        significantChanges = s.significantChanges
        visits = s.visits
        reducedAccuracy = s.reducedAccuracy
        deferral = s.deferral.map { Deferral(distance: $0.distance, timeout: $0.timeout) }
        batchingMaximumDelay = s.batchingMaximumDelay
    }

    /// The services, or why these values are out of range (the same ranges the manager enforces).
    func services() throws(WireError) -> ClientServices {
        func positive(_ value: Double?, _ name: String) throws(WireError) {
            if let v = value, !(v.isFinite && v > 0) { throw .invalid("services: \(name) \(v) must be a positive number") }
        }
        try positive(distanceFilter, "distanceFilter")
        try positive(maximumAge, "maximumAge")
        try positive(batchingMaximumDelay, "batchingMaximumDelay")
        try positive(deferral?.distance, "deferral.distance")
        try positive(deferral?.timeout, "deferral.timeout")
        if let d = deferral, d.distance == nil && d.timeout == nil { throw .invalid("services: a deferral needs a distance, a timeout or both") }
        if let h = headingFilter, !(h.isFinite && h >= 0 && h <= 360) { throw .invalid("services: headingFilter \(h) must be 0 to 360 degrees") }
        guard let orientation = HeadingOrientation(rawValue: headingOrientation) else {
            throw .invalid("services: headingOrientation '\(headingOrientation)' is not forward, right, backward or left")
        }
        var s = ClientServices()
        s.updatingLocation = updatingLocation
        s.desiredAccuracy = desiredAccuracy
        s.distanceFilter = distanceFilter
        s.activityType = activityType
        s.pausesAutomatically = pausesAutomatically
        s.maximumAge = maximumAge
        s.updatingHeading = updatingHeading
        s.headingFilter = headingFilter
        s.headingOrientation = orientation
        s.significantChanges = significantChanges
        s.visits = visits
        s.reducedAccuracy = reducedAccuracy
        s.deferral = deferral.map { ($0.distance, $0.timeout) }
        s.batchingMaximumDelay = batchingMaximumDelay
        return s
    }
}

/// An engine event on the wire (one line of a `locations` batch at most ``ClientSocketProtocol/locationsPerEvent`` long).
struct WireEvent: Codable, Sendable, Equatable {
    var kind: String
    var locations: [WireLocation]?
    var continues: Bool?
    var heading: WireHeading?
    var region: WireRegionEvent?
    var visit: WireVisit?
    var error: WireError?

    init(kind: String) { self.kind = kind }

    /// The wire events of an engine event: one, or several for a long batch of locations.
    static func of(_ event: EngineEvent) -> [WireEvent] {
        switch event {
        case .locations(let l):
            let chunk = ClientSocketProtocol.locationsPerEvent
            if l.count <= chunk {
                var e = WireEvent(kind: "locations")
                e.locations = l.map(WireLocation.init)
                return [e]
            }
            return stride(from: 0, to: l.count, by: chunk).map { start in
                var e = WireEvent(kind: "locations")
                let end = min(start + chunk, l.count)
                e.locations = l[start..<end].map(WireLocation.init)
                e.continues = end < l.count ? true : nil
                return e
            }
        case .paused: return [WireEvent(kind: "paused")]
        case .resumed: return [WireEvent(kind: "resumed")]
        case .heading(let h):
            var e = WireEvent(kind: "heading")
            e.heading = WireHeading(h)
            return [e]
        case .region(let r):
            var e = WireEvent(kind: "region")
            e.region = WireRegionEvent(r)
            return [e]
        case .visit(let v):
            var e = WireEvent(kind: "visit")
            e.visit = WireVisit(v)
            return [e]
        case .deferredFinished(let error):
            var e = WireEvent(kind: "deferredFinished")
            e.error = error.map(WireError.init)
            return [e]
        case .error(let error):
            var e = WireEvent(kind: "error")
            e.error = WireError(error)
            return [e]
        }
    }

    /// The engine event (a `locations` line with `continues` is a part the caller joins).
    func event() throws(WireError) -> EngineEvent {
        switch kind {
        case "locations":
            var out: [Location] = []
            for l in locations ?? [] { out.append(try l.location()) }
            return .locations(out)
        case "paused": return .paused
        case "resumed": return .resumed
        case "heading":
            guard let heading else { throw WireError.invalid("heading event without a heading") }
            return .heading(try heading.heading())
        case "region":
            guard let region else { throw WireError.invalid("region event without a region") }
            return .region(try region.event())
        case "visit":
            guard let visit else { throw WireError.invalid("visit event without a visit") }
            return .visit(visit.visit)
        case "deferredFinished": return .deferredFinished(error?.locationError)
        case "error":
            guard let error else { throw WireError.invalid("error event without an error") }
            return .error(error.locationError)
        default: throw WireError.invalid("event kind '\(kind)' is unknown")
        }
    }
}

/// The peer as the daemon identified it.
struct WirePeer: Codable, Sendable, Equatable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
    var user: String?
    var groups: [String]
}

// MARK: lines

/// A request line (client to daemon).
struct WireRequest: Codable, Sendable {
    var version: Int?
    var id: Int?
    var op: String
    var client: Int?
    var name: String?
    var persistent: String?
    var services: WireServices?
    var timeout: Double?
    var region: CircularRegion?
    var identifier: String?
    var purpose: String?

    init(op: String, client: Int? = nil) {
        self.op = op
        self.client = client
    }
}

/// A line from the daemon: `hello`, `reply` or `event`; the keys of the others are absent.
struct WireMessage: Codable, Sendable {
    var type: String
    // reply
    var id: Int?
    var ok: Bool?
    var error: WireError?
    var problems: [String]?
    var regions: [CircularRegion]?
    var state: String?
    var location: WireLocation?
    var heading: WireHeading?
    // hello (also the reply to the hello op)
    var version: Int?
    var server: String?
    var board: String?
    var locationServicesEnabled: Bool?
    var headingAvailable: Bool?
    var authorization: AuthorizationStatus?
    var accuracy: AccuracyAuthorization?
    var reason: String?
    var peer: WirePeer?
    // event
    var client: Int?
    var event: WireEvent?
    // every message from the daemon
    var now: UInt64?

    init(type: String) { self.type = type }

    static func reply(_ id: Int?, error: WireError? = nil) -> WireMessage {
        var m = WireMessage(type: "reply")
        m.id = id
        m.ok = error == nil
        m.error = error
        return m
    }
}

/// Lines in and out: JSON objects, one a line, no line longer than ``ClientSocketProtocol/maximumLineLength``.
enum WireCodec {
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }

    /// A value as one line with its LF, or `nil` when it cannot be encoded within the limit.
    static func line<T: Encodable>(_ value: T, encoder: JSONEncoder) -> [UInt8]? {
        guard var data = try? encoder.encode(value), data.count <= ClientSocketProtocol.maximumLineLength else { return nil }
        data.append(0x0A)
        return [UInt8](data)
    }

    /// What describes a decoding failure to the sender (no type names or coding paths of this build).
    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.codingPath.isEmpty ? "not a JSON object" : "\(path(c.codingPath)): \(c.debugDescription)"
        case DecodingError.keyNotFound(let key, let c): return "missing key '\(path(c.codingPath + [key]))'"
        case DecodingError.typeMismatch(_, let c): return "key '\(path(c.codingPath))' has the wrong type"
        case DecodingError.valueNotFound(_, let c): return "key '\(path(c.codingPath))' is null"
        default: return "not a request"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// Splits a byte stream into lines of at most `limit` bytes (LF-terminated; a CR before the LF is
/// dropped; empty lines are skipped). A longer line is reported once as `.tooLong` and skipped up to its LF.
struct LineFramer {
    enum Item: Equatable {
        case line([UInt8])
        case tooLong
    }

    let limit: Int
    private var pending: [UInt8] = []
    private var discarding = false

    init(limit: Int = ClientSocketProtocol.maximumLineLength) { self.limit = limit }

    /// Bytes held waiting for their LF.
    var buffered: Int { pending.count }

    mutating func feed(_ buffer: ByteBuffer) -> [Item] {
        var items: [Item] = []
        buffer.withUnsafeReadableBytes { raw in
            var start = raw.startIndex
            while start < raw.endIndex {
                let rest = raw[start...]
                guard let lf = rest.firstIndex(of: 0x0A) else {
                    if !discarding {
                        pending.append(contentsOf: rest)
                        if pending.count > limit {
                            pending.removeAll(keepingCapacity: false)
                            discarding = true
                            items.append(.tooLong)
                        }
                    }
                    return
                }
                if discarding {
                    discarding = false
                } else {
                    pending.append(contentsOf: raw[start..<lf])
                    if pending.last == 0x0D { pending.removeLast() }
                    if pending.count > limit {
                        items.append(.tooLong)
                    } else if !pending.isEmpty {
                        items.append(.line(pending))
                    }
                    pending.removeAll(keepingCapacity: pending.count <= 4096)
                }
                start = lf + 1
            }
        }
        return items
    }
}
