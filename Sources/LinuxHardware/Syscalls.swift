import Glibc
import HardwareInterfaces

/// Syscall wrappers. EINTR is retried in ``call(_:)`` and nowhere else; the other helpers adapt
/// the C library's other error conventions to it. A failure comes back as errno.
enum Sys {
    /// Calls `body` until it does not fail with EINTR. `body` follows the syscall convention
    /// (-1 and errno on failure). Returns the result and errno (0 on success).
    static func call<T: BinaryInteger>(_ body: () -> T) -> (T, Int32) {
        while true {
            let result = body()
            if result != -1 { return (result, 0) }
            let code = Glibc.errno
            if code != EINTR { return (result, code) }
        }
    }

    /// For calls that return a negated errno (libi2c's `i2c_smbus_*`): the result on success,
    /// or -1 and the errno.
    static func negatedErrno(_ body: () -> Int32) -> (Int32, Int32) {
        call {
            let r = body()
            if r < 0 { Glibc.errno = -r; return -1 }
            return r
        }
    }

    /// For calls that return the error number itself (`clock_nanosleep`): 0 or the errno.
    static func returningErrorNumber(_ body: () -> Int32) -> Int32 {
        call {
            let r = body()
            if r != 0 { Glibc.errno = r; return -1 }
            return 0
        }.1
    }

    /// A file read whole, up to `limit` bytes, until end of file (procfs files report a size of
    /// 0, so the size is not asked); nil with `errno` set when it cannot be opened or read.
    static func readFile(_ path: String, limit: Int) -> [UInt8]? {
        let (fd, openError) = call { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { Glibc.errno = openError; return nil }
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(16384, max(1, limit)))
        while bytes.count < limit {
            let want = min(chunk.count, limit - bytes.count)
            let (count, code) = call { chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) } }
            if count < 0 { Glibc.errno = code; return nil }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// `ioctl` with an integer argument.
    static func ioctl(_ fd: Int32, _ request: UInt, _ value: Int32 = 0) -> (Int32, Int32) {
        call { Glibc.ioctl(fd, request, value) }
    }

    /// `ioctl` with a pointer argument.
    static func ioctl<T>(_ fd: Int32, _ request: UInt, _ value: inout T) -> (Int32, Int32) {
        withUnsafeMutablePointer(to: &value) { pointer in call { Glibc.ioctl(fd, request, UnsafeMutableRawPointer(pointer)) } }
    }

    /// An error from errno, for a device and operation.
    static func error(_ code: Int32, device: String, operation: String, ioctl: Bool = false, hint: String? = nil) -> HardwareError {
        HardwareError(hardwareErrorKind(errno: code, ioctl: ioctl), device: device, operation: operation, detail: errnoDetail(code), hint: hint)
    }

    /// Milliseconds from now until `deadline` on `clock`, clamped to 0...Int32.max (for poll);
    /// -1 (wait forever) for ``MonotonicInstant/distantFuture``.
    static func milliseconds(until deadline: MonotonicInstant, clock: any MonotonicClock) -> Int32 {
        if deadline == .distantFuture { return -1 }
        let now = clock.now()
        guard deadline > now else { return 0 }
        let ns = deadline.nanoseconds - now.nanoseconds
        let ms = (ns + 999_999) / 1_000_000
        return ms > UInt64(Int32.max) ? Int32.max : Int32(ms)
    }

    /// Waits until `fd` has `events` or the deadline passes. Returns the revents (0 at the
    /// deadline) and errno.
    /// `poll` on `fd` for `events` and on `wake` (a pipe's read end) for input, until `deadline`: the
    /// events of `fd` (0 at the deadline or when only `wake` fired), whether `wake` fired, and errno.
    static func poll(_ fd: Int32, events: Int16, wake: Int32, deadline: MonotonicInstant,
                     clock: any MonotonicClock) -> (revents: Int16, woken: Bool, error: Int32) {
        var pfds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while true {
            var timeout: Int32 = 0
            let (result, code) = call {
                pfds[0].revents = 0
                pfds[1].revents = 0
                timeout = milliseconds(until: deadline, clock: clock)  // recomputed after a signal
                return Glibc.poll(&pfds, 2, timeout)
            }
            if code != 0 { return (0, false, code) }
            if result > 0 { return (pfds[0].revents, pfds[1].revents != 0, 0) }
            // poll can return a little early on the clock's scale: wait out the rest.
            if timeout != 0 && clock.now() < deadline { continue }
            return (0, false, 0)
        }
    }

    static func poll(_ fd: Int32, events: Int16, deadline: MonotonicInstant, clock: any MonotonicClock) -> (Int16, Int32) {
        var pfd = pollfd(fd: fd, events: events, revents: 0)
        while true {
            var timeout: Int32 = 0
            let (result, code) = call {
                pfd.revents = 0
                timeout = milliseconds(until: deadline, clock: clock)  // recomputed after a signal
                return Glibc.poll(&pfd, 1, timeout)
            }
            if code != 0 { return (0, code) }
            if result > 0 { return (pfd.revents, 0) }
            // poll can return a little early on the clock's scale: wait out the rest.
            if timeout != 0 && clock.now() < deadline { continue }
            return (0, 0)
        }
    }
}
