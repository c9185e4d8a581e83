#if canImport(Glibc)
import Glibc
#endif
import FieldLocation
@testable import FieldLocationDaemon
import Foundation
import GPSDProtocol
import NIOCore
import Testing

/// The gpsd JSON server in process: a simulated board at 10x, a plain POSIX socket client.
@Suite("gpsd server in process", .serialized)
struct ServerTests {
    static let watchJSON = "?WATCH={\"enable\":true,\"json\":true}\n"

    @Test("VERSION on connect, CR LF line ends, gpsd 3.22's protocol numbers")
    func versionOnConnect() async throws {
        try await ServerFixture.with { fixture in
            let client = try LineClient(port: fixture.port)
            let line = try #require(client.readLine())
            #expect(line.hasSuffix("}\r\n"))
            let version = try #require(json(line))
            #expect(version["class"] as? String == "VERSION")
            #expect(version["proto_major"] as? Int == 3)
            #expect(version["proto_minor"] as? Int == 14)
            #expect((version["release"] as? String)?.hasPrefix("fieldlocd") == true)
            try client.send("?VERSION;?DEVICES;\n")
            #expect(client.readLine().flatMap(reportClass) == "VERSION")
            let devices = try #require(client.readLine().flatMap(json))
            #expect(devices["class"] as? String == "DEVICES")
            let list = try #require(devices["devices"] as? [[String: Any]])
            #expect(list.first?["path"] as? String == "sim://sim")
        }
    }

    @Test("?WATCH json: DEVICES and WATCH, then TPV (3D), SKY and ATT; every line JSON ending in CR LF")
    func watchStreamsReports() async throws {
        try await ServerFixture.with { fixture in
            let client = try fixture.client()
            try client.send(Self.watchJSON)
            let devices = try #require(client.readLine())
            #expect(reportClass(devices) == "DEVICES")
            #expect(devices.contains("\"activated\""))
            let watch = try #require(client.readLine().flatMap(json))
            #expect(watch["class"] as? String == "WATCH")
            #expect(watch["enable"] as? Bool == true)
            #expect(watch["json"] as? Bool == true)
            var seen: Set<String> = []
            var tpv3: [String: Any]?
            var att: [String: Any]?
            var sky: [String: Any]?
            let lines = try client.readLines(seconds: 20) { line in
                guard let object = json(line), let name = object["class"] as? String else { return false }
                seen.insert(name)
                if name == "TPV", object["mode"] as? Int == 3 { tpv3 = object }
                if name == "ATT" { att = object }
                if name == "SKY", (object["satellites"] as? [Any])?.isEmpty == false { sky = object }
                return tpv3 != nil && att != nil && sky != nil
            }
            for line in lines {
                #expect(line.hasSuffix("\r\n"), "line without CR LF: \(line)")
                #expect(json(line) != nil, "not JSON: \(line)")
                #expect(!line.contains("null"))
            }
            let tpv = try #require(tpv3)
            let lat = try #require(tpv["lat"] as? Double)
            let lon = try #require(tpv["lon"] as? Double)
            #expect(abs(lat - 47.3769) < 0.1 && abs(lon - 8.5417) < 0.1, "sim board is at Zurich: \(lat), \(lon)")
            #expect(tpv["time"] is String)
            #expect(tpv["device"] as? String == "sim://sim")
            let attitude = try #require(att)
            for key in ["mheading", "pitch", "roll", "dip", "mag_x", "mag_y", "mag_z", "acc_x", "acc_y", "acc_z"] {
                #expect(attitude[key] is Double, "ATT lacks \(key): \(attitude)")
            }
            // A level, still board reads about -1 g on z (body axes, z down) and a field of tens of µT.
            let accZ = try #require(attitude["acc_z"] as? Double)
            #expect(accZ < -7 && accZ > -12)
            let dip = try #require(attitude["dip"] as? Double)
            #expect(dip > 55 && dip < 70, "WMM dip at Zurich is about 63 degrees: \(dip)")
            #expect(seen.isSuperset(of: ["TPV", "SKY", "ATT"]))
        }
    }

    @Test("?POLL answers from the last fix; before a watch it lists no device")
    func poll() async throws {
        try await ServerFixture.with { fixture in
            let client = try fixture.client()
            try client.send("?POLL;\n")
            let idle = try #require(client.readLine().flatMap(json))
            #expect(idle["class"] as? String == "POLL")
            #expect(idle["active"] as? Int == 0)
            #expect((idle["tpv"] as? [Any])?.isEmpty == true)
            try client.send(Self.watchJSON)
            var last: [String: Any]?
            _ = try client.readLines(seconds: 20) { line in
                guard let object = json(line), object["class"] as? String == "TPV", object["mode"] as? Int == 3 else { return false }
                last = object
                return true
            }
            try client.send("?POLL;\n")
            let lines = try client.readLines(seconds: 5) { reportClass($0) == "POLL" }
            let poll = try #require(lines.last.flatMap(json))
            #expect(poll["active"] as? Int == 1)
            let tpv = try #require((poll["tpv"] as? [[String: Any]])?.first)
            #expect(tpv["mode"] as? Int == 3)
            let polledTime = try #require(tpv["time"] as? String)
            let seenTime = try #require(last?["time"] as? String)
            #expect(polledTime >= seenTime, "POLL must carry the latest fix")
            #expect((poll["sky"] as? [Any])?.count == 1)
        }
    }

    @Test("junk lines are ignored quietly; an unknown command gets gpsd's ERROR; the connection stays")
    func junkAndErrors() async throws {
        try await ServerFixture.with(run: false) { fixture in
            let client = try fixture.client()
            try client.send("VERSION\n$PFEC,GPint*58\r\n\u{1}\u{2}binary\u{7F}junk\n\n   \n")
            try client.send([0xB5, 0x62, 0x06, 0x00, 0xFF, 0xFE, 0x0A])
            #expect(client.drain(seconds: 0.5).isEmpty, "junk must get no answer")
            try client.send("?FOO;\n")
            let error = try #require(client.readLine().flatMap(json))
            #expect(error["class"] as? String == "ERROR")
            #expect(error["message"] as? String == "Unrecognized request '?FOO;\n'")
            try client.send("?WATCH={\"enable\":true,\"json\":true};$PFEC,GPsrq*5B\r\n")
            #expect(client.readLine().flatMap(reportClass) == "DEVICES")
            #expect(client.readLine().flatMap(reportClass) == "WATCH")
            try client.send("?WATCH={\"enable\":true,\"device\":\"/dev/nonexistent\"}\n")
            let noDevice = try #require(client.readLines(seconds: 5) { reportClass($0) == "ERROR" }.last.flatMap(json))
            #expect(noDevice["message"] as? String == "No such device as /dev/nonexistent")
            try client.send("?VERSION;\n")
            #expect(try client.readLines(seconds: 5) { reportClass($0) == "VERSION" }.isEmpty == false)
        }
    }

    @Test("an oversize request line gets one ERROR, is discarded, and the connection survives; long junk is silent")
    func oversizeLine() async throws {
        try await ServerFixture.with(run: false) { fixture in
            let client = try fixture.client()
            try client.send("?" + String(repeating: "X", count: 5000) + ";\n")
            let error = try #require(client.readLine().flatMap(json))
            #expect(error["class"] as? String == "ERROR")
            #expect((error["message"] as? String)?.hasPrefix("Request too long") == true)
            try client.send(String(repeating: "Z", count: 100_000) + "\n")
            #expect(client.drain(seconds: 0.4).isEmpty)
            try client.send("?VERSION;\n")
            #expect(client.readLine().flatMap(reportClass) == "VERSION")
            #expect(fixture.server.statistics.linesTooLong == 1)
        }
    }

    @Test("a command split across two writes works; a command with no terminator is handled after a pause")
    func splitAndUnterminated() async throws {
        // The pause that hands over an unterminated request is 4 s here (150 ms by default), so a
        // loaded machine's late 30 ms sleep between the parts cannot split the command in two (1 s
        // was once exceeded while other suites started Chromium and Prometheus on two cores).
        try await ServerFixture.with(run: false, { $0.unterminatedRequestDelay = .seconds(4) }) { fixture in
            let client = try fixture.client()
            try client.send("?WAT")
            try await Task.sleep(for: .milliseconds(30))
            try client.send("CH={\"enable\":true,\"js")
            try await Task.sleep(for: .milliseconds(30))
            try client.send("on\":true}\r\n")
            #expect(client.readLine().flatMap(reportClass) == "DEVICES")
            let watch = try #require(client.readLine().flatMap(json))
            #expect(watch["class"] as? String == "WATCH")
            #expect(watch["json"] as? Bool == true)
            // gps3 (Home Assistant) sends no terminator at all.
            try client.send("?WATCH={\"enable\":false}")
            let lines = try client.readLines(seconds: 10) { reportClass($0) == "WATCH" }
            #expect(json(lines.last ?? "")?["enable"] as? Bool == false)
        }
    }

    @Test("one engine client while anybody watches; the last watcher leaving releases it")
    func lastWatcherReleasesEngine() async throws {
        try await ServerFixture.with { fixture in
            #expect(fixture.engine.clientCount == 0)
            let a = try fixture.client()
            let b = try fixture.client()
            #expect(fixture.engine.clientCount == 0, "connecting adds no demand")
            try a.send(Self.watchJSON)
            try b.send("?WATCH={\"enable\":true,\"nmea\":true}\n")
            _ = try a.readLines(seconds: 5) { reportClass($0) == "WATCH" }
            _ = try b.readLines(seconds: 5) { reportClass($0) == "WATCH" }
            #expect(fixture.engine.clientCount == 1, "one engine client for all watchers")
            let client = try #require(fixture.feed.engineClient)
            #expect(fixture.engine.services(client)?.updatingLocation == true)
            #expect(fixture.engine.services(client)?.updatingHeading == true, "a JSON watcher on a board with a compass wants ATT")
            try a.send("?WATCH={\"enable\":false}\n")
            _ = try a.readLines(seconds: 5) { json($0)?["enable"] as? Bool == false }
            #expect(fixture.engine.clientCount == 1)
            #expect(await waitUntil(seconds: 2) { fixture.engine.services(client)?.updatingHeading == false },
                    "with only an nmea watcher left, headings are not needed")
            b.hangUp()
            #expect(await waitUntil(seconds: 5) { fixture.engine.clientCount == 0 }, "the receiver must be released")
            #expect(fixture.feed.engineClient == nil)
            #expect(fixture.server.statistics.watching == 0)
        }
    }

    @Test("nmea passes the receiver's sentences with valid checksums; raw 1 likewise; raw 2 passes bytes")
    func nmeaAndRaw() async throws {
        try await ServerFixture.with { fixture in
            let nmea = try fixture.client()
            try nmea.send("?WATCH={\"enable\":true,\"nmea\":true}\n")
            var sentences: [String] = []
            _ = try nmea.readLines(seconds: 15) { line in
                if line.hasPrefix("$") { sentences.append(line) }
                // A multi-GNSS epoch is some 17 sentences (GSA per system, GSV per talker): three epochs.
                return sentences.count >= 60
            }
            #expect(sentences.allSatisfy { nmeaChecksumValid($0) && $0.hasSuffix("\r\n") })
            #expect(sentences.contains { $0.contains("RMC,") } && sentences.contains { $0.contains("GGA,") })
            let raw = try fixture.client()
            try raw.send("?WATCH={\"enable\":true,\"raw\":2}\n")
            _ = try raw.readLines(seconds: 5) { reportClass($0) == "WATCH" }
            let bytes = raw.drain(seconds: 1)
            #expect(String(decoding: bytes, as: UTF8.self).contains("$GNRMC"), "raw 2 passes the receiver's bytes")
            #expect(!String(decoding: bytes, as: UTF8.self).contains("\"class\":\"TPV\""), "raw 2 without json sends no TPV")
        }
    }

    @Test("?WATCH; reports the policy; pps adds a TOFF per fix; ATT goes out about once per epoch")
    func ppsAndAttitudeRate() async throws {
        try await ServerFixture.with { fixture in
            let client = try fixture.client()
            try client.send("?WATCH;\n")
            #expect(client.readLine().flatMap(reportClass) == "DEVICES")
            let idle = try #require(client.readLine().flatMap(json))
            #expect(idle["class"] as? String == "WATCH" && idle["enable"] as? Bool == false)
            try client.send("?WATCH={\"enable\":true,\"json\":true,\"pps\":true}\n")
            var counts: [String: Int] = [:]
            var toff: [String: Any]?
            _ = try client.readLines(seconds: 20) { line in
                guard let object = json(line), let name = object["class"] as? String else { return false }
                counts[name, default: 0] += 1
                if name == "TOFF" { toff = object }
                return counts["TPV", default: 0] >= 8
            }
            let offset = try #require(toff, "no TOFF in \(counts)")
            #expect(offset["real_sec"] is Int && offset["clock_sec"] is Int && offset["real_nsec"] is Int)
            let tpvs = counts["TPV", default: 0]
            let atts = counts["ATT", default: 0]
            #expect(counts["TOFF", default: 0] >= tpvs - 2, "one TOFF per fix: \(counts)")
            #expect(atts >= tpvs - 3 && atts <= tpvs + 3, "ATT at the epoch rate, not the compass's 10 Hz: \(counts)")
        }
    }

    @Test("a client that never reads is dropped once 256 KiB are pending (10 MB published); others are unaffected")
    func slowReaderDropped() async throws {
        try await ServerFixture.with(run: false) { fixture in
            let slow = try LineClient(port: fixture.port, receiveBuffer: 4096)
            _ = slow.readLine()
            try slow.send("?WATCH={\"enable\":true,\"raw\":2}\n")
            let other = try fixture.client()
            try other.send(Self.watchJSON)
            _ = try other.readLines(seconds: 5) { reportClass($0) == "WATCH" }
            #expect(await waitUntil(seconds: 5) { fixture.server.statistics.watching == 2 })
            let line = Array("$GPTXT,01,01,02,flood flood flood flood flood flood flood flood*00\r\n".utf8)
            var chunk: [UInt8] = []
            while chunk.count < 65_536 { chunk += line }
            var published = 0
            while published < 10_000_000 && fixture.server.statistics.droppedSlowReaders == 0 {
                fixture.server.publish(.bytes(chunk))
                published += chunk.count
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(await waitUntil(seconds: 10) { fixture.server.statistics.droppedSlowReaders == 1 },
                    "the reader that never reads must be dropped")
            print("slow reader dropped after \(published / 1024) KiB published")
            #expect(published < 10_000_000, "dropped before 10 MB were sent")
            #expect(slow.waitForClose(seconds: 60), "its connection is closed")
            try other.send("?VERSION;\n")
            _ = try other.readLines(seconds: 5) { reportClass($0) == "VERSION" }
            #expect(fixture.server.statistics.connected == 1)
        }
    }

    @Test("the client limit: one more gets an ERROR and is closed; a freed slot is usable again")
    func connectionLimit() async throws {
        try await ServerFixture.with(run: false, { $0.maxClients = 4 }) { fixture in
            var clients = try (0..<4).map { _ in try fixture.client() }
            let extra = try LineClient(port: fixture.port)
            let refusal = try #require(extra.readLine().flatMap(json))
            #expect(refusal["class"] as? String == "ERROR")
            #expect((refusal["message"] as? String)?.contains("Too many clients") == true)
            #expect(extra.waitForClose(seconds: 60))
            #expect(fixture.server.statistics.refusedFull == 1)
            clients.removeLast()
            #expect(await waitUntil(seconds: 5) { fixture.server.statistics.connected == 3 })
            clients.append(try fixture.client())
            #expect(fixture.server.statistics.connected == 4)
        }
    }

    @Test("100 concurrent watchers all receive the stream through one engine client")
    func hundredWatchers() async throws {
        try await ServerFixture.with({ $0.maxClients = 128 }) { fixture in
            let clients = try (0..<100).map { _ in try fixture.client() }
            for client in clients { try client.send(Self.watchJSON) }
            #expect(await waitUntil(seconds: 10) { fixture.server.statistics.watching == 100 })
            #expect(fixture.engine.clientCount == 1)
            var times: Set<String> = []
            for client in clients {
                let lines = try client.readLines(seconds: 20) { line in
                    guard let object = json(line) else { return false }
                    return object["class"] as? String == "TPV" && object["mode"] as? Int == 3
                }
                if let time = lines.last.flatMap(json)?["time"] as? String { times.insert(time) }
            }
            #expect(!times.isEmpty)
            #expect(fixture.server.statistics.droppedSlowReaders == 0)
        }
    }

    @Test("1000 connect/disconnect cycles (half of them watching): no growth of engine clients or open file descriptors")
    func connectCycles() async throws {
        try await ServerFixture.with { fixture in
            for _ in 0..<10 { _ = try fixture.client() }
            #expect(await waitUntil(seconds: 5) { fixture.server.statistics.connected == 0 })
            let before = openFileDescriptors()
            let start = ContinuousClock.now
            for index in 0..<1000 {
                let client = try fixture.client()
                if index % 2 == 0 {
                    try client.send(Self.watchJSON)
                    _ = try client.readLines(seconds: 5) { reportClass($0) == "WATCH" }
                }
            }
            let elapsed = ContinuousClock.now - start
            #expect(await waitUntil(seconds: 10) { fixture.server.statistics.connected == 0 && fixture.engine.clientCount == 0 })
            // Other suites run beside this one and open descriptors of their own (sockets, a chronyd's
            // pipes): wait for the count to come back, and tell a leak (one a cycle would leave
            // hundreds) from their few.
            var after = openFileDescriptors()
            _ = await waitUntil(seconds: 5) {
                after = openFileDescriptors()
                return after <= before
            }
            print("1000 connect/disconnect cycles in \(elapsed): open fds \(before) before, \(after) after; engine clients \(fixture.engine.clientCount); accepted \(fixture.server.statistics.accepted)")
            #expect(after - before < 20, "file descriptors leaked: \(before) -> \(after)")
            #expect(fixture.engine.clientCount == 0)
            #expect(fixture.server.statistics.accepted == 1010)
        }
    }

    @Test("?DEVICE is read-only: control needs a user on the policy's control line, and changes are refused")
    func deviceControl() async throws {
        let me = PeerIdentity.identity(uid: getuid())
        let myName = try #require(me.user)
        // A policy whose control line does not name us.
        try await ServerFixture.with(run: false, { $0.policy.control = ["nobody-at-all"] }) { fixture in
            let client = try fixture.client()
            try client.send("?DEVICE;\n")
            let device = try #require(client.readLine().flatMap(json))
            #expect(device["class"] as? String == "DEVICE")
            #expect(device["path"] as? String == "sim://sim")
            try client.send("?DEVICE={\"path\":\"sim://sim\",\"bps\":115200}\n")
            let refused = try #require(client.readLine().flatMap(json))
            #expect(refused["class"] as? String == "ERROR")
            #expect((refused["message"] as? String)?.contains("Not authorised") == true)
            #expect((refused["message"] as? String)?.contains(myName) == true, "the peer's user is identified: \(refused)")
            #expect(fixture.server.statistics.controlRefused == 1)
        }
        // A policy that names us: identified, authorised, but the engine drives the receiver.
        try await ServerFixture.with(run: false, { $0.policy.control = [myName] }) { fixture in
            let client = try fixture.client()
            try client.send("?DEVICE={\"path\":\"sim://sim\"}\n")
            let answer = try #require(client.readLine())
            #expect(reportClass(answer) == "DEVICE", "an authorised request that changes nothing: \(answer)")
            try client.send("?DEVICE={\"hexdata\":\"b562\"}\n")
            let refused = try #require(client.readLine().flatMap(json))
            #expect((refused["message"] as? String)?.hasPrefix("Can't configure") == true)
        }
    }

    @Test("the access policy: denied users cannot watch; reduced accuracy coarsens TPVs to 0.05 degrees")
    func accessPolicy() async throws {
        let me = try #require(PeerIdentity.identity(uid: getuid()).user)
        try await ServerFixture.with(run: false, { $0.policy.users[me] = .denied }) { fixture in
            let client = try fixture.client()
            try client.send(Self.watchJSON)
            let error = try #require(client.readLine().flatMap(json))
            #expect(error["class"] as? String == "ERROR")
            #expect((error["message"] as? String)?.contains("denied") == true)
            #expect(fixture.engine.clientCount == 0)
        }
        try await ServerFixture.with({ $0.policy.accuracy = .reducedAccuracy }) { fixture in
            let client = try fixture.client()
            try client.send(Self.watchJSON)
            var tpv: [String: Any]?
            _ = try client.readLines(seconds: 20) { line in
                guard let object = json(line), object["class"] as? String == "TPV", object["mode"] as? Int == 3 else { return false }
                tpv = object
                return true
            }
            let lat = try #require(tpv?["lat"] as? Double)
            #expect(abs(lat / 0.05 - (lat / 0.05).rounded()) < 1e-6, "latitude not coarsened: \(lat)")
            #expect(tpv?["speed"] == nil && tpv?["altHAE"] == nil)
            #expect((tpv?["eph"] as? Double ?? 0) >= 5000)
        }
    }

    @Test("a peer that is not on this host is refused unless --allow-remote",
          .enabled(if: Self.nonLoopbackIPv4() != nil, "this host has no non-loopback IPv4 address to connect from"))
    func remotePeerRefused() async throws {
        let address = try #require(Self.nonLoopbackIPv4())
        try await ServerFixture.with(run: false, { $0.host = address }) { fixture in
            let client = try LineClient(port: fixture.port, host: address)
            #expect(client.readLine(seconds: 2) == nil, "no greeting for a remote peer")
            #expect(client.waitForClose(seconds: 60))
            #expect(fixture.server.statistics.refusedRemote == 1)
        }
        try await ServerFixture.with(run: false, { $0.host = address; $0.allowRemote = true }) { fixture in
            let client = try LineClient(port: fixture.port, host: address)
            #expect(client.readLine().flatMap(reportClass) == "VERSION")
        }
    }

    static func nonLoopbackIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
            let host = UInt32(bigEndian: v4.sin_addr.s_addr)
            if host >> 24 == 127 { continue }
            var text = [CChar](repeating: 0, count: 16)
            var raw = v4.sin_addr
            guard inet_ntop(AF_INET, &raw, &text, 16) != nil else { continue }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }
}

@Suite("gpsd server configuration and helpers")
struct ServerUnitTests {
    @Test("wildcard addresses need --listen-any; limits are checked")
    func configuration() throws {
        var configuration = GPSDServerConfiguration()
        #expect(throws: Never.self) { try configuration.validate() }
        for host in ["0.0.0.0", "::", "[::]", "*", ""] {
            configuration.host = host
            #expect(throws: GPSDServerConfiguration.Problem.self) { try configuration.validate() }
        }
        configuration.listenAny = true
        #expect(throws: Never.self) { try configuration.validate() }
        configuration.maxClients = 0
        #expect(throws: GPSDServerConfiguration.Problem.self) { try configuration.validate() }
    }

    @Test("loopback peers: 127/8, ::1, IPv4-mapped 127/8; others are remote")
    func loopback() throws {
        #expect(GPSDAddressRules.isLoopback(try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        #expect(GPSDAddressRules.isLoopback(try SocketAddress(ipAddress: "127.3.2.1", port: 1)))
        #expect(GPSDAddressRules.isLoopback(try SocketAddress(ipAddress: "::1", port: 1)))
        #expect(GPSDAddressRules.isLoopback(try SocketAddress(ipAddress: "::ffff:127.0.0.1", port: 1)))
        #expect(!GPSDAddressRules.isLoopback(try SocketAddress(ipAddress: "10.0.0.1", port: 1)))
        #expect(!GPSDAddressRules.isLoopback(try SocketAddress(ipAddress: "128.0.0.1", port: 1)))
        #expect(!GPSDAddressRules.isLoopback(try SocketAddress(ipAddress: "::ffff:10.0.0.1", port: 1)))
        #expect(!GPSDAddressRules.isLoopback(try SocketAddress(ipAddress: "fe80::1", port: 1)))
        #expect(!GPSDAddressRules.isLoopback(nil))
    }

    @Test("raw 1 hex dumps a binary frame as lowercase hex, then CR LF; raw 1 and nmea watches take the engine's frames, raw 2 and JSON do not")
    func rawFrames() {
        let ubx: [UInt8] = [0xB5, 0x62, 0x06, 0x00, 0x00, 0x00, 0x06, 0x18]
        #expect(GPSDHub.hexLine(ubx) == Array("b562060000000618\r\n".utf8))
        #expect(GPSDHub.hexLine([0x00, 0xFF, 0xA5]) == Array("00ffa5\r\n".utf8))
        func policy(nmea: Bool, raw: Int) -> GPSDWatchPolicy {
            var p = GPSDWatchPolicy()
            p.enable = true
            p.json = !nmea && raw == 0
            p.nmea = nmea
            p.raw = raw
            return p
        }
        #expect(GPSDHub.wantsFrames(policy(nmea: true, raw: 0)))
        #expect(GPSDHub.wantsFrames(policy(nmea: false, raw: 1)))
        #expect(GPSDHub.wantsFrames(policy(nmea: true, raw: 1)))
        #expect(!GPSDHub.wantsFrames(policy(nmea: false, raw: 2)))
        #expect(!GPSDHub.wantsFrames(policy(nmea: true, raw: 2)))
        #expect(!GPSDHub.wantsFrames(policy(nmea: false, raw: 0)))
    }

    @Test("the socket table: the client's socket (local = peer port, remote = server port) gives its uid")
    func socketTable() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:0B83 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 100 1
               1: 0100007F:0B83 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 101 1
               2: 0100007F:D431 0100007F:0B83 01 00000000:00000000 00:00000000 00000000  1000        0 102 1
               3: 0100007F:D432 0100007F:0B83 06 00000000:00000000 00:00000000 00000000  1001        0 0 1
            """
        #expect(PeerIdentity.owner(inTable: table, clientPort: 0xD431, serverPort: 0x0B83) == 1000)
        #expect(PeerIdentity.owner(inTable: table, clientPort: 0xD432, serverPort: 0x0B83) == nil, "TIME_WAIT is not a peer")
        #expect(PeerIdentity.owner(inTable: table, clientPort: 0x0B83, serverPort: 0xD431) == 0, "the server's own socket is the reverse")
        #expect(PeerIdentity.identity(uid: 0).user == "root")
    }
}
