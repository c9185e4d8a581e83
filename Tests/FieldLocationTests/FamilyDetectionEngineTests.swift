import BoardConfig
import EnginePlatforms
import FieldLocationOutput
@testable import FieldLocation
import HardwareInterfaces
import LocationAPI
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Synchronization
import Testing

/// The errors a client heard.
final class HeardErrors: Sendable {
    let value = Mutex<[String]>([])
    var all: [String] { value.withLock { $0 } }
}

/// `family = "auto"` through the whole engine: the simulated board's receiver emulator is of a
/// known family, the board the engine runs names none, so the engine finds it on arrival.
@Suite("Family detection on arrival, through the engine")
struct FamilyDetectionEngineTests {
    static func board(family: String?, model: String?, mode: String = "ram") throws -> BoardDescription {
        try BoardLoader.load(text: """
            name = "t"
            title = "test"
            simulated = true
            [receiver]
            baud = 9600
            \(family.map { "family = \"\($0)\"" } ?? "")
            \(model.map { "model = \"\($0)\"" } ?? "")
            wake = "uart-byte"
            receiver_config = "\(mode)"
            [sim]
            latitude = 47.3769
            longitude = 8.5417
            scenario = "walk"
            """, file: "t.toml")
    }

    /// An engine on a board that leaves the family to detection (`auto`: `family = "auto"`;
    /// otherwise no `family`), with an emulated receiver of `family`/`model` talking at `baud`.
    static func engine(emulating family: String, _ model: String, auto: Bool = true, mode: String = "ram", baud: BaudRate = .b9600,
                       powered: Bool = true) throws -> (LocationEngine, ReceiverEmulator, HeardErrors) {
        let emulated = try board(family: family, model: model)
        let detected = try board(family: auto ? "auto" : nil, model: nil, mode: mode)
        let clock = ManualClock()
        let sim = try BoardHardware.simulatedBoard(for: emulated, clock: clock)
        sim.platform.serialPort(BoardHardware.simulatedPortName)?.setPeerBaudRate(baud)
        if !powered { sim.receiver.setPower(false, at: clock.now()) }
        let engine = LocationEngine(board: detected, platform: SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver),
                                    receiverAwake: true)
        let errors = HeardErrors()
        let id = engine.register(name: "c") { event in
            if case .error(let error) = event { errors.value.withLock { $0.append("\(error)") } }
        }.id
        engine.update(id) { $0.updatingLocation = true; $0.desiredAccuracy = .best }
        return (engine, sim.receiver, errors)
    }

    @Test("the board's family: absent or auto detects; a named one does not")
    func boardKeys() throws {
        #expect(try Self.board(family: nil, model: nil).receiver?.detectsFamily == true)
        #expect(try Self.board(family: "auto", model: nil).receiver?.detectsFamily == true)
        let named = try Self.board(family: "mtk", model: nil).receiver
        #expect(named?.detectsFamily == false && named?.family == .mediatek && named?.familySpelling == "mtk")
    }

    @Test("a u-blox M8 is identified by MON-VER, gets the legacy driver, and the sources show it")
    func ubloxM8() throws {
        let (engine, receiver, errors) = try Self.engine(emulating: "ublox", "NEO-M8N")
        engine.advance(by: .seconds(30))
        let source = try #require(engine.receiverSources.first)
        #expect(source.family == "ublox")
        #expect(source.model == "NEO-M8N")
        #expect(source.gpsdDriver == "u-blox")
        #expect(source.identification?.contains("UBX-MON-VER") == true, "\(source.identification ?? "")")
        #expect(engine.controlsReceiver)
        // Driven as an M8: legacy CFG-MSG (06 01), accepted; one MON-VER poll only (the arrival's).
        #expect(receiver.commands.contains("UBX 6 1"))
        #expect(receiver.commands.filter { $0 == "UBX 10 4" }.count == 1)
        #expect(engine.lastLocation != nil)
        #expect(errors.all.contains { $0.contains("identified as ublox (u-blox M8, NEO-M8N") }, "\(errors.all)")
    }

    @Test("no family in the board file: an M10 identified as with auto, and driven with configuration keys")
    func ubloxM10WithoutFamily() throws {
        let (engine, receiver, _) = try Self.engine(emulating: "ublox", "MAX-M10S", auto: false)
        engine.advance(by: .seconds(20))
        let source = try #require(engine.receiverSources.first)
        #expect(source.family == "ublox" && source.model == "MAX-M10S")
        // CFG-VALSET (06 8A), which the M10 takes.
        #expect(receiver.commands.contains("UBX 6 138"))
        // u-blox 8 and later output the binary navigation messages by default: chosen on arrival.
        #expect(engine.receiver.receiverDescription?.output == .both)
    }

    @Test("a MediaTek receiver at 115200 is found there by autobaud, identified, and delivers fixes")
    func mediatekAtAnotherRate() throws {
        let (engine, receiver, _) = try Self.engine(emulating: "mtk", "MT3339", baud: .b115200)
        engine.advance(by: .seconds(30))
        let source = try #require(engine.receiverSources.first)
        #expect(source.family == "mtk")
        #expect(source.baudRate == 115_200)
        #expect(source.gpsdDriver == "MTK-3301")
        #expect(receiver.commands.contains { $0.hasPrefix("PMTK605") })
        #expect(receiver.commands.contains { $0.hasPrefix("PMTK314") }, "the MediaTek driver sets its sentences")
        #expect(engine.lastLocation != nil)
    }

    @Test("passive: nothing is written over an hour; a CASIC receiver is named by its stream, a MediaTek one mid-stream is not")
    func passive() throws {
        let (casic, casicReceiver, _) = try Self.engine(emulating: "casic", "AT6558", mode: "passive")
        casic.advance(by: .seconds(3600))
        #expect(casicReceiver.bytesReceived == 0)
        #expect(casic.receiverSources.first?.family == "casic")
        #expect(!casic.controlsReceiver)
        #expect(casic.lastLocation != nil)
        let (mtk, mtkReceiver, _) = try Self.engine(emulating: "mtk", "MT3339", mode: "passive")
        mtk.advance(by: .seconds(60))
        #expect(mtkReceiver.bytesReceived == 0)
        let source = try #require(mtk.receiverSources.first)
        #expect(source.family == "generic-nmea")
        #expect(source.gpsdDriver == "NMEA0183")
        #expect(source.identification?.contains("passive") == true)
        #expect(mtk.lastLocation != nil)
    }

    @Test("a silent receiver: generic NMEA with the reason, within the deadline; the watchdog goes on")
    func silent() throws {
        let (engine, receiver, errors) = try Self.engine(emulating: "ublox", "MAX-M10S", powered: false)
        let start = engine.clock.now()
        engine.advance(by: .seconds(1))
        #expect(engine.clock.now() - start <= .seconds(11))
        let source = try #require(engine.receiverSources.first)
        #expect(source.family == "generic-nmea")
        #expect(source.identification?.contains("silent") == true, "\(source.identification ?? "")")
        #expect(!engine.controlsReceiver)
        #expect(errors.all.contains { $0.contains("family not identified") })
        // The wake byte and the queries went out at the board's rate; the watchdog keeps looking.
        #expect(receiver.bytesReceived > 0)
        engine.advance(by: .seconds(30))
        #expect(engine.statistics.watchdogWakes >= 1)
    }

    @Test("fieldloc receiver on an auto board identifies the receiver first; one it cannot identify is refused with the reason")
    func settingsTool() throws {
        let detected = try Self.board(family: "auto", model: nil)
        let clock = ManualClock()
        let sim = try BoardHardware.simulatedBoard(for: try Self.board(family: "ublox", model: "NEO-M8N"), clock: clock)
        let tool = try ReceiverSettingsTool(board: detected, platform: SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver))
        #expect(tool.board.receiver?.family == .ublox && tool.board.receiver?.model == "NEO-M8N")
        // Read with the M8's legacy polls (CFG-RATE, 06 08).
        #expect(try tool.showText().hasPrefix("rate=1000"))
        #expect(sim.receiver.commands.contains("UBX 6 8"))
        let silent = try BoardHardware.simulatedBoard(for: try Self.board(family: "mtk", model: "MT3339"), clock: ManualClock())
        silent.receiver.setPower(false, at: silent.platform.clock.now())
        #expect {
            _ = try ReceiverSettingsTool(board: detected, platform: SimulatedEnginePlatform(platform: silent.platform, receiver: silent.receiver))
        } throws: { error in
            "\(error)".contains("not identified (silent")
        }
    }
}
