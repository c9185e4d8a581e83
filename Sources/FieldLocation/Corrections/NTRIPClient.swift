import Foundation
import HardwareInterfaces
import NTRIP
import Synchronization

/// The NTRIP client: on a thread of its own it reads the caster's source table (for the
/// mountpoint's `nmea` flag), logs in, sends the unit's position as GGA at once and then every
/// ``NTRIPConfiguration/ggaInterval`` seconds when the mountpoint asks for it (or always), and puts
/// every RTCM 3 frame that passes its CRC-24Q into a ``CorrectionQueue`` that the engine drains
/// into the receiver's UART. A failure (refused, 401, unknown mountpoint, a silent or closed
/// connection, a broken response) is named in ``status`` and retried after an exponential backoff.
public final class NTRIPClient: Sendable {
    /// What the client knows, for status readouts.
    public struct Status: Sendable, Equatable {
        /// The link's state.
        public var link: NTRIPLinkState = .idle
        /// Whether GGA goes to the caster: `nil` until the source table (or the policy) says.
        public var sendsGGA: Bool?
        /// Frames, CRC failures, truncated frames, message types (with counts) and the station ID.
        public var frames = 0, crcFailures = 0, truncated = 0
        public var messageTypes: [UInt16: Int] = [:]
        public var station: Int?
        /// Connections made, and GGA sentences sent.
        public var connections = 0, ggaSent = 0
        /// The delay before the next attempt after a failure, seconds.
        public var retryIn: Double?
        /// The mountpoint's source-table record, when the table was read.
        public var record: NTRIPStreamRecord?
    }

    struct Shared {
        var status = Status()
        var position: GGAReport?
        var stop = false
        var thread = false
    }

    /// Where and how the client logs in.
    public let configuration: NTRIPConfiguration
    /// The frames for the receiver.
    public let queue: CorrectionQueue
    /// Seconds without a byte from the caster while streaming before the connection counts as lost.
    public let silenceTimeout: Double
    /// Seconds the connection and the caster's answer may take.
    public let connectTimeout: Double
    /// The backoff's first delay and cap, seconds.
    public let backoffRange: (initial: Double, maximum: Double)
    private let shared = Mutex(Shared())
    private let clock: any MonotonicClock
    private let network: any NetworkConnector

    /// A client for `configuration` over `network`, its frames into `queue`.
    public init(configuration: NTRIPConfiguration, network: any NetworkConnector,
                queue: CorrectionQueue = CorrectionQueue(), silenceTimeout: Double = 30,
                connectTimeout: Double = 10, backoff: (initial: Double, maximum: Double) = (1, 60)) {
        self.configuration = configuration
        self.queue = queue
        self.silenceTimeout = silenceTimeout
        self.connectTimeout = connectTimeout
        backoffRange = backoff
        self.network = network
        clock = network.clock
    }

    /// The status now.
    public var status: Status { shared.withLock { $0.status } }

    /// The unit's latest position, for the next GGA (a fix arrived).
    public func updatePosition(_ report: GGAReport) { shared.withLock { $0.position = report } }

    /// Starts the client's thread (once).
    public func start() {
        let begin = shared.withLock { s -> Bool in
            guard !s.thread else { return false }
            s.thread = true
            s.stop = false
            return true
        }
        guard begin else { return }
        let thread = Thread { [self] in run() }
        thread.name = "fieldloc-ntrip"
        thread.start()
    }

    /// Asks the thread to end; it closes its connection within a quarter second.
    public func stop() { shared.withLock { $0.stop = true } }

    private var stopping: Bool { shared.withLock { $0.stop } }

    private func update(_ body: (inout Status) -> Void) { shared.withLock { body(&$0.status) } }

    private func deadline(_ seconds: Double) -> MonotonicInstant {
        clock.now().advanced(by: .milliseconds(Int64(max(0, seconds) * 1000)))
    }

    private func run() {
        var backoff = NTRIPBackoff(initial: backoffRange.initial, maximum: backoffRange.maximum)
        var rtcm = RTCM3Stream()
        while !stopping {
            if configuration.gga == .auto && status.sendsGGA == nil { readSourceTable() }
            if case .mountpointNotFound = status.link {
                wait(backoff.failed())
                update { $0.sendsGGA = nil }
                continue
            }
            let delivered = stream(&rtcm)
            if stopping { break }
            if delivered { backoff.succeeded() }
            wait(backoff.failed())
        }
        update { $0.link = .idle; $0.retryIn = nil }
        shared.withLock { $0.thread = false }
    }

    /// Sleeps `seconds` in quarter seconds, ending early on stop.
    private func wait(_ seconds: Double) {
        update { $0.retryIn = seconds }
        let end = deadline(seconds)
        while !stopping && clock.now() < end { clock.sleep(until: min(end, deadline(0.25))) }
        update { $0.retryIn = nil }
    }

    /// Reads the source table for the mountpoint's `nmea` flag. An unreadable table leaves GGA on
    /// (a virtual reference station says nothing without it); a table without the mountpoint is
    /// ``NTRIPLinkState/mountpointNotFound``.
    private func readSourceTable() {
        var session = NTRIPSession(configuration: configuration, sourceTable: true)
        var rtcm = RTCM3Stream()
        session.connecting()
        update { $0.link = .connecting }
        guard let connection = try? network.connect(host: configuration.host, port: configuration.port,
                                                          deadline: deadline(connectTimeout)) else {
            return
        }
        defer { connection.close() }
        let end = deadline(connectTimeout)
        do {
            try connection.writeAll(session.request(), deadline: end)
            while session.sourceTable == nil, !session.state.isFailure, clock.now() < end, !stopping {
                guard let bytes = try connection.read(deadline: min(end, deadline(0.25))) else {
                    session.closed("end of the source table", rtcm: &rtcm)
                    break
                }
                _ = session.receive(bytes, rtcm: &rtcm)
            }
        } catch {
            return
        }
        guard let table = session.sourceTable, !table.streams.isEmpty else { return }
        if let record = table.stream(configuration.mountpoint) {
            update { $0.record = record; $0.sendsGGA = record.wantsNMEA }
        } else {
            update { $0.link = .mountpointNotFound }
        }
    }

    /// One connection: log in and stream until it fails or the client stops. Returns whether
    /// frames came.
    private func stream(_ rtcm: inout RTCM3Stream) -> Bool {
        var session = NTRIPSession(configuration: configuration)
        session.connecting()
        update { $0.link = .connecting }
        let connection: any NetworkConnection
        do {
            connection = try network.connect(host: configuration.host, port: configuration.port,
                                                   deadline: deadline(connectTimeout))
        } catch {
            session.connectFailed(error.description)
            update { $0.link = session.state }
            return false
        }
        defer { connection.close() }
        update { $0.connections += 1; $0.link = .awaitingResponse }
        let framesBefore = rtcm.frames
        var lastData = clock.now()
        let answerBy = deadline(connectTimeout)
        var nextGGA: MonotonicInstant?
        do {
            try connection.writeAll(session.request(), deadline: deadline(connectTimeout))
            while !stopping {
                let streaming: Bool
                if case .streaming = session.state { streaming = true } else { streaming = false }
                if streaming {
                    if nextGGA == nil { nextGGA = clock.now() }
                    if let due = nextGGA, clock.now() >= due, try sendGGA(connection) {
                        nextGGA = deadline(max(1, configuration.ggaInterval))
                    }
                    if (clock.now() - lastData).secondsDouble > silenceTimeout {
                        session.closed("no data for \(Int(silenceTimeout)) s", rtcm: &rtcm)
                        break
                    }
                } else if clock.now() > answerBy {
                    session.closed("no answer in \(Int(connectTimeout)) s", rtcm: &rtcm)
                    break
                }
                guard let bytes = try connection.read(deadline: deadline(0.25)) else {
                    session.closed("closed by the caster", rtcm: &rtcm)
                    break
                }
                if !bytes.isEmpty { lastData = clock.now() }
                for frame in session.receive(bytes, rtcm: &rtcm) { queue.push(frame) }
                publish(session.state, rtcm)
                if session.state.isFailure { break }
            }
        } catch {
            session.closed(error.description, rtcm: &rtcm)
        }
        publish(session.state, rtcm)
        return rtcm.frames > framesBefore
    }

    /// Sends the position when the policy and the source table want it. Returns whether it is
    /// settled for this interval (sent, or not wanted); false while no position is known yet.
    private func sendGGA(_ connection: any NetworkConnection) throws(HardwareError) -> Bool {
        let (wanted, position) = shared.withLock { s -> (Bool, GGAReport?) in
            let wanted: Bool
            switch configuration.gga {
            case .always: wanted = true
            case .never: wanted = false
            case .auto: wanted = s.status.sendsGGA ?? true
            }
            return (wanted, s.position)
        }
        guard wanted else { return true }
        guard let sentence = position?.sentence else { return false }
        try connection.writeAll(sentence, deadline: deadline(2))
        update { $0.ggaSent += 1 }
        return true
    }

    private func publish(_ link: NTRIPLinkState, _ rtcm: RTCM3Stream) {
        update { s in
            s.link = link
            s.frames = rtcm.frames
            s.crcFailures = rtcm.crcFailures
            s.truncated = rtcm.truncated
            s.messageTypes = rtcm.messageTypes
            s.station = rtcm.stationID
        }
    }
}
