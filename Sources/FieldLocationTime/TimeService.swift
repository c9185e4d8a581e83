import FieldLocation
import HardwareInterfaces
import LinuxHardware
import LocationAPI
import LocationServices
import Logging
import NMEA
import Synchronization

/// The unit's GNSS time and PPS for chrony and ntpd: every observation of the feed goes through a
/// ``TimeSampler`` and each sample to the configured sinks (chrony SOCK sockets, NTP SHM segments).
///
/// The serial sample of an epoch is stamped with the arrival of the epoch's first byte: the
/// monotonic time of the first chunk after the previous fix, less the chunk's own transmission
/// time at the port's baud rate (the bytes that were already waiting in the buffer), converted to
/// the system clock by bracketing reads of both clocks. A sink that refuses a sample (chronyd not
/// running yet) is logged once per outage and tried again with the next sample.
public final class TimeService: Sendable {
    /// Where the samples go.
    public struct Sinks: Sendable {
        /// Serial-time samples (chrony `refclock SOCK` for the serial source, SHM unit 0).
        public var serial: [any TimeReferenceSink]
        /// PPS samples (chrony `refclock SOCK` for PPS, SHM unit 1).
        public var pulse: [any TimeReferenceSink]

        /// Sinks.
        public init(serial: [any TimeReferenceSink] = [], pulse: [any TimeReferenceSink] = []) {
            self.serial = serial
            self.pulse = pulse
        }
    }

    /// What the service has done, for `fieldloc status` and logs.
    public struct Status: Sendable, Hashable {
        /// Serial and PPS samples delivered (to at least one sink; taken, for a service without sinks).
        public var serialSamples = 0
        public var pulseSamples = 0
        /// The last offsets (true time minus system time), seconds.
        public var lastSerialOffset: Double?
        public var lastPulseOffset: Double?
        /// Why the last fix or pulse gave no sample, if it did not.
        public var lastRefusal: String?
        /// The receiver's measured sentence delay after the pulse, seconds (the `time_offset` to set).
        public var measuredSentenceDelay: Double?
        /// Sinks failing now, with why.
        public var failingSinks: [String: String] = [:]
    }

    private struct State {
        var sampler: TimeSampler
        var epochStart: MonotonicInstant?
        var status = Status()
    }

    private let sinks: Sinks
    private let baudRate: Int?
    private let monotonicNow: @Sendable () -> MonotonicInstant
    private let systemNanoseconds: @Sendable (MonotonicInstant) -> Int64
    private let logger: Logger
    private let state: Mutex<State>

    /// A service for a receiver at `baudRate` (nil: no transmission-time compensation, as for a replay).
    /// `monotonicNow` and `systemNanoseconds` (a monotonic instant on the system clock) default to the
    /// Linux clocks; tests inject their own.
    public init(sinks: Sinks, configuration: TimeSampler.Configuration = .init(), baudRate: Int?,
                monotonicNow: (@Sendable () -> MonotonicInstant)? = nil,
                systemNanoseconds: (@Sendable (MonotonicInstant) -> Int64)? = nil,
                logger: Logger = Logger(label: "fieldlocd.time")) {
        self.sinks = sinks
        self.baudRate = baudRate
        self.monotonicNow = monotonicNow ?? { SystemMonotonicClock().now() }
        self.systemNanoseconds = systemNanoseconds ?? TimeService.linuxSystemTime
        self.logger = logger
        state = Mutex(State(sampler: TimeSampler(configuration: configuration)))
    }

    /// How long `count` bytes take on a serial line at `bps`: 10 bits a byte (start, 8 data,
    /// stop); 0 without a rate (a replay, a socket). The serial sample's stamp and the gpsd
    /// socket's TOFF both take it off a chunk's arrival to find its first byte.
    package static func transmissionNanoseconds(of count: Int, bps: Int?) -> Int64 {
        guard let bps, bps > 0, count > 0 else { return 0 }
        return Int64(count) * 10 * 1_000_000_000 / Int64(bps)
    }

    /// The status now.
    public var status: Status { state.withLock { $0.status } }

    /// Feeds one observation of the engine (or replay).
    public func observe(_ observation: EngineObservation) {
        switch observation {
        case .bytes(let chunk):
            let now = monotonicNow()
            state.withLock { s in
                guard s.epochStart == nil else { return }
                // The chunk's first byte arrived this long ago.
                let nanoseconds = TimeService.transmissionNanoseconds(of: chunk.count, bps: baudRate)
                s.epochStart = MonotonicInstant(nanoseconds: now.nanoseconds &- UInt64(min(Int64(now.nanoseconds), nanoseconds)))
            }
        case .fix(let fix, let at):
            let result = state.withLock { s -> Result<TimeReferenceSample, TimeSampler.Refusal> in
                let arrival = s.epochStart ?? at
                s.epochStart = nil
                return s.sampler.serial(fix, arrivalSystemNanoseconds: systemNanoseconds(arrival), arrival: arrival,
                                        pendingLeap: fix.leapSecondChange)
            }
            deliver(result, to: sinks.serial, pulse: false)
        case .pps(let pulse):
            let result = state.withLock { s in
                s.sampler.pulse(pulse, edgeSystemNanoseconds: pulse.edgeSystemNanoseconds ?? systemNanoseconds(pulse.edge))
            }
            deliver(result, to: sinks.pulse, pulse: true)
        case .heading, .frames, .sensorSample, .advert, .receiverBytes, .receiverPort:
            break
        }
    }

    private func deliver(_ result: Result<TimeReferenceSample, TimeSampler.Refusal>, to targets: [any TimeReferenceSink], pulse: Bool) {
        switch result {
        case .failure(let refusal):
            state.withLock { $0.status.lastRefusal = refusal.description }
        case .success(let sample):
            var delivered = false
            var failures: [(String, String)] = []
            for sink in targets {
                do throws(HardwareError) {
                    try sink.submit(sample)
                    delivered = true
                } catch {
                    failures.append((sink.name, error.description))
                }
            }
            let (newlyFailing, recovered) = state.withLock { s -> ([(String, String)], [String]) in
                if delivered || targets.isEmpty {
                    if pulse {
                        s.status.pulseSamples += delivered || targets.isEmpty ? 1 : 0
                        s.status.lastPulseOffset = sample.offsetSeconds
                        s.status.measuredSentenceDelay = s.sampler.measuredSentenceDelay
                    } else {
                        s.status.serialSamples += delivered || targets.isEmpty ? 1 : 0
                        s.status.lastSerialOffset = sample.offsetSeconds
                    }
                }
                s.status.lastRefusal = nil
                let fresh = failures.filter { s.status.failingSinks[$0.0] == nil }
                var back: [String] = []
                for sink in targets where !failures.contains(where: { $0.0 == sink.name }) {
                    if s.status.failingSinks.removeValue(forKey: sink.name) != nil { back.append(sink.name) }
                }
                for (name, why) in failures { s.status.failingSinks[name] = why }
                return (fresh, back)
            }
            for (name, why) in newlyFailing { logger.warning("\(name): \(why)") }
            for name in recovered { logger.notice("\(name): samples delivered again") }
        }
    }

    /// A monotonic instant on the system clock: CLOCK_REALTIME read between two CLOCK_MONOTONIC reads,
    /// the tightest of five brackets kept (``ClockBracket``; error: half that bracket, well under a microsecond).
    @Sendable public static func linuxSystemTime(_ instant: MonotonicInstant) -> Int64 {
        ClockBracket.measure().systemTime(at: instant).systemNanoseconds
    }
}
