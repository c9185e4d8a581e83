import BoardConfig
import Testing

/// The top-level `gpsd_clients` key: the demand fieldlocd's gpsd and NMEA-TCP watchers add.
@Suite("board key gpsd_clients")
struct GPSDClientsKeyTests {
    @Test("absent means best; each level and passive read back")
    func values() throws {
        #expect(try BoardLoader.load(text: validBoard, file: "Boards/t.toml").gpsdClients == .best)
        for value in GPSDClientDemand.allCases {
            let text = board(replacing: "simulated = false\n", with: "simulated = false\ngpsd_clients = \"\(value.rawValue)\"\n")
            #expect(try BoardLoader.load(text: text, file: "Boards/t.toml").gpsdClients == value)
        }
    }

    @Test("a bad value names the file, line, column and the values allowed")
    func badValue() {
        let text = board(replacing: "simulated = false\n", with: "simulated = false\ngpsd_clients = \"pasive\"\n")
        #expect(throws: (any Error).self) { try BoardLoader.load(text: text, file: "Boards/t.toml") }
        do {
            _ = try BoardLoader.load(text: text, file: "Boards/t.toml")
        } catch {
            #expect(error.description == "Boards/t.toml:4:16: key 'gpsd_clients': 'pasive' is not one of passive, bestForNavigation, best, nearestTenMeters, hundredMeters, kilometer, threeKilometers (did you mean 'passive'?)",
                    "\(error.description)")
        }
        let number = board(replacing: "simulated = false\n", with: "simulated = false\ngpsd_clients = 3\n")
        do {
            _ = try BoardLoader.load(text: number, file: "Boards/t.toml")
            Issue.record("a number was accepted")
        } catch {
            #expect(error.description.hasPrefix("Boards/t.toml:4:16: key 'gpsd_clients'"), "\(error.description)")
        }
    }
}
