import Foundation
import HardwareInterfaces
import Heading
import LocationServices

/// A session `fieldloc record` wrote, read back for a replay board: the raw receiver bytes cut
/// into the reads they arrived in (the events file's CHUNK lines), the headings (HEADING
/// lines), PPS edges (PPS lines), raw sensor samples (SENSOR lines) and Bluetooth advertising
/// reports (ADVERT lines), each at its time since the recording's start. A recording from
/// format version 2 on starts with a RECORDING line naming its version; one without is version 1
/// (receiver bytes, headings and PPS only). From version 3 the RECORDING line also carries the
/// magnetometer calibration the unit applied (``calibration``). From version 4 a recording of
/// several receivers names them (``receivers``), each CHUNK its receiver, and PORT lines say when
/// a receiver's port opened or failed (``portEvents``).
public struct RecordedSession: Sendable {
    /// The newest format version this reader knows.
    public static let formatVersion = 4

    /// One read of the receiver: its bytes, `t` seconds after the start; on a recording of several
    /// receivers, whose (an index into ``receivers``; 0 otherwise).
    public struct Chunk: Sendable, Equatable {
        public var t: Double
        public var bytes: [UInt8]
        public var receiver = 0
    }

    /// A receiver's port opened (`open`) or failed, `t` seconds after the start (a PORT line).
    public struct PortEvent: Sendable, Equatable {
        public var t: Double
        /// An index into ``receivers``.
        public var receiver: Int
        public var open: Bool

        /// A port event.
        public init(t: Double, receiver: Int, open: Bool) {
            self.t = t
            self.receiver = receiver
            self.open = open
        }
    }

    /// A recorded heading.
    public struct Heading: Sendable, Equatable {
        public var t: Double
        public var magnetic: Double
        public var trueHeading: Double?
        public var accuracy: Double?
        public var quality: HeadingQuality
    }

    /// A recorded PPS edge: the UTC second it starts, `edge` seconds after the start.
    public struct Pulse: Sendable, Equatable {
        public var t: Double
        public var utc: Int64
        public var edge: Double
    }

    /// The reads, in order (every receiver's, in the order they were read).
    public var chunks: [Chunk] = []
    /// The receivers by name, the board's first first, when the recording holds several (format
    /// version 4's `receivers`); empty for a recording of one receiver.
    public var receivers: [String] = []
    /// When receivers' ports opened and failed, in order (format version 4).
    public var portEvents: [PortEvent] = []
    /// The headings, in order.
    public var headings: [Heading] = []
    /// The PPS edges, in order.
    public var pulses: [Pulse] = []
    /// The raw sensor samples, in order (format version 2).
    public var sensorSamples: [SensorSample] = []
    /// The Bluetooth advertising reports, in order (format version 2).
    public var adverts: [Advert] = []
    /// The magnetometer calibration the unit applied when the recording started (format version
    /// 3), which a replay applies too; `nil` when none was in force or the recording is older.
    public var calibration: MagnetometerCalibration?
    /// The recording's format version: 1 for a file without a RECORDING line.
    public var version = 1
    /// The recording's length: the last event's time, seconds.
    public var duration: Double = 0

    /// Why a recording cannot be replayed: the file, the 1-based line (0 for the whole file) and what is wrong.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var reason: String
        public var description: String { line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)" }
    }

    /// Reads a recording: `log` (the raw bytes) and `events` (its `.events.jsonl`).
    public static func load(log: String, events: String) throws(LoadError) -> RecordedSession {
        guard let raw = FileManager.default.contents(atPath: log) else {
            throw LoadError(file: log, line: 0, reason: "cannot be read (the recording's raw receiver log)")
        }
        guard let data = FileManager.default.contents(atPath: events) else {
            throw LoadError(file: events, line: 0, reason: "cannot be read (the recording's events, written beside the log as LOG.events.jsonl)")
        }
        return try parse(raw: [UInt8](raw), events: String(decoding: data, as: UTF8.self), eventsFile: events)
    }

    /// Parses a recording's events against its raw bytes; `eventsFile` names the file in errors.
    public static func parse(raw: [UInt8], events: String, eventsFile: String) throws(LoadError) -> RecordedSession {
        var session = RecordedSession()
        var expectedOffset = 0
        var lastT = 0.0
        // Each class is in time order; an advert's time is when it was received, which may come
        // before the read that the engine polled the radio after.
        var lastOfClass: [String: Double] = [:]
        var sawEvent = false
        let decoder = JSONDecoder()
        for (index, text) in events.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            func fail(_ reason: String) -> LoadError { LoadError(file: eventsFile, line: lineNumber, reason: reason) }
            let event: Event
            do { event = try decoder.decode(Event.self, from: Data(trimmed.utf8)) } catch {
                if case DecodingError.typeMismatch(_, let context) = error {
                    let keys = context.codingPath.compactMap { $0.intValue == nil ? $0.stringValue : nil }
                    if let last = keys.last {
                        let kind = (try? decoder.decode(Event.Kind.self, from: Data(trimmed.utf8)))?.kind ?? "event"
                        throw fail("\(kind): key '\(keys.joined(separator: "."))' must be \(Event.expected(last))")
                    }
                }
                throw fail("not a JSON object")
            }
            guard let kind = event.kind else { throw fail("missing key 'class'") }
            if kind == "RECORDING" {
                // The header has no time.
                guard !sawEvent else { throw fail("RECORDING: the header must be the file's first line") }
                session.version = try header(event, fail: fail)
                session.calibration = try event.calibration?.calibration(fail: fail)
                session.receivers = try receiverNames(event, fail: fail)
                sawEvent = true
                continue
            }
            func number(_ value: Double?, _ key: String) throws(LoadError) -> Double {
                guard let value, value.isFinite else { throw fail("\(kind): key '\(key)' must be a number") }
                return value
            }
            let t = try number(event.t, "t")
            guard t >= 0 else { throw fail("\(kind): key 't' is negative (\(t))") }
            let previous = lastOfClass[kind] ?? 0
            guard t + 1e-9 >= previous else { throw fail("\(kind): t = \(t) goes back before \(previous)") }
            lastOfClass[kind] = t
            lastT = max(lastT, t)
            defer { sawEvent = true }
            switch kind {
            case "SENSOR":
                session.sensorSamples.append(try sensorSample(event, t: t, fail: fail))
            case "ADVERT":
                session.adverts.append(try advert(event, t: t, fail: fail))
            case "CHUNK":
                let offset = try number(event.offset, "offset"), length = try number(event.length, "length")
                guard offset == Double(expectedOffset) else {
                    throw fail("CHUNK: offset \(Int(offset)) does not follow the previous chunk (expected \(expectedOffset))")
                }
                guard length >= 1, length <= Double(raw.count - expectedOffset) else {
                    throw fail("CHUNK: length \(Int(length)) at offset \(expectedOffset) runs past the log's \(raw.count) bytes")
                }
                let end = expectedOffset + Int(length)
                let receiver = try receiverIndex(event, of: session, kind: kind, fail: fail)
                session.chunks.append(Chunk(t: t, bytes: Array(raw[expectedOffset..<end]), receiver: receiver))
                expectedOffset = end
            case "HEADING":
                let magnetic = try number(event.magnetic, "magnetic")
                let trueHeading: Double? = event.trueHeading == nil ? nil : try number(event.trueHeading, "true")
                let accuracy: Double? = event.accuracy == nil ? nil : try number(event.accuracy, "accuracy")
                guard let word = event.quality, let quality = HeadingQuality(rawValue: word) else {
                    throw fail("HEADING: key 'quality' must be a heading quality word (good, …), found \(String((event.quality ?? "nothing").prefix(32)))")
                }
                session.headings.append(Heading(t: t, magnetic: magnetic, trueHeading: trueHeading, accuracy: accuracy, quality: quality))
            case "PPS":
                // `edge` is on the recording's own clock; `t` (when the pulse was paired with its
                // sentence) less `nmea_delay` puts it on the recording's time line.
                let utc = try number(event.utc, "utc"), delay = try number(event.nmeaDelay, "nmea_delay")
                session.pulses.append(Pulse(t: t, utc: Int64(utc), edge: max(0, t - delay)))
            case "PORT":
                guard let open = event.open else { throw fail("PORT: missing key 'open' (true when the port opened, false when it failed)") }
                session.portEvents.append(PortEvent(t: t, receiver: try receiverIndex(event, of: session, kind: kind, fail: fail), open: open))
            default:
                break  // FIX lines are the recording's output, not its input; other classes are skipped.
            }
        }
        guard expectedOffset == raw.count else {
            throw LoadError(file: eventsFile, line: 0, reason: "its CHUNK lines cover \(expectedOffset) of the log's \(raw.count) bytes")
        }
        session.duration = lastT
        return session
    }
}

extension RecordedSession {
    /// One line of a recording's events file as read (``parse(raw:events:eventsFile:)`` checks what
    /// each class needs); `fieldloc record` writes the lines (its `RecordingEvents`).
    struct Event: Decodable {
        /// The line's class only, to name it in an error about another key.
        struct Kind: Decodable {
            var kind: String?
            enum CodingKeys: String, CodingKey { case kind = "class" }
        }

        var kind: String?
        var t: Double?
        var offset: Double?
        var length: Double?
        var magnetic: Double?
        var trueHeading: Double?
        var accuracy: Double?
        var quality: String?
        var utc: Double?
        var nmeaDelay: Double?
        var version: Double?
        var acc: [Double]?
        var gyro: [Double]?
        var mag: [Double]?
        var address: String?
        var random: Bool?
        var rssi: Double?
        var txPower: Double?
        var scanResponse: Bool?
        var data: String?
        var calibration: CalibrationRecord?
        var receivers: [String]?
        var receiver: String?
        var open: Bool?

        enum CodingKeys: String, CodingKey {
            case kind = "class", t, offset, length, magnetic, trueHeading = "true", accuracy, quality, utc
            case nmeaDelay = "nmea_delay", version, acc, gyro, mag, address, random, rssi, txPower = "tx_power"
            case scanResponse = "scan_response", data, calibration, receivers, receiver, open
        }

        /// What a key's value must be, for an error about it.
        static func expected(_ key: String) -> String {
            switch key {
            case "class", "quality", "address", "data", "receiver": return "a string"
            case "receivers": return "a list of the receivers' names"
            case "acc", "gyro", "mag", "offset_uT": return "a list of three numbers"
            case "matrix": return "a list of nine numbers"
            case "calibration": return "an object (a stored calibration's keys)"
            case "method": return "a string"
            case "random", "scan_response", "open": return "true or false"
            default: return "a number"
            }
        }
    }
}
