import FieldLocation
import FieldLocationOutput
import FieldLocationTime
import HardwareInterfaces
import LocationServices

/// The time rows of `fieldloc status` for a board run in this process: a ``TimeService`` without
/// sinks (the same sampler `fieldlocd` runs) observes the engine, and its status fills the snapshot's
/// ``StatusTime``: the source, the last serial and PPS offsets, the measured sentence delay.
///
/// A simulated board's receiver runs on the system clock (plus `--sim-time-offset`), sampled as
/// `fieldlocd` samples it, or from the fixed start `--sim-time` gives.
final class StatusTimeReadout: Sendable {
    private let engine: LocationEngine
    private let service: TimeService?
    private let simulated: SimulatedSystemTime?
    private let observer: Int?
    private let source: String
    private let configuredOffset: Double

    init(engine: LocationEngine, simulated clock: SimulatedSystemTime) {
        self.engine = engine
        let board = engine.board
        configuredOffset = board.receiver?.timeOffset ?? 0
        let configuration = TimeSampler.Configuration(timeOffset: configuredOffset)
        if board.simulated {
            let simulated = clock
            self.simulated = simulated
            source = StatusTime.source(of: board, followsSystemClock: clock.fixedStartNanoseconds == nil)
            let clock = engine.clock
            service = TimeService(sinks: .init(), configuration: configuration, baudRate: nil,
                                  monotonicNow: { clock.now() }, systemNanoseconds: simulated.systemNanoseconds)
        } else {
            simulated = nil
            source = StatusTime.source(of: board)
            service = TimeService(sinks: .init(), configuration: configuration, baudRate: board.receiver.map { Int($0.baudRate.rawValue) })
        }
        observer = service.map { service in engine.observe { service.observe($0) } }
    }

    /// The engine's start anchor (see ``SimulatedSystemTime/start(engine:at:systemNow:)``).
    var started: (@Sendable (MonotonicInstant) -> Void)? {
        guard let simulated else { return nil }
        let engine = self.engine
        return { instant in simulated.start(engine: engine, at: instant) }
    }

    /// `snapshot` with its time rows.
    func fill(_ snapshot: StatusSnapshot) -> StatusSnapshot {
        var snapshot = snapshot
        guard let service else {
            snapshot.time = StatusTime(source: source, configuredOffset: configuredOffset)
            return snapshot
        }
        let status = service.status
        snapshot.time = StatusTime(source: source, serialOffset: status.lastSerialOffset, pulseOffset: status.lastPulseOffset,
                                   sentenceDelay: status.measuredSentenceDelay, configuredOffset: configuredOffset,
                                   serialSamples: status.serialSamples, pulseSamples: status.pulseSamples, refusal: status.lastRefusal)
        return snapshot
    }

    /// Stops observing the engine.
    func close() {
        if let observer { engine.removeObserver(observer) }
    }
}
