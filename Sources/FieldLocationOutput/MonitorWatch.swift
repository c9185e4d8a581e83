import FieldLocation
import HardwareInterfaces
import LocationAPI
import LocationServices
import NMEA
import Synchronization

/// `fieldloc monitor events` and `fieldloc monitor watch`: a named ``Monitor``'s events printed one
/// per line, the unacknowledged ones first (those that happened while nobody watched, also before a
/// restart), then, with an engine, each new one as the board's locations decide it.
///
/// Each event is acknowledged right after its line was emitted (unless ``acknowledge`` is off), so a
/// watch killed between the two prints that event again next time: at least once, same `seq`.
public struct MonitorWatch {
    /// The monitor.
    public var monitor: Monitor
    /// One JSON object per event (`{"class":"MONITOR",…}`) instead of a text line.
    public var json: Bool
    /// Whether printed events are acknowledged (removed from the monitor's queue).
    public var acknowledge: Bool

    /// A watch of `monitor`.
    public init(monitor: Monitor, json: Bool = false, acknowledge: Bool = true) {
        self.monitor = monitor
        self.json = json
        self.acknowledge = acknowledge
    }

    /// Emits the events after `seq` still queued (at most `limit`); returns the last seq emitted (or `seq`).
    public func drain(after seq: UInt64 = 0, limit: Int = .max, emit: (String) -> Void) throws(Monitor.MonitorError) -> UInt64 {
        var last = seq
        for event in monitor.pendingEvents.lazy.filter({ $0.seq > seq }).prefix(limit) {
            emit(Self.line(event, monitor: monitor.name, json: json))
            last = event.seq
            if acknowledge { try monitor.acknowledge(through: event.seq) }
        }
        return last
    }

    /// Emits the queued events, then runs `engine` for `duration` of its clock feeding its locations
    /// to the monitor and emitting each event as it happens; returns how many were emitted. A
    /// receiver port that cannot be opened is thrown at once.
    public func run(engine: LocationEngine, duration: Duration, emit: (String) -> Void) throws -> Int {
        var count = 0
        var last = try drain { count += 1; emit($0) }
        try engine.openReceiver()
        defer { engine.closeReceiver() }
        let locations = Mutex<[Location]>([])
        let registration = engine.register(name: "monitor-watch") { event in
            if case .locations(let batch) = event { locations.withLock { $0 += batch } }
        }
        defer { engine.unregister(registration.id) }
        engine.update(registration.id) { $0.updatingLocation = true }
        let end = engine.clock.now().advanced(by: duration)
        while engine.clock.now() < end {
            engine.advance(until: min(end, engine.clock.now().advanced(by: .milliseconds(200))))
            for location in locations.withLock({ l in defer { l.removeAll() }; return l }) { try monitor.process(location) }
            last = try drain(after: last) { count += 1; emit($0) }
        }
        return count
    }

    /// The line of an event: text, or JSON with `json`.
    public static func line(_ event: Monitor.Event, monitor: String, json: Bool) -> String {
        let time = event.date.isFinite && abs(event.date) < 1e11
            ? UTCTime(nanosecondsSinceEpoch: Int64((event.date * 1e9).rounded())).iso8601(fractionDigits: 3) : nil
        guard json else {
            return (time.map { $0 + " " } ?? "") + "#\(event.seq) \(event.identifier) \(event.state.rawValue)" + (event.reason.map { " (\($0))" } ?? "")
        }
        var out = #"{"class":"MONITOR","monitor":"# + JSONText.quote(monitor) + #","seq":\#(event.seq),"identifier":"# + JSONText.quote(event.identifier)
        out += #","state":"# + JSONText.quote(event.state.rawValue)
        if let time { out += #","time":""# + time + #"""# }
        if let reason = event.reason { out += #","reason":"# + JSONText.quote(reason) }
        return out + "}"
    }
}
