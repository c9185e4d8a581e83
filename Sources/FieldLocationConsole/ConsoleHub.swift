import FieldLocation
import FieldLocationOutput
import LocationServices
import NIOCore
import NIOHTTP1
import NMEA
import Synchronization

/// The console's shared state, on one event loop: the engine's status monitor, the page streams
/// that are open, the recent track, and the ticker that builds one update per interval and writes
/// it to every stream.
///
/// One update is built per tick whatever the number of pages (the snapshot, its JSON and the
/// event-stream frame once, then the same bytes to every page). While at least one page is open
/// the monitor asks the engine for locations and headings, as a gpsd watcher does; with none, the
/// ticker stops and the monitor only observes, so `/metrics` never powers the receiver.
final class ConsoleHub: Sendable {
    let monitor: StatusMonitor
    let configuration: ConsoleConfiguration
    let loop: any EventLoop
    let metrics: UnitMetrics
    /// The time service's state, when the process runs one.
    let time: (@Sendable () -> StatusTime?)?
    private let state: Mutex<State>

    struct State {
        /// Open page streams, by id, with whether each gets reduced positions.
        var streams: [Int: (channel: any Channel, reduced: Bool)] = [:]
        var nextID = 0
        var ticker: RepeatedTask?
        /// Recent positions (latitude, longitude), oldest first.
        var track: [(Double, Double)] = []
        /// Open connections, for the limit.
        var connections = 0
        /// Requests by outcome, for the log and the metrics.
        var served = 0, refused = 0
    }

    init(monitor: StatusMonitor, configuration: ConsoleConfiguration, loop: any EventLoop, time: (@Sendable () -> StatusTime?)?) {
        self.monitor = monitor
        self.time = time
        self.configuration = configuration
        self.loop = loop
        metrics = UnitMetrics(includePosition: configuration.metricsPosition)
        state = Mutex(State())
    }

    /// The monitor's snapshot with the time service's state.
    func snapshot() -> StatusSnapshot {
        var snapshot = monitor.snapshot()
        if let time { snapshot.time = time() }
        return snapshot
    }

    // MARK: connections

    /// Counts a new connection; `false` when the limit is reached (the caller answers 503).
    func admit() -> Bool {
        state.withLock { s in
            guard s.connections < configuration.maxConnections else { s.refused += 1; return false }
            s.connections += 1
            return true
        }
    }

    /// A connection closed.
    func release() { state.withLock { $0.connections -= 1 } }

    /// Open connections and page streams.
    var counts: (connections: Int, streams: Int) { state.withLock { ($0.connections, $0.streams.count) } }

    // MARK: page streams

    /// Adds a page stream: it gets the current state with the track at once, then every tick.
    func addStream(_ channel: any Channel, reduced: Bool) -> Int {
        let (id, first) = state.withLock { s -> (Int, Bool) in
            let id = s.nextID
            s.nextID += 1
            s.streams[id] = (channel, reduced)
            return (id, s.streams.count == 1)
        }
        if first {
            monitor.setDemand(true)
            let interval = TimeAmount.nanoseconds(Int64(configuration.updateInterval * 1e9))
            let task = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in self?.tick() }
            state.withLock { s in
                s.ticker?.cancel()
                s.ticker = task
            }
        }
        let snapshot = self.snapshot()
        noteTrack(snapshot)
        let track = state.withLock { $0.track }
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(frame(snapshot, reduced: reduced, track: track, allocator: channel.allocator))), promise: nil)
        return id
    }

    /// Removes a page stream; with none left the ticker stops and the demand goes.
    func removeStream(_ id: Int) {
        let last = state.withLock { s -> Bool in
            guard s.streams.removeValue(forKey: id) != nil else { return false }
            if s.streams.isEmpty {
                s.ticker?.cancel()
                s.ticker = nil
                return true
            }
            return false
        }
        if last { monitor.setDemand(false) }
    }

    /// One update for every page stream.
    func tick() {
        let streams = state.withLock { Array($0.streams.values) }
        guard !streams.isEmpty else { return }
        let snapshot = self.snapshot()
        noteTrack(snapshot)
        guard let first = streams.first?.channel else { return }
        var full: ByteBuffer?, reduced: ByteBuffer?
        for stream in streams {
            let buffer: ByteBuffer
            if stream.reduced {
                if reduced == nil { reduced = frame(snapshot, reduced: true, track: nil, allocator: first.allocator) }
                buffer = reduced!
            } else {
                if full == nil { full = frame(snapshot, reduced: false, track: nil, allocator: first.allocator) }
                buffer = full!
            }
            let channel = stream.channel
            // A page that stopped reading is dropped, never buffered without bound.
            guard channel.isWritable else {
                channel.close(promise: nil)
                continue
            }
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
        }
    }

    /// Keeps the snapshot's position in the track when it moved (or is the first).
    private func noteTrack(_ snapshot: StatusSnapshot) {
        guard let fix = snapshot.fix, fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude else { return }
        state.withLock { s in
            if let last = s.track.last, last.0 == lat, last.1 == lon { return }
            s.track.append((lat, lon))
            if s.track.count > configuration.trackLength { s.track.removeFirst(s.track.count - configuration.trackLength) }
        }
    }

    // MARK: documents

    /// The status snapshot as the page reads it, with positions coarsened when `reduced`, and the
    /// track when given.
    func document(_ snapshot: StatusSnapshot, reduced: Bool, track: [(Double, Double)]?) -> String {
        var snapshot = snapshot
        if reduced, let fix = snapshot.fix { snapshot.fix = Self.coarsened(fix) }
        var fields = ["\"status\":" + StatusView.json(snapshot), "\"reduced\":\(reduced)"]
        if let track {
            let points = track.map { reduced ? Self.coarsened(latitude: $0.0, longitude: $0.1) : $0 }
            fields.append("\"track\":[" + points.map { "[\(FixText.fixed($0.0, 7)),\(FixText.fixed($0.1, 7))]" }.joined(separator: ",") + "]")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// One event-stream frame (`data: JSON` and a blank line).
    func frame(_ snapshot: StatusSnapshot, reduced: Bool, track: [(Double, Double)]?, allocator: ByteBufferAllocator) -> ByteBuffer {
        let json = document(snapshot, reduced: reduced, track: track)
        var buffer = allocator.buffer(capacity: json.utf8.count + 8)
        buffer.writeString("data: ")
        buffer.writeString(json)
        buffer.writeString("\n\n")
        return buffer
    }

    /// The document for a single request (`/status.json`).
    func statusDocument(reduced: Bool) -> String {
        let snapshot = self.snapshot()
        return document(snapshot, reduced: reduced, track: state.withLock { $0.track })
    }

    /// The metrics exposition now.
    func exposition() -> [UInt8] { metrics.exposition(snapshot()) }

    /// A position coarsened by the reduced-accuracy rule of every other reduced location.
    static func coarsened(latitude: Double, longitude: Double) -> (Double, Double) {
        let location = Location(latitude: latitude, longitude: longitude, horizontalAccuracy: 0, receivedAt: .zero).reduced()
        return (location.latitude, location.longitude)
    }

    /// A fix with its position coarsened and its altitude, speed and course removed.
    static func coarsened(_ fix: Fix) -> Fix {
        var fix = fix
        if let lat = fix.latitude, let lon = fix.longitude {
            (fix.latitude, fix.longitude) = coarsened(latitude: lat, longitude: lon)
        }
        fix.altitudeMSL = nil
        fix.altitudeHAE = nil
        fix.speed = nil
        fix.course = nil
        fix.horizontalAccuracy = max(fix.horizontalAccuracy ?? 0, 5000)
        return fix
    }

    /// Stops the ticker and closes every page stream.
    func closeAll() {
        let streams = state.withLock { s -> [any Channel] in
            s.ticker?.cancel()
            s.ticker = nil
            defer { s.streams.removeAll() }
            return s.streams.values.map(\.channel)
        }
        for channel in streams { channel.close(promise: nil) }
        monitor.setDemand(false)
    }
}
