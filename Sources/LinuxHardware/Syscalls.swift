import Glibc
import HardwareInterfaces

/// The one place errno becomes a portable ``HardwareError/Kind``.
public func hardwareErrorKind(errno code: Int32) -> HardwareError.Kind {
    switch code {
    case ENOENT: return .notFound
    case EACCES, EPERM: return .permissionDenied
    case EBUSY: return .busy
    case ENXIO, EREMOTEIO: return .noAcknowledge
    case ETIMEDOUT: return .timeout
    case EAGAIN: return .bus  // I2C: arbitration lost (EWOULDBLOCK is the same number: flock maps it itself)
    case EIO, EPROTO, EBADMSG: return .bus
    case EOPNOTSUPP, ENOTTY, ENOSYS: return .unsupported
    case ENODEV, EHOSTDOWN, ENOTCONN: return .deviceGone
    case EBADF: return .closed
    case EINVAL, ERANGE, EOVERFLOW, EMSGSIZE: return .invalidArgument
    default: return .other
    }
}

/// `errno 6: No such device or address`.
public func errnoDetail(_ code: Int32) -> String {
    let text = strerror(code).map { String(cString: $0) } ?? "unknown error"
    return "errno \(code): \(text)"
}

/// Syscall wrappers: EINTR is retried here and nowhere else; a failure comes back as errno.
enum Sys {
    /// Calls `body` until it does not fail with EINTR. Returns the result and errno (0 on success).
    static func call<T: BinaryInteger>(_ body: () -> T) -> (T, Int32) {
        while true {
            let result = body()
            if result != -1 { return (result, 0) }
            let code = Glibc.errno
            if code != EINTR { return (result, code) }
        }
    }

    /// An error from errno, for a device and operation.
    static func error(_ code: Int32, device: String, operation: String, hint: String? = nil) -> HardwareError {
        HardwareError(hardwareErrorKind(errno: code), device: device, operation: operation, detail: errnoDetail(code), hint: hint)
    }

    /// Milliseconds from now until `deadline` on `clock`, clamped to 0...Int32.max (for poll).
    static func milliseconds(until deadline: MonotonicInstant, clock: any MonotonicClock) -> Int32 {
        let now = clock.now()
        guard deadline > now else { return 0 }
        if deadline == .distantFuture { return -1 }
        let ns = deadline.nanoseconds - now.nanoseconds
        let ms = (ns + 999_999) / 1_000_000
        return ms > UInt64(Int32.max) ? Int32.max : Int32(ms)
    }

    /// Waits until `fd` has `events` or the deadline passes. Returns the revents (0 at the deadline).
    static func poll(_ fd: Int32, events: Int16, deadline: MonotonicInstant, clock: any MonotonicClock) -> (Int16, Int32) {
        while true {
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let timeout = milliseconds(until: deadline, clock: clock)
            let result = Glibc.poll(&pfd, 1, timeout)
            if result > 0 { return (pfd.revents, 0) }
            if result == 0 {
                // poll can return a little early on the clock's scale: wait out the rest.
                if timeout != 0 && clock.now() < deadline { continue }
                return (0, 0)
            }
            let code = Glibc.errno
            if code == EINTR { continue }
            return (0, code)
        }
    }
}

/// CLOCK_MONOTONIC, with `clock_nanosleep` (absolute, EINTR-safe) for sleeps.
public struct SystemMonotonicClock: MonotonicClock {
    /// The system's monotonic clock.
    public init() {}

    public func now() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: UInt64(max(0, ts.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, ts.tv_nsec)))
    }

    public func sleep(until deadline: MonotonicInstant) {
        guard deadline != .distantFuture else { return }
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
