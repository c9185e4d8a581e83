import BoardConfig
import EnginePlatforms
@testable import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LocationAPI
import PowerPolicy
import SimulatedHardware
import Testing

/// Aided starts through the engine on a manual clock: a client runs, stops for hours (the policy
/// puts the receiver in backup), and runs again; the wake after the long sleep carries the
/// synchronised system time and the last fix to the emulated receiver, whose start shortens to
/// the data sheet's aided figure. The health counters show both times to first fix.
@Suite("Aided starts through the engine")
struct AidedStartEngineTests {
    static func engine(family: String, model: String, synchronised: Bool, receiverAwake: Bool = true)
        throws -> (LocationEngine, ReceiverEmulator)
    {
        let board = try ReceiverTestBoards.board(family: family, model: model, scenario: "stationary")
        return try ReceiverTestBoards.engine(board, receiverAwake: receiverAwake, synchronised: synchronised)
    }

    /// Two minutes of fixes, `hours` without a client, then 90 s with one again.
    static func sleepAndWake(_ engine: LocationEngine, hours: Double) -> UnitHealth {
        let id = engine.register(name: "c") { _ in }.id
        engine.update(id) { $0.updatingLocation = true; $0.desiredAccuracy = .bestForNavigation }
        engine.advance(by: .seconds(120))
        engine.update(id) { $0.updatingLocation = false }
        engine.advance(by: .seconds(hours * 3600))
        engine.update(id) { $0.updatingLocation = true }
        engine.advance(by: .seconds(90))
        return engine.health()
    }

    @Test("after 6 h in backup, aiding lowers the TTFF by the data sheets' factor: MT3339 35 → 15 s, u-blox M10 30 → 4 s, M8 30 → 2 s",
          arguments: [ReceiverProfile.mt3339, .ubloxM10, .ubloxM8])
    func factor(profile: ReceiverProfile) throws {
        let trial = AidedStartTrial(profile: profile, sleepHours: 6)
        let plainRun = try trial.run(synchronised: false)
        let aidedRun = try trial.run(synchronised: true)
        let (plain, aided) = (plainRun.health, aidedRun.health)
        let aidedFigure = try #require(profile.aidedStart)

        #expect(plainRun.aidingReceived.isEmpty, "no synchronised clock: no aiding")
        #expect(plain.aidedAcquisitions == 0 && !plain.lastAcquisitionAided)
        let unaidedTTFF = try #require(plain.unaidedTimeToFirstFix)
        // The model decides in whole seconds and the receiver reports once a second: ±1.5 s.
        #expect(abs(unaidedTTFF - profile.warmStart) <= 1.5, "a warm start: \(unaidedTTFF) s")

        #expect(aidedRun.aidingReceived.count == 2, "\(aidedRun.aidingReceived)")
        #expect(aidedRun.aidingReceived.first == (profile == .mt3339 ? "time ±1.00 s" : "time ±0.11 s"))
        // 6 h at 10 m/s on top of the last fix's accuracy: 216 km and a little.
        #expect(aidedRun.aidingReceived.last?.hasPrefix(profile == .mt3339 ? "position ±10000" : "position ±2160") == true)
        #expect(aided.aidedAcquisitions == 1 && aided.lastAcquisitionAided)
        let aidedTTFF = try #require(aided.aidedTimeToFirstFix)
        #expect(abs(aidedTTFF - aidedFigure) <= 1.5, "the aided start: \(aidedTTFF) s")
        #expect(aided.timeToFirstFix == aidedTTFF)
        #expect(unaidedTTFF / aidedTTFF >= 2, "\(unaidedTTFF) s → \(aidedTTFF) s")
        // The first acquisition (the receiver found tracking) was not aided.
        #expect(aided.acquisitions - aided.aidedAcquisitions >= 1)

        let json = HealthView.json(aided)
        #expect(json.contains("\"acquisitions_aided\":1") && json.contains("\"ttff_aided_s\"") && json.contains("\"ttff_last_aided\":true"), "\(json)")
        #expect(HealthView.lines(aided).contains { $0.contains("aided starts 1") }, "\(HealthView.lines(aided))")
    }

    @Test("no aiding without a position: the power-up of a receiver that never had a fix gets nothing, even with a synchronised clock")
    func noPosition() throws {
        let (engine, receiver) = try Self.engine(family: "mtk", model: "MT3339", synchronised: true, receiverAwake: false)
        let id = engine.register(name: "c") { _ in }.id
        engine.update(id) { $0.updatingLocation = true; $0.desiredAccuracy = .bestForNavigation }
        engine.advance(by: .seconds(60))
        #expect(engine.lastLocation != nil, "the receiver woke and fixed")
        #expect(receiver.aidingReceived.isEmpty && engine.receiver.executor?.aidingSent == 0)
    }

    @Test("no aiding with a fix too old: 9 h at 10 m/s grows past the 300 km limit; a sleep under an hour is not aided")
    func positionTooOld() throws {
        let (engine, receiver) = try Self.engine(family: "mtk", model: "MT3339", synchronised: true)
        let health = Self.sleepAndWake(engine, hours: 9)
        #expect(receiver.aidingReceived.isEmpty, "\(receiver.aidingReceived)")
        #expect(health.aidedAcquisitions == 0)
        let (short, shortReceiver) = try Self.engine(family: "mtk", model: "MT3339", synchronised: true)
        _ = Self.sleepAndWake(short, hours: 0.5)
        #expect(shortReceiver.aidingReceived.isEmpty, "a 30 min sleep ends in a hot start")
    }
}
