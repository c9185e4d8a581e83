import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import FieldLocationTime
import Foundation
import HardwareInterfaces
import LinuxHardware

extension FieldLoc {
    /// `fieldloc time`: the time-daemon configuration that fits a board.
    struct Time: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the chrony (or ntpd) configuration lines that pair a board's fieldlocd with the time daemon.",
            discussion: """
            --chrony-conf prints `refclock SOCK` lines for the serial time and, on a board with a PPS line, the \
            pulse, with the board's time_offset as chrony's offset, and the fieldlocd arguments that feed them. \
            --ntp-conf prints ntpsec's `refclock shm` lines for units 0 and 1 (fieldlocd --ntp-shm). Without \
            either, prints both. --pps DEVICE reads COUNT pulses from a kernel PPS device (/dev/ppsN) through \
            the RFC 2783 ioctls, as fieldlocd does for a board with pps_device, and prints each edge's kernel \
            timestamp (CLOCK_REALTIME) and sequence number.
            """)

        @Option(help: "A built-in board name or a board file.")
        var board = "sim"

        @Flag(name: .customLong("chrony-conf"), help: "chrony.conf lines.")
        var chronyConf = false

        @Flag(name: .customLong("ntp-conf"), help: "ntp.conf lines (ntpsec, shared memory).")
        var ntpConf = false

        @Option(name: .customLong("socket-dir"), help: "The folder of chrony's SOCK sockets.")
        var socketDirectory = "/run"

        @Option(help: "Read pulses from this kernel PPS device (/dev/ppsN) instead of printing configuration.")
        var pps: String?

        @Option(help: "With --pps: how many pulses to read.")
        var count = 3

        @Option(help: "With --pps: seconds to wait for each pulse.")
        var timeout = 3.0

        func validate() throws {
            guard (1...3600).contains(count) else { throw ValidationError("--count must be in 1...3600") }
            guard timeout.isFinite, timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be above 0 and at most 3600 seconds") }
        }

        func run() throws {
            if let pps { return try readPulses(pps) }
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            let both = !chronyConf && !ntpConf
            if chronyConf || both { print(TimeDaemonConfiguration.chrony(description, folder: socketDirectory), terminator: "") }
            if both { print("") }
            if ntpConf || both { print(TimeDaemonConfiguration.ntp(description), terminator: "") }
        }

        /// Prints `count` assert edges of `path`, one line each; exit 1 when one does not come in time.
        func readPulses(_ path: String) throws {
            let device: LinuxPPSDevice
            do { device = try LinuxPPSDevice(path: path) } catch {
                Console.err("fieldloc time: \(error.description)\n")
                throw ExitCode(1)
            }
            defer { device.close() }
            print("\(path): capabilities 0x\(String(device.capabilities, radix: 16)), mode 0x\(String(device.mode, radix: 16))")
            let clock = SystemMonotonicClock()
            var last: PPSAssertEvent?
            do {
                last = try device.latest()
                for index in 1...count {
                    let deadline = clock.now().advanced(by: .nanoseconds(Int64(timeout * 1e9)))
                    guard let event = try device.waitForAssert(after: last?.sequence, deadline: deadline) else {
                        Console.err("fieldloc time: \(path): no pulse within \(timeout) s (pulse \(index) of \(count))\n")
                        throw ExitCode(1)
                    }
                    var line = "pulse \(index): \(event)"
                    if let last, event.sequence != last.sequence {
                        let interval = Double(event.systemNanoseconds - last.systemNanoseconds) / 1e9
                        line += String(format: "  interval %.6f s", interval)
                    }
                    line += "  monotonic \(event.monotonic.nanoseconds) ns (clock bracket ±\(event.conversionErrorNanoseconds) ns)"
                    print(line)
                    last = event
                }
            } catch let error as HardwareError {
                Console.err("fieldloc time: \(error.description)\n")
                throw ExitCode(1)
            }
        }
    }
}
