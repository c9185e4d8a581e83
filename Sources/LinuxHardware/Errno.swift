import Glibc
import HardwareInterfaces

/// The one place errno becomes a portable ``HardwareError/Kind``.
///
/// - Parameters:
///   - code: the errno value.
///   - ioctl: whether the failing call was an `ioctl`, where `EINVAL` means the driver does not
///     know the request (the device cannot do it) rather than a bad argument.
public func hardwareErrorKind(errno code: Int32, ioctl: Bool = false) -> HardwareError.Kind {
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
    case EINVAL: return ioctl ? .unsupported : .invalidArgument
    case ERANGE, EOVERFLOW, EMSGSIZE: return .invalidArgument
    default: return .other
    }
}

/// The `detail` text of an errno: `errno 6: No such device or address`.
public func errnoDetail(_ code: Int32) -> String {
    let text = strerror(code).map { String(cString: $0) } ?? "unknown error"
    return "errno \(code): \(text)"
}
