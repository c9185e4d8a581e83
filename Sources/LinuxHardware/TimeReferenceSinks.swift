import CRefclock
import Glibc
import HardwareInterfaces
import Synchronization

/// chrony's SOCK reference clock (`refclock SOCK PATH`): one datagram of chrony's `struct sock_sample`
/// per sample, sent to the socket chronyd listens on.
///
/// The datagram is built from the platform's own `struct timeval` (see `refclock.h`), so it has
/// exactly the size chronyd checks: 40 bytes on 64-bit Linux, 32 on armhf with a 32-bit `time_t`.
/// Unlike gpsd, which connects only if chronyd's socket exists when it opens the device, every
/// sample is sent to the path afresh: chronyd may start, stop and restart in any order.
public final class ChronySocketSink: TimeReferenceSink {
    /// The path of chronyd's socket.
    public let path: String
    public var name: String { "chrony SOCK \(path)" }
    private let descriptor: Int32

    /// The size chronyd accepts: `sizeof(struct sock_sample)` on this platform.
    public static var datagramSize: Int { MemoryLayout<fieldloc_sock_sample>.size }

    /// A sink sending to `path`; the socket need not exist yet.
    public init(path: String) throws(HardwareError) {
        let limit = UnixSockets.maximumPathLength
        guard UnixSockets.address(path) != nil else {
            throw HardwareError(.invalidArgument, device: path, operation: "chrony socket path",
                                detail: "a Unix socket path has 1 to \(limit) bytes")
        }
        let (fd, code) = Sys.call { socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) }
        guard fd >= 0 else {
            throw HardwareError(hardwareErrorKind(errno: code), device: path, operation: "socket(AF_UNIX, SOCK_DGRAM)", detail: errnoDetail(code))
        }
        self.path = path
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// The datagram for `sample`, as chronyd reads it.
    public static func datagram(_ sample: TimeReferenceSample) -> [UInt8] {
        var raw = fieldloc_sock_sample()
        let seconds = sample.systemNanoseconds.floorDivided(by: 1_000_000_000)
        let microseconds = (sample.systemNanoseconds - seconds * 1_000_000_000) / 1000
        raw.tv.tv_sec = time_t(truncatingIfNeeded: seconds)
        raw.tv.tv_usec = suseconds_t(truncatingIfNeeded: microseconds)
        // The offset is taken from the truncated timeval, so the sample keeps its nanoseconds.
        let stamped = seconds * 1_000_000_000 + microseconds * 1000
        raw.offset = Double(sample.referenceNanoseconds - stamped) / 1e9
        raw.pulse = sample.isPulse ? 1 : 0
        raw.leap = sample.leap.rawValue
        raw.magic = Int32(bitPattern: UInt32(FIELDLOC_SOCK_MAGIC))
        return withUnsafeBytes(of: &raw) { Array($0) }
    }

    public func submit(_ sample: TimeReferenceSample) throws(HardwareError) {
        var bytes = ChronySocketSink.datagram(sample)
        // The path was checked when the sink was made.
        var address = UnixSockets.address(path) ?? sockaddr_un()
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let count = bytes.count
        let (sent, code) = Sys.call {
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bytes.withUnsafeMutableBytes { sendto(descriptor, $0.baseAddress, count, Int32(MSG_NOSIGNAL), socketAddress, length) }
                }
            }
        }
        guard sent != count else { return }
        let hint: String? = (code == ENOENT || code == ECONNREFUSED) ? "chronyd is not running or has no `refclock SOCK \(path)` line; samples are sent again as they come" : nil
        throw HardwareError(code == ECONNREFUSED ? .notFound : hardwareErrorKind(errno: code), device: path, operation: "sendto",
                            detail: sent < 0 ? errnoDetail(code) : "sent \(sent) of \(count) bytes", hint: hint)
    }
}

/// ntpd's shared-memory reference clock (ntpd `server 127.127.28.U`, ntpsec `refclock shm unit U`,
/// chrony `refclock SHM U`): System V segment `0x4e545030 + unit`, ntpd's `struct shmTime`, written with
/// the mode-1 protocol (`valid = 0; count++; barrier; fields; barrier; count++; valid = 1`), as gpsd's
/// ntpshm.c does. gpsd numbers the units 0 for the serial time and 1 for PPS; units 0 and 1 are
/// created owner-only (mode 0600, readable by a time daemon running as root), 2 and up 0666, as ntpd expects.
public final class NTPSharedMemorySink: TimeReferenceSink {
    /// The unit.
    public let unit: Int
    public var name: String { "NTP SHM unit \(unit)" }
    /// The attached segment; touched only under `lock` (and in `deinit`).
    nonisolated(unsafe) private let segment: UnsafeMutablePointer<fieldloc_shm_time>
    private let lock = Mutex(())

    /// The segment's System V key.
    public static func key(unit: Int) -> key_t { key_t(FIELDLOC_SHM_KEY_BASE) + key_t(unit) }
    /// The segment's size on this platform.
    public static var segmentSize: Int { MemoryLayout<fieldloc_shm_time>.size }

    /// Creates (or attaches to) the segment of `unit`; `permissions` defaults to 0600 for units 0-1, else 0666.
    public init(unit: Int, permissions: Int32? = nil) throws(HardwareError) {
        let device = "NTP SHM unit \(unit)"
        guard (0...255).contains(unit) else {
            throw HardwareError(.invalidArgument, device: device, operation: "shmget", detail: "units are 0 to 255")
        }
        let mode = permissions ?? (unit <= 1 ? 0o600 : 0o666)
        let key = NTPSharedMemorySink.key(unit: unit)
        let (id, code) = Sys.call { shmget(key, NTPSharedMemorySink.segmentSize, IPC_CREAT | mode) }
        guard id >= 0 else {
            let hint = code == EINVAL
                ? "a segment with key 0x\(String(key, radix: 16)) exists with another size (a 32-bit writer?): `ipcrm -M 0x\(String(key, radix: 16))`"
                : nil
            throw HardwareError(hardwareErrorKind(errno: code), device: device, operation: "shmget", detail: errnoDetail(code), hint: hint)
        }
        guard let address = shmat(id, nil, 0), Int(bitPattern: address) != -1 else {
            let code = errno
            throw HardwareError(hardwareErrorKind(errno: code), device: device, operation: "shmat", detail: errnoDetail(code))
        }
        self.unit = unit
        segment = address.bindMemory(to: fieldloc_shm_time.self, capacity: 1)
        segment.pointee.mode = 1
        segment.pointee.nsamples = 3
    }

    deinit { shmdt(UnsafeRawPointer(segment)) }

    public func submit(_ sample: TimeReferenceSample) throws(HardwareError) {
        lock.withLock { _ in
            let reference = sample.referenceNanoseconds.splitNanoseconds
            let system = sample.systemNanoseconds.splitNanoseconds
            segment.pointee.mode = 1
            segment.pointee.valid = 0
            segment.pointee.count &+= 1
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            segment.pointee.clockTimeStampSec = time_t(truncatingIfNeeded: reference.seconds)
            segment.pointee.clockTimeStampUSec = Int32(reference.nanoseconds / 1000)
            segment.pointee.clockTimeStampNSec = UInt32(reference.nanoseconds)
            segment.pointee.receiveTimeStampSec = time_t(truncatingIfNeeded: system.seconds)
            segment.pointee.receiveTimeStampUSec = Int32(system.nanoseconds / 1000)
            segment.pointee.receiveTimeStampNSec = UInt32(system.nanoseconds)
            segment.pointee.leap = sample.leap.rawValue
            segment.pointee.precision = sample.precision
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            segment.pointee.count &+= 1
            segment.pointee.valid = 1
        }
    }

    /// The segment's fields as a reader sees them (for tests and `fieldloc time`).
    public func snapshot() -> (mode: Int32, count: Int32, valid: Int32, clock: Int64, receive: Int64, leap: Int32, precision: Int32) {
        lock.withLock { _ in
            let p = segment.pointee
            return (p.mode, p.count, p.valid,
                    Int64(p.clockTimeStampSec) * 1_000_000_000 + Int64(p.clockTimeStampNSec),
                    Int64(p.receiveTimeStampSec) * 1_000_000_000 + Int64(p.receiveTimeStampNSec),
                    p.leap, p.precision)
        }
    }

    /// Removes the segment of `unit` from the system (tests; a daemon leaves its segments for the time daemon).
    public static func remove(unit: Int) {
        let id = shmget(key(unit: unit), 0, 0)
        if id >= 0 { _ = shmctl(id, IPC_RMID, nil) }
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor < 0) ? q - 1 : q
    }

    fileprivate var splitNanoseconds: (seconds: Int64, nanoseconds: Int64) {
        let seconds = floorDivided(by: 1_000_000_000)
        return (seconds, self - seconds * 1_000_000_000)
    }
}
