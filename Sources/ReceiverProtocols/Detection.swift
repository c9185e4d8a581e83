import Devices
import HardwareInterfaces
import NMEA

/// What one listening window on a serial port heard.
public struct ListenReport: Sendable, Hashable {
    /// Sentences whose checksum was right, as text from `$` to the end (checksum included).
    public var validSentences: [String] = []
    /// Sentences that were framed but failed their checksum or address check.
    public var invalidSentences = 0
    /// UBX frames with a correct checksum: class, id, payload.
    public var ubxFrames: [UBXFrame] = []
    /// CASIC binary frames (`0xBA 0xCE`) with a correct checksum.
    public var casicFrames = 0
    /// Bytes that belonged to no sentence or frame (line noise, a wrong baud rate).
    public var garbageBytes: Int64 = 0
    /// Every byte received.
    public var bytes = 0

    /// A UBX frame received.
    public struct UBXFrame: Sendable, Hashable {
        /// Message class.
        public var messageClass: UInt8
        /// Message id.
        public var id: UInt8
        /// Payload bytes.
        public var payload: [UInt8]
    }

    /// Adds what a later window on the same port heard.
    public mutating func append(_ later: ListenReport) {
        validSentences += later.validSentences
        invalidSentences += later.invalidSentences
        ubxFrames += later.ubxFrames
        casicFrames += later.casicFrames
        garbageBytes += later.garbageBytes
        bytes += later.bytes
    }

    /// Whether the bytes look like a receiver at this line rate: two valid sentences, or one valid
    /// UBX frame, and more valid than invalid sentences.
    public var looksLikeReceiver: Bool {
        (validSentences.count >= 2 || !ubxFrames.isEmpty || casicFrames > 0) && validSentences.count >= invalidSentences
    }
}

struct ListenSink: NMEAFramerSink {
    var report = ListenReport()

    mutating func framer(sentence: Span<UInt8>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sentence.count)
        for i in sentence.indices { bytes.append(sentence[i]) }
        do {
            _ = try NMEAParser.validate(sentence)
            report.validSentences.append(String(decoding: bytes, as: UTF8.self))
        } catch {
            report.invalidSentences += 1
        }
    }

    mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {
        var bytes: [UInt8] = []
        for i in payload.indices { bytes.append(payload[i]) }
        report.ubxFrames.append(.init(messageClass: ubxClass, id: id, payload: bytes))
    }

    mutating func framer(casicClass: UInt8, id: UInt8, payload: Span<UInt8>) {
        report.casicFrames += 1
    }
}

/// One step of a detection run, for the log a person reads when nothing answers.
public struct DetectionStep: Sendable, Hashable, CustomStringConvertible {
    /// The line rate of the step.
    public var baudRate: Int
    /// What was done (`listen 1.2 s`, `send UBX-MON-VER poll`, …).
    public var action: String
    /// What came back.
    public var outcome: String

    public var description: String { "\(baudRate) baud: \(action): \(outcome)" }
}

/// The result of probing one serial port.
public struct DetectionResult: Sendable, Hashable {
    /// The port probed.
    public var port: String
    /// The line rate at which the receiver talks, if one was found.
    public var baudRate: Int?
    /// The receiver's identity, if it answered an identity query or showed a banner; a receiver
    /// that streams NMEA but answers nothing is ``ReceiverFamily/genericNMEA``.
    public var identity: ReceiverIdentity?
    /// Talker and type of the sentences heard at ``baudRate`` (for example `GPRMC`, `GNGGA`).
    public var sentenceTypes: [String]
    /// Every step, in order.
    public var steps: [DetectionStep]
    /// What to check, when nothing answered.
    public var advice: [String]
}

/// Finds a GNSS receiver on a serial port: autobaud, then banners and identity queries in a
/// documented order.
///
/// 1. For each line rate (9600, 38400, 115200, 57600, 4800, 19200 by default) it listens for
///    ``listenWindow`` for valid NMEA sentences or UBX frames. When nothing valid arrives it sends
///    one `0xFF` (wakes a u-blox RX line or a MediaTek in standby) and the identity queries, and
///    listens again: a receiver with its output off may still answer.
/// 2. At the rate that works, it reads banners among the sentences heard (u-blox `TXT`,
///    `$PMTK011`, CASIC `IC=AT6558`), then asks, each query ignored or refused by the other
///    families: UBX-MON-VER (the reply's hardware version must be a u-blox one, because the CASIC
///    chip partly answers UBX polls), `$PMTK605`, `$PCAS06,0`, `$PAIR021`, `$PGKC462`.
/// 3. A receiver that streams NMEA but answers nothing is reported as generic NMEA.
///
/// Every wait is bounded by the port's clock; nothing blocks longer than the windows given.
public struct ReceiverDetector {
    /// The port to probe. The detector changes its line rate and leaves it at the rate found.
    public let port: any SerialPort
    /// Line rates to try, in order.
    public var baudRates: [BaudRate]
    /// How long to listen at each rate.
    public var listenWindow: Duration
    /// How long to wait for the reply to each identity query.
    public var replyWindow: Duration

    /// Creates a detector with the documented order and windows (1.2 s listen, 1 s per query).
    public init(port: any SerialPort,
                baudRates: [BaudRate] = [9600, 38400, 115200, 57600, 4800, 19200].compactMap { BaudRate($0) },
                listenWindow: Duration = .milliseconds(1200), replyWindow: Duration = .seconds(1)) {
        self.port = port
        self.baudRates = baudRates
        self.listenWindow = listenWindow
        self.replyWindow = replyWindow
    }

    /// The identity queries in the order they are sent.
    public static let identityQueries: [(name: String, bytes: [UInt8])] = [
        ("UBX-MON-VER poll", UBXMessage.pollVersion.bytes),
        ("$PMTK605", NMEACommand("PMTK605").bytes),
        ("$PCAS06,0", NMEACommand("PCAS06,0").bytes),
        ("$PAIR021", NMEACommand("PAIR021").bytes),
        ("$PGKC462", NMEACommand("PGKC462").bytes),
    ]

    /// Listens on the port until `deadline`, or until `stop` says the report is enough.
    public func listen(until deadline: MonotonicInstant,
                       stop: (ListenReport) -> Bool = { _ in false }) throws(HardwareError) -> ListenReport {
        let framer = NMEAFramer()
        var sink = ListenSink()
        var buffer = [UInt8](repeating: 0, count: 512)
        while port.clock.now() < deadline {
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(HardwareError) -> Int in try port.read(into: raw, deadline: deadline) }
            }
            let count = try result.get()
            if count == 0 { break }
            sink.report.bytes += count
            framer.feed(buffer[0..<count].span, into: &sink)
            if stop(sink.report) { break }
        }
        sink.report.garbageBytes = framer.counters.garbageBytes
        return sink.report
    }

    /// Sends `bytes` and listens for `replyWindow` (ending by `deadline` at the latest), stopping
    /// early once `match` finds a reply.
    func ask(_ bytes: [UInt8], by deadline: MonotonicInstant = .distantFuture,
             match: @escaping (ListenReport) -> ReceiverIdentity?) throws(HardwareError) -> (ListenReport, ReceiverIdentity?)
    {
        try port.writeAll(bytes, deadline: min(deadline, port.clock.deadline(after: replyWindow)))
        let report = try listen(until: min(deadline, port.clock.deadline(after: replyWindow))) { match($0) != nil }
        return (report, match(report))
    }

    /// Runs detection. Hardware errors (the port vanished, permission) are thrown; a silent port
    /// is a result with advice, not an error.
    public func detect() throws(HardwareError) -> DetectionResult {
        var steps: [DetectionStep] = []
        var sawBytes = false
        for rate in baudRates {
            try port.setBaudRate(rate)
            try port.discard(.input)
            var report = try listen(until: port.clock.deadline(after: listenWindow)) { $0.validSentences.count >= 4 }
            sawBytes = sawBytes || report.bytes > 0
            steps.append(DetectionStep(baudRate: rate.rawValue, action: "listen \(listenWindow.secondsDouble) s",
                                       outcome: summary(report)))
            var identity: ReceiverIdentity? = nil
            if !report.looksLikeReceiver {
                // Asleep or output off: wake it, then ask at this rate.
                try port.writeAll([0xFF], deadline: port.clock.deadline(after: replyWindow))
                port.clock.sleep(for: .milliseconds(200))
                let (found, reply) = try identify(at: rate, steps: &steps)
                guard let found else { continue }
                identity = found
                report = reply
            } else {
                identity = Self.identityFromBanners(report)
                if identity == nil {
                    let (found, _) = try identify(at: rate, steps: &steps)
                    identity = found
                }
            }
            let types = Self.sentenceTypes(report)
            let final = identity ?? ReceiverIdentity(
                family: .genericNMEA, evidence: "valid NMEA at \(rate.rawValue) baud; no identity query answered")
            return DetectionResult(port: port.name, baudRate: rate.rawValue, identity: final,
                                   sentenceTypes: types, steps: steps, advice: [])
        }
        var advice = [
            "Check that the receiver has power (its LED blinks once it has a fix; a PPS LED blinks each second).",
            "Check the wiring: the receiver's TX goes to the board's RX, its RX to the board's TX, and the grounds are joined.",
            "On a Raspberry Pi, enable the UART (enable_uart=1 in config.txt) and take the serial console off it (raspi-config nonint do_serial_cons 1).",
            "Make sure no other program reads the port (gpsd: systemctl stop gpsd.socket gpsd).",
        ]
        if sawBytes {
            advice.insert("Bytes arrived but never a valid sentence: the receiver may use a line rate not tried, or the line is noisy.", at: 0)
        } else {
            advice.insert("Nothing at all arrived at any rate: the receiver is silent, unpowered or not on this port.", at: 0)
        }
        return DetectionResult(port: port.name, baudRate: nil, identity: nil, sentenceTypes: [],
                               steps: steps, advice: advice)
    }

    /// Sends `queries` (the identity queries unless given) in order and returns the first identity
    /// found, with the report of the window that found it; no query is sent once `deadline` has come.
    func identify(at rate: BaudRate, steps: inout [DetectionStep],
                  queries: [(name: String, bytes: [UInt8])] = identityQueries,
                  by deadline: MonotonicInstant = .distantFuture) throws(HardwareError) -> (ReceiverIdentity?, ListenReport)
    {
        for query in queries {
            guard port.clock.now() < deadline else { break }
            let (report, identity) = try ask(query.bytes, by: deadline) { report in
                Self.identityFromReplies(report)
            }
            steps.append(DetectionStep(baudRate: rate.rawValue, action: "send \(query.name)",
                                       outcome: identity.map { "answered: \($0)" } ?? summary(report)))
            if let identity { return (identity, report) }
        }
        return (nil, ListenReport())
    }

    /// An identity from a query reply: a u-blox MON-VER, `$PMTK705`, CASIC `TXT` lines, `$PAIR021`, `$PGKC462`.
    public static func identityFromReplies(_ report: ListenReport) -> ReceiverIdentity? {
        for frame in report.ubxFrames where frame.messageClass == 0x0A && frame.id == 0x04 {
            if let version = UBXVersion(payload: frame.payload), let identity = ReceiverIdentity.from(version: version) {
                return identity
            }
        }
        return identityFromBanners(report)
    }

    /// An identity from the sentences heard (banners and replies), merging CASIC's IC/SW/HW lines.
    public static func identityFromBanners(_ report: ListenReport) -> ReceiverIdentity? {
        var found: ReceiverIdentity? = nil
        for sentence in report.validSentences {
            let body = sentence.split(separator: "*", maxSplits: 1).first.map(String.init) ?? sentence
            guard let identity = ReceiverIdentity.from(sentence: body) else { continue }
            if var merged = found, merged.family == identity.family {
                merged.model = merged.model ?? identity.model
                merged.firmware = merged.firmware ?? identity.firmware
                found = merged
            } else if found == nil || (found?.model == nil && identity.model != nil) {
                found = identity
            }
        }
        return found
    }

    /// The distinct addresses (`GPRMC`, `PMTK001`) heard, in first-heard order.
    public static func sentenceTypes(_ report: ListenReport) -> [String] {
        var seen: [String] = []
        for sentence in report.validSentences {
            let address = String(sentence.dropFirst().prefix { $0 != "," && $0 != "*" })
            if !seen.contains(address) { seen.append(address) }
        }
        return seen
    }

    func summary(_ report: ListenReport) -> String {
        if report.bytes == 0 { return "silence" }
        var parts = ["\(report.bytes) bytes", "\(report.validSentences.count) valid sentences"]
        if report.invalidSentences > 0 { parts.append("\(report.invalidSentences) with bad checksums") }
        if !report.ubxFrames.isEmpty { parts.append("\(report.ubxFrames.count) UBX frames") }
        if report.garbageBytes > 0 { parts.append("\(report.garbageBytes) garbage bytes") }
        return parts.joined(separator: ", ")
    }
}
