import EnginePlatforms
import BoardConfig
import Devices
@testable import FieldLocation
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Testing

/// The receiver's power profile comes from the device catalogue's model table, for the policy,
/// the energy ledger and the simulated receiver alike.
@Suite("Receiver power profiles from the device catalogue")
struct ReceiverPowerProfileTests {
    /// A simulated board whose receiver is `family` (board spelling) `model`.
    static func board(family: String, model: String) throws -> BoardDescription {
        try ReceiverTestBoards.board(family: family, model: model, scenario: "stationary", wake: nil)
    }

    @Test("M8, M9, M10, F9P, MTK and CASIC receivers take their profile from their model's row", arguments: [
        ("ublox", "NEO-M8N", ReceiverModel.ubloxM8, ReceiverProfile.ubloxM8),
        ("ublox", "NEO-M9N", .ubloxM9, .ubloxM10),
        ("ublox", "MAX-M10S", .ubloxM10, .ubloxM10),
        ("ublox", "ZED-F9P", .ubloxF9, .ubloxM10),
        ("mtk", "MT3339", .mt3339, .mt3339),
        ("mediatek", "PA1010D", .mt3339, .mt3339),
        ("casic", "AT6558", .at6558, .ubloxM10),
    ])
    func knownModels(family: String, model: String, row: ReceiverModel, measured: ReceiverProfile) throws {
        let board = try Self.board(family: family, model: model)
        let receiver = try #require(board.receiver)
        #expect(ReceiverModel.lookup(family: receiver.family, model: receiver.model) == row)
        #expect(row.entry.family == receiver.family)
        #expect(row.powerProfile == measured, "the figures before the catalogue")
        // The row's figures, without cyclic tracking where the family has no receiver-managed power save (CASIC).
        var expected = row.powerProfile
        if !receiver.family.capabilities.powerModes.contains(.powerSave) { expected.cyclicTracking = nil }
        #expect((expected.cyclicTracking == nil) == (family == "casic" || family == "mtk" || family == "mediatek"))
        #expect(LocationEngine.powerProfile(of: board) == expected)
        let sim = try BoardHardware.simulatedBoard(for: board)
        let engine = LocationEngine(board: board, platform: SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver))
        #expect(engine.policy.profile == expected, "the engine's policy runs on the row's profile")
        #expect(ReceiverEmulator.Family(model: row).model.powerProfile == row.powerProfile, "the simulated receiver draws the row's current")
    }

    @Test("a model the table does not know takes its family's default row; a board without a receiver counts as generic NMEA")
    func defaults() throws {
        #expect(ReceiverModel.lookup(family: .ublox, model: "SAM-Q") == .ubloxM10)
        #expect(ReceiverModel.lookup(family: .ublox, model: nil) == .ubloxM10)
        #expect(ReceiverModel.lookup(family: .ublox, model: "NEO-6M") == .ublox6)
        #expect(ReceiverModel.ublox6.powerProfile == .ubloxM10 && ReceiverModel.ublox7.powerProfile == .ubloxM10, "as before the catalogue")
        #expect(!ReceiverModel.ublox7.entry.binaryOutputByDefault && ReceiverModel.ubloxM8.entry.binaryOutputByDefault)
        #expect(ReceiverModel.lookup(family: .casic, model: "L76K") == .at6558)
        #expect(ReceiverModel.lookup(family: .mediatek, model: "NEO-M8N") == .mt3339, "markers count only within the family")
        #expect(ReceiverModel.lookup(family: .genericNMEA, model: "anything") == .genericNMEA)
        for family in ReceiverFamily.allCases {
            #expect(family.entry.defaultModel.entry.family == family, "\(family)'s default model is one of its own")
        }
    }
}
