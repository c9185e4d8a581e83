#if canImport(Glibc)
import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import Glibc
#endif
import BoardConfig
import FieldLocation
@testable import FieldLocationDaemon
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationServices
import NMEA
import Synchronization
import Testing

/// The time service's outputs, read by a real chronyd (Debian's package, run by the test with its
/// own configuration and `-x`: it never touches the clock).
@Suite("Time service: chrony SOCK and NTP SHM", .serialized)
struct TimeServiceTests {
    static let chronyd = Programs.find("chronyd")
    static let chronyc = Programs.find("chronyc")
    static let canRunChrony = chronyd != nil && chronyc != nil && getuid() == 0

    @Test("the SOCK datagram has chrony's size for this platform, the magic last, the time and offset in place")
    func datagram() throws {
        let sample = TimeReferenceSample(systemNanoseconds: 1_782_820_800_123_456_789, referenceNanoseconds: 1_782_820_800_173_456_789,
                                         isPulse: true, leap: .insert)
        let bytes = ChronySocketSink.datagram(sample)
        #expect(bytes.count == MemoryLayout<timeval>.size + 8 + 16)
        #expect(bytes.count == ChronySocketSink.datagramSize)
        let magic = bytes.suffix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        #expect(magic == 0x534f434b)
        var tv = timeval()
        withUnsafeMutableBytes(of: &tv) { $0.copyBytes(from: bytes.prefix(MemoryLayout<timeval>.size)) }
        #expect(tv.tv_sec == 1_782_820_800 && tv.tv_usec == 123_456)
        let offset = bytes[MemoryLayout<timeval>.size..<MemoryLayout<timeval>.size + 8].withUnsafeBytes { $0.loadUnaligned(as: Double.self) }
        #expect(abs(offset - 0.050_000_789) < 1e-12)
        let ints = bytes[(MemoryLayout<timeval>.size + 8)...].withUnsafeBytes { raw in (0..<4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self) } }
        #expect(ints[0] == 1 && ints[1] == 1)
    }

    @Test("a missing chronyd socket is an error naming the path, and the next sample is tried again")
    func missingSocket() throws {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sink = try ChronySocketSink(path: folder.appendingPathComponent("chrony.gnss.sock").path)
        let sample = TimeReferenceSample(systemNanoseconds: 0, referenceNanoseconds: 0, isPulse: false)
        #expect(throws: HardwareError.self) { try sink.submit(sample) }
        do { try sink.submit(sample) } catch { #expect(error.description.contains("chrony.gnss.sock") && error.hint?.contains("chronyd") == true) }
        // A socket appears (chronyd started late): the same sink delivers.
        let receiver = try DatagramReceiver(path: sink.path)
        try sink.submit(sample)
        #expect(receiver.receive()?.count == ChronySocketSink.datagramSize)
    }

    @Test("an SHM segment is written with the mode-1 protocol: count advances by two, valid set, both stamps in place",
          .enabled(if: getuid() == 0, "System V shared memory segments with IPC_CREAT need a user that may create them"))
    func sharedMemory() throws {
        NTPSharedMemorySink.remove(unit: 77)
        defer { NTPSharedMemorySink.remove(unit: 77) }
        let sink = try NTPSharedMemorySink(unit: 77)
        let before = sink.snapshot()
        let sample = TimeReferenceSample(systemNanoseconds: 1_782_820_800_123_456_789, referenceNanoseconds: 1_782_820_800_000_000_000,
                                         isPulse: false, leap: .delete, precision: -1)
        try sink.submit(sample)
        let after = sink.snapshot()
        #expect(after.mode == 1 && after.valid == 1 && after.count == before.count &+ 2)
        #expect(after.clock == sample.referenceNanoseconds && after.receive == sample.systemNanoseconds)
        #expect(after.leap == 2 && after.precision == -1)
        #expect(NTPSharedMemorySink.key(unit: 77) == 0x4e545030 + 77)
    }

    /// Runs chronyd with `refclock` lines for our sinks, feeds the service fixes whose UTC is the
    /// system time plus `offset`, and returns chronyc's CSV `sources` rows.
    static func chronySees(offset: Double, socket: Bool) async throws -> [[String]] {
        let folder = try Programs.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        chmod(folder.path, 0o700)
        let sock = folder.appendingPathComponent("gnss.sock").path
        let unit = 78
        NTPSharedMemorySink.remove(unit: unit)
        defer { NTPSharedMemorySink.remove(unit: unit) }
        // noselect: with -x, a selected source's later samples are shown against chronyd's own
        // virtual correction (offset 0); an unselected one shows the raw measurement.
        let refclock = socket ? "refclock SOCK \(sock) refid GPS poll 0 filter 4 noselect" : "refclock SHM \(unit) refid SHM poll 0 filter 4 noselect"
        let config = """
            \(refclock)
            bindcmdaddress \(folder.path)/chronyd.sock
            cmdport 0
            pidfile \(folder.path)/chronyd.pid
            """
        let conf = folder.appendingPathComponent("chrony.conf")
        try config.write(to: conf, atomically: true, encoding: .utf8)
        let daemon = try Programs.Running(chronyd!, ["-u", "root", "-x", "-d", "-f", conf.path], folder: folder)
        do {
            let rows = try await feedChrony(daemon: daemon, folder: folder, sock: sock, unit: unit, offset: offset, socket: socket)
            await daemon.stop()
            return rows
        } catch {
            await daemon.stop()
            throw error
        }
    }

    static func feedChrony(daemon: Programs.Running, folder: URL, sock: String, unit: Int, offset: Double, socket: Bool) async throws -> [[String]] {
        let ready = await waitUntil(seconds: 10) { FileManager.default.fileExists(atPath: socket ? sock : "\(folder.path)/chronyd.sock") }
        guard ready else { throw TestFailure("chronyd did not start: \(daemon.stderr)") }
        let sink: any TimeReferenceSink = socket ? try ChronySocketSink(path: sock) : try NTPSharedMemorySink(unit: unit)
        let service = TimeService(sinks: .init(serial: [sink]), baudRate: nil)
        let clock = SystemMonotonicClock()
        func feed(_ count: Int) async throws {
            for _ in 0..<count {
                let now = clock.now()
                var fix = Fix()
                fix.mode = .threeD
                fix.latitude = 47.38
                fix.longitude = 8.54
                let utc = TimeService.linuxSystemTime(now) + Int64(offset * 1e9)
                fix.time = UTCTime(nanosecondsSinceEpoch: utc)
                service.observe(.fix(fix, now))
                try await Task.sleep(for: .milliseconds(500))
            }
        }
        func sources() throws -> [[String]] {
            let result = try Programs.run(chronyc!, ["-h", "\(folder.path)/chronyd.sock", "-n", "-c", "sources"], seconds: 10)
            return result.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        }
        try await feed(14)
        #expect(service.status.serialSamples >= 10, "\(service.status)")
        // chronyd's reach register shifts once a poll (1 s): on a loaded machine the query can come
        // so long after the last sample that it reads 0. Samples go on until a query sees them.
        var rows = try sources()
        for _ in 0..<3 where !rows.contains(where: { $0.count > 8 && ["GPS", "SHM"].contains($0[2]) && $0[5] != "0" }) {
            try await feed(4)
            rows = try sources()
        }
        return rows
    }

    @Test("chronyd reads our SOCK samples: the source is reachable and its offset is the injected +50 ms within 2 ms",
          .enabled(if: canRunChrony, "needs chronyd and chronyc (apt install chrony) and root, to run chronyd with -x in a test"))
    func chronySocket() async throws {
        let rows = try await Self.chronySees(offset: 0.050, socket: true)
        let row = try #require(rows.first { $0.count > 8 && $0[2] == "GPS" }, "chronyc sources: \(rows)")
        #expect(Int(row[5], radix: 8).map { $0 != 0 } == true, "reach \(row[5])")
        // chronyc -c: the last sample's offset, in seconds, is column 7 (original measurement: 8).
        print("chronyc sources:", row.joined(separator: ","))
        let measured = try #require(Double(row[8]))
        #expect(abs(measured + 0.050) < 0.002, "offset \(row)")
    }

    @Test("chronyd's SHM driver reads our segment (ntpd's shmTime, mode 1) with the same offset",
          .enabled(if: canRunChrony, "needs chronyd and chronyc (apt install chrony) and root, to run chronyd with -x in a test"))
    func chronySharedMemory() async throws {
        let rows = try await Self.chronySees(offset: 0.050, socket: false)
        let row = try #require(rows.first { $0.count > 8 && $0[2] == "SHM" }, "chronyc sources: \(rows)")
        #expect(Int(row[5], radix: 8).map { $0 != 0 } == true, "reach \(row[5])")
        print("chronyc sources:", row.joined(separator: ","))
        let measured = try #require(Double(row[8]))
        #expect(abs(measured + 0.050) < 0.002, "offset \(row)")
    }
}

/// A bound Unix datagram socket standing in for chronyd's, to see what arrives.
final class DatagramReceiver {
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        guard var address = UnixSockets.address(path) else { close(fd); throw TestFailure("socket path too long: \(path)") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { close(fd); throw TestFailure("bind \(path): errno \(errno)") }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 256, 0) }
        return count >= 0 ? Array(buffer[..<count]) : nil
    }
}

/// `fieldloc time --chrony-conf` / `--ntp-conf`: the lines that fit a board.
@Suite("Time daemon configuration lines")
struct TimeDaemonConfigurationTests {
    @Test("a board with PPS gets a serial and a PPS SOCK source named as gpsd names them, and the fieldlocd arguments")
    func chronyWithPPS() throws {
        let board = try BoardCatalog.load(builtin: "pizero2w-adafruit-gps-hat-lis3mdl-lsm6dsox")
        let text = TimeDaemonConfiguration.chrony(board)
        #expect(text.contains("refclock SOCK /run/chrony.clk.serial0.sock refid GPS poll 2 precision 1e-1 delay 0.2 noselect\n"))
        #expect(text.contains("refclock SOCK /run/chrony.serial0.sock refid PPS poll 2 precision 1e-7 lock GPS prefer\n"))
        #expect(text.contains("fieldlocd --board pizero2w-adafruit-gps-hat-lis3mdl-lsm6dsox --chrony-sock /run/chrony.clk.serial0.sock --chrony-pps-sock /run/chrony.serial0.sock"))
        #expect(text.contains("time_offset (0.500 s"))
        let ntp = TimeDaemonConfiguration.ntp(board)
        #expect(ntp.contains("refclock shm unit 0 refid GPS noselect\n") && ntp.contains("refclock shm unit 1 refid PPS prefer\n"))
    }

    @Test("a board without PPS gets the serial source alone, selectable")
    func chronyWithoutPPS() throws {
        var board = try BoardCatalog.load(builtin: "pizero2w-adafruit-gps-hat-lis3mdl-lsm6dsox")
        board.gpio = nil
        let text = TimeDaemonConfiguration.chrony(board, folder: "/var/run")
        #expect(text.contains("refclock SOCK /var/run/chrony.clk.serial0.sock refid GPS poll 2 precision 1e-1 delay 0.2\n"))
        #expect(!text.contains("refid PPS") && !text.contains("--chrony-pps-sock"))
    }
}

/// A sink that keeps what it is given (and can be told to fail, as a missing chronyd).
final class CapturingSink: TimeReferenceSink, @unchecked Sendable {
    let name = "capture"
    private let lock = NSLock()
    private var kept: [TimeReferenceSample] = []
    private var failing = false
    var samples: [TimeReferenceSample] { lock.withLock { kept } }
    func fail(_ value: Bool) { lock.withLock { failing = value } }
    func submit(_ sample: TimeReferenceSample) throws(HardwareError) {
        let refuse = lock.withLock { failing }
        if refuse { throw HardwareError(.notFound, device: "capture", operation: "sendto") }
        lock.withLock { kept.append(sample) }
    }
}

@Suite("Time service: the epoch's first byte")
struct TimeServiceStampTests {
    @Test("a serial sample is stamped when the epoch's first byte arrived, less the chunk's time on the wire at the baud rate")
    func firstByte() throws {
        let now = Mutex<UInt64>(0)
        let sink = CapturingSink()
        // System time = monotonic + 1.7e18 ns.
        let service = TimeService(sinks: .init(serial: [sink]), configuration: .init(timeOffset: 0.1), baudRate: 9600,
                                  monotonicNow: { MonotonicInstant(nanoseconds: now.withLock { $0 }) },
                                  systemNanoseconds: { Int64($0.nanoseconds) + 1_700_000_000_000_000_000 })
        let base: Int64 = 1_700_000_000_000_000_000
        for second in 0..<4 {
            let start = UInt64(second) * 1_000_000_000 + 10_000_000_000
            // 96 bytes at 9600 baud took 100 ms: the chunk read at start + 100 ms began at start.
            now.withLock { $0 = start + 100_000_000 }
            service.observe(.bytes([UInt8](repeating: 0x24, count: 96)))
            now.withLock { $0 = start + 300_000_000 }
            service.observe(.bytes([UInt8](repeating: 0x24, count: 96)))
            var fix = Fix()
            fix.mode = .threeD
            fix.latitude = 1
            fix.longitude = 1
            // The receiver's second started 100 ms before its first byte (time_offset 0.1).
            fix.time = UTCTime(nanosecondsSinceEpoch: base + Int64(start) - 100_000_000)
            service.observe(.fix(fix, MonotonicInstant(nanoseconds: start + 400_000_000)))
        }
        #expect(sink.samples.count == 2, "three fixes confirm the time: samples for the third and fourth")
        for sample in sink.samples {
            #expect(abs(sample.offsetSeconds) < 1e-9, "offset \(sample.offsetSeconds)")
        }
        #expect(service.status.serialSamples == 2 && service.status.failingSinks.isEmpty)
    }

    @Test("a sink that fails is reported once and recovers with the next sample")
    func failingSink() throws {
        let sink = CapturingSink()
        let clock = Mutex<UInt64>(10_000_000_000)
        let service = TimeService(sinks: .init(serial: [sink]), baudRate: nil,
                                  monotonicNow: { MonotonicInstant(nanoseconds: clock.withLock { $0 }) },
                                  systemNanoseconds: { Int64($0.nanoseconds) })
        func epoch(_ second: Int) {
            let at = UInt64(second) * 1_000_000_000 + 10_000_000_000
            clock.withLock { $0 = at }
            var fix = Fix()
            fix.mode = .twoD
            fix.latitude = 1
            fix.longitude = 1
            fix.time = UTCTime(nanosecondsSinceEpoch: Int64(at))
            service.observe(.fix(fix, MonotonicInstant(nanoseconds: at)))
        }
        for second in 0..<3 { epoch(second) }
        sink.fail(true)
        epoch(3)
        #expect(service.status.failingSinks["capture"] != nil)
        sink.fail(false)
        epoch(4)
        #expect(service.status.failingSinks.isEmpty && sink.samples.count == 2)
    }
}
