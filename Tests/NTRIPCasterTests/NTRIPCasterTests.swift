import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationServices
import NTRIP
import Testing

/// The NTRIP client against a real caster (RTKLIB's str2str) on loopback, the emulated ZED-F9P
/// of the `pi4-zed-f9p-rtk` board behind it: login, GGA, corrections into the UART, RTK fixed;
/// wrong password, unknown mountpoint, a caster restart and a truncated frame each named in the
/// status, and recovered from.
@Suite("NTRIP client against str2str", .serialized, .enabled(if: Caster.available, "needs RTKLIB's str2str (apt-get install rtklib)"))
struct NTRIPCasterTests {
    static let clock = SystemMonotonicClock()

    /// An emulated ZED-F9P board with a client wanting fixes, and an NTRIP client on `caster`.
    static func unit(port: Int, mountpoint: String = "MOUNT", password: String = "pass") throws -> (LocationEngine, NTRIPClient, StatusMonitor) {
        let board = try BoardCatalog.load(builtin: "pi4-zed-f9p-rtk")
        let engine = try LocationEngine.simulated(board: board)
        let monitor = StatusMonitor(engine: engine)
        let configuration = NTRIPConfiguration(host: "127.0.0.1", port: port, mountpoint: mountpoint, user: "user", password: password)
        let client = NTRIPClient(configuration: configuration, network: LinuxNetwork(), silenceTimeout: 3, connectTimeout: 3, backoff: (0.2, 1))
        engine.attachCorrections(client)
        return (engine, client, monitor)
    }

    /// Runs the engine a simulated second at a time until `done` or 30 s of real time; returns
    /// whether `done` held. Before each simulated second it waits (up to 300 ms of real time) for
    /// new frames, so the simulated clock never outruns the caster's stream: on a loaded machine
    /// a stalled stream would otherwise age the corrections out in simulated time.
    static func run(_ engine: LocationEngine, until done: () -> Bool) -> Bool {
        let end = clock.now().advanced(by: .seconds(30))
        let client = engine.correctionForwarder?.client
        var frames = client?.status.frames ?? 0
        while clock.now() < end {
            engine.advance(by: .seconds(1))
            if done() { return true }
            let wait = clock.now().advanced(by: .milliseconds(300))
            repeat {
                clock.sleep(until: clock.now().advanced(by: .milliseconds(20)))
            } while clock.now() < wait && (client?.status.frames ?? 0) == frames
            frames = client?.status.frames ?? 0
        }
        return false
    }

    @Test("logs in, sends GGA, forwards CRC-checked corrections; the receiver goes DGPS, RTK float, RTK fixed")
    func rtkFixed() throws {
        let caster = try Caster.start()
        defer { caster.stop() }
        let (engine, client, monitor) = try Self.unit(port: caster.port)
        defer { monitor.close(); engine.shutdown() }
        var solutions: [CorrectionStatus.Solution] = []
        let fixed = Self.run(engine) {
            if let s = engine.lastLocation?.corrections?.solution, solutions.last != s { solutions.append(s) }
            return solutions.last == .rtkFixed
        }
        #expect(fixed, "solutions seen: \(solutions), link: \(client.status.link)")
        #expect(solutions.contains(.dgps) && solutions.contains(.rtkFloat))
        let firstDGPS = solutions.firstIndex(of: .dgps) ?? 0, firstFloat = solutions.firstIndex(of: .rtkFloat) ?? 0
        #expect(firstDGPS < firstFloat)
        let status = client.status
        #expect(status.link == .streaming(.v1))  // RTKLIB 2.4.3's caster answers ICY 200 OK
        #expect(status.sendsGGA == true && status.record?.wantsNMEA == true)
        #expect(status.ggaSent >= 1)
        #expect(status.crcFailures == 0)
        let corrections = try #require(engine.correctionStatus)
        #expect([1005, 1077, 1087].allSatisfy(corrections.messageTypes.contains))
        #expect(corrections.station == Caster.station)
        #expect((corrections.age ?? 99) < 5)
        let emulator = try #require(engine.simulatedReceiver)
        #expect(emulator.rtcmFrames.valid > 10 && emulator.rtcmFrames.bad == 0)
        #expect(engine.correctionForwarder?.bytesWritten ?? 0 > 1000)
    }

    @Test("a wrong password is 'unauthorized', retried with backoff, never streamed")
    func wrongPassword() throws {
        let caster = try Caster.start()
        defer { caster.stop() }
        let (engine, client, monitor) = try Self.unit(port: caster.port, password: "wrong")
        defer { monitor.close(); engine.shutdown() }
        #expect(Self.run(engine) { client.status.link == .unauthorized && client.status.connections >= 2 })
        #expect(client.status.frames == 0)
        #expect(engine.correctionStatus?.link == "unauthorized")
        #expect(monitor.snapshot().warnings.contains { $0.contains("unauthorized") })
    }

    @Test("an unknown mountpoint is 'mountpoint-not-found' (from the source table), retried")
    func unknownMountpoint() throws {
        let caster = try Caster.start()
        defer { caster.stop() }
        let (engine, client, monitor) = try Self.unit(port: caster.port, mountpoint: "NOSUCH")
        defer { monitor.close(); engine.shutdown() }
        #expect(Self.run(engine) { client.status.link == .mountpointNotFound && client.status.retryIn != nil })
        #expect(engine.correctionStatus?.link == "mountpoint-not-found")
        #expect(client.status.frames == 0)
    }

    @Test("a caster restart: the link is lost, the client reconnects and corrections resume")
    func casterRestart() throws {
        var caster = try Caster.start()
        let port = caster.port
        let (engine, client, monitor) = try Self.unit(port: port)
        defer { monitor.close(); engine.shutdown() }
        #expect(Self.run(engine) { client.status.frames > 20 })
        caster.stop()
        #expect(Self.run(engine) { client.status.link.isFailure })
        let lost = client.status.link
        #expect(lost.name == "connection-lost" || lost.name == "connect-failed", "\(lost)")
        let framesBefore = client.status.frames
        caster = try Caster(port: port)
        defer { caster.stop() }
        #expect(Self.run(engine) { client.status.frames > framesBefore + 20 && client.status.link == .streaming(.v1) })
        #expect(client.status.connections >= 2)
        #expect((engine.correctionStatus?.reconnects ?? 0) >= 1)
    }

    @Test("a truncated frame fails its CRC, is counted and never reaches the receiver; the stream goes on")
    func truncatedFrame() throws {
        let caster = try Caster.start()
        defer { caster.stop() }
        let (engine, client, monitor) = try Self.unit(port: caster.port)
        defer { monitor.close(); engine.shutdown() }
        #expect(Self.run(engine) { client.status.frames > 10 })
        caster.truncateNextFrame()
        #expect(Self.run(engine) { client.status.crcFailures >= 1 })
        let framesAfter = client.status.frames
        #expect(Self.run(engine) { client.status.frames > framesAfter + 20 && engine.lastLocation?.corrections?.solution == .rtkFixed })
        #expect(client.status.link == .streaming(.v1))
        #expect(engine.simulatedReceiver?.rtcmFrames.bad == 0)
        #expect((engine.correctionStatus?.crcFailures ?? 0) >= 1)
    }
}
