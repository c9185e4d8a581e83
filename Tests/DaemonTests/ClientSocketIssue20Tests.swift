import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import FieldLocationClient
import FieldLocationDaemon
import FieldLocationWire
import Foundation
import HardwareInterfaces
import LocationServices
import Logging
import Testing

/// Records authorisation changes and diagnostics of a manager over the socket.
final class CSAuthorizationRecorder: LocationManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var changes = 0
    private var flags: [LocationDiagnostics] = []
    var authorizationChanges: Int { lock.withLock { changes } }
    var diagnostics: [LocationDiagnostics] { lock.withLock { flags } }
    func locationManagerDidChangeAuthorization(_ m: LocationManager) { lock.withLock { changes += 1 } }
    func locationManager(_ m: LocationManager, didChangeDiagnostics diagnostics: LocationDiagnostics) { lock.withLock { flags.append(diagnostics) } }
}

/// Issue 20 over the local client socket: the update interval, the minimum interval and the
/// fix-loss timeout reach the daemon's engine; locations keep their fix type, speed and course
/// accuracies, accuracy model, confidence and unknown accuracy; the new errors and the
/// authorisation event travel; a reloaded access policy reaches connected managers.
@Suite("client socket, issue 20", .serialized)
struct ClientSocketIssue20Tests {
    static func wire<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try ClientSocketCodec.encoder().encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try ClientSocketCodec.decoder().decode(type, from: Data(text.utf8))
    }

    @Test("a location's fix type, speed and course accuracy, model, confidence and unknown accuracy read back the same")
    func locationFields() throws {
        var l = Location(latitude: 47.5, longitude: 8.5, horizontalAccuracy: 0.02, receivedAt: MonotonicInstant(nanoseconds: 9), mode: .threeD)
        l.fixType = .rtkFixed
        l.speedAccuracy = 0.05
        l.courseAccuracy = 1.5
        l.accuracyModel = .receiver(.ubxAccuracyEstimate)
        let text = try Self.wire(l)
        #expect(text.contains(#""fixType":"rtkFixed""#) && text.contains(#""accuracyModel":"ubx""#) && text.contains(#""speedAccuracy":0.05"#), "\(text)")
        #expect(try Self.decode(Location.self, text) == l)
        var unknown = Location(latitude: 1, longitude: 2, horizontalAccuracy: Location.unknownAccuracy, receivedAt: MonotonicInstant(nanoseconds: 1), mode: .twoD)
        unknown.accuracyConfidence = .ninetyFivePercent
        let back = try Self.decode(Location.self, Self.wire(unknown))
        #expect(back == unknown && !back.hasKnownHorizontalAccuracy && back.fixType == .twoD && back.accuracyConfidence == .ninetyFivePercent)
        #expect(throws: DecodingError.self) { try Self.decode(Location.self, text.replacingOccurrences(of: "rtkFixed", with: "psychic")) }
    }

    @Test("a location's RTK corrections (solution, link, age, station, message types, counters) read back the same; bad values are refused")
    func locationCorrections() throws {
        var l = Location(latitude: 47.5, longitude: 8.5, horizontalAccuracy: 0.014, receivedAt: MonotonicInstant(nanoseconds: 9), mode: .threeD)
        l.fixType = .rtkFixed
        l.corrections = CorrectionStatus(solution: .rtkFixed, source: "caster.example:2101/MOUNT", link: "streaming",
                                         linkDescription: "streaming", age: 1.2, station: 2003, messageTypes: [1005, 1077, 1087],
                                         frames: 120, crcFailures: 1, truncated: 1, dropped: 0, reconnects: 2, ggaSent: 7)
        let text = try Self.wire(l)
        #expect(text.contains(#""solution":"rtk-fixed""#) && text.contains(#""station":2003"#), "\(text)")
        #expect(try Self.decode(Location.self, text) == l)
        // Without corrections the bytes are version 1's: no key.
        l.corrections = nil
        #expect(!(try Self.wire(l)).contains("corrections"))
        for (bad, good) in [(#""solution":"psychic""#, #""solution":"rtk-fixed""#), (#""station":5000"#, #""station":2003"#),
                            (#""frames":-1"#, #""frames":120"#), (#"[1005,1077,99999]"#, #"[1005,1077,1087]"#)] {
            #expect(throws: DecodingError.self, "\(bad)") { try Self.decode(Location.self, text.replacingOccurrences(of: good, with: bad)) }
        }
    }

    @Test("the privacy switch's servicesEnabled event round-trips; a missing flag is refused")
    func servicesEnabledEvent() throws {
        for on in [false, true] {
            let text = try Self.wire(EngineEvent.servicesEnabled(on))
            #expect(text == #"{"enabled":\#(on),"kind":"servicesEnabled"}"#, "\(text)")
            guard case .servicesEnabled(let back) = try Self.decode(EngineEvent.self, text) else {
                Issue.record("\(text) decoded as another event")
                continue
            }
            #expect(back == on)
        }
        #expect(throws: DecodingError.self) { try Self.decode(EngineEvent.self, #"{"kind":"servicesEnabled"}"#) }
    }

    @Test("intervals, the new errors and the authorisation event round-trip; a bad interval is refused with its name")
    func servicesErrorsAndEvents() throws {
        var services = ClientServices()
        services.updatingLocation = true
        services.updateInterval = 300
        services.minimumUpdateInterval = 120
        services.fixLossTimeout = 45
        services.maximumUpdates = 5
        services.updateDuration = 600
        let back = try Self.decode(ClientServices.self, Self.wire(services))
        #expect(back.updateInterval == 300 && back.minimumUpdateInterval == 120 && back.fixLossTimeout == 45)
        #expect(back.maximumUpdates == 5 && back.updateDuration == 600)
        let noLimit = try Self.wire(services).replacingOccurrences(of: "\"maximumUpdates\":5", with: "\"maximumUpdates\":0")
        #expect(throws: LocationError.invalidArgument("services: maximumUpdates 0 must be at least 1")) {
            try Self.decode(ClientServices.self, noLimit)
        }
        let line = try Self.wire(services).replacingOccurrences(of: "\"updateInterval\":300", with: "\"updateInterval\":-5")
        #expect(throws: LocationError.invalidArgument("services: updateInterval -5.0 must be a positive number")) {
            try Self.decode(ClientServices.self, line)
        }
        for error in [LocationError.regionMonitoringDenied("no"), .regionMonitoringSetupDelayed(region: "yard", reason: "silent"),
                      .rangingUnavailable("no scanner"), .rangingFailure("stopped"), .promptDeclined("denied"),
                      .requestExpired("2 updates delivered (maximumUpdates)"), .network("NTRIP caster:2101/M: refused")] {
            #expect(try Self.decode(LocationError.self, Self.wire(error)) == error)
            #expect(error.clipped == error)
        }
        let grant = ProviderAuthorization(status: .denied, reason: "policy", accuracy: .reducedAccuracy)
        let event = try Self.decode(ClientEvent.self, Self.wire(ClientEvent(.authorization(grant))))
        guard case .authorization(let decoded) = event.event else { Issue.record("\(event.event)"); return }
        #expect(decoded == grant)
    }

    @Test("a request with maximumUpdates over the socket: two locations, requestExpired, the sequence ends and so does the demand")
    func expiryOverTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            var received = 0
            var ending: LocationError?
            let deadline = ContinuousClock.now.advanced(by: .seconds(20))
            for await update in try provider.locationUpdates(LocationRequest(desiredAccuracy: .best, maximumUpdates: 2)) {
                switch update {
                case .locations(let l): received += l.count
                case .error(let e): ending = e
                default: break
                }
                if ContinuousClock.now > deadline { break }
            }
            #expect(received == 2)
            #expect(ending == .requestExpired("2 updates delivered (maximumUpdates)"), "\(String(describing: ending))")
            #expect(await csWait(seconds: 5) { f.engine.clientCount == 0 })
        }
    }

    @Test("flushBatchedLocations over the socket: the daemon delivers the batch it holds at once")
    func flushOverTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let manager = LocationManager(provider: provider, name: "batcher")
            let recorder = CSRecorder()
            manager.delegate = recorder
            manager.batchingMaximumDelay = 3600
            manager.startUpdatingLocation()
            #expect(await csWait(seconds: 10) { f.engine.services(f.firstClient() ?? -1)?.batchingMaximumDelay == 3600 })
            #expect(await csWait(seconds: 10) { f.engine.lastLocation != nil })
            try await Task.sleep(for: .milliseconds(300))
            #expect(recorder.locations.isEmpty, "held for an hour")
            manager.flushBatchedLocations()
            #expect(await csWait(seconds: 10) { !recorder.locations.isEmpty }, "the flushed batch arrives")
        }
    }

    @Test("skyUpdates over the socket: the daemon's sky views arrive with their satellites and DOPs")
    func skyOverTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            var views: [SkyView] = []
            let deadline = ContinuousClock.now.advanced(by: .seconds(20))
            for await view in provider.skyUpdates() {
                views.append(view)
                if views.count >= 2 || ContinuousClock.now > deadline { break }
            }
            let view = try #require(views.last)
            #expect(view.satellites.count >= 4 && view.hdop != nil)
            #expect(await csWait(seconds: 5) { f.engine.clientCount == 0 })
        }
    }

    @Test("a remote manager's interval reaches the engine, and its locations keep their fix type")
    func intervalOverTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let manager = LocationManager(provider: provider, name: "logger")
            let recorder = CSRecorder()
            manager.delegate = recorder
            manager.updateInterval = 2
            manager.minimumUpdateInterval = 1
            manager.fixLossTimeout = 30
            manager.startUpdatingLocation()
            #expect(await csWait(seconds: 10) { f.engine.services(f.firstClient() ?? -1)?.updateInterval == 2 })
            let services = f.engine.services(f.firstClient() ?? -1)
            #expect(services?.minimumUpdateInterval == 1 && services?.fixLossTimeout == 30)
            #expect(await csWait(seconds: 20) { recorder.locations.count >= 2 })
            let local = try #require(f.engine.lastLocation)
            let remote = try #require(recorder.locations.last)
            #expect(remote.fixType == local.fixType && remote.fixType != .none)
            #expect(remote.accuracyModel == local.accuracyModel && remote.hasKnownHorizontalAccuracy)
        }
    }

    /// A policy file that allows everyone, in a directory of its own removed afterwards, and its source.
    static func withPolicyFile(_ body: (String, AccessPolicySource) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "fieldloc-policy-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/access.policy"
        try "default = always\n".write(toFile: file, atomically: true, encoding: .utf8)
        var logger = Logger(label: "policy-tests")
        logger.logLevel = .critical
        try await body(file, try AccessPolicySource.load(path: file, logger: logger))
    }

    @Test("a reloaded policy that denies reaches a connected manager; a bad file keeps the policy in force")
    func policyReload() async throws {
        try await Self.withPolicyFile { file, source in try await CSFixture.with(configure: { $0.policySource = source }) { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let manager = LocationManager(provider: provider, name: "fleet")
            let recorder = CSAuthorizationRecorder()
            manager.delegate = recorder
            manager.startUpdatingLocation()
            #expect(manager.authorizationStatus == .authorizedWhenInUse)
            #expect(await csWait(seconds: 10) { f.engine.services(f.firstClient() ?? -1)?.updatingLocation == true })
            let changesBefore = recorder.authorizationChanges

            // A file with an error: the previous policy stays, the error names the file and line.
            try "default = always\nfrobnicate = yes\n".write(toFile: file, atomically: true, encoding: .utf8)
            let error = try #require(source.reload("test"))
            #expect(error.file == file && error.line == 2, "\(error)")
            #expect(source.current.defaultStatus == .authorizedAlways)

            // A good file that denies: the manager hears it, its services stop.
            try "default = denied\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(source.reloadIfChanged())
            #expect(source.current.defaultStatus == .denied)
            #expect(await csWait(seconds: 10) { manager.authorizationStatus == .denied }, "\(manager.authorizationStatus)")
            #expect(await csWait(seconds: 5) { recorder.authorizationChanges > changesBefore })
            #expect(await csWait(seconds: 5) { manager.diagnostics.contains(.authorizationDenied) })
            #expect(await csWait(seconds: 10) { f.engine.services(f.firstClient() ?? -1)?.updatingLocation == false })
            #expect(!source.reloadIfChanged(), "an unchanged file is not read again")

            // Allowed again at reduced accuracy: authorised, and the change says so.
            try "default = always\naccuracy = reduced\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(source.reload("SIGHUP") == nil)
            #expect(await csWait(seconds: 10) { manager.authorizationStatus == .authorizedWhenInUse })
            #expect(await csWait(seconds: 10) { manager.accuracyAuthorization == .reducedAccuracy })
        } }
    }

    @Test("a gpsd watcher that a reloaded policy denies stops watching and is told with an ERROR")
    func gpsdWatcherPolicyReload() async throws {
        try await Self.withPolicyFile { file, source in try await ServerFixture.with({ $0.policySource = source }) { fixture in
            let client = try fixture.client()
            try client.send(ServerTests.watchJSON)
            _ = try client.readLines(seconds: 20) { json($0)?["class"] as? String == "TPV" }
            #expect(fixture.engine.clientCount >= 1)
            try "default = denied\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(source.reloadIfChanged())
            var error: [String: Any]?
            _ = try client.readLines(seconds: 20) { line in
                guard let object = json(line), object["class"] as? String == "ERROR" else { return false }
                error = object
                return true
            }
            #expect((error?["message"] as? String)?.contains("withdrawn by the reloaded access policy") == true, "\(String(describing: error))")
            #expect(await waitUntil(seconds: 10) { fixture.engine.clientCount == 0 })
            // A new watch is refused under the policy in force.
            try client.send(ServerTests.watchJSON)
            _ = try client.readLines(seconds: 10) { line in
                guard let object = json(line), object["class"] as? String == "ERROR" else { return false }
                error = object
                return true
            }
            #expect((error?["message"] as? String)?.contains("denied") == true)
        } }
    }
}
