import Foundation
import Glibc
import HardwareInterfaces
import LinuxHardware
import Synchronization
import Testing

@Suite("Linux serial port through a pseudo-terminal (real termios)")
struct SerialTests {
    let clock = SystemMonotonicClock()

    @Test("NMEA written by the simulator side is read line by line; writes reach the other side")
    func roundTrip() throws {
        let pair = try PseudoTerminalPair()
        let port = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        defer { port.close() }
        let rmc = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A"
        try pair.controller.writeAll(rmc + "\r\n$GPGGA,1", deadline: clock.deadline(after: .seconds(2)))
        var pending: [UInt8] = []
        let line = try port.readLine(pending: &pending, deadline: clock.deadline(after: .seconds(2)))
        #expect(line.map { String(decoding: $0, as: UTF8.self) } == rmc)
        #expect(String(decoding: pending, as: UTF8.self) == "$GPGGA,1")
        try port.writeAll("$PMTK220,1000*1F\r\n", deadline: clock.deadline(after: .seconds(2)))
        var reply: [UInt8] = []
        #expect(try pair.controller.readLine(pending: &reply, deadline: clock.deadline(after: .seconds(2)))
                .map { String(decoding: $0, as: UTF8.self) } == "$PMTK220,1000*1F")
        try port.drain(deadline: clock.deadline(after: .seconds(2)))
    }

    @Test("every standard rate can be set and termios reports it")
    func rates() throws {
        let pair = try PseudoTerminalPair()
        let port = try LinuxSerialPort.open(pair.devicePath, baudRate: .b4800)
        defer { port.close() }
        let expected: [Int: speed_t] = [4800: speed_t(B4800), 9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400),
                                        57600: speed_t(B57600), 115200: speed_t(B115200), 230400: speed_t(B230400),
                                        460800: speed_t(B460800), 921600: speed_t(B921600)]
        for raw in BaudRate.standard {
            let rate = try #require(BaudRate(raw))
            try port.setBaudRate(rate)
            #expect(port.baudRate == rate)
            #expect(try port.termiosOutputSpeed() == expected[raw])
        }
    }

    @Test("a read with nothing to read returns 0 at its deadline, not before and not much later")
    func deadline() throws {
        let pair = try PseudoTerminalPair()
        let port = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        defer { port.close() }
        let start = clock.now()
        let bytes = try port.readAvailable(deadline: start.advanced(by: .milliseconds(200)))
        let waited = clock.now() - start
        #expect(bytes.isEmpty)
        #expect(waited >= .milliseconds(200))
        #expect(waited < .milliseconds(1500))
    }

    @Test("a second open is refused as busy, naming who holds the port")
    func exclusive() throws {
        let pair = try PseudoTerminalPair()
        let first = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        defer { first.close() }
        do {
            _ = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
            Issue.record("opened twice")
        } catch {
            #expect(error.kind == .busy)
            #expect(error.hint?.contains("gpsd") == true)
        }
        first.close()
        let again = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        again.close()
    }

    @Test("missing port, closed port and hangup are named errors")
    func failures() throws {
        do {
            _ = try LinuxSerialPort.open("/dev/ttyNOPE0", baudRate: .b9600)
            Issue.record("opened a missing port")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.hint?.contains("enable_uart=1") == true)
            #expect(error.description.hasPrefix("/dev/ttyNOPE0: open: not found (errno 2"))
        }
        let pair = try PseudoTerminalPair()
        let port = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        port.close()
        #expect(throws: HardwareError(.closed, device: pair.devicePath, operation: "read")) {
            _ = try port.readAvailable(deadline: clock.deadline(after: .milliseconds(10)))
        }
        // The simulator side goes away: the port reports the device gone instead of spinning.
        let hung = try PseudoTerminalPair()
        let reader = try LinuxSerialPort.open(hung.devicePath, baudRate: .b9600)
        defer { reader.close() }
        hung.controller.close()
        do {
            _ = try reader.readAvailable(deadline: clock.deadline(after: .seconds(2)))
            Issue.record("no error after hangup")
        } catch {
            #expect(error.kind == .deviceGone)
        }
    }
}

@Suite("Linux I2C, GPIO and errno mapping")
struct LinuxDeviceTests {
    @Test("a missing I2C bus and a missing GPIO chip say how to enable them")
    func missing() {
        do {
            _ = try LinuxI2CBus.open(bus: 250)
            Issue.record("opened /dev/i2c-250")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.hint?.contains("raspi-config nonint do_i2c 0") == true)
        }
        do {
            _ = try LinuxGPIOLine.output(chip: "gpiochip-none", line: .name("GPIO4"), initial: false)
            Issue.record("opened a missing GPIO chip")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.hint?.contains("gpiodetect") == true)
        }
    }

    @Test("errno maps to the portable kinds in one place", arguments: [
        (ENOENT, HardwareError.Kind.notFound), (EACCES, .permissionDenied), (EPERM, .permissionDenied), (EBUSY, .busy),
        (ENXIO, .noAcknowledge), (EREMOTEIO, .noAcknowledge), (ETIMEDOUT, .timeout), (EAGAIN, .bus), (EIO, .bus),
        (EOPNOTSUPP, .unsupported), (ENOTTY, .unsupported), (ENODEV, .deviceGone), (EBADF, .closed), (EINVAL, .invalidArgument),
        (ENOMEM, .other),
    ])
    func errnoMapping(code: Int32, kind: HardwareError.Kind) {
        #expect(hardwareErrorKind(errno: code) == kind)
        #expect(errnoDetail(code).hasPrefix("errno \(code): "))
    }

    @Test("EINVAL from an ioctl means the device cannot do it; elsewhere it is a bad argument")
    func ioctlEINVAL() {
        #expect(hardwareErrorKind(errno: EINVAL, ioctl: true) == .unsupported)
        #expect(hardwareErrorKind(errno: EINVAL) == .invalidArgument)
        #expect(hardwareErrorKind(errno: EBUSY, ioctl: true) == .busy)
    }

    @Test("the platform lists what exists and no missing device")
    func platform() {
        let platform = LinuxPlatform()
        for bus in platform.availableI2CBuses() { #expect(access("/dev/i2c-\(bus)", F_OK) == 0) }
        for port in platform.candidateSerialPorts() { #expect(access(port, F_OK) == 0) }
    }

    @Test("the monotonic clock never goes back and sleeps at least as asked")
    func clock() {
        let clock = SystemMonotonicClock()
        let a = clock.now()
        clock.sleep(for: .milliseconds(20))
        let b = clock.now()
        #expect(b - a >= .milliseconds(20))
        #expect(clock.now() >= b)
    }
}

/// Signals the SIGUSR1 handler has seen.
private let handledSignals = Atomic<Int>(0)

/// Installs a counting SIGUSR1 handler without SA_RESTART, so a signal interrupts a blocked call with EINTR.
private func installInterruptingHandler() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in handledSignals.add(1, ordering: .relaxed) }
    action.sa_flags = 0
    sigemptyset(&action.sa_mask)
    sigaction(SIGUSR1, &action, nil)
}

/// Runs `body` on a new thread and signals that thread with SIGUSR1 every 20 ms until it ends.
private func whileInterrupted(_ body: @escaping @Sendable () -> Void) {
    installInterruptingHandler()
    let target = Mutex<pthread_t?>(nil)
    let done = Mutex(false)
    let handled = Mutex(0)
    let thread = Thread {
        // The test runner's threads may block signals, and a new thread inherits the mask.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        let before = handledSignals.load(ordering: .relaxed)
        target.withLock { $0 = pthread_self() }
        body()
        handled.withLock { $0 = handledSignals.load(ordering: .relaxed) - before }
        done.withLock { $0 = true }
    }
    thread.start()
    while !done.withLock({ $0 }) {
        usleep(20_000)
        if let t = target.withLock({ $0 }), !done.withLock({ $0 }) { pthread_kill(t, SIGUSR1) }
    }
    #expect(handled.withLock { $0 } >= 3, "the call was interrupted while it waited")
}

@Suite("Signals during blocking waits (EINTR retried in one place)", .serialized)
struct InterruptTests {
    @Test("a read interrupted by signals still returns 0 at its deadline, without an error")
    func readInterrupted() throws {
        let clock = SystemMonotonicClock()
        let pair = try PseudoTerminalPair()
        let port = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        defer { port.close() }
        let outcome = Mutex<(Result<[UInt8], HardwareError>, Duration)?>(nil)
        whileInterrupted {
            let start = clock.now()
            let result = Result { () throws(HardwareError) -> [UInt8] in
                try port.readAvailable(deadline: start.advanced(by: .milliseconds(200)))
            }
            outcome.withLock { $0 = (result, clock.now() - start) }
        }
        let (result, waited) = try #require(outcome.withLock { $0 })
        #expect(try result.get().isEmpty)
        #expect(waited >= .milliseconds(200))
        #expect(waited < .milliseconds(1500))
    }

    @Test("a sleep interrupted by signals still lasts as long as asked")
    func sleepInterrupted() throws {
        let clock = SystemMonotonicClock()
        let waited = Mutex<Duration?>(nil)
        whileInterrupted {
            let start = clock.now()
            clock.sleep(for: .milliseconds(150))
            waited.withLock { $0 = clock.now() - start }
        }
        #expect(try #require(waited.withLock { $0 }) >= .milliseconds(150))
    }
}

@Suite("Closing a serial port while another thread waits on it")
struct CloseRaceTests {
    @Test("close() ends a long read promptly with closed, and the descriptor is released only after it")
    func closeDuringRead() throws {
        let clock = SystemMonotonicClock()
        let pair = try PseudoTerminalPair()
        let port = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        let outcome = ReadOutcome()
        let thread = Thread {
            do {
                _ = try port.readAvailable(deadline: clock.deadline(after: .seconds(10)))
                outcome.set("returned")
            } catch {
                outcome.set((error as? HardwareError)?.kind.rawValue ?? "\(error)")
            }
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.2)
        let start = clock.now()
        port.close()
        while outcome.get() == nil && clock.now() - start < .seconds(3) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(outcome.get() == HardwareError.Kind.closed.rawValue)
        #expect(clock.now() - start < .seconds(1))
        // Reopening works: the lock went with the descriptor.
        let again = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        again.close()
    }
}

final class ReadOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    func set(_ v: String) { lock.lock(); value = v; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return value }
}
