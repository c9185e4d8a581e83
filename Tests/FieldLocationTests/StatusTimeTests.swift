import BoardConfig
import FieldLocation
import FieldLocationOutput
import Testing

/// The time rows of `fieldloc status`.
@Suite("Status: the time service's rows")
struct StatusTimeTests {
    @Test("the status readout shows the time source, both offsets, the sentence delay and the refusal, in text and JSON")
    func statusRows() throws {
        let engine = try LocationEngine.simulated(board: try BoardCatalog.load(builtin: "sim"))
        let monitor = StatusMonitor(engine: engine)
        defer { monitor.close() }
        engine.advance(by: .seconds(3))
        var snapshot = monitor.snapshot()
        snapshot.time = StatusTime(source: "NMEA on /dev/serial0 + PPS /dev/pps0 (RFC 2783)", serialOffset: 0.0123, pulseOffset: -0.000002,
                                   sentenceDelay: 0.503, configuredOffset: 0.5, serialSamples: 12, pulseSamples: 11, refusal: nil)
        let text = StatusView.text(snapshot)
        #expect(text.contains("Time       NMEA on /dev/serial0 + PPS /dev/pps0 (RFC 2783)"))
        #expect(text.contains("offset serial +0.012300 s (12 samples), PPS -0.000002 s (11)   sentence delay 0.503 s (time_offset 0.500 s)"))
        let json = StatusView.json(snapshot)
        #expect(json.contains("\"time_service\":{\"source\":\"NMEA on /dev/serial0 + PPS /dev/pps0 (RFC 2783)\",\"serial_offset\":0.012300000,\"pps_offset\":-0.000002000,\"sentence_delay\":0.503000,\"time_offset\":0.500000,\"serial_samples\":12,\"pps_samples\":11}"))
        #expect(StatusTime.source(of: engine.board, followsSystemClock: false).contains("its own clock"))
    }
}
