import FieldLocation
import HardwareInterfaces
import LocationAPI
import LocationServices
import NMEA
import Synchronization

/// `fieldloc regions watch`: the regions a client persisted (``RegionStore``, `regions-NAME.json`
/// in the engine's state folder) monitored on a board's engine, each event printed as it happens.
///
/// The watch registers with the client's persistent name, so the engine loads and monitors that
/// client's regions as a manager of the name would; it adds no location demand of its own beyond
/// what monitoring needs. Events: `determined` (with the state), `enter`, `exit`, `dwell` and
/// `expiry` (the region lapsed and is no longer monitored).
public struct RegionWatch {
    /// The client (manager name) whose regions are watched.
    public var client: String
    /// One JSON object per event (`{"class":"REGION","event":…}`) instead of a text line.
    public var json: Bool

    /// A watch of `client`'s regions.
    public init(client: String, json: Bool = false) {
        self.client = client
        self.json = json
    }

    /// What a run saw.
    public struct Summary: Sendable {
        /// Regions monitored at the start.
        public var regions = 0
        /// Events printed.
        public var events = 0
        /// Problems reading the client's regions file (the file and what is wrong).
        public var problems: [String] = []
    }

    /// Runs `engine` for `duration` of its clock, calling `emit` with each event's line. A receiver
    /// port that cannot be opened is thrown at once.
    public func run(engine: LocationEngine, duration: Duration, emit: (String) -> Void) throws(HardwareError) -> Summary {
        try engine.openReceiver()
        defer { engine.closeReceiver() }
        let pending = Mutex<[EngineEvent]>([])
        let registration = engine.register(name: "regions-watch", persistentName: client) { event in
            switch event {
            case .region, .regionExpired: pending.withLock { $0.append(event) }
            default: break
            }
        }
        defer { engine.unregister(registration.id) }
        var summary = Summary()
        summary.problems = registration.problems
        summary.regions = engine.monitoredRegions(registration.id).count
        func flush() {
            for event in pending.withLock({ p in defer { p.removeAll() }; return p }) {
                guard let line = Self.line(event, json: json) else { continue }
                emit(line)
                summary.events += 1
            }
        }
        // In short steps, so a real board's events appear as they come.
        let end = engine.clock.now().advanced(by: duration)
        while engine.clock.now() < end {
            engine.advance(until: min(end, engine.clock.now().advanced(by: .milliseconds(200))))
            flush()
        }
        flush()
        return summary
    }

    /// The line of a region event (`nil` for other events): text, or JSON with `--json`.
    public static func line(_ event: EngineEvent, json: Bool) -> String? {
        let name: String, region: CircularRegion, location: Location?
        switch event {
        case .region(let e):
            region = e.region
            location = e.location
            switch e.kind {
            case .enter: name = "enter"
            case .exit: name = "exit"
            case .dwell: name = "dwell"
            case .determined(let state): name = "determined " + state.rawValue
            }
        case .regionExpired(let r):
            region = r
            location = nil
            name = "expiry"
        default:
            return nil
        }
        let time = location?.timestamp.flatMap { t -> String? in
            guard t.isFinite, abs(t) < 1e11 else { return nil }
            return UTCTime(nanosecondsSinceEpoch: Int64((t * 1e9).rounded())).iso8601(fractionDigits: 3)
        }
        guard json else {
            var text = (time.map { $0 + " " } ?? "") + name + " " + region.identifier
            if let location {
                text += " at \(FixText.fixed(location.latitude, 6)), \(FixText.fixed(location.longitude, 6))"
                if let accuracy = location.knownHorizontalAccuracy { text += " ±\(FixText.fixed(accuracy, 1)) m" }
            }
            return text
        }
        let parts = name.split(separator: " ")
        var out = #"{"class":"REGION","event":"# + JSONText.quote(String(parts[0]))
        if parts.count > 1 { out += #","state":"# + JSONText.quote(String(parts[1])) }
        out += #","region":"# + JSONText.quote(region.identifier)
        if let time { out += #","time":""# + time + #"""# }
        if let location {
            out += ",\"lat\":\(FixText.fixed(location.latitude, 9)),\"lon\":\(FixText.fixed(location.longitude, 9))"
            if let accuracy = location.knownHorizontalAccuracy { out += ",\"accuracy\":\(FixText.fixed(accuracy, 2))" }
        }
        return out + "}"
    }
}
