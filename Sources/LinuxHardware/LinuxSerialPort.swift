import Glibc
import HardwareInterfaces
import Synchronization

/// A UART (or USB serial adapter, or pseudo-terminal) in raw 8N1 through termios, with exclusive
/// access (`TIOCEXCL` and `flock`) and every wait bounded by a deadline.
public final class LinuxSerialPort: SerialPort, @unchecked Sendable {
    /// The path opened.
    public let name: String
    /// The clock deadlines are on.
    public let clock: any MonotonicClock
    private struct State {
        var fd: Int32
        var baud: BaudRate
        /// Reads and writes waiting on the descriptor outside the lock.
        var inFlight = 0
        /// Set by close() while operations are in flight; the last one closes the descriptor, so
        /// its number is never reused under a waiting read.
        var closing = false
    }
    private let state: Mutex<State>
    /// A pipe whose write end close() writes to, so that a read or write waiting in `poll` on its
    /// read end ends at once (-1 where none could be made: waits then poll in slices of 100 ms).
    private let closeSignal: Int32
    private let closeSignalWriter: Int32

    /// The current line rate.
    public var baudRate: BaudRate { state.withLock { $0.baud } }

    init(name: String, fd: Int32, baud: BaudRate, clock: any MonotonicClock) {
        self.name = name
        self.clock = clock
        state = Mutex(State(fd: fd, baud: baud))
        var ends: [Int32] = [-1, -1]
        if Glibc.pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        }
        (closeSignal, closeSignalWriter) = (ends[0], ends[1])
    }

    deinit {
        close()
        if closeSignal >= 0 {
            Glibc.close(closeSignal)
            Glibc.close(closeSignalWriter)
        }
    }

    /// Opens `path` in raw 8N1 at `baudRate` with exclusive access. When the port is missing,
    /// denied or busy the error names the likely cause and the fix.
    public static func open(_ path: String, baudRate: BaudRate, clock: any MonotonicClock = SystemMonotonicClock())
        throws(HardwareError) -> LinuxSerialPort
    {
        let (fd, code) = Sys.call { Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        if fd < 0 { throw Sys.error(code, device: path, operation: "open", hint: openHint(code, path: path)) }
        var (r, e) = Sys.ioctl(fd, UInt(TIOCEXCL))
        if r < 0 && e != ENOTTY {
            Glibc.close(fd)
            throw Sys.error(e, device: path, operation: "TIOCEXCL", ioctl: true)
        }
        (r, e) = Sys.call { flock(fd, LOCK_EX | LOCK_NB) }
        if r < 0 {
            Glibc.close(fd)
            if e == EWOULDBLOCK {
                throw HardwareError(.busy, device: path, operation: "lock (flock)", detail: errnoDetail(e), hint: busyHint(path: path))
            }
            throw Sys.error(e, device: path, operation: "lock (flock)")
        }
        let port = LinuxSerialPort(name: path, fd: fd, baud: baudRate, clock: clock)
        try port.configureRaw(baudRate)
        try port.discard(.both)
        return port
    }

    static func openHint(_ code: Int32, path: String) -> String {
        switch code {
        case ENOENT:
            return "no such port. On a Raspberry Pi enable the UART (enable_uart=1 in config.txt) and reboot; /dev/serial0 is the GPIO 14/15 UART. A USB receiver appears as /dev/ttyACM0 or /dev/ttyUSB0"
        case EACCES, EPERM:
            return "add the user to the dialout group (sudo usermod -aG dialout $USER) and log in again"
        case EBUSY:
            return busyHint(path: path)
        default:
            return "check dmesg for the UART driver"
        }
    }

    /// Names who holds the port, from /proc/*/fd, and the usual culprits.
    static func busyHint(path: String) -> String {
        var holders: [String] = []
        let target = resolve(path)
        if let proc = opendir("/proc") {
            defer { closedir(proc) }
            while let entry = readdir(proc) {
                let pid = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard let number = Int32(pid), number != getpid() else { continue }
                if let fds = opendir("/proc/\(pid)/fd") {
                    while let fdEntry = readdir(fds) {
                        let fdName = withUnsafeBytes(of: fdEntry.pointee.d_name) { raw in
                            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                        }
                        if fdName == "." || fdName == ".." { continue }
                        if resolve("/proc/\(pid)/fd/\(fdName)") == target {
                            holders.append("pid \(pid) (\(command(pid)))")
                            break
                        }
                    }
                    closedir(fds)
                }
            }
        }
        var hint = holders.isEmpty ? "another program has the port open" : "held by " + holders.joined(separator: ", ")
        hint += ". Usual causes: gpsd (sudo systemctl stop gpsd.socket gpsd), a serial console or getty on the port (raspi-config nonint do_serial_cons 1, or remove console=serial0,115200 from cmdline.txt), Bluetooth on the Pi's primary UART (dtoverlay=disable-bt or miniuart-bt in config.txt)"
        return hint
    }

    static func resolve(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(path, &buffer) != nil else { return path }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func command(_ pid: String) -> String {
        guard let bytes = Sys.readFile("/proc/\(pid)/comm", limit: 64), !bytes.isEmpty else { return "?" }
        return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
    }

    static func speed(_ rate: BaudRate) -> speed_t? {
        switch rate.rawValue {
        case 4800: return speed_t(B4800)
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115200: return speed_t(B115200)
        case 230400: return speed_t(B230400)
        case 460800: return speed_t(B460800)
        case 921600: return speed_t(B921600)
        default: return nil
        }
    }

    func withFD<T>(_ operation: String, _ body: (Int32) -> Result<T, HardwareError>) throws(HardwareError) -> T {
        let result: Result<T, HardwareError> = state.withLock { s in
            guard s.fd >= 0 else { return .failure(HardwareError(.closed, device: name, operation: operation)) }
            return body(s.fd)
        }
        return try result.get()
    }

    func configureRaw(_ rate: BaudRate) throws(HardwareError) {
        guard let speed = Self.speed(rate) else {
            throw HardwareError(.invalidArgument, device: name, operation: "set \(rate)")
        }
        try withFD("configure termios") { fd -> Result<Void, HardwareError> in
            var t = termios()
            var (r, e) = Sys.call { tcgetattr(fd, &t) }
            if r < 0 { return .failure(Sys.error(e, device: name, operation: "tcgetattr", hint: "\(name) is not a terminal")) }
            cfmakeraw(&t)
            t.c_cflag |= tcflag_t(CLOCAL | CREAD)
            t.c_cflag &= ~(tcflag_t(CRTSCTS) | tcflag_t(CSTOPB) | tcflag_t(PARENB))
            t.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
            withUnsafeMutableBytes(of: &t.c_cc) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
            cfsetispeed(&t, speed)
            cfsetospeed(&t, speed)
            (r, e) = Sys.call { tcsetattr(fd, TCSANOW, &t) }
            if r < 0 { return .failure(Sys.error(e, device: name, operation: "tcsetattr \(rate)")) }
            return .success(())
        }
        state.withLock { $0.baud = rate }
    }

    /// The output speed termios reports (for checks).
    public func termiosOutputSpeed() throws(HardwareError) -> speed_t {
        try withFD("tcgetattr") { fd in
            var t = termios()
            let (r, e) = Sys.call { tcgetattr(fd, &t) }
            return r < 0 ? .failure(Sys.error(e, device: name, operation: "tcgetattr")) : .success(cfgetospeed(&t))
        }
    }

    /// Reads what has arrived, waiting with `poll` until at least one byte is there or the
    /// deadline passes (then 0). End of file or EIO after a hangup is ``HardwareError/Kind/deviceGone``.
    public func read(into buffer: UnsafeMutableRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        guard buffer.count > 0 else { return 0 }
        let fd = try begin("read")
        defer { end() }
        while true {
            let (revents, pollError) = try pollSlice(fd, events: Int16(POLLIN), deadline: deadline, operation: "read")
            if pollError != 0 { throw Sys.error(pollError, device: name, operation: "poll") }
            if revents == 0 {
                if clock.now() < deadline { continue }
                return 0
            }
            if revents & Int16(POLLNVAL) != 0 { throw HardwareError(.closed, device: name, operation: "read") }
            let (n, e) = Sys.call { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            if n > 0 { return n }
            if n == 0 || e == EIO || e == ENXIO || e == ENODEV {
                throw HardwareError(.deviceGone, device: name, operation: "read",
                                    detail: n == 0 ? "end of file (hangup)" : errnoDetail(e),
                                    hint: "the device went away (unplugged USB adapter, powered-off receiver board); it will be reopened")
            }
            if e == EAGAIN { continue }
            throw Sys.error(e, device: name, operation: "read")
        }
    }

    /// Writes as much of `bytes` as the driver takes, waiting with `poll` for room until the
    /// deadline (then 0).
    public func write(_ bytes: UnsafeRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        guard bytes.count > 0 else { return 0 }
        let fd = try begin("write")
        defer { end() }
        while true {
            let (revents, pollError) = try pollSlice(fd, events: Int16(POLLOUT), deadline: deadline, operation: "write")
            if pollError != 0 { throw Sys.error(pollError, device: name, operation: "poll") }
            if revents == 0 {
                if clock.now() < deadline { continue }
                return 0
            }
            if revents & Int16(POLLNVAL) != 0 { throw HardwareError(.closed, device: name, operation: "write") }
            let (n, e) = Sys.call { Glibc.write(fd, bytes.baseAddress, bytes.count) }
            if n >= 0 { return n }
            if e == EAGAIN { continue }
            if e == EIO || e == ENXIO || e == ENODEV { throw HardwareError(.deviceGone, device: name, operation: "write", detail: errnoDetail(e)) }
            throw Sys.error(e, device: name, operation: "write")
        }
    }

    /// Reconfigures termios (raw 8N1) at `rate`; rates outside 4800...921600 are
    /// ``HardwareError/Kind/invalidArgument``.
    public func setBaudRate(_ rate: BaudRate) throws(HardwareError) { try configureRaw(rate) }

    /// Waits until the output queue (`TIOCOUTQ`) is empty, polling it every millisecond, since
    /// `tcdrain` has no deadline; still queued at the deadline is ``HardwareError/Kind/timeout``.
    public func drain(deadline: MonotonicInstant) throws(HardwareError) {
        while true {
            var pending: Int32 = 0
            let (r, e) = try withFD("TIOCOUTQ") { fd in .success(Sys.ioctl(fd, UInt(TIOCOUTQ), &pending)) }
            if r < 0 { throw Sys.error(e, device: name, operation: "TIOCOUTQ", ioctl: true) }
            if pending == 0 { return }
            if clock.now() >= deadline {
                throw HardwareError(.timeout, device: name, operation: "drain", detail: "\(pending) bytes still queued at the deadline")
            }
            clock.sleep(for: .milliseconds(1))
        }
    }

    /// Throws away unread input, unsent output or both (`tcflush`).
    public func discard(_ queue: SerialQueue) throws(HardwareError) {
        let which: Int32 = queue == .input ? TCIFLUSH : (queue == .output ? TCOFLUSH : TCIOFLUSH)
        try withFD("tcflush") { fd in
            let (r, e) = Sys.call { tcflush(fd, which) }
            return r < 0 ? .failure(Sys.error(e, device: name, operation: "tcflush")) : .success(())
        }
    }

    /// Closes the port (idempotent); later calls throw ``HardwareError/Kind/closed``.
    public func close() {
        state.withLock { s in
            guard s.fd >= 0 else { return }
            if s.inFlight > 0 {
                s.closing = true
                if closeSignalWriter >= 0 {
                    var one: UInt8 = 1
                    _ = Glibc.write(closeSignalWriter, &one, 1)
                }
            } else {
                Glibc.close(s.fd)
                s.fd = -1
            }
        }
    }

    /// Takes the descriptor for an operation that waits outside the lock.
    func begin(_ operation: String) throws(HardwareError) -> Int32 {
        let result: Result<Int32, HardwareError> = state.withLock { s in
            guard s.fd >= 0, !s.closing else { return .failure(HardwareError(.closed, device: name, operation: operation)) }
            s.inFlight += 1
            return .success(s.fd)
        }
        return try result.get()
    }

    /// Gives it back; the last operation after a close() closes it.
    func end() {
        state.withLock { s in
            s.inFlight -= 1
            if s.closing && s.inFlight == 0 && s.fd >= 0 {
                Glibc.close(s.fd)
                s.fd = -1
                s.closing = false
            }
        }
    }

    /// Polls until the deadline, or until a close() from another thread ends the wait (through
    /// ``closeSignal``; without one, in slices of at most 100 ms).
    func pollSlice(_ fd: Int32, events: Int16, deadline: MonotonicInstant, operation: String) throws(HardwareError) -> (Int16, Int32) {
        if state.withLock({ $0.closing }) { throw HardwareError(.closed, device: name, operation: operation) }
        if closeSignal >= 0 {
            let (revents, woken, error) = Sys.poll(fd, events: events, wake: closeSignal, deadline: deadline, clock: clock)
            if woken && state.withLock({ $0.closing }) { throw HardwareError(.closed, device: name, operation: operation) }
            return (revents, error)
        }
        let slice = min(deadline, clock.now().advanced(by: .milliseconds(100)))
        return Sys.poll(fd, events: events, deadline: slice, clock: clock)
    }
}
