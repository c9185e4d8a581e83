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
import FieldLocationClient
import FieldLocationDaemon
import FieldLocationWire
import Foundation
import LocationServices
import Logging
import Testing

/// The local client socket end to end: an in-process ``ClientSocketServer`` on a temporary path over a
/// simulated `sim` board running at 50x, with `LocationManager`s over ``RemoteLocationProvider`` and a
/// raw POSIX client for the wire protocol itself. Every wait has a deadline and fails the test at it.
@Suite("client socket", .serialized)
struct ClientSocketTests {
    @Test("a manager over the socket gets locations, a region's state and a requestLocation answer")
    func managerOverTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            #expect(provider.boardName == "sim" && provider.locationServicesEnabled && provider.headingAvailable)
            let manager = LocationManager(provider: provider, name: "tracker")
            let recorder = CSRecorder()
            manager.delegate = recorder
            manager.startUpdatingLocation()
            #expect(manager.authorizationStatus == .authorizedWhenInUse)
            #expect(await csWait(seconds: 10) { recorder.locations.count >= 5 }, "five locations within 10 s at 50x")
            let locations = recorder.locations
            for (a, b) in zip(locations, locations.dropFirst()) { #expect(a.receivedAt < b.receivedAt) }
            #expect(locations.allSatisfy { $0.provenance == .simulator && !$0.isReduced && $0.horizontalAccuracy > 0 })
            #expect(f.engine.clientCount == 1)
            #expect(f.engine.services(f.firstClient() ?? -1)?.updatingLocation == true)
            // The same values an in-process client sees, on the engine's clock, which the provider follows.
            let last = try #require(manager.location)
            #expect(last.receivedAt <= provider.clock.now())
            #expect(provider.clock.now().nanoseconds >= f.engine.clock.now().nanoseconds / 2)

            // A region around the unit: monitoring determines it inside; requestState agrees.
            let here = try #require(locations.last)
            let region = CircularRegion(identifier: "yard", latitude: here.latitude, longitude: here.longitude, radius: 500)
            manager.startMonitoring(for: region)
            #expect(manager.monitoredRegions == [region])
            #expect(await csWait(seconds: 10) { recorder.determined.contains { $0 == (.inside, "yard") } }, "\(recorder.events)")
            manager.requestState(for: region)
            #expect(await csWait(seconds: 5) { recorder.determined.filter { $0 == (.inside, "yard") }.count >= 2 })

            // A bad region is refused with its reason, through the delegate.
            manager.startMonitoring(for: CircularRegion(identifier: "bad", latitude: 95, longitude: 0, radius: 10))
            #expect(await csWait(seconds: 5) { recorder.regionFailures.contains("bad") })

            // requestLocation on a second manager: exactly one answer, newer than the request.
            let asker = LocationManager(provider: provider, name: "asker")
            let answers = CSRecorder()
            asker.delegate = answers
            let asked = provider.clock.now()
            asker.requestLocation(timeout: .seconds(60))
            #expect(await csWait(seconds: 10) { answers.locations.count == 1 })
            #expect(answers.locations.first.map { $0.receivedAt >= asked } == true, "never a fix older than the request")
            try await Task.sleep(for: .milliseconds(300))
            #expect(answers.batches.count == 1, "one answer only")

            manager.stopUpdatingLocation()
            #expect(await csWait(seconds: 5) { f.engine.services(f.firstClient() ?? -1)?.updatingLocation == false })
        }
    }

    @Test("two remote clients merge their demand; the last one out idles the receiver")
    func twoClientsMergeDemand() async throws {
        try await CSFixture.with { f in
            let a = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let b = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let coarse = LocationManager(provider: a, name: "coarse")
            coarse.desiredAccuracy = .threeKilometers
            coarse.startUpdatingLocation()
            #expect(await csWait(seconds: 10) { f.engine.decision?.governingClient?.contains("coarse") == true },
                    "\(String(describing: f.engine.decision))")
            let coarseOnly = try #require(f.engine.decision)
            let fine = LocationManager(provider: b, name: "fine")
            fine.desiredAccuracy = .best
            fine.startUpdatingLocation()
            #expect(await csWait(seconds: 10) { f.engine.decision?.governingClient?.contains("fine") == true },
                    "the most demanding client governs: \(String(describing: f.engine.decision))")
            #expect(f.engine.clientCount == 2)
            #expect(f.engine.decision?.receiver != coarseOnly.receiver, "best accuracy changes the schedule")
            fine.stopUpdatingLocation()
            #expect(await csWait(seconds: 10) { f.engine.decision?.governingClient?.contains("coarse") == true })
            coarse.stopUpdatingLocation()
            #expect(await csWait(seconds: 10) {
                if case .idle = f.engine.decision?.receiver { return true } else { return false }
            }, "no demand left: \(String(describing: f.engine.decision))")
            _ = (a, b)
        }
    }

    @Test("a disconnect unregisters every client of the connection")
    func disconnectUnregisters() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let one = LocationManager(provider: provider, name: "one")
            let two = LocationManager(provider: provider, name: "two")
            one.startUpdatingLocation()
            two.startUpdatingHeading()
            two.startMonitoring(for: CircularRegion(identifier: "r", latitude: 47, longitude: 8, radius: 100))
            #expect(f.engine.clientCount == 2)
            #expect(f.server.statistics.connected == 1)
            provider.close()
            // "two" (authorised always, persistent) keeps its region monitored in the background, its
            // other services gone; "one" is unregistered.
            #expect(await csWait(seconds: 5) { f.engine.clientCount == 1 }, "\(f.engine.clientCount) clients left")
            #expect(await csWait(seconds: 5) { f.server.statistics.connected == 0 })
            #expect(f.server.persistentClients == ["uid\(getuid())-two"])
            let background = try #require(f.firstClient())
            #expect(f.engine.services(background)?.updatingHeading == false && f.engine.monitoredRegions(background).count == 1)
            // Once it stops monitoring, it goes too.
            let secondComing = CSRecorder()
            do {
                let again = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
                let two = LocationManager(provider: again, name: "two")
                two.delegate = secondComing
                two.stopMonitoring(for: CircularRegion(identifier: "r", latitude: 47, longitude: 8, radius: 100))
                // An event queued while it was away (the region's first determination) is delivered
                // now and stays queued until acknowledged: wait for the acknowledgement on disk.
                let journal = f.directory + "/pending-uid\(getuid())-two.json"
                #expect(await csWait(seconds: 10) {
                    guard let data = FileManager.default.contents(atPath: journal),
                          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
                    return (object["events"] as? [Any])?.isEmpty == true
                }, "\(String(decoding: FileManager.default.contents(atPath: journal) ?? Data(), as: UTF8.self).prefix(600))")
                again.close()
            }
            #expect(await csWait(seconds: 30) { f.engine.clientCount == 0 },
                    "\(f.engine.clientCount) clients left; regions \(f.firstClient().map { f.engine.monitoredRegions($0).map(\.identifier) } ?? []); errors \(secondComing.errors), region failures \(secondComing.regionFailures)")
            #expect(await csWait(seconds: 30) { f.server.statistics.connected == 0 })
            #expect(await csWait(seconds: 10) {
                if case .idle = f.engine.decision?.receiver { return true } else { return false }
            }, "the last one out idles the receiver: \(String(describing: f.engine.decision))")
            // Calls after the close fail at once, without waiting for the timeout.
            let started = ContinuousClock.now
            #expect(one.monitoredRegions.isEmpty)
            #expect(ContinuousClock.now - started < .seconds(1))

            // A raw client that registers and hangs up without a word.
            let raw = try CSUnixClient(path: f.path)
            _ = try raw.message()
            try raw.send(#"{"id":1,"op":"register","client":7,"name":"raw"}"# + "\n")
            #expect(try raw.message()["ok"] as? Bool == true)
            try raw.send(#"{"id":2,"op":"services","client":7,"services":{"updatingLocation":true,"desiredAccuracy":"best","activityType":"other","pausesAutomatically":false,"maximumAge":2,"updatingHeading":false,"headingOrientation":"forward","significantChanges":false,"visits":false,"reducedAccuracy":false}}"# + "\n")
            #expect(try raw.reply(id: 2)["ok"] as? Bool == true)
            #expect(f.engine.clientCount == 1)
            raw.hangUp()
            #expect(await csWait(seconds: 5) { f.engine.clientCount == 0 })
        }
    }

    @Test("a policy that denies the user: the hello says so and every service is refused with .denied")
    func deniedUser() async throws {
        let me = try #require(csUserName())
        try await CSFixture.with(policy: "default = always\nuser \(me) = denied\n") { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            #expect(provider.daemonAuthorization.status == .denied)
            #expect(provider.daemonAuthorization.reason?.contains(me) == true)
            let manager = LocationManager(provider: provider, name: "refused")
            let recorder = CSRecorder()
            manager.delegate = recorder
            manager.startUpdatingLocation()
            #expect(manager.authorizationStatus == .denied)
            #expect(await csWait(seconds: 5) { recorder.errors.contains { if case .denied = $0 { return true } else { return false } } })
            #expect(f.engine.clientCount == 0, "a denied client adds no demand")
            #expect(f.server.statistics.denied == 1)
            // On the wire: register is refused with the code denied, hello still answers.
            let raw = try CSUnixClient(path: f.path)
            let hello = try raw.message()
            #expect(hello["authorization"] as? String == "denied")
            try raw.send(#"{"id":9,"op":"register","client":1,"name":"x"}"# + "\n")
            let reply = try raw.reply(id: 9)
            #expect(reply["ok"] as? Bool == false)
            #expect((reply["error"] as? [String: Any])?["code"] as? String == "denied")
            #expect(f.engine.clientCount == 0)
        }
    }

    @Test("malformed, unknown and over-long lines get an error reply and the connection stays")
    func malformedLines() async throws {
        try await CSFixture.with { f in
            let raw = try CSUnixClient(path: f.path)
            let hello = try raw.message()
            #expect(hello["type"] as? String == "hello" && hello["version"] as? Int == 1)

            try raw.send("this is not json\n")
            var reply = try raw.message()
            #expect(reply["type"] as? String == "reply" && reply["ok"] as? Bool == false)
            #expect((reply["error"] as? [String: Any])?["code"] as? String == "invalidArgument")

            try raw.send(#"{"id":3,"op":"teleport"}"# + "\n")
            reply = try raw.reply(id: 3)
            #expect(reply["ok"] as? Bool == false)
            #expect(((reply["error"] as? [String: Any])?["message"] as? String)?.contains("unknown op 'teleport'") == true)

            try raw.send(#"{"id":4,"op":"register","client":1}"# + "\n")
            reply = try raw.reply(id: 4)
            #expect(reply["ok"] as? Bool == false, "register without a name")

            try raw.send(#"{"id":5,"op":"services","client":1,"services":{}}"# + "\n")
            #expect(try raw.reply(id: 5)["ok"] as? Bool == false, "wrong field types keep the id")

            try raw.send(#"{"id":6,"op":"hello","version":2}"# + "\n")
            #expect(try raw.reply(id: 6)["ok"] as? Bool == false, "another protocol version is refused")

            try raw.send(String(repeating: "x", count: 70_000) + "\n")
            reply = try raw.message()
            #expect(((reply["error"] as? [String: Any])?["message"] as? String)?.contains("longer than") == true)

            try raw.send(#"{"id":7,"op":"hello"}"# + "\r\n")
            reply = try raw.reply(id: 7)
            #expect(reply["ok"] as? Bool == true && reply["version"] as? Int == 1, "still connected and answering")
            #expect(f.server.statistics.malformedLines >= 3)
            #expect(f.server.statistics.connected == 1)
        }
    }

    @Test("the wire format as documented: hello, replies, events, unregister")
    func wireFormat() async throws {
        try await CSFixture.with { f in
            let raw = try CSUnixClient(path: f.path)
            let hello = try raw.message()
            #expect(hello["type"] as? String == "hello" && hello["server"] as? String == "fieldlocd" && hello["board"] as? String == "sim")
            #expect(hello["authorization"] as? String == "authorizedAlways" && hello["accuracy"] as? String == "fullAccuracy")
            #expect(hello["now"] as? Int != nil)
            let peer = try #require(hello["peer"] as? [String: Any])
            #expect(peer["uid"] as? Int == Int(getuid()) && peer["pid"] as? Int == Int(getpid()))

            try raw.send(#"{"version":1,"id":1,"op":"register","client":5,"name":"wire"}"# + "\n")
            #expect(try raw.reply(id: 1)["ok"] as? Bool == true)
            try raw.send(#"{"id":2,"op":"register","client":5,"name":"again"}"# + "\n")
            #expect(try raw.reply(id: 2)["ok"] as? Bool == false, "a client id is registered once per connection")
            try raw.send(#"{"id":3,"op":"services","client":5,"services":{"updatingLocation":true,"desiredAccuracy":"best","distanceFilter":-1,"activityType":"other","pausesAutomatically":false,"maximumAge":2,"updatingHeading":false,"headingOrientation":"forward","significantChanges":false,"visits":false,"reducedAccuracy":false}}"# + "\n")
            #expect(try raw.reply(id: 3)["ok"] as? Bool == false, "a negative distance filter is refused as the manager refuses it")
            try raw.send(#"{"id":4,"op":"services","client":5,"services":{"updatingLocation":true,"desiredAccuracy":"best","activityType":"other","pausesAutomatically":false,"maximumAge":2,"updatingHeading":false,"headingOrientation":"forward","significantChanges":false,"visits":false,"reducedAccuracy":false}}"# + "\n")
            #expect(try raw.reply(id: 4)["ok"] as? Bool == true)
            var event: [String: Any] = [:]
            for _ in 0..<50 {
                event = try raw.message(seconds: 10)
                if event["type"] as? String == "event" { break }
            }
            #expect(event["client"] as? Int == 5 && event["now"] as? Int != nil)
            let body = try #require(event["event"] as? [String: Any])
            #expect(body["kind"] as? String == "locations")
            let location = try #require((body["locations"] as? [[String: Any]])?.first)
            for key in ["latitude", "longitude", "horizontalAccuracy", "receivedAt", "mode", "provenance"] {
                #expect(location[key] != nil, "location key \(key)")
            }
            let latitude = try #require(location["latitude"] as? Double)
            let longitude = try #require(location["longitude"] as? Double)

            try raw.send(#"{"id":5,"op":"monitor","client":5,"region":{"identifier":"here","latitude":\#(latitude),"longitude":\#(longitude),"radius":1000,"notifyOnEntry":true,"notifyOnExit":true}}"# + "\n")
            #expect(try raw.reply(id: 5)["ok"] as? Bool == true)
            try raw.send(#"{"id":6,"op":"regions","client":5}"# + "\n")
            let regions = try raw.reply(id: 6)["regions"] as? [[String: Any]]
            #expect(regions?.first?["identifier"] as? String == "here")
            try raw.send(#"{"id":7,"op":"state","client":5,"identifier":"here"}"# + "\n")
            #expect(try raw.reply(id: 7)["state"] as? String == "inside")
            try raw.send(#"{"id":8,"op":"last"}"# + "\n")
            #expect((try raw.reply(id: 8)["location"] as? [String: Any])?["latitude"] as? Double != nil)
            try raw.send(#"{"id":9,"op":"unregister","client":5}"# + "\n")
            #expect(try raw.reply(id: 9)["ok"] as? Bool == true)
            #expect(f.engine.clientCount == 0)
            try raw.send(#"{"id":10,"op":"regions","client":5}"# + "\n")
            #expect(try raw.reply(id: 10)["ok"] as? Bool == false, "an unregistered client is unknown")
        }
    }

    @Test("the peer credentials the daemon reads are this process's")
    func peerCredentials() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            #expect(provider.peer.uid == getuid())
            #expect(provider.peer.gid == getgid())
            #expect(provider.peer.pid == getpid())
            #expect(provider.peer.user == csUserName())
            #expect(provider.daemonAuthorization.status == .authorizedAlways)
            var info = stat()
            #expect(lstat(f.path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o660, "socket mode \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    @Test("regions outlive the connection only for users the policy authorises always")
    func regionPersistence() async throws {
        let me = try #require(csUserName())
        let region = CircularRegion(identifier: "depot", latitude: 47.38, longitude: 8.54, radius: 150)
        try await CSFixture.with(policy: "default = when-in-use\nuser \(me) = always\n") { f in
            do {
                let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
                let manager = LocationManager(provider: provider, name: "fleet")
                manager.requestAlwaysAuthorization()
                #expect(manager.authorizationStatus == .authorizedAlways)
                manager.startMonitoring(for: region)
                #expect(manager.monitoredRegions == [region])
                provider.close()
            }
            // Its region stays monitored in the background (one engine client, no connection).
            #expect(await csWait(seconds: 5) { f.server.statistics.connected == 0 })
            #expect(f.engine.clientCount == 1 && f.server.persistentClients == ["uid\(getuid())-fleet"])
            #expect(FileManager.default.fileExists(atPath: f.directory + "/regions-uid\(getuid())-fleet.json"))
            let again = LocationManager(provider: try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout), name: "fleet")
            #expect(again.restoreProblems.isEmpty)
            #expect(again.monitoredRegions == [region], "restored under the same name")
        }
        try await CSFixture.with(policy: "default = when-in-use\n") { f in
            do {
                let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
                let manager = LocationManager(provider: provider, name: "fleet")
                manager.requestAlwaysAuthorization()
                #expect(manager.authorizationStatus == .authorizedWhenInUse)
                manager.startMonitoring(for: region)
                #expect(manager.monitoredRegions == [region])
                provider.close()
            }
            #expect(await csWait(seconds: 5) { f.engine.clientCount == 0 })
            let again = LocationManager(provider: try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout), name: "fleet")
            #expect(again.monitoredRegions.isEmpty, "when-in-use regions end with the connection")
        }
    }

    @Test("reduced accuracy by policy, lifted by a purpose key the daemon's policy declares")
    func reducedAccuracy() async throws {
        try await CSFixture.with(policy: "accuracy = reduced\npurpose survey = Mapping the site\n") { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let manager = LocationManager(provider: provider, name: "coarse")
            let recorder = CSRecorder()
            manager.delegate = recorder
            #expect(manager.accuracyAuthorization == .reducedAccuracy)
            manager.startUpdatingLocation()
            // A reduced-accuracy client's demand asks for a fix every 15 minutes (Core Location's
            // approximate location): the first comes at once, the next after the policy's first tick
            // perhaps not for 900 s of engine time.
            #expect(await csWait(seconds: 30) { recorder.locations.count >= 1 },
                    "events \(recorder.events); clients \(f.engine.clientCount)")
            #expect(recorder.locations.allSatisfy { $0.isReduced && $0.horizontalAccuracy >= 5000 })
            #expect(manager.location?.isReduced == true)
            #expect(throws: LocationError.self) { try manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "nope") }
            try manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "survey")
            #expect(manager.accuracyAuthorization == .fullAccuracy)
            recorder.clear()
            #expect(await csWait(seconds: 30) { recorder.locations.count >= 3 })
            #expect(recorder.locations.suffix(2).allSatisfy { !$0.isReduced })
        }
    }

    @Test("the async sequences work over the socket; ending the iteration ends the demand")
    func asyncSequence() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            var received = 0
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            for await update in try provider.locationUpdates(LocationRequest(desiredAccuracy: .nearestTenMeters)) {
                if case .locations(let l) = update { received += l.count }
                if received >= 3 || ContinuousClock.now > deadline { break }
            }
            #expect(received >= 3)
            #expect(await csWait(seconds: 5) { f.engine.clientCount == 0 })
        }
    }

    @Test("a client that stops reading is dropped, and its demand goes")
    func slowReaderDropped() async throws {
        try await CSFixture.with(speed: 200, configure: { $0.outputLimit = 2 * ClientSocketProtocol.maximumLineLength }) { f in
            let raw = try CSUnixClient(path: f.path, receiveBuffer: 4096)
            _ = try raw.message()
            try raw.send(#"{"id":1,"op":"register","client":1,"name":"sleepy"}"# + "\n")
            _ = try raw.reply(id: 1)
            try raw.send(#"{"id":2,"op":"services","client":1,"services":{"updatingLocation":true,"desiredAccuracy":"best","activityType":"other","pausesAutomatically":false,"maximumAge":2,"updatingHeading":true,"headingOrientation":"forward","significantChanges":false,"visits":false,"reducedAccuracy":false}}"# + "\n")
            #expect(await csWait(seconds: 2) { f.engine.clientCount == 1 })
            // Never read again: headings at 10 Hz of board time, 200x, fill the socket and the output limit.
            #expect(await csWait(seconds: 20) { f.server.statistics.droppedSlowReaders == 1 }, "\(f.server.statistics)")
            #expect(await csWait(seconds: 5) { f.engine.clientCount == 0 })
        }
    }

    @Test("start refuses a path where another server answers, and replaces a stale socket")
    func socketPath() async throws {
        try await CSFixture.with { f in
            let second = ClientSocketServer(engine: f.engine, policy: AccessPolicy(), path: f.path)
            await #expect(throws: ClientSocketServer.StartError.self) { try await second.start() }
            let hello = try CSUnixClient(path: f.path).message()
            #expect(hello["type"] as? String == "hello", "the first server still answers")
        }
        // A socket file left behind by a crash (nobody listening) is replaced.
        let path = csSocketPath()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = csAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(fd)
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"))
        let server = ClientSocketServer(engine: engine, policy: AccessPolicy(), path: path)
        try await server.start()
        let hello = try CSUnixClient(path: path).message()
        #expect(hello["type"] as? String == "hello")
        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: path), "stop removes the socket file")
    }
}

// MARK: support
