#if canImport(Glibc)
import Glibc
#endif
import HardwareInterfaces
import Synchronization

extension HILChecks {
    /// A kernel PPS device through the platform's RFC 2783 code (LinuxHardware's `LinuxPPSDevice`):
    /// capabilities, assert edges whose kernel stamps lie inside the trigger's own clock bracket,
    /// sequence numbers that advance by one, a `PPS_FETCH` that waits for an edge from another
    /// thread, and one that times out when none comes.
    public static let ppsDevice = HILCheck(
        name: "pps-device",
        proves: "a /dev/ppsN source (pps_parport in the QEMU guest) read through PPS_GETCAP/GETPARAMS/FETCH: each edge the kernel stamps is seen once, in order, inside the trigger's clock bracket; a wait ends with the edge or at its deadline"
    ) { context throws(HILFailure) in
        guard let path = context.configuration.ppsDevice else {
            return .skipped(reason: "no kernel PPS device (FIELDLOC_HIL_PPS_DEVICE unset)")
        }
        guard let port = context.configuration.ppsTriggerPort else {
            return .skipped(reason: "no way to make \(path) pulse (FIELDLOC_HIL_PPS_TRIGGER_PORT unset)")
        }
        let device: any PPSDevice
        do { device = try context.platform.openPPSDevice(path) } catch {
            throw HILFailure("open \(path): \(error)")
        }
        defer { device.close() }
        let trigger = try PortTrigger(port: port)
        let clock = context.clock
        do {
            var last = try device.latest()?.sequence
            var widths: [Int64] = []
            // Two edges made on this thread: each stamped between the clock reads around its write.
            for index in 1...2 {
                let (before, after) = try trigger.pulse()
                guard let event = try device.waitForAssert(after: last, deadline: clock.deadline(after: .seconds(2))) else {
                    throw HILFailure("edge \(index): no assert event on \(path) within 2 s after writing port 0x\(String(port, radix: 16))")
                }
                guard event.sequence == (last ?? 0) &+ 1 else {
                    throw HILFailure("edge \(index): sequence \(event.sequence) after \(last.map(String.init) ?? "none"), expected the next")
                }
                guard event.systemNanoseconds >= before && event.systemNanoseconds <= after else {
                    throw HILFailure("edge \(index): kernel stamp \(event.systemNanoseconds) outside the write's bracket \(before)...\(after)")
                }
                widths.append(after - before)
                last = event.sequence
            }
            // An edge made by another thread while this one waits in PPS_FETCH.
            let waitStart = clock.now()
            let stamps = try trigger.pulseLater(milliseconds: 200)
            guard let waited = try device.waitForAssert(after: last, deadline: clock.deadline(after: .seconds(3))) else {
                throw HILFailure("no edge from the other thread within 3 s")
            }
            let waitedMilliseconds = (clock.now() - waitStart).secondsDouble * 1000
            let bracket = stamps.wait()
            guard let bracket, waited.systemNanoseconds >= bracket.0 && waited.systemNanoseconds <= bracket.1 else {
                throw HILFailure("the waited-for edge's stamp \(waited.systemNanoseconds) is not the other thread's write \(String(describing: bracket))")
            }
            guard waitedMilliseconds >= 150 else { throw HILFailure("PPS_FETCH returned after \(waitedMilliseconds) ms, before the edge") }
            last = waited.sequence
            // No edge: the wait ends at its deadline with nothing.
            let quietStart = clock.now()
            if let stray = try device.waitForAssert(after: last, deadline: clock.deadline(after: .milliseconds(300))) {
                throw HILFailure("an edge nobody made: \(stray)")
            }
            let quiet = (clock.now() - quietStart).secondsDouble * 1000
            guard quiet >= 290 else { throw HILFailure("the wait without an edge ended after \(quiet) ms, before its 300 ms deadline") }
            return .passed(detail: "3 edges via pps_parport (sequence up to \(waited.sequence)), stamps inside write brackets of \(widths.map { "\($0 / 1000) µs" }.joined(separator: ", ")); PPS_FETCH waited \(Int(waitedMilliseconds)) ms for the other thread's edge; timed out after \(Int(quiet)) ms without one")
        } catch let error as HardwareError {
            throw HILFailure("\(path): \(error)")
        } catch let failure as HILFailure {
            throw failure
        } catch {
            throw HILFailure("\(path): \(error)")
        }
    }
}

/// Makes a PPS source pulse by writing one byte to an I/O port through `/dev/port`: for QEMU's ISA
/// parallel port, the control register with INIT|SELECT|INTEN (0x1c) and STROBE low, which raises
/// its interrupt, where pps_parport stamps an assert edge.
final class PortTrigger: Sendable {
    let port: Int
    let descriptor: Int32

    init(port: Int) throws(HILFailure) {
        self.port = port
        descriptor = open("/dev/port", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw HILFailure("open /dev/port: errno \(errno)") }
    }

    deinit { close(descriptor) }

    static func realtime() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Writes the pulse; returns CLOCK_REALTIME just before and just after.
    func pulse() throws(HILFailure) -> (Int64, Int64) {
        var value: UInt8 = 0x1c
        let before = Self.realtime()
        let written = pwrite(descriptor, &value, 1, off_t(port))
        let after = Self.realtime()
        guard written == 1 else { throw HILFailure("write port 0x\(String(port, radix: 16)) through /dev/port: errno \(errno)") }
        return (before, after)
    }

    /// Pulses from a new thread after `milliseconds`; ``PendingPulse/wait()`` joins it and gives its bracket.
    func pulseLater(milliseconds: Int) throws(HILFailure) -> PendingPulse {
        let pending = PendingPulse(trigger: self, milliseconds: milliseconds)
        let context = Unmanaged.passRetained(pending).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let pending = Unmanaged<PendingPulse>.fromOpaque(raw).takeRetainedValue()
            var pause = timespec(tv_sec: pending.milliseconds / 1000, tv_nsec: (pending.milliseconds % 1000) * 1_000_000)
            var left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
            let bracket = try? pending.trigger.pulse()
            pending.bracket.withLock { $0 = bracket }
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<PendingPulse>.fromOpaque(context).release()
            throw HILFailure("pthread_create: \(result)")
        }
        pending.thread.withLock { $0 = thread }
        return pending
    }
}

/// A pulse another thread makes.
final class PendingPulse: Sendable {
    let trigger: PortTrigger
    let milliseconds: Int
    let bracket = Mutex<(Int64, Int64)?>(nil)
    let thread = Mutex<pthread_t?>(nil)

    init(trigger: PortTrigger, milliseconds: Int) {
        self.trigger = trigger
        self.milliseconds = milliseconds
    }

    /// Joins the thread; the clock bracket around its write, or nil when the write failed.
    func wait() -> (Int64, Int64)? {
        if let thread = thread.withLock({ $0 }) { pthread_join(thread, nil) }
        return bracket.withLock { $0 }
    }
}
