import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationAPI

extension FieldLoc {
    /// `fieldloc detect`: find sensors on the I2C buses and receivers on the serial ports.
    struct Detect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the sensors on the I2C buses and the GNSS receivers on the serial ports.",
            discussion: """
            Probes every address a supported chip can have and identifies chips by their identity registers \
            (the QMC5883L by its behaviour); probes each likely serial port at 9600, 38400, 115200, 57600, \
            4800 and 19200 baud for valid NMEA or UBX, then asks for the receiver's identity (UBX-MON-VER, \
            $PMTK605, $PCAS06, $PAIR021, $PGKC462). Prints what it found, and what to check where nothing \
            answered. With --board, only that board's bus and port are probed; --board sim probes the \
            simulated devices.
            """)

        @Option(help: "Probe only this board's bus and port (a built-in name or a board file).")
        var board: String?

        @Option(name: .customLong("bus"), help: "Scan only this I2C bus (repeatable).")
        var buses: [Int] = []

        @Option(name: .customLong("port"), help: "Probe only this serial port (repeatable).")
        var ports: [String] = []

        @Flag(name: .customLong("no-serial"), help: "Skip the serial ports.")
        var noSerial = false

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            var onlyBuses: [Int]? = buses.isEmpty ? nil : buses
            var onlyPorts: [String]? = noSerial ? [] : (ports.isEmpty ? nil : ports)
            var platform: any HardwarePlatform = LinuxPlatform()
            if let board {
                let description: BoardDescription
                do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
                platform = try BoardHardware.enginePlatform(for: description, linux: LinuxPlatform()).hardware
                if onlyBuses == nil, let bus = description.i2cBus { onlyBuses = [bus] }
                if onlyPorts == nil { onlyPorts = [description.receiver?.uart ?? BoardHardware.simulatedPortName] }
            }
            let report = DetectReport.run(platform: platform, onlyBuses: onlyBuses, onlyPorts: onlyPorts)
            print(json ? report.json : report.text, terminator: json ? "\n" : "")
        }
    }
}
