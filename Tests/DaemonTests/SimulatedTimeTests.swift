import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
import FieldLocationDaemon
import HardwareInterfaces
import LocationServices
import NMEA
import SimulatedHardware
import Testing

/// The simulated board's receiver on the system clock plus an offset (`fieldlocd --sim-time-offset`),
/// on a manual clock with a fixed "system time" at the start: deterministic.
@Suite("Time service on the simulated board")
struct SimulatedTimeTests {
    /// 2026-06-30 12:00:00.25 UTC: the system time when the engine starts.
    static let systemAtStart: Int64 = 1_782_820_800_250_000_000

    @Test("with --sim-time-offset 0.05 every serial sample's offset is +50 ms, dated by the system clock, not 2026-05-01")
    func offset() throws {
        let engine = try LocationEngine.simulated(board: try BoardCatalog.load(builtin: "sim"))
        let time = SimulatedSystemTime(offsetSeconds: 0.05)
        time.start(engine: engine, at: engine.clock.now(), systemNow: Self.systemAtStart)
        let sink = CapturingSink()
        let clock = engine.clock
        let service = TimeService(sinks: .init(serial: [sink]), baudRate: nil, monotonicNow: { clock.now() },
                                  systemNanoseconds: time.systemNanoseconds)
        _ = engine.observe { service.observe($0) }
        let monitor = StatusMonitor(engine: engine)  // a client: the receiver runs
        defer { monitor.close() }
        engine.advance(by: .seconds(10))
        #expect(sink.samples.count >= 5, "\(service.status)")
        for sample in sink.samples {
            #expect(abs(sample.offsetSeconds - 0.05) < 1e-6, "offset \(sample.offsetSeconds)")
            let day = CalendarDate(daysSinceEpoch: Int(sample.referenceNanoseconds / 86_400_000_000_000))
            #expect(day.year == 2026 && day.month == 6 && day.day == 30)
            // Epochs at whole seconds of the receiver's (offset) clock.
            #expect(sample.referenceNanoseconds % 1_000_000_000 == 0)
        }
        let fix = try #require(monitor.snapshot().fix?.time)
        #expect(fix.iso8601(fractionDigits: 0).hasPrefix("2026-06-30T12:00:"))
    }

    @Test("a negative offset runs the receiver behind; samples follow the speed-1 mapping however far the run goes")
    func behind() throws {
        let engine = try LocationEngine.simulated(board: try BoardCatalog.load(builtin: "sim"))
        let time = SimulatedSystemTime(offsetSeconds: -1.5)
        time.start(engine: engine, at: engine.clock.now(), systemNow: Self.systemAtStart)
        let sink = CapturingSink()
        let clock = engine.clock
        let service = TimeService(sinks: .init(serial: [sink]), baudRate: nil, monotonicNow: { clock.now() },
                                  systemNanoseconds: time.systemNanoseconds)
        _ = engine.observe { service.observe($0) }
        let monitor = StatusMonitor(engine: engine)
        defer { monitor.close() }
        engine.advance(by: .seconds(60))
        #expect(sink.samples.count >= 50)
        #expect(sink.samples.allSatisfy { abs($0.offsetSeconds + 1.5) < 1e-6 })
    }

    @Test("without the offset the simulated receiver keeps its own calendar (2026-05-01, noon at the start), as the manual-clock tests expect")
    func ownCalendar() throws {
        let engine = try LocationEngine.simulated(board: try BoardCatalog.load(builtin: "sim"))
        let monitor = StatusMonitor(engine: engine)
        defer { monitor.close() }
        engine.advance(by: .seconds(5))
        let fix = try #require(monitor.snapshot().fix?.time)
        #expect(fix.iso8601(fractionDigits: 0).hasPrefix("2026-05-01T12:00:0"))
    }
}
