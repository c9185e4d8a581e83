import CRefclock
import Glibc
import HardwareInterfaces
import Synchronization

/// A kernel PPS device (`/dev/ppsN`) through the RFC 2783 ioctls (`PPS_GETCAP`, `PPS_GETPARAMS`,
/// `PPS_SETPARAMS`, `PPS_FETCH`; the C side is `Sources/CRefclock/fieldloc_pps.h`, checked against
/// the kernel's `<linux/pps.h>`).
///
/// Opening checks the capabilities (assert capture, timespec stamps) and, when the source does not
/// capture assert edges yet, asks for them with `PPS_SETPARAMS` (which needs CAP_SYS_TIME; most
/// clients, `pps-gpio` among them, capture asserts from the start). The kernel stamps each edge on
/// CLOCK_REALTIME in the client driver's interrupt handler; ``ClockBracket`` places it on
/// CLOCK_MONOTONIC too, for pairing with fixes.
public final class LinuxPPSDevice: PPSDevice, @unchecked Sendable {
    /// The device path.
    public let name: String
    /// The capabilities `PPS_GETCAP` reported (`PPS_CAPTUREASSERT` 0x01, `PPS_CANWAIT` 0x100, ...).
    public let capabilities: Int32
    /// The mode in force after opening (`PPS_GETPARAMS`).
    public let mode: Int32
    private let descriptor: Mutex<Int32>

    /// Opens `path` read-write (read-only when that is refused) and checks it is a PPS source that
    /// captures assert edges.
    public init(path: String) throws(HardwareError) {
        var (fd, code) = Sys.call { Glibc.open(path, O_RDWR | O_CLOEXEC) }
        if fd < 0 && (code == EACCES || code == EPERM) { (fd, code) = Sys.call { Glibc.open(path, O_RDONLY | O_CLOEXEC) } }
        guard fd >= 0 else {
            let hint: String
            switch code {
            case ENOENT: hint = "no PPS device there: load the client (dtoverlay=pps-gpio,gpiopin=N on a Pi, or ldattach PPS /dev/ttyX for DCD); ls /dev/pps* lists them"
            case EACCES, EPERM: hint = "PPS devices are root's by default: run as root, or give the group read access with a udev rule"
            default: hint = "check dmesg for the PPS client"
            }
            throw Sys.error(code, device: path, operation: "open PPS device", hint: hint)
        }
        var caps: Int32 = 0
        let (capResult, capError) = Sys.call { fieldloc_pps_getcap(fd, &caps) }
        guard capResult >= 0 else {
            Glibc.close(fd)
            throw Sys.error(capError, device: path, operation: "PPS_GETCAP", ioctl: true,
                            hint: capError == ENOTTY ? "\(path) is not a PPS device (RFC 2783)" : nil)
        }
        guard caps & Int32(PPS_CAPTUREASSERT) != 0 else {
            Glibc.close(fd)
            throw HardwareError(.unsupported, device: path, operation: "PPS_GETCAP",
                                detail: "the source cannot capture assert edges (capabilities 0x\(String(caps, radix: 16)))")
        }
        var params = pps_kparams()
        let (getResult, getError) = Sys.call { fieldloc_pps_getparams(fd, &params) }
        guard getResult >= 0 else {
            Glibc.close(fd)
            throw Sys.error(getError, device: path, operation: "PPS_GETPARAMS", ioctl: true)
        }
        if params.mode & Int32(PPS_CAPTUREASSERT) == 0 {
            params.mode |= Int32(PPS_CAPTUREASSERT) | Int32(PPS_TSFMT_TSPEC)
            let (setResult, setError) = Sys.call { fieldloc_pps_setparams(fd, &params) }
            guard setResult >= 0 else {
                Glibc.close(fd)
                throw Sys.error(setError, device: path, operation: "PPS_SETPARAMS (capture assert)", ioctl: true,
                                hint: setError == EPERM ? "setting the PPS mode needs CAP_SYS_TIME: run as root once, or use a client that captures asserts" : nil)
            }
        }
        name = path
        capabilities = caps
        mode = params.mode
        descriptor = Mutex(fd)
    }

    deinit { close() }

    /// The ioctl request numbers as `<linux/pps.h>` defines them on this platform (for the check
    /// against the values written down in `fieldloc_pps.h`).
    public static var requestNumbers: (getParams: UInt, setParams: UInt, getCap: UInt, fetch: UInt) {
        (UInt(fieldloc_pps_request_getparams()), UInt(fieldloc_pps_request_setparams()),
         UInt(fieldloc_pps_request_getcap()), UInt(fieldloc_pps_request_fetch()))
    }

    /// The sizes of `struct pps_ktime`, `pps_kinfo`, `pps_fdata` and `pps_kparams` on this platform.
    public static var structureSizes: (ktime: Int, kinfo: Int, fdata: Int, kparams: Int) {
        (MemoryLayout<pps_ktime>.size, MemoryLayout<pps_kinfo>.size, MemoryLayout<pps_fdata>.size, MemoryLayout<pps_kparams>.size)
    }

    /// The last assert edge, without waiting (`PPS_FETCH` with a zero timeout); `nil` before the first.
    public func latest() throws(HardwareError) -> PPSAssertEvent? {
        try fetch(timeoutNanoseconds: 0, operation: "PPS_FETCH")
    }

    /// Waits (`PPS_FETCH` with the time left as its timeout) until an assert edge whose sequence is
    /// not `sequence` arrives or `deadline` passes (`nil`).
    public func waitForAssert(after sequence: UInt32?, deadline: MonotonicInstant) throws(HardwareError) -> PPSAssertEvent? {
        if let event = try latest(), event.sequence != sequence { return event }
        let clock = SystemMonotonicClock()
        while true {
            let now = clock.now()
            guard deadline > now else { return nil }
            // At most 10 s per call (a distant deadline waits in steps); never 0, which would not wait.
            let remaining = max(1, min(deadline.nanoseconds - now.nanoseconds, 10_000_000_000))
            if let event = try fetch(timeoutNanoseconds: Int64(remaining), operation: "PPS_FETCH (wait)"), event.sequence != sequence {
                return event
            }
        }
    }

    private func fetch(timeoutNanoseconds: Int64, operation: String) throws(HardwareError) -> PPSAssertEvent? {
        let name = self.name
        let result: Result<pps_fdata?, HardwareError> = descriptor.withLock { fd in
            guard fd >= 0 else { return .failure(HardwareError(.closed, device: name, operation: operation)) }
            var data = pps_fdata()
            data.timeout.sec = timeoutNanoseconds / 1_000_000_000
            data.timeout.nsec = Int32(timeoutNanoseconds % 1_000_000_000)
            data.timeout.flags = 0
            let (r, e) = Sys.call { fieldloc_pps_fetch(fd, &data) }
            if r < 0 {
                if e == ETIMEDOUT { return .success(nil) }
                return .failure(Sys.error(e, device: name, operation: operation, ioctl: true))
            }
            return .success(data)
        }
        guard let data = try result.get() else { return nil }
        let info = data.info
        // Sequence 0: the source has not seen an edge since it was registered.
        guard info.assert_sequence != 0 else { return nil }
        let system = info.assert_tu.sec * 1_000_000_000 + Int64(info.assert_tu.nsec)
        let bracket = ClockBracket.measure()
        return PPSAssertEvent(sequence: info.assert_sequence, systemNanoseconds: system,
                              monotonic: bracket.monotonic(atSystemNanoseconds: system),
                              conversionErrorNanoseconds: bracket.errorBoundNanoseconds)
    }

    /// Closes the device (idempotent).
    public func close() {
        descriptor.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }
}
