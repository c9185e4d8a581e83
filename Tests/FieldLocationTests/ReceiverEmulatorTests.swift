import Devices
import HardwareInterfaces
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Testing

/// A receiver emulator behind a simulated port on a manual clock, with helpers to read for a while.
struct Bench {
    let clock = ManualClock()
    let port: SimulatedSerialPort
    let receiver: ReceiverEmulator

    init(_ family: ReceiverEmulator.Family, _ profile: ReceiverProfile = .ubloxM10, scenario: String = "walk") {
        port = SimulatedSerialPort(name: "emu", clock: clock)
        receiver = ReceiverEmulator(family: family, profile: profile,
                                    trajectory: Trajectory.scenario(scenario, seconds: 7200)!, start: clock.now())
        port.attach(receiver)
    }

    /// Reads for `seconds` of simulated time; returns the valid sentences' addresses and the fixes.
    func listen(_ seconds: Double) throws -> (sentences: [String], fixes: [Fix]) {
        let end = clock.now().advanced(by: .milliseconds(Int64(seconds * 1000)))
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, provenance: .simulator))
        var fixes: [Fix] = []
        var text = ""
        while clock.now() < end {
            let chunk = try port.readAvailable(deadline: end)
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            chunk.withUnsafeBufferPointer { stream.feed($0.span) { fixes.append($0) } }
        }
        let sentences = text.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            guard line.hasPrefix("$") else { return nil }
            return String(line.dropFirst().prefix { $0 != "," && $0 != "*" })
        }
        return (sentences, fixes.filter { $0.mode != .noFix })
    }
}

@Suite("Receiver emulator obeys the command sets the drivers send")
struct ReceiverEmulatorTests {
    @Test("MediaTek: rate, outputs, standby and wake by a byte, with PMTK001 answers")
    func mediatek() throws {
        let bench = Bench(.mediatek, .mt3339)
        let driver = MediaTekDriver(channel: CommandChannel(port: bench.port))
        try driver.configure(rateMilliseconds: 200, outputs: [.gga: 1, .rmc: 1])
        let fast = try bench.listen(2)
        #expect(fast.sentences.filter { $0 == "GNGGA" }.count >= 9)
        #expect(!fast.sentences.contains("GPGSV") && !fast.sentences.contains("GLGSV"))
        try driver.enterStandby()
        #expect(bench.receiver.powerState == .standby)
        let quiet = try bench.listen(10)
        #expect(quiet.sentences.filter { $0 == "GNGGA" }.isEmpty)
        try driver.wake()
        let back = try bench.listen(8)
        #expect(back.fixes.count >= 10, "hot start from standby, then 5 Hz")
        #expect((bench.receiver.ledger.entries[.receiver]?["standby"]?.seconds ?? 0) >= 10)
        #expect(throws: ReceiverError.self) { try driver.setRate(milliseconds: 20_000) }
    }

    @Test("u-blox M10: CFG-VALSET acknowledged, legacy CFG-RATE refused, PMREQ sleep, a byte wakes it")
    func ubloxM10() throws {
        let bench = Bench(.ublox10)
        let channel = CommandChannel(port: bench.port)
        let driver = UBloxDriver(channel: channel, generation: .m10)
        try driver.configure(rateMilliseconds: 500, outputs: [.gga: 1, .rmc: 1])
        #expect(bench.receiver.interval == .milliseconds(500))
        #expect(throws: ReceiverError.rejected(command: "UBX 06 08 (6 bytes)", reason: "ACK-NAK")) {
            try channel.send(UBXMessage.rate(milliseconds: 1000))
        }
        try driver.enterStandby()
        #expect(try bench.listen(5).sentences.isEmpty)
        try driver.wake()
        #expect(try bench.listen(6).fixes.count >= 5)
        // MON-VER identifies the generation.
        let version = try channel.poll(UBXMessage.pollVersion)
        #expect(UBXVersion(payload: version)?.generation == .m10)
    }

    @Test("u-blox 8: legacy messages acknowledged, VALSET refused; cyclic tracking costs less and loses the fix now and then")
    func ublox8() throws {
        let bench = Bench(.ublox8, .ubloxM8)
        let channel = CommandChannel(port: bench.port)
        let driver = UBloxDriver(channel: channel, generation: .m8)
        try driver.configure()
        #expect(throws: ReceiverError.self) { try channel.send(UBXMessage.setValues([(.rateMeasurement, 1000)])) }
        try driver.setCyclicTracking(true)
        #expect(bench.receiver.isPowerSaving)
        let hour = try bench.listen(3600)
        let epochs = hour.sentences.filter { $0 == "GNGGA" }.count
        #expect(epochs >= 3590)
        #expect(hour.fixes.count < epochs, "no fix loss in an hour of power save")
        let ledger = bench.receiver.ledger
        #expect((ledger.entries[.receiver]?["cyclic"]?.seconds ?? 0) > 3000)
        #expect(ledger.meanCurrent(.receiver) < ReceiverProfile.ubloxM8.tracking)
    }

    @Test("CASIC: 200/500/1000 ms only, no acknowledgements, timed standby")
    func casic() throws {
        let bench = Bench(.casic, .ubloxM10)
        let driver = CASICDriver(channel: CommandChannel(port: bench.port))
        try driver.setRate(milliseconds: 500)
        #expect(try bench.listen(4).sentences.filter { $0 == "GNGGA" }.count >= 7)
        #expect(throws: ReceiverError.self) { try driver.setRate(milliseconds: 250) }
        try CommandChannel(port: bench.port).send(PCAS.standby(seconds: 20))
        #expect(try bench.listen(15).sentences.filter { $0 == "GNGGA" }.isEmpty)
        #expect(try bench.listen(10).fixes.count >= 5, "wakes by itself after 20 s")
    }

    @Test("detection names every family the emulator plays")
    func detection() throws {
        for (family, expected) in [(ReceiverEmulator.Family.mediatek, ReceiverFamily.mediatek), (.ublox10, .ublox),
                                   (.ublox8, .ublox), (.casic, .casic)] {
            let bench = Bench(family)
            let result = try ReceiverDetector(port: bench.port).detect()
            #expect(result.identity?.family == expected, "\(family)")
            #expect(result.baudRate == 9600)
        }
    }
}
