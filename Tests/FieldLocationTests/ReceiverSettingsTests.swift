import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
@testable import FieldLocation
import HardwareInterfaces
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Testing

/// Receiver settings applied at run time (issue 20): the engine on a simulated board with a manual
/// clock, checked against the receiver emulator's own configuration.
@Suite("Receiver settings at run time")
struct ReceiverSettingsTests {
    /// A simulated board (the built-in sim board, MediaTek, or `family`'s receiver) and its emulator.
    static func engine(family: String? = nil, model: String = "") throws -> (LocationEngine, ReceiverEmulator) {
        let board = try family.map { try ReceiverTestBoards.board(family: $0, model: model) } ?? BoardCatalog.load(builtin: "sim")
        return try ReceiverTestBoards.engine(board)
    }

    static func client(_ engine: LocationEngine, _ accuracy: DesiredAccuracy, _ activity: ActivityType = .other) -> Int {
        let id = engine.register(name: "c") { _ in }.id
        engine.update(id) { s in
            s.updatingLocation = true
            s.desiredAccuracy = accuracy
            s.activityType = activity
        }
        return id
    }

    @Test("the decision's rate reaches the receiver (PMTK220) when it changes, and is not sent again while it holds")
    func rateChange() throws {
        let (engine, receiver) = try Self.engine()
        let id = Self.client(engine, .bestForNavigation)
        engine.advance(by: .seconds(20))
        #expect(engine.decision?.receiver == .continuous(rate: 10))
        #expect(receiver.interval == .milliseconds(100), "best for navigation: the MT3339's 10 Hz")
        engine.update(id) { $0.desiredAccuracy = .best }
        engine.advance(by: .seconds(20))
        #expect(receiver.interval == .seconds(1), "best: back to 1 Hz")
        let rates = receiver.commands.filter { $0.hasPrefix("PMTK220") }
        #expect(rates == ["PMTK220,100", "PMTK220,1000"], "one command per change over 40 ticks")
    }

    @Test("u-blox M10: the rate goes out as CFG-VALSET CFG-RATE-MEAS; M8: as CFG-RATE")
    func ubloxRate() throws {
        for (model, hertz) in [("MAX-M10S", 5.0), ("NEO-M8N", 10.0)] {
            let (engine, receiver) = try Self.engine(family: "ublox", model: model)
            _ = Self.client(engine, .bestForNavigation)
            engine.advance(by: .seconds(10))
            #expect(engine.decision?.receiver == .continuous(rate: hertz), "\(model)")
            #expect(receiver.interval == .milliseconds(Int64(1000 / hertz)), "\(model)")
        }
    }

    @Test("the merged activity sets the dynamic model: automotive on a u-blox (4), the most dynamic client wins, pedestrian (3) when it leaves")
    func dynamicModelUblox() throws {
        let (engine, receiver) = try Self.engine(family: "ublox", model: "MAX-M10S")
        let walker = Self.client(engine, .best, .fitness)
        engine.advance(by: .seconds(5))
        #expect(receiver.dynamicModel == 3)
        let car = Self.client(engine, .hundredMeters, .automotiveNavigation)
        engine.advance(by: .seconds(5))
        #expect(engine.decision?.activity == .automotiveNavigation)
        #expect(receiver.dynamicModel == 4, "CFG-NAVSPG-DYNMODEL automotive")
        engine.unregister(car)
        engine.advance(by: .seconds(5))
        #expect(receiver.dynamicModel == 3, "back to pedestrian")
        engine.unregister(walker)
    }

    @Test("the dynamic model on u-blox 8 (CFG-NAV5), MediaTek (PMTK886) and CASIC (PCAS11)")
    func dynamicModelFamilies() throws {
        let (m8, m8Receiver) = try Self.engine(family: "ublox", model: "NEO-M8N")
        _ = Self.client(m8, .best, .airborne)
        m8.advance(by: .seconds(5))
        #expect(m8Receiver.dynamicModel == 6, "airborne < 1 g")
        #expect(m8Receiver.commands.contains("UBX 6 36"))

        let (mtk, mtkReceiver) = try Self.engine()
        _ = Self.client(mtk, .best, .fitness)
        mtk.advance(by: .seconds(5))
        #expect(mtkReceiver.dynamicModel == 1, "fitness")
        #expect(mtkReceiver.commands.filter { $0 == "PMTK886,1" }.count == 1)

        let (casic, casicReceiver) = try Self.engine(family: "casic", model: "ATGM336H")
        _ = Self.client(casic, .best, .automotiveNavigation)
        casic.advance(by: .seconds(5))
        #expect(casicReceiver.dynamicModel == 3, "CFG-NAVX automotive")
        #expect(casicReceiver.commands.contains("PCAS11,3"))
    }

    @Test("outputs at bring-up and again after every wake from backup (the supply cut clears the receiver's RAM)")
    func outputsAfterWake() throws {
        let (engine, receiver) = try Self.engine()
        _ = Self.client(engine, .kilometer)
        var wakes = 0, wasOff = false, awakeSteps = 0
        for _ in 0..<3600 {
            engine.advance(by: .seconds(1))
            let off = receiver.powerState == .backup
            if off {
                #expect(!receiver.nmeaOutputs.contains("GST"), "the power cut reset the outputs")
            } else {
                awakeSteps += 1
                #expect(receiver.nmeaOutputs == ["GGA", "RMC", "GSA", "GSV", "GST"])
                if wasOff { wakes += 1 }
            }
            wasOff = off
        }
        #expect(wakes >= 3, "periodic fixes with backup between them")
        #expect(awakeSteps > 0)
        let outputs = receiver.commands.filter { $0.hasPrefix("PMTK314") }
        #expect(outputs.count == wakes + 1, "once at bring-up, once per wake")
        #expect(outputs.first == "PMTK314,0,1,0,1,1,5,0,1,0,0,0,0,0,0,0,0,0,0,0")
        #expect(receiver.commands.filter { $0.hasPrefix("PMTK220") }.count == wakes + 1)
    }
}

@Suite("Receiver emulator learns the settings commands")
struct EmulatorSettingsTests {
    @Test("each family's dynamic model command sets the emulator's model; the M10 refuses CFG-NAV5; a power cut resets it")
    func dynamicModel() throws {
        let m10 = Bench(.ublox10)
        let channel = CommandChannel(port: m10.port)
        try UBloxDriver(channel: channel, generation: .m10).setDynamicModel(.automotive)
        #expect(m10.receiver.dynamicModel == 4)
        #expect(throws: ReceiverError.rejected(command: "UBX 06 24 (36 bytes)", reason: "ACK-NAK")) {
            try channel.send(UBXMessage.navigationEngine(dynamicModel: .sea))
        }
        let m8 = Bench(.ublox8, .ubloxM8)
        let m8Channel = CommandChannel(port: m8.port)
        try UBloxDriver(channel: m8Channel, generation: .m8).setDynamicModel(.pedestrian)
        #expect(m8.receiver.dynamicModel == 3)
        var invalid = UBXMessage.navigationEngine(dynamicModel: .portable)
        invalid.payload[2] = 1  // reserved on u-blox
        #expect(throws: ReceiverError.self) { try m8Channel.send(invalid) }
        #expect(throws: ReceiverError.self) { try m8Channel.send(UBXMessage.setValues([(.dynamicModel, 4)])) }

        let mtk = Bench(.mediatek, .mt3339)
        try MediaTekDriver(channel: CommandChannel(port: mtk.port)).setDynamicModel(.airborne)
        #expect(mtk.receiver.dynamicModel == 2)
        #expect(throws: ReceiverError.rejected(command: "$PMTK886,7*2F", reason: "flag 2: valid but failed")) {
            try CommandChannel(port: mtk.port).send(NMEACommand("PMTK886,7"), acknowledgedAs: 886)
        }

        let casic = Bench(.casic)
        try CASICDriver(channel: CommandChannel(port: casic.port)).setDynamicModel(.pedestrian)
        #expect(casic.receiver.dynamicModel == 2)

        try MediaTekDriver(channel: CommandChannel(port: mtk.port)).configure(rateMilliseconds: 200, outputs: [.gga: 1, .gst: 1])
        #expect(mtk.receiver.nmeaOutputs == ["GGA", "GST"])
        mtk.receiver.setPower(false, at: mtk.clock.now())
        mtk.receiver.setPower(true, at: mtk.clock.now().advanced(by: .seconds(1)))
        #expect(mtk.receiver.dynamicModel == 0)
        #expect(mtk.receiver.interval == .seconds(1))
        #expect(mtk.receiver.nmeaOutputs == ["GGA", "RMC", "GSA", "GSV"])
    }
}
