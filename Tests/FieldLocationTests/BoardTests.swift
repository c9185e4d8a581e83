import FieldLocationStore
import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
import FieldLocationOutput
import Heading
import SimulatedHardware
import Testing

@Suite("Boards end to end on simulated hardware: registers, drivers, NMEA, heading")
struct BoardTests {
    @Test("every built-in simulated board runs: fixes through the NMEA engine, headings through the drivers")
    func watchSim() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let platform = try BoardHardware.simulatedPlatform(for: board)
        var lines: [String] = []
        let summary = try BoardWatch(board: board, platform: platform).run(duration: .seconds(10)) { lines.append($0) }
        #expect(summary.fixes >= 9)
        #expect(summary.headings >= 9)
        #expect(summary.warnings.isEmpty, "\(summary.warnings)")
        // True heading appears once a fix gave the position.
        let firstFix = try #require(lines.firstIndex { $0.hasPrefix(#"{"class":"FIX""#) })
        #expect(lines[..<firstFix].allSatisfy { !$0.contains(#""true":"#) })
        #expect(lines[firstFix...].contains { $0.contains(#""true":"#) })
    }

    @Test("guided calibration on the simulated board makes headings good and within 2° of the truth")
    func calibrateThenHeading() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let dance = try BoardHardware.simulatedPlatform(for: board, motion: .calibrationDance(maximumTilt: 180))
        var sensors = try BoardSensors.open(board, platform: dance)
        var routine = LiveCalibration()
        routine.expectedField = 48.4
        let (fit, samples) = try routine.run(&sensors, clock: dance.clock) { _ in }
        let calibration = try #require(fit)
        #expect(calibration.quality.verdict == .good, "\(calibration.quality.reasons)")
        #expect(samples.count < 1800, "the routine stops as soon as the fit is good")
        // Still at a known attitude: yaw 30° true.
        let still = try BoardHardware.simulatedPlatform(for: board, motion: .still(BodyAttitude(yaw: 30, pitch: 5, roll: -4)))
        var unit = try BoardSensors.open(board, platform: still)
        unit.engine.calibration = calibration
        let sim = try #require(board.simulation)
        unit.engine.reference = ReferenceField(WorldMagneticModel.wmm2025.evaluate(
            latitude: sim.latitude, longitude: sim.longitude, heightKm: sim.altitude / 1000, decimalYear: 2026.5))
        still.manualClock.advance(by: .seconds(1))
        let reading = try unit.heading()
        let trueHeading = try #require(reading.trueHeading)
        #expect(abs(wrap180(trueHeading - 30)) < 2, "true heading \(trueHeading)")
        #expect(reading.quality == .good, "\(reading.flags.names)")
    }

    @Test("detect on the simulated board names the chips and the MediaTek receiver")
    func detectSim() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let platform = try BoardHardware.simulatedPlatform(for: board)
        let report = DetectReport.run(platform: platform, onlyBuses: [1], onlyPorts: [BoardHardware.simulatedPortName])
        #expect(report.buses.first?.findings.compactMap(\.chip) == [.lsm303agrMagnetometer, .lsm6dsox])
        #expect(report.ports.first?.result?.identity?.family == .mediatek)
        #expect(report.ports.first?.result?.baudRate == 9600)
        #expect(report.json.contains(#""family":"mtk""#))
    }

    @Test("a board whose sensor does not answer reports it and keeps the fixes coming")
    func missingSensor() throws {
        var board = try BoardCatalog.load(builtin: "sim")
        let platform = try BoardHardware.simulatedPlatform(for: board)
        board.sensors = board.sensors.map { var s = $0; if s.role.measuresMagneticField { s.address = I2CAddressForTest.lis3mdlAlt }; return s }
        let summary = try BoardWatch(board: board, platform: platform).run(duration: .seconds(3)) { _ in }
        #expect(summary.fixes >= 2)
        #expect(summary.warnings.first?.contains("no heading") == true)
    }
}

import HardwareInterfaces
enum I2CAddressForTest {
    static let lis3mdlAlt = I2CAddress(UInt8(0x1C))!
}

@Suite("Energy in the readout")
struct WatchEnergyTests {
    @Test("watch on the sim board ends with the receiver's charge per power state")
    func powerLine() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let simulated = try BoardHardware.simulatedBoard(for: board)
        var watch = BoardWatch(board: board, platform: simulated.platform)
        let receiver = simulated.receiver
        watch.energy = { receiver.ledger }
        var lines: [String] = []
        _ = try watch.run(duration: .seconds(60)) { lines.append($0) }
        let power = try #require(lines.last)
        #expect(power.hasPrefix(#"{"class":"POWER","component":"receiver","mAh":0.3333"#), "\(power)")
        #expect(power.contains(#""tracking":{"mAh":0.3333,"s":60.0}"#))
    }
}

@Suite("Receiver bring-up from a board file")
struct ReceiverBringUpTests {
    @Test("the sim board's MediaTek receiver is configured through its driver, and the command reaches the emulator")
    func simReceiver() throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let simulated = try BoardHardware.simulatedBoard(for: board)
        let port = try simulated.platform.openSerialPort(BoardHardware.simulatedPortName, baudRate: .b9600)
        let lines = try ReceiverBringUp.lines(for: board, platform: simulated.platform)
        let driver = try #require(ReceiverBringUp.driver(for: board, port: port, lines: lines))
        #expect(driver.family == .mediatek)
        try driver.configure(rateMilliseconds: 500)
        #expect(simulated.receiver.interval == .milliseconds(500))
        #expect(simulated.receiver.commands.contains("PMTK220,500"))
    }

    @Test("a board's power-enable and EXTINT lines are requested from its GPIO chip, active-low honoured")
    func lines() throws {
        let text = """
        name = "t"
        title = "test"
        simulated = true
        [receiver]
        baud = 9600
        family = "ublox"
        wake = ["extint", "power-enable"]
        [gpio]
        chip = "gpiochip0"
        gnss_power_enable = "gnss-enable"
        gnss_extint = "gnss-extint"
        gnss_reset = "gnss-reset"
        active_low = ["gnss_reset"]
        [sim]
        latitude = 1.0
        longitude = 2.0
        altitude = 3.0
        scenario = "stationary"
        receiver_model = "M10"
        """
        let board = try BoardLoader.load(text: text, file: "t.toml")
        let simulated = try BoardHardware.simulatedBoard(for: board)
        let lines = try ReceiverBringUp.lines(for: board, platform: simulated.platform)
        #expect(try lines.powerEnable?.get() == true)
        #expect(try lines.extint?.get() == false)
        // Logical: not in reset. On the wire the active-low reset is held high.
        #expect(try lines.reset?.get() == false)
        #expect(try simulated.platform.gpioChip(named: "gpiochip0")?.line(named: "gnss-reset")?.get() == true)
        #expect(try simulated.platform.gpioChip(named: "gpiochip0")?.line(named: "gnss-enable")?.get() == true)
        #expect(lines.forceOn == nil)
    }
}
