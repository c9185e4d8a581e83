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
import FieldLocationDaemon
import HardwareInterfaces
import Heading
import Foundation
import Logging
import NMEA
import NIOCore
import Synchronization
import Testing

/// A UDP socket on 127.0.0.1 (an ephemeral port) that reads datagrams with a deadline.
final class UDPListener {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { close(fd); throw TestFailure("bind failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// The next datagram, or nil at the deadline.
    func receive(seconds: Double) -> [UInt8]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Deadline(seconds: seconds).remainingMilliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(buffer[0..<count]) : nil
    }
}

/// A feed that publishes only what the test injects, and records the demand put on it.
final class RecordingFeed: GPSDFeed {
    let device = GPSDDeviceInfo(path: "test://nmea", driver: "NMEA0183", hasCompass: true)
    let demands = Mutex<[GPSDDemand]>([])
    func start(publishing: @escaping @Sendable (EngineObservation) -> Void) {}
    func stop() {}
    func demandChanged(_ demand: GPSDDemand) { demands.withLock { $0.append(demand) } }
    var last: GPSDDemand? { demands.withLock { $0.last } }
}

@Suite("NMEA-0183 output over TCP and UDP", .serialized)
struct NMEAOutputTests {
    static let gpsd = Programs.find("gpsd")
    static let gpspipe = Programs.find("gpspipe")

    static var logger: Logger {
        var logger = Logger(label: "fieldlocd-tests.nmea")
        logger.logLevel = .warning
        return logger
    }

    static func heading(_ magnetic: Double, true trueHeading: Double?) -> HeadingUpdate {
        HeadingUpdate(magneticHeading: magnetic, trueHeading: trueHeading, headingAccuracy: 2, field: (x: 20, y: 0, z: 40),
                      acceleration: (x: 0, y: 0, z: 1), pitch: 0, roll: 0, inclination: 63,
                      quality: .good, flags: [], takenAt: MonotonicInstant(nanoseconds: 0))
    }

    @Test("filter lines: keys, defaults kept, errors named")
    func filterLines() throws {
        let filter = try NMEAOutputFilter.parse("sentences=gga,HDT every=3")
        #expect(filter.sentences == ["GGA", "HDT"] && filter.every == 3)
        let kept = try NMEAOutputFilter.parse("every=2", base: filter)
        #expect(kept.sentences == ["GGA", "HDT"] && kept.every == 2)
        #expect(try NMEAOutputFilter.parse("sentences=*", base: filter).sentences == nil)
        #expect(throws: NMEAOutputFilter.Problem.self) { try NMEAOutputFilter.parse("every=0") }
        #expect(throws: NMEAOutputFilter.Problem.self) { try NMEAOutputFilter.parse("rate=2") }
        #expect(throws: NMEAOutputFilter.Problem.self) { try NMEAOutputFilter.parse("sentences=G$A") }
        var configuration = NMEAOutputConfiguration()
        configuration.tcp = ("0.0.0.0", 10110)
        #expect(throws: GPSDServerConfiguration.Problem.self) { try configuration.validate() }
        configuration.listenAny = true
        try configuration.validate()
        configuration.udp = ("192.168.1.255", 10110)
        #expect(throws: GPSDServerConfiguration.Problem.self) { try configuration.validate() }
        configuration.allowRemote = true
        try configuration.validate()
        #expect(try NMEAOutputConfiguration.endpoint("[::1]:10110", what: "x") == ("::1", 10110))
    }

    @Test("a TCP client's filter line and every=N; the receiver is held while it is connected")
    func tcpFilterAndDemand() async throws {
        let feed = RecordingFeed()
        var configuration = NMEAOutputConfiguration()
        configuration.tcp = ("127.0.0.1", 0)
        let server = NMEAOutputServer(configuration: configuration, feed: feed, logger: Self.logger)
        let address = try await server.start()
        let port = try #require(address?.port)
        #expect(feed.last == nil || feed.last?.active == false)
        let client = try LineClient(port: port)
        #expect(await waitUntil(seconds: 5) { feed.last?.active == true }, "the receiver is held while a client is connected")
        try client.send("$GPTXT,01,01,02,from a plotter*00\r\nsentences=HDT,GGA every=2\n")
        #expect(await waitUntil(seconds: 5) { server.statistics.filtersTaken == 1 })
        let gga = Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n".utf8)
        let rmc = Array("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n".utf8)
        for k in 0..<4 {
            // The engine's frames (a sentence split across two reads comes once, whole: RawFrameTests);
            // the bytes as read are not passed on again.
            server.publish(.bytes(Array(gga.prefix(20))))
            server.publish(.frames([RawFrame(kind: .sentence, bytes: gga), RawFrame(kind: .sentence, bytes: rmc)]))
            server.publish(.heading(Self.heading(100 + Double(k), true: 103 + Double(k))))
        }
        let lines = try client.readLines(seconds: 5) { $0.hasPrefix("$HCHDT,105.0") }
        #expect(lines == [String(decoding: gga, as: UTF8.self), "$HCHDT,103.0,T*2B\r\n",
                          String(decoding: gga, as: UTF8.self), "$HCHDT,105.0,T*2D\r\n"])
        for line in lines { #expect(NMEABuilder.isValid(Array(line.utf8)) && nmeaChecksumValid(line), "\(line)") }
        try client.send("sentences=*\nbogus\n")
        #expect(await waitUntil(seconds: 5) { server.statistics.filtersRefused == 1 && server.statistics.filtersTaken == 2 })
        client.hangUp()
        #expect(await waitUntil(seconds: 5) { feed.last?.active == false }, "released when the last client left")
        await server.stop()
    }

    @Test("UDP: HDT, HDM, HDG (variation east positive) and, with a fused attitude, XDR pitch and roll; no true heading: no HDT, empty variation; unavailable: nothing")
    func headingSentences() async throws {
        let udp = try UDPListener()
        var configuration = NMEAOutputConfiguration()
        configuration.udp = ("127.0.0.1", udp.port)
        let feed = RecordingFeed()
        let server = NMEAOutputServer(configuration: configuration, feed: feed, logger: Self.logger)
        _ = try await server.start()
        #expect(feed.last?.active == true, "a UDP output holds the receiver")
        var fused = Self.heading(350.04, true: 2.5)
        fused.attitude = AttitudeEstimate(quaternion: AttitudeQuaternion(roll: -4.25, pitch: 12.5, yaw: 350.04), roll: -4.25, pitch: 12.5,
                                          yaw: 350.04, sources: [.gyroscope, .accelerometer], rotationRate: Vector3(0, 0, 0),
                                          gyroscopeBias: Vector3(0, 0, 0), isStill: true, recoveries: 0)
        server.publish(.heading(fused))
        var westerly = Self.heading(20, true: 8)
        westerly.attitude = nil
        server.publish(.heading(westerly))
        server.publish(.heading(Self.heading(20, true: nil)))
        var unavailable = Self.heading(20, true: 25)
        unavailable.quality = .unavailable
        server.publish(.heading(unavailable))
        var got: [String] = []
        while got.count < 9, let datagram = udp.receive(seconds: 5) {
            #expect(NMEABuilder.isValid(datagram))
            got.append(String(decoding: datagram, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let bodies = got.map { String($0.prefix { $0 != "*" }) }
        #expect(bodies == ["$HCHDT,2.5,T", "$HCHDM,350.0,M", "$HCHDG,350.0,0.0,E,12.5,E", "$HCXDR,A,12.5,D,PTCH,A,-4.3,D,ROLL",
                           "$HCHDT,8.0,T", "$HCHDM,20.0,M", "$HCHDG,20.0,0.0,E,12.0,W",
                           "$HCHDM,20.0,M", "$HCHDG,20.0,0.0,E,,"], "\(got)")
        #expect(udp.receive(seconds: 0.2) == nil, "the unavailable heading gave nothing")
        #expect(server.statistics.udpSentences == 9)
        await server.stop()
        #expect(feed.last?.active == false)
    }

    @Test("sim board: a TCP client and a UDP listener get valid sentences; HDT is the heading the manager delivers")
    func simBoard() async throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let engine = try LocationEngine.simulated(board: board)
        let udp = try UDPListener()
        var configuration = NMEAOutputConfiguration()
        configuration.tcp = ("127.0.0.1", 0)
        configuration.udp = ("127.0.0.1", udp.port)
        let feed = EngineFeed(engine: engine, logger: Self.logger, clientName: "nmea")
        let server = NMEAOutputServer(configuration: configuration, feed: feed, logger: Self.logger)
        let address = try await server.start()
        let port = try #require(address?.port)
        // The manager's headings, as a client of the same engine receives them.
        final class Delivered: Sendable { let values = Mutex<Set<String>>([]) }
        let delivered = Delivered()
        let registration = engine.register(name: "test") { event in
            if case .heading(let h) = event, let t = h.trueHeading, h.quality != .unavailable {
                var value = t.truncatingRemainder(dividingBy: 360)
                if value < 0 { value += 360 }
                if (value * 10).rounded() >= 3600 { value = 0 }
                delivered.values.withLock { _ = $0.insert(NMEABuilder.decimal(value, places: 1)) }
            }
        }
        engine.update(registration.id) { services in
            services.updatingLocation = true
            services.updatingHeading = true
            services.headingFilter = nil
        }
        engine.runInBackground(speed: 10)
        defer { engine.stop() }
        let client = try LineClient(port: port)
        var hdt: [String] = []
        var formatters: Set<String> = []
        let deadline = Deadline(seconds: 60)
        while hdt.count < 20 && !deadline.expired {
            guard let line = client.readLine(seconds: 10) else { break }
            #expect(NMEABuilder.isValid(Array(line.utf8)) && nmeaChecksumValid(line), "invalid: \(line)")
            if let formatter = NMEABuilder.formatter(of: Array(line.utf8)) { formatters.insert(formatter) }
            if line.hasPrefix("$HCHDT,") { hdt.append(String(line.dropFirst(7).prefix { $0 != "," })) }
        }
        #expect(hdt.count == 20, "HDT sentences: \(hdt.count)")
        #expect(formatters.isSuperset(of: ["GGA", "RMC", "HDT", "HDM", "HDG"]), "\(formatters.sorted())")
        let missing = { Set(hdt).subtracting(delivered.values.withLock { $0 }) }
        #expect(await waitUntil(seconds: 5) { missing().isEmpty }, "HDT values the manager did not deliver: \(missing().sorted())")
        var datagrams = 0
        var udpFormatters: Set<String> = []
        while datagrams < 200, !udpFormatters.isSuperset(of: ["GGA", "HDT"]), let datagram = udp.receive(seconds: 10) {
            datagrams += 1
            #expect(NMEABuilder.isValid(datagram) && nmeaChecksumValid(String(decoding: datagram, as: UTF8.self)))
            if let formatter = NMEABuilder.formatter(of: datagram) { udpFormatters.insert(formatter) }
        }
        #expect(udpFormatters.isSuperset(of: ["GGA", "HDT"]), "UDP gave \(udpFormatters.sorted()) in \(datagrams) datagrams")
        engine.unregister(registration.id)
        await server.stop()
        #expect(feed.engineClient == nil)
    }

    @Test("gpsd reads our TCP output as an NMEA source (gpsd -N -n -S PORT tcp://127.0.0.1:NMEAPORT) and serves TPVs",
          .enabled(if: gpsd != nil && gpspipe != nil, "needs gpsd and gpspipe (apt install gpsd gpsd-clients)"))
    func gpsdReadsOurOutput() async throws {
        let board = try BoardCatalog.load(builtin: "sim")
        let engine = try LocationEngine.simulated(board: board)
        var configuration = NMEAOutputConfiguration()
        configuration.tcp = ("127.0.0.1", 0)
        let server = NMEAOutputServer(configuration: configuration, feed: EngineFeed(engine: engine, logger: Self.logger, clientName: "nmea"),
                                      logger: Self.logger)
        let address = try await server.start()
        let port = try #require(address?.port)
        engine.runInBackground(speed: 5)
        let folder = try Programs.temporaryFolder()
        let gpsdPort = try Programs.freePort()
        let gpsd = try Programs.Running(Self.gpsd!, ["-N", "-n", "-S", "\(gpsdPort)", "tcp://127.0.0.1:\(port)"], folder: folder)
        do {
            #expect(await Programs.waitForListener(port: gpsdPort, seconds: 10), "gpsd did not listen: \(gpsd.stderr)")
            let result = try Programs.run(Self.gpspipe!, ["-w", "-n", "30", "127.0.0.1:\(gpsdPort)"], seconds: 40)
            #expect(result.status == 0 && !result.timedOut, "gpspipe: \(result.stderr)")
            let tpvs = result.stdout.split(whereSeparator: \.isNewline).compactMap { json(String($0)) }.filter { $0["class"] as? String == "TPV" }
            let fixed = tpvs.filter { ($0["mode"] as? Int ?? 0) >= 2 }
            #expect(!fixed.isEmpty, "gpsd served no TPV with a fix: \(result.stdout.prefix(800))")
            if let tpv = fixed.first, let lat = tpv["lat"] as? Double, let lon = tpv["lon"] as? Double {
                #expect(abs(lat - 47.3769) < 0.1 && abs(lon - 8.5417) < 0.1, "the sim board is at Zurich: \(lat), \(lon)")
            }
            #expect(tpvs.allSatisfy { ($0["device"] as? String) == "tcp://127.0.0.1:\(port)" })
        } catch {
            await gpsd.stop()
            engine.stop()
            await server.stop()
            throw error
        }
        await gpsd.stop()
        engine.stop()
        await server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
