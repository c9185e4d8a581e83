import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
import Foundation
@testable import FieldLocation
import HardwareInterfaces
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Synchronization
import Testing

/// Receiver configuration modes (issue 23, item 3) on the simulated board (MediaTek) with a
/// manual clock, checked against the receiver emulator's byte count and settings.
@Suite("Receiver configuration modes")
struct ReceiverConfigModeTests {
    static func engine(_ mode: ReceiverConfigMode?, ublox model: String? = nil) throws -> (LocationEngine, ReceiverEmulator, ManualClock) {
        var board = try BoardCatalog.load(builtin: "sim")
        if let model { board = try ReceiverTestBoards.board(family: "ublox", model: model) }
        if let mode { board.receiver?.configMode = mode }
        let clock = ManualClock()
        let (engine, receiver) = try ReceiverTestBoards.engine(board, clock: clock)
        return (engine, receiver, clock)
    }

    /// A client that makes the engine change every setting it can: 10 Hz, and the fitness model.
    static func demandingClient(_ engine: LocationEngine, fixes: @escaping @Sendable (Int) -> Void = { _ in }) -> Int {
        let id = engine.register(name: "c") { event in
            if case .locations(let batch) = event { fixes(batch.count) }
        }.id
        engine.update(id) { s in
            s.updatingLocation = true
            s.desiredAccuracy = .bestForNavigation
            s.activityType = .fitness
        }
        return id
    }

    /// A user's own command, written to the emulator as another program would.
    static func userCommand(_ body: String, _ receiver: ReceiverEmulator, _ clock: ManualClock) {
        receiver.receive(NMEAChecksum.sentence(body: Array(body.utf8)) + [0x0D, 0x0A], at: clock.now())
    }

    @Test("the board key and its default: receiver_config = passive | ram | persist, ram when absent; a wrong value is named")
    func boardKey() throws {
        #expect(try BoardCatalog.load(builtin: "sim").receiver?.configMode == .ram)
        let text = { (value: String) in """
            name = "t"
            title = "t"
            simulated = true
            [receiver]
            baud = 9600
            family = "mtk"
            receiver_config = "\(value)"
            [sim]
            latitude = 47.3769
            longitude = 8.5417
            """ }
        for mode in ReceiverConfigMode.allCases {
            #expect(try BoardLoader.load(text: text(mode.rawValue), file: "t.toml").receiver?.configMode == mode)
        }
        #expect(throws: BoardError.self) { try BoardLoader.load(text: text("flash"), file: "t.toml") }
    }

    @Test("passive: zero bytes written to the receiver over an hour of the sim board, and fixes still arrive")
    func passiveWritesNothing() throws {
        let (engine, receiver, _) = try Self.engine(.passive)
        final class Count: Sendable { let value = Mutex(0) }
        let count = Count()
        _ = Self.demandingClient(engine) { n in count.value.withLock { $0 += n } }
        engine.advance(by: .seconds(3600))
        #expect(receiver.bytesReceived == 0, "passive mode wrote \(receiver.bytesReceived) bytes")
        let fixes = count.value.withLock { $0 }
        #expect(fixes > 1000, "fixes over the hour: \(fixes)")
        engine.shutdown()
        #expect(receiver.bytesReceived == 0, "nothing written at shutdown either")
        // The same demand in ram mode does write (the counter counts).
        let (other, otherReceiver, _) = try Self.engine(.ram)
        _ = Self.demandingClient(other)
        other.advance(by: .seconds(60))
        #expect(otherReceiver.bytesReceived > 0)
    }

    @Test("ram: the settings read before the first change (a user's 2 s, GGA and RMC) are back on exit; the engine's 10 Hz and model were in RAM meanwhile")
    func ramRestores() throws {
        let (engine, receiver, clock) = try Self.engine(.ram)
        Self.userCommand("PMTK220,2000", receiver, clock)
        Self.userCommand("PMTK314,0,1,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", receiver, clock)
        #expect(receiver.interval == .seconds(2) && receiver.nmeaOutputs == ["GGA", "RMC"])
        _ = Self.demandingClient(engine)
        engine.advance(by: .seconds(30))
        #expect(receiver.interval == .milliseconds(100), "the engine's 10 Hz")
        #expect(receiver.nmeaOutputs.isSuperset(of: ["GGA", "RMC", "GSA", "GSV", "GST"]))
        #expect(receiver.dynamicModel == 1, "fitness")
        #expect(engine.receiver.executor?.originalSettings?.rateMilliseconds == 2000)
        engine.shutdown()
        // Exit idles the sim board's receiver by cutting its supply: what it held then is what was restored.
        let atExit = try #require(receiver.configurationAtPowerOff, "the receiver was idled at exit")
        #expect(atExit.interval == .seconds(2), "restored: \(atExit.interval)")
        #expect(atExit.outputs == ["GGA", "RMC"], "restored: \(atExit.outputs.sorted())")
        #expect(atExit.dynamicModel == 0, "MediaTek cannot report its mode: back to the power-up vehicle mode")
        let commands = receiver.commands
        #expect(commands.contains("PMTK414") && commands.contains("PMTK400"), "read before changing")
        #expect(commands.firstIndex(of: "PMTK414")! < commands.firstIndex { $0.hasPrefix("PMTK220,100") }!)
        #expect(engine.receiver.executor?.failures.isEmpty == true, "\(engine.receiver.executor?.failures ?? [])")
    }

    @Test("persist on MediaTek: refused (PMTK changes RAM only), reported, and nothing is restored on exit")
    func persistMediaTek() throws {
        let (engine, receiver, _) = try Self.engine(.persist)
        _ = Self.demandingClient(engine)
        engine.advance(by: .seconds(30))
        #expect(engine.receiver.executor?.failures.contains { if case .unsupported = $0 { return true } else { return false } } == true)
        engine.shutdown()
        #expect(receiver.configurationAtPowerOff?.interval == .milliseconds(100), "persist restores nothing: \(receiver.commands.suffix(12))")
    }

    @Test("u-blox M10 ram: VALSET into RAM only, the read values back on exit; nothing saved, so a power cycle brings the defaults")
    func ubloxRam() throws {
        let (engine, receiver, clock) = try Self.engine(.ram, ublox: "MAX-M10S")
        _ = Self.demandingClient(engine)
        engine.advance(by: .seconds(30))
        #expect(receiver.interval == .milliseconds(200), "the M10's 5 Hz")
        #expect(receiver.binaryOutputs.contains("NAV-PVT"), "the board's default output (both) switched UBX on")
        #expect(receiver.savedConfiguration == nil, "ram mode writes no BBR")
        #expect(engine.receiver.executor?.originalSettings?.rateMilliseconds == 1000)
        engine.shutdown()
        let atExit = try #require(receiver.configurationAtPowerOff, "the receiver was idled at exit")
        #expect(atExit.interval == .seconds(1), "restored")
        #expect(atExit.outputs == ["GGA", "RMC", "GSA", "GSV"], "\(atExit.outputs.sorted())")
        #expect(atExit.dynamicModel == 0)
        #expect(atExit.binaryOutputs.isEmpty, "the binary messages off again: \(atExit.binaryOutputs.sorted())")
        receiver.setPower(false, at: clock.now())
        receiver.setPower(true, at: clock.now())
        #expect(receiver.interval == .seconds(1))
        #expect(engine.receiver.executor?.failures.isEmpty == true, "\(engine.receiver.executor?.failures ?? [])")
    }

    @Test("persist survives an emulated power cycle: u-blox M10 (VALSET BBR, read back by VALGET) and M8 (CFG-CFG save, loaded back)")
    func persistPowerCycle() throws {
        for (model, ms) in [("MAX-M10S", 200), ("NEO-M8N", 100)] {
            let (engine, receiver, clock) = try Self.engine(.persist, ublox: model)
            _ = Self.demandingClient(engine)
            engine.advance(by: .seconds(30))
            #expect(receiver.interval == .milliseconds(Int64(ms)), "\(model)")
            #expect(engine.receiver.executor?.failures.isEmpty == true, "\(model): \(engine.receiver.executor?.failures ?? [])")
            let saved = try #require(receiver.savedConfiguration, "\(model): nothing saved")
            #expect(saved.interval == .milliseconds(Int64(ms)) && saved.outputs.contains("GST"), "\(model)")
            engine.shutdown()
            receiver.setPower(false, at: clock.now())
            receiver.setPower(true, at: clock.now())
            #expect(receiver.interval == .milliseconds(Int64(ms)), "\(model): the saved rate after the power cycle")
            #expect(receiver.nmeaOutputs.contains("GST"), "\(model): the saved sentences after the power cycle")
        }
    }

    @Test("fieldloc receiver: show, set (the first snapshot kept), restore (file removed); a passive board is refused")
    func tool() throws {
        var board = try BoardCatalog.load(builtin: "sim")
        let sim = try BoardHardware.simulatedBoard(for: board, clock: ManualClock())
        let platform = SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver)
        let tool = try ReceiverSettingsTool(board: board, platform: platform)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiver-config-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = ReceiverSettingsTool.snapshotPath(board: board.name, directory: folder)
        let original = "rate=1000\noutputs=GGA:1,GLL:0,GSA:1,GSV:1,RMC:1,VTG:0,GST:0,ZDA:0\n"
        #expect(try tool.showText() == original)
        #expect(try tool.set(rateMilliseconds: 200, sentences: "GGA,RMC", snapshotPath: path) == original)
        #expect(sim.receiver.interval == .milliseconds(200) && sim.receiver.nmeaOutputs == ["GGA", "RMC"])
        _ = try tool.set(rateMilliseconds: 500, sentences: nil, snapshotPath: path)
        #expect(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) == original, "the first snapshot is kept")
        #expect(try tool.restoreText(snapshotPath: path) == original)
        #expect(sim.receiver.interval == .seconds(1) && sim.receiver.nmeaOutputs == ["GGA", "RMC", "GSA", "GSV"])
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: ReceiverSettingsTool.Problem.self) { try tool.save() }
        #expect(throws: ReceiverSettingsTool.Problem.self) { _ = try tool.set(rateMilliseconds: nil, sentences: "GGA,XYZ", snapshotPath: path) }
        board.receiver?.configMode = .passive
        #expect(throws: ReceiverSettingsTool.Problem.self) { _ = try ReceiverSettingsTool(board: board, platform: platform) }
    }

    @Test("u-blox M8 ram: polled before the change (CFG-RATE, CFG-MSG, CFG-NAV5), put back on exit, binary messages off again")
    func ubloxM8Ram() throws {
        let (engine, receiver, _) = try Self.engine(.ram, ublox: "NEO-M8N")
        _ = Self.demandingClient(engine)
        engine.advance(by: .seconds(30))
        #expect(receiver.interval == .milliseconds(100) && receiver.dynamicModel == 3 && receiver.binaryOutputs.contains("NAV-PVT"))
        engine.shutdown()
        let atExit = try #require(receiver.configurationAtPowerOff, "the receiver was idled at exit")
        #expect(atExit.interval == .seconds(1) && atExit.dynamicModel == 0, "\(atExit)")
        #expect(atExit.outputs == ["GGA", "RMC", "GSA", "GSV"] && atExit.binaryOutputs.isEmpty, "\(atExit)")
        #expect(receiver.savedConfiguration == nil, "nothing saved in ram mode")
        #expect(engine.receiver.executor?.failures.isEmpty == true, "\(engine.receiver.executor?.failures ?? [])")
    }
}
