import Glibc
import HardwareInterfaces

/// A pseudo-terminal pair: ``devicePath`` behaves like a UART for ``LinuxSerialPort`` (real
/// termios code), and ``controller`` is the other end, where a simulated receiver reads what
/// the program writes and writes what the program reads.
///
/// The controller is a ``LinuxSerialPort`` too. A pseudo-terminal has no line rate: bytes pass
/// at memory speed whatever rate is set. On Linux, termios calls on the controller act on the
/// terminal side, so the pair starts in raw mode (nothing echoed or translated, even before the
/// device is opened); calling `setBaudRate` on the controller changes the nominal rate the
/// device side reports, and nothing else.
public final class PseudoTerminalPair: @unchecked Sendable {
    /// The terminal device, for example `/dev/pts/3`.
    public let devicePath: String
    /// The controlling end, as a serial port (its line rate is nominal).
    public let controller: LinuxSerialPort

    /// Opens a new pair on `/dev/ptmx`; deadlines of the controller are on `clock`.
    public init(clock: any MonotonicClock = SystemMonotonicClock()) throws(HardwareError) {
        // Swift's Glibc module does not export posix_openpt, grantpt, unlockpt or ptsname_r
        // (they need _XOPEN_SOURCE), so this is what they do on Linux: open /dev/ptmx, unlock
        // the terminal (TIOCSPTLCK) and read its number (TIOCGPTN); grantpt has nothing to do on
        // devpts. Both requests are asm-generic values (x86-64, arm64, arm, riscv).
        let ptmx = "/dev/ptmx"
        let (fd, code) = Sys.call { Glibc.open(ptmx, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        if fd < 0 { throw Sys.error(code, device: ptmx, operation: "open", hint: "is devpts mounted on /dev/pts?") }
        let tiocsptlck: UInt = 0x4004_5431, tiocgptn: UInt = 0x8004_5430
        var unlock: Int32 = 0
        var number: UInt32 = 0
        var (r, e) = Sys.ioctl(fd, tiocsptlck, &unlock)
        if r == 0 { (r, e) = Sys.ioctl(fd, tiocgptn, &number) }
        if r != 0 {
            Glibc.close(fd)
            throw Sys.error(e, device: ptmx, operation: "unlock pseudo-terminal", ioctl: true)
        }
        devicePath = "/dev/pts/\(number)"
        controller = LinuxSerialPort(name: "\(devicePath) (controller)", fd: fd, baud: .b9600, clock: clock)
        try controller.configureRaw(.b9600)
    }
}
