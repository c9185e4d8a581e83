import ArgumentParser
import BoardConfig
import FieldLocation
import FieldLocationDaemon

extension FieldLoc {
    /// `fieldloc time`: the time-daemon configuration that fits a board.
    struct Time: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the chrony (or ntpd) configuration lines that pair a board's fieldlocd with the time daemon.",
            discussion: """
            --chrony-conf prints `refclock SOCK` lines for the serial time and, on a board with a PPS line, the \
            pulse, with the board's time_offset as chrony's offset, and the fieldlocd arguments that feed them. \
            --ntp-conf prints ntpsec's `refclock shm` lines for units 0 and 1 (fieldlocd --ntp-shm). Without \
            either, prints both.
            """)

        @Option(help: "A built-in board name or a board file.")
        var board = "sim"

        @Flag(name: .customLong("chrony-conf"), help: "chrony.conf lines.")
        var chronyConf = false

        @Flag(name: .customLong("ntp-conf"), help: "ntp.conf lines (ntpsec, shared memory).")
        var ntpConf = false

        @Option(name: .customLong("socket-dir"), help: "The folder of chrony's SOCK sockets.")
        var socketDirectory = "/run"

        func run() throws {
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            let both = !chronyConf && !ntpConf
            if chronyConf || both { print(TimeDaemonConfiguration.chrony(description, folder: socketDirectory), terminator: "") }
            if both { print("") }
            if ntpConf || both { print(TimeDaemonConfiguration.ntp(description), terminator: "") }
        }
    }
}
