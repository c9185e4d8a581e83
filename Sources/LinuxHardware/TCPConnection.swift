import Glibc
import HardwareInterfaces

/// A TCP client connection (for the NTRIP caster): non-blocking, every wait bounded by a deadline
/// on the monotonic clock. Errors name the peer and the operation.
///
/// Name resolution (`getaddrinfo`) waits as the system resolver is configured (`resolv.conf`'s
/// timeout and attempts); it runs on the caller's thread, which must not be the engine's.
public final class TCPConnection: @unchecked Sendable {
    /// `host:port`, for messages.
    public let peer: String
    private let clock: any MonotonicClock
    private var fd: Int32

    private init(fd: Int32, peer: String, clock: any MonotonicClock) {
        self.fd = fd
        self.peer = peer
        self.clock = clock
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Connects to `host` (a name, an IPv4 or an IPv6 address) on `port`, trying each address the
    /// resolver gives until one answers, all before `deadline`.
    public static func connect(host: String, port: Int, deadline: MonotonicInstant,
                               clock: any MonotonicClock = SystemMonotonicClock()) throws(HardwareError) -> TCPConnection {
        let peer = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        guard (1...65535).contains(port) else {
            throw HardwareError(.invalidArgument, device: peer, operation: "connect", detail: "port \(port) is not 1-65535")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let detail = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw HardwareError(.notFound, device: peer, operation: "resolve \(host)", detail: detail)
        }
        defer { freeaddrinfo(list) }
        var lastError = HardwareError(.notFound, device: peer, operation: "connect", detail: "no address")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let (fd, code) = Sys.call {
                socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            }
            guard fd >= 0 else { lastError = Sys.error(code, device: peer, operation: "socket"); continue }
            let (result, connectCode) = Sys.call { Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) }
            if result == 0 { return TCPConnection(fd: fd, peer: peer, clock: clock) }
            guard connectCode == EINPROGRESS else {
                Glibc.close(fd)
                lastError = Sys.error(connectCode, device: peer, operation: "connect")
                continue
            }
            let (events, pollCode) = Sys.poll(fd, events: Int16(POLLOUT), deadline: deadline, clock: clock)
            if pollCode != 0 {
                Glibc.close(fd)
                lastError = Sys.error(pollCode, device: peer, operation: "connect (poll)")
                continue
            }
            if events == 0 {
                Glibc.close(fd)
                throw HardwareError(.timeout, device: peer, operation: "connect", detail: "no answer before the deadline")
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError == 0 { return TCPConnection(fd: fd, peer: peer, clock: clock) }
            Glibc.close(fd)
            lastError = Sys.error(soError, device: peer, operation: "connect")
        }
        throw lastError
    }

    /// Reads what arrives, up to `maximum` bytes, waiting until `deadline` for the first byte.
    /// Returns an empty array at the deadline and `nil` when the peer closed the connection.
    public func read(maximum: Int = 4096, deadline: MonotonicInstant) throws(HardwareError) -> [UInt8]? {
        guard fd >= 0 else { throw HardwareError(.closed, device: peer, operation: "read") }
        let (events, pollCode) = Sys.poll(fd, events: Int16(POLLIN), deadline: deadline, clock: clock)
        if pollCode != 0 { throw Sys.error(pollCode, device: peer, operation: "read (poll)") }
        if events == 0 { return [] }
        var bytes = [UInt8](repeating: 0, count: max(1, maximum))
        let (count, code) = Sys.call { bytes.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) } }
        if count < 0 {
            if code == EAGAIN || code == EWOULDBLOCK { return [] }
            if code == ECONNRESET { return nil }
            throw Sys.error(code, device: peer, operation: "read")
        }
        if count == 0 { return nil }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Writes every byte before `deadline`, or throws (``HardwareError/Kind/timeout`` naming how
    /// many were sent; ``HardwareError/Kind/deviceGone`` when the peer has gone).
    public func writeAll(_ bytes: [UInt8], deadline: MonotonicInstant) throws(HardwareError) {
        guard fd >= 0 else { throw HardwareError(.closed, device: peer, operation: "write") }
        var offset = 0
        while offset < bytes.count {
            let (count, code) = Sys.call {
                bytes.withUnsafeBytes { all -> Int in
                    guard let base = all.baseAddress else { return 0 }
                    return Glibc.send(fd, base + offset, all.count - offset, Int32(MSG_NOSIGNAL))
                }
            }
            if count > 0 { offset += count; continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                let (events, pollCode) = Sys.poll(fd, events: Int16(POLLOUT), deadline: deadline, clock: clock)
                if pollCode != 0 { throw Sys.error(pollCode, device: peer, operation: "write (poll)") }
                if events == 0 {
                    throw HardwareError(.timeout, device: peer, operation: "write \(bytes.count) bytes",
                                        detail: "\(offset) of \(bytes.count) bytes sent before the deadline")
                }
                continue
            }
            if code == EPIPE || code == ECONNRESET {
                throw HardwareError(.deviceGone, device: peer, operation: "write", detail: "the peer closed the connection")
            }
            throw Sys.error(code, device: peer, operation: "write")
        }
    }

    /// Closes the connection; later calls throw ``HardwareError/Kind/closed``. Closing twice is harmless.
    public func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}

extension TCPConnection: NetworkConnection {}

/// TCP connections through the kernel's sockets (``TCPConnection``), timed on CLOCK_MONOTONIC.
public struct LinuxNetwork: NetworkConnector {
    /// The system's monotonic clock.
    public let clock: any MonotonicClock = SystemMonotonicClock()

    /// The host's network.
    public init() {}

    public func connect(host: String, port: Int, deadline: MonotonicInstant) throws(HardwareError) -> any NetworkConnection {
        try TCPConnection.connect(host: host, port: port, deadline: deadline, clock: clock)
    }
}
