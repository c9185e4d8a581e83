#if canImport(Glibc)
import Glibc
#endif
import HardwareInterfaces
import NMEA

/// The QEMU guest's USB receiver is plugged in by the host simulator when a check asks: the guest
/// boots without it (a receiver plugged in late), and `$PFLSIM,USB,...` on the UART reaches the USB
/// simulator through the UART's simulator, which relays it.
public enum USBSimulator {
    /// Sends `$PFLSIM,USB,<body>` (for example `PLUG`, `PULL`, `RATE,2`) on the receiver's UART and
    /// waits up to 5 s for the UART simulator's `$PFLSIM,ACK,USB`, which says it relayed it.
    public static func relay(_ bodies: [String], context: HILContext) throws(HILFailure) {
        let c = context.configuration
        let port = try hardware("open \(c.gnssTTY)") { try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate) }
        defer { port.close() }
        try send(bodies.map { "USB," + $0 }, on: port, named: c.gnssTTY, clock: context.clock, acknowledged: "USB")
    }

    /// Sends each `$PFLSIM,<body>` on `port` and waits up to 5 s until as many `$PFLSIM,ACK,<ack>`
    /// came back as commands were sent.
    public static func send(_ bodies: [String], on port: any SerialPort, named name: String, clock: any MonotonicClock,
                            acknowledged ack: String) throws(HILFailure) {
        for body in bodies {
            let command = GNSSFixture.simulatorCommand(body)
            try hardware("write \(command.trimmingSpaces) to \(name)") { try port.writeAll(command, deadline: clock.deadline(after: .seconds(5))) }
        }
        let stream = NMEAStream()
        var collector = SentenceCollector()
        let prefix = GNSSFixture.simulatorAcknowledgement(ack)
        try collect(port, named: name, into: stream, &collector, clock: clock, until: clock.deadline(after: .seconds(5)),
                    step: .milliseconds(200)) { collected in collected.proprietary.filter { $0.hasPrefix(prefix) }.count >= bodies.count }
        let seen = collector.proprietary.filter { $0.hasPrefix(prefix) }.count
        try require(seen >= bodies.count, "the simulator on \(name) acknowledged \(seen) of \(bodies.count) commands (\(bodies.joined(separator: "; ")))")
    }

    /// Whether the device node `path` exists.
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Makes sure the USB adapter's node `tty` is there: when it is not, asks the host to plug the
    /// adapter in (`$PFLSIM,USB,PLUG`) and waits up to 15 s for the node. Returns the time it took
    /// (zero when it was there).
    public static func ensurePlugged(_ tty: String, context: HILContext) throws(HILFailure) -> Duration {
        guard !exists(tty) else { return .zero }
        guard context.configuration.gnssFixture else {
            throw HILFailure("\(tty) is not there, and only the host simulator (FIELDLOC_HIL_GNSS_FIXTURE=1) can plug the adapter in")
        }
        let clock = context.clock
        let start = clock.now()
        try relay(["PLUG"], context: context)
        let appeared = try clock.poll(attempts: 300, interval: .milliseconds(50)) { () throws(HILFailure) -> Bool? in exists(tty) ? true : nil }
        try require(appeared != nil, "\(tty) did not appear within 15 s of $PFLSIM,USB,PLUG")
        return clock.now() - start
    }
}
