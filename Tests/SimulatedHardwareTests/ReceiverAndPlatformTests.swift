import HardwareInterfaces
import NMEA
import SimulatedHardware
import Testing

/// The NMEA checksum computed here, independently of the simulator.
private func framed(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    let digits = Array("0123456789ABCDEF")
    return "$\(body)*\(digits[Int(sum >> 4)])\(digits[Int(sum & 0x0F)])\r\n"
}

@Suite("Simulated GNSS receiver and platform")
struct ReceiverAndPlatformTests {
    @Test("a 1 Hz walking receiver: GGA, RMC, GSA, GSV parse with NMEAStream into one fix per second")
    func receiverParses() throws {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "ttySIM0", clock: clock)
        // Walking east at 1.4 m/s from 48.1173 N, 11.5167 E.
        let receiver = ReceiverEmulator(family: .mediatek, profile: .mt3339,
                                        trajectory: .legs([.init(duration: 60, speed: 1.4, course: 90)], latitude: 48.1173, longitude: 11.5167),
                                        start: clock.now(), tracking: true)
        port.attach(receiver)
        let stream = NMEAStream()
        var fixes: [Fix] = []
        let end = clock.deadline(after: .milliseconds(10_500))
        var lines: [String] = []
        while clock.now() < end {
            let chunk = try port.readAvailable(deadline: end)
            lines += String(decoding: chunk, as: UTF8.self).split(separator: "\r\n").map(String.init)
            stream.feed(chunk.span) { fixes.append($0) }
        }
        stream.finish { fixes.append($0) }
        #expect(receiver.epochCount == 10)
        #expect(fixes.count == 10)
        #expect(stream.counters.totalRejected == 0)
        // A multi-GNSS receiver: GN for the solution and GSA, GSV per constellation's talker.
        for type in ["GNGGA", "GNRMC", "GNGSA", "GPGSV", "GLGSV", "GAGSV", "GBGSV"] {
            #expect(lines.filter { $0.hasPrefix("$" + type) }.count >= 10, "\(type)")
        }
        let first = try #require(fixes.first), last = try #require(fixes.last)
        // The emulator's position error is a few metres (a Gauss-Markov process of 1.5 m per axis).
        func north(_ f: Fix) -> Double { ((f.latitude ?? 0) - 48.1173) * 111_194.9 }
        func east(_ f: Fix) -> Double { ((f.longitude ?? 0) - 11.5167) * 111_194.9 * 0.66773 }
        #expect(abs(north(first)) < 10 && abs(east(first) - 1.4) < 10)
        // Ten seconds at 1.4 m/s east: 14 m.
        #expect(abs(east(last) - 14) < 10)
        #expect(abs(north(last)) < 10)
        #expect(abs((last.speed ?? 0) - 1.4) < 0.01)
        // The sky the emulator sees at the last epoch (its own calendar: 2026-05-01, noon at the start).
        let sky = EmulatedSky.satellites(unixSeconds: 1_777_636_800 + 10, latitude: 48.1173, longitude: 11.5167 + 14 / (111_194.9 * 0.66773))
        #expect(last.satellitesUsed == sky.filter(\.used).count && sky.filter(\.used).count >= 16)
        #expect(last.satellites.count == sky.count)
    }

    @Test("$PMTK220 is acknowledged with $PMTK001,220,3 and changes the rate; a bad rate is refused")
    func rateCommand() throws {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "ttySIM0", clock: clock)
        let receiver = ReceiverEmulator(family: .mediatek, profile: .mt3339,
                                        trajectory: .legs([.init(duration: 60, speed: 0, course: 0)], latitude: -33.8688, longitude: 151.2093),
                                        start: clock.now(), tracking: true)
        port.attach(receiver)
        clock.advance(by: .milliseconds(2500))
        _ = try port.readAvailable(maximum: 4096, deadline: clock.now())
        #expect(receiver.epochCount == 2)
        try port.writeAll(framed("PMTK220,200"), deadline: clock.now())
        var pending: [UInt8] = []
        let ack = try port.readLine(pending: &pending, deadline: clock.deadline(after: .milliseconds(100)))
        #expect(ack.map { String(decoding: $0, as: UTF8.self) + "\r\n" } == framed("PMTK001,220,3"))
        #expect(receiver.interval == .milliseconds(200))
        #expect(receiver.commands == ["PMTK220,200"])
        // The next second holds five epochs.
        let start = receiver.epochCount
        let end = clock.deadline(after: .seconds(1))
        while clock.now() < end { _ = try port.readAvailable(maximum: 4096, deadline: end) }
        #expect(receiver.epochCount - start == 5)

        try port.writeAll(framed("PMTK220,5"), deadline: clock.now())
        pending = []
        var reply: String?
        while let line = try port.readLine(pending: &pending, deadline: clock.deadline(after: .milliseconds(500))) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("$PMTK001") { reply = text + "\r\n"; break }
        }
        #expect(reply == framed("PMTK001,220,2"))
        #expect(receiver.interval == .milliseconds(200))
        // A bad checksum is ignored.
        try port.writeAll("$PMTK220,1000*00\r\n", deadline: clock.now())
        #expect(receiver.interval == .milliseconds(200))
    }

    @Test("the platform builds buses, chips, lines and ports from a description")
    func platform() throws {
        let description = SimulatedPlatformDescription(
            buses: [.init(number: 1, devices: [.init(.lsm303agrAccelerometer), .init(.lsm303agrMagnetometer), .init(.icm20948)]),
                    .init(number: 3, devices: [.init(.lis3mdl), .init(.lsm6dsox, address: 0x6B), .init(.qmc5883l), .init(.mmc5983ma)])],
            gpioChips: [.init(name: "gpiochip0", lines: ["GPIO4", "GPIO17"])],
            serialPorts: [.init(path: "/dev/ttyAMA0", baudRate: 9600, receiver: .init(latitude: 51.5, longitude: -0.12)),
                          .init(path: "/dev/ttyUSB0", baudRate: 115200)])
        let platform = try SimulatedPlatform(description)
        #expect(platform.availableI2CBuses() == [1, 3])
        #expect(platform.candidateSerialPorts() == ["/dev/ttyAMA0", "/dev/ttyUSB0"])
        let bus1 = try platform.openI2CBus(1)
        var present: [UInt8] = []
        for raw in UInt8(0x03)...0x77 {
            if let address = I2CAddress(raw), try bus1.probe(address) { present.append(raw) }
        }
        #expect(present == [0x19, 0x1E, 0x69], "the AK09916 stays hidden behind the closed bypass")
        let bus3 = try platform.openI2CBus(3)
        let identities: [(UInt8, UInt8, UInt8)] = [(0x1C, 0x0F, 0x3D), (0x6B, 0x0F, 0x6C), (0x0D, 0x0D, 0xFF), (0x30, 0x2F, 0x30)]
        for (raw, register, value) in identities {
            #expect(try bus3.readRegister(register, at: try #require(I2CAddress(raw))) == value)
        }
        #expect(kind { () throws(HardwareError) in try platform.openI2CBus(2) } == .notFound)

        let port = try platform.openSerialPort("/dev/ttyAMA0", baudRate: .b9600)
        #expect(kind { () throws(HardwareError) in try platform.openSerialPort("/dev/ttyAMA0", baudRate: .b9600) } == .busy)
        var pending: [UInt8] = []
        let line = try #require(try port.readLine(pending: &pending, deadline: platform.clock.deadline(after: .seconds(2))))
        #expect(String(decoding: line, as: UTF8.self).hasPrefix("$GNGGA"))
        port.close()
        platform.serialPort("/dev/ttyAMA0")?.unplug()
        #expect(kind { () throws(HardwareError) in try platform.openSerialPort("/dev/ttyAMA0", baudRate: .b9600) } == .notFound)
        #expect(kind { () throws(HardwareError) in try platform.openSerialPort("/dev/ttyS9", baudRate: .b9600) } == .notFound)

        let pps = try platform.requestInput(chip: "gpiochip0", line: .name("GPIO4"), edges: .rising, bias: .pullDown)
        platform.gpioChip(named: "gpiochip0")?.line(named: "GPIO4")?.schedulePulses(
            GPIOPulseTrain(start: platform.clock.deadline(after: .milliseconds(300))))
        #expect(try pps.waitForEdge(deadline: platform.clock.deadline(after: .seconds(1)))?.edge == .rising)
        #expect(kind { () throws(HardwareError) in try platform.requestOutput(chip: "gpiochip9", line: .offset(0), initial: false) } == .notFound)
    }

    @Test("a bad description is refused with the bus, address or path named")
    func badDescriptions() {
        func error(_ d: SimulatedPlatformDescription) -> HardwareError? {
            do {
                _ = try SimulatedPlatform(d)
                return nil
            } catch {
                return error
            }
        }
        let badAddress = error(.init(buses: [.init(number: 1, devices: [.init(.lis3mdl, address: 0x7A)])]))
        #expect(badAddress?.kind == .invalidArgument && badAddress?.description.contains("0x7a") == true)
        let clash = error(.init(buses: [.init(number: 1, devices: [.init(.lis3mdl, address: 0x1E), .init(.lsm303agrMagnetometer)])]))
        #expect(clash?.kind == .invalidArgument && clash?.device == "sim-i2c-1@0x1e")
        let akClash = error(.init(buses: [.init(number: 0, devices: [.init(.icm20948), .init(.icm20948, address: 0x68)])]))
        #expect(akClash?.device == "sim-i2c-0@0x0c")
        let baud = error(.init(serialPorts: [.init(path: "/dev/ttyAMA0", baudRate: 1234)]))
        #expect(baud?.device == "/dev/ttyAMA0" && baud?.kind == .invalidArgument)
    }
}
