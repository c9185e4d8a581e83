import BoardConfig

/// The configuration lines that pair a board's `fieldlocd` with chrony or ntpd, as
/// `fieldloc time --chrony-conf` / `--ntp-conf` print them.
///
/// Socket names follow gpsd 3.25 and later, so existing chrony configurations keep working:
/// serial time to `chrony.clk.DEVICE.sock`, PPS to `chrony.DEVICE.sock`, in `/run`.
public enum TimeDaemonConfiguration {
    /// The device part of the socket names: the UART's last path component (`ttyAMA0`), or the board's name.
    public static func deviceName(_ board: BoardDescription) -> String {
        guard let uart = board.receiver?.uart, let last = uart.split(separator: "/").last, !last.isEmpty else { return board.name }
        return String(last)
    }

    /// The serial-time and PPS socket paths for `board` in `folder`.
    public static func socketPaths(_ board: BoardDescription, folder: String = "/run") -> (serial: String, pulse: String) {
        let device = deviceName(board)
        return ("\(folder)/chrony.clk.\(device).sock", "\(folder)/chrony.\(device).sock")
    }

    /// Whether the board has a PPS line.
    public static func hasPPS(_ board: BoardDescription) -> Bool { board.gpio?.line(.gnssPPS) != nil || board.gpio?.ppsDevice != nil }

    /// chrony.conf lines and the matching `fieldlocd` arguments.
    public static func chrony(_ board: BoardDescription, folder: String = "/run") -> String {
        let paths = socketPaths(board, folder: folder)
        let offset = board.receiver?.timeOffset ?? 0
        var lines = [
            "# chrony.conf for fieldlocd on board \(board.name)\(board.receiver?.model.map { " (\($0))" } ?? "")",
            "# serial time: fieldlocd already adds the board's time_offset (\(format(offset)) s, the receiver's sentence",
            "# delay after the second starts; it measures that delay against PPS and logs it), so no offset here.",
            "refclock SOCK \(paths.serial) refid GPS poll 2 precision 1e-1 delay 0.2\(hasPPS(board) ? " noselect" : "")",
        ]
        if hasPPS(board) {
            lines.append("# PPS: the pulse's edge, paired with the second GPS names (lock GPS keeps them together).")
            lines.append("refclock SOCK \(paths.pulse) refid PPS poll 2 precision 1e-7 lock GPS prefer")
        }
        lines.append("# start fieldlocd with:")
        var arguments = "fieldlocd --board \(board.name) --chrony-sock \(paths.serial)"
        if hasPPS(board) { arguments += " --chrony-pps-sock \(paths.pulse)" }
        lines.append("#   \(arguments)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// ntpd (ntpsec) lines for the shared-memory units, and the matching `fieldlocd` arguments.
    public static func ntp(_ board: BoardDescription) -> String {
        let offset = board.receiver?.timeOffset ?? 0
        var lines = [
            "# ntp.conf (ntpsec) for fieldlocd on board \(board.name): shared memory units 0 (serial time) and 1 (PPS)",
            "# fieldlocd already adds the board's time_offset (\(format(offset)) s) to the serial time: time1 stays 0.",
            "refclock shm unit 0 refid GPS\(hasPPS(board) ? " noselect" : "")",
        ]
        if hasPPS(board) { lines.append("refclock shm unit 1 refid PPS prefer") }
        lines.append("# classic ntpd: server 127.127.28.0 / fudge 127.127.28.0 refid GPS\(hasPPS(board) ? "; server 127.127.28.1 prefer / fudge 127.127.28.1 refid PPS" : "")")
        lines.append("# start fieldlocd with:")
        lines.append("#   fieldlocd --board \(board.name) --ntp-shm")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func format(_ value: Double) -> String {
        let milliseconds = Int((value * 1000).rounded())
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = abs(milliseconds)
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
