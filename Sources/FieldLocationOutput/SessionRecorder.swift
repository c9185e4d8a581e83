import Beacons
import BoardConfig
import FieldLocation
import FieldLocationStore
import Foundation
import HardwareInterfaces
import LocationAPI

/// What `fieldloc record` writes while an engine runs: OUT (the receiver's bytes exactly as read;
/// on a board with several receivers every receiver's, in the order read),
/// OUT.events.jsonl (a RECORDING header, then CHUNK, PORT, FIX, HEADING, PPS, SENSOR and ADVERT lines,
/// ``RecordingEvents``), the board that replays it (``ReplayBoardFile``, `unit.nmea` →
/// `unit-nmea-replay.toml`) and, on a board with a gyroscope, OUT.samples.csv (the attitude filter's
/// inputs, for `fieldloc heading --samples`). Times are on the engine's clock from when the
/// recorder was created, so a simulated board records on its manual clock.
public final class SessionRecorder: @unchecked Sendable {
    /// Why a recording could not be written: the file and what went wrong.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var file: String
        public var reason: String
        public var description: String { "\(file): \(reason)" }
    }

    /// What was written.
    public struct Summary: Sendable {
        /// Receiver bytes.
        public var bytes = 0
        /// SENSOR lines (raw sensor bursts).
        public var sensorSamples = 0
        /// ADVERT lines (advertising reports).
        public var adverts = 0
        /// Rows of OUT.samples.csv.
        public var sampleRows = 0
    }

    /// The raw log's path.
    public let out: String
    /// The events file's path (OUT.events.jsonl).
    public var eventsPath: String { out + ".events.jsonl" }
    /// The replay board's path (``ReplayBoardFile/path(out:)``): the recorded board's layout
    /// with `[replay]` naming the recording.
    public var boardPath: String { ReplayBoardFile.path(out: out) }
    /// The attitude filter's samples' path (OUT.samples.csv), written on boards with a gyroscope.
    public var samplesPath: String { out + ".samples.csv" }

    private let lock = NSLock()
    private let raw: FileHandle, events: FileHandle, samples: FileHandle?
    private let start: MonotonicInstant
    private let engine: LocationEngine
    private var observer: Int?
    private var summary = Summary()
    private var failure: String?
    /// The receivers' names on a board with several (empty for one): CHUNK, PORT and FIX lines name them.
    private let receiverNames: [String]

    /// Creates the files and starts observing `engine` (which runs `board`): its receiver bytes,
    /// fixes, headings, PPS, raw sensor samples and advertising reports. The events file's header
    /// carries the engine's magnetometer calibration (set it first), and ``boardPath`` is the board
    /// that replays the recording. On a board with a gyroscope the engine's heading period is set to the gyroscope's sample period, so every
    /// sample the attitude filter takes gives a heading and a row of OUT.samples.csv.
    public init(out: String, board: BoardDescription, engine: LocationEngine) throws(Failure) {
        self.out = out
        self.engine = engine
        let eventsPath = out + ".events.jsonl", samplesPath = out + ".samples.csv"
        func create(_ path: String, _ contents: String) throws(Failure) -> FileHandle {
            guard FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)),
                  let handle = FileHandle(forWritingAtPath: path) else {
                throw Failure(file: path, reason: "cannot be created (does the folder exist and is it writable?)")
            }
            _ = try? handle.seekToEnd()
            return handle
        }
        raw = try create(out, "")
        receiverNames = board.receivers.count > 1 ? board.receivers.map(\.label) : []
        events = try create(eventsPath, RecordingEvents.header(board: board.name, calibration: engine.calibration, receivers: receiverNames))
        let boardPath = ReplayBoardFile.path(out: out)
        do { try AtomicFile.write(Data(ReplayBoardFile.text(recording: board, out: out).utf8), to: boardPath) } catch {
            throw Failure(file: boardPath, reason: "cannot be written (\(error.description))")
        }
        if board.accelerometer?.gyroscopeRange != nil && engine.headingAvailable {
            engine.headingPeriod = LocationEngine.gyroscopeSamplePeriod
            samples = try create(samplesPath, HeadingCSV.recordedHeader + "\n")
        } else {
            samples = nil
        }
        let clock = engine.clock
        start = clock.now()
        let id = engine.observe { [weak self] observation in self?.write(observation, now: clock.now()) }
        engine.setObserver(id, wantsRawInputs: true)
        observer = id
    }

    private func write(_ observation: EngineObservation, now: MonotonicInstant) {
        lock.withLock {
            guard failure == nil else { return }
            let t = now - start
            do {
                switch observation {
                case .bytes(let bytes):
                    // With several receivers every receiver's reads come as receiverBytes.
                    guard receiverNames.isEmpty else { break }
                    try raw.write(contentsOf: bytes)
                    try events.write(contentsOf: Data(RecordingEvents.chunk(at: t, offset: summary.bytes, length: bytes.count).utf8))
                    summary.bytes += bytes.count
                case .receiverBytes(let index, let bytes):
                    guard index < receiverNames.count else { break }
                    try raw.write(contentsOf: bytes)
                    try events.write(contentsOf: Data(RecordingEvents.chunk(at: t, offset: summary.bytes, length: bytes.count,
                                                                            receiver: receiverNames[index]).utf8))
                    summary.bytes += bytes.count
                case .receiverPort(let index, let open):
                    guard index < receiverNames.count else { break }
                    try events.write(contentsOf: Data(RecordingEvents.port(at: t, receiver: receiverNames[index], open: open).utf8))
                case .fix(let fix, _):
                    let receiver = fix.receiverIndex.flatMap { $0 < receiverNames.count ? receiverNames[$0] : nil }
                    try events.write(contentsOf: Data(RecordingEvents.fix(fix, t: t.secondsDouble, receiver: receiver).utf8))
                case .heading(let h):
                    try events.write(contentsOf: Data(RecordingEvents.heading(h, t: t.secondsDouble).utf8))
                    if let samples, let row = HeadingCSV.recordedRow(h, seconds: (h.takenAt - start).secondsDouble) {
                        try samples.write(contentsOf: Data((row + "\n").utf8))
                        summary.sampleRows += 1
                    }
                case .pps(let p):
                    try events.write(contentsOf: Data(RecordingEvents.pps(p, t: t.secondsDouble).utf8))
                case .sensorSample(let s):
                    try events.write(contentsOf: Data(RecordingEvents.sensor(s, at: s.takenAt - start).utf8))
                    summary.sensorSamples += 1
                case .advert(let a):
                    try events.write(contentsOf: Data(RecordingEvents.advert(a, at: a.receivedAt - start).utf8))
                    summary.adverts += 1
                case .frames:
                    break  // The raw bytes are recorded as read.
                }
            } catch {
                failure = "\(error)"
            }
        }
    }

    /// Registers the client a recording runs: location updates (never paused), every heading, and,
    /// on a board with a Bluetooth adapter, ranging (so the radio listens all the time and every
    /// advertising report is recorded; the constraint is the simulated world's beacons, or any UUID
    /// on real hardware, which the radio hears all the same). Returns the client's id.
    public static func registerRecordingClient(on engine: LocationEngine, board: BoardDescription) -> Int {
        let client = engine.register(name: "record") { _ in }.id
        engine.update(client) { s in
            s.updatingLocation = true
            s.pausesAutomatically = false
            s.updatingHeading = engine.headingAvailable
            s.headingFilter = nil
        }
        if engine.isRangingAvailable {
            let uuids = Set((board.simulation?.beacons ?? []).compactMap { BeaconUUID($0.uuid) })
            let constraints = uuids.isEmpty ? [BeaconUUID("00000000-0000-0000-0000-000000000000")].compactMap { $0 } : uuids.sorted { "\($0)" < "\($1)" }
            for uuid in constraints { _ = engine.startRangingBeacons(client, satisfying: BeaconIdentityConstraint(uuid: uuid)) }
        }
        return client
    }

    /// Stops observing, flushes and closes the files; throws when a write failed.
    public func finish() throws(Failure) -> Summary {
        if let observer { engine.removeObserver(observer) }
        observer = nil
        let (summary, failure) = lock.withLock { () -> (Summary, String?) in
            for handle in [raw, events] + (samples.map { [$0] } ?? []) {
                try? handle.synchronize()
                try? handle.close()
            }
            return (self.summary, self.failure)
        }
        if let failure { throw Failure(file: out, reason: "writing failed: \(failure)") }
        return summary
    }
}
