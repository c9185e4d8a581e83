import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationDaemon
import HardwareInterfaces
import SimulatedHardware
import Testing

/// gpsd's DEVICES for a receiver whose family was found on arrival: the driver and subtype are the
/// identified family's and model's, not the board file's placeholder.
@Suite("Detected family in gpsd's DEVICES")
struct FamilyDetectionDevicesTests {
    @Test("an auto board's u-blox M8 is listed with gpsd's u-blox driver and its module as subtype, at the rate found")
    func devices() throws {
        func board(_ family: String) throws -> BoardDescription {
            try BoardLoader.load(text: """
                name = "t"
                title = "test"
                simulated = true
                [receiver]
                baud = 9600
                family = "\(family)"
                model = "NEO-M8N"
                [sim]
                latitude = 47.3769
                longitude = 8.5417
                """, file: "t.toml")
        }
        let clock = ManualClock()
        let sim = try BoardHardware.simulatedBoard(for: try board("ublox"), clock: clock)
        sim.platform.serialPort(BoardHardware.simulatedPortName)?.setPeerBaudRate(.b38400)
        var detected = try board("auto")
        detected.receiver?.model = nil
        let engine = LocationEngine(board: detected, platform: SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver))
        let feed = EngineFeed(engine: engine)
        // Before the arrival: the placeholder.
        #expect(feed.devices.first?.driver == "NMEA0183")
        engine.advance(by: .seconds(5))
        let device = try #require(feed.devices.first)
        #expect(device.driver == "u-blox")
        #expect(device.subtype == "NEO-M8N")
        #expect(device.bps == 38_400)
        #expect(device.path == feed.device.path)
    }
}
