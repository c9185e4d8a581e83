import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationClient
import FieldLocationDaemon
import FieldLocationWire
import Foundation
import LocationAPI
import LocationServices
import Logging
import Testing

/// Capabilities over fieldlocd's client socket: the hello carries each service's availability, and
/// a device that appears later reaches a remote manager's delegate without reconnecting. A
/// temporary folder stands in for `/dev`; every wait has a deadline.
@Suite("client socket capabilities", .serialized)
struct ClientSocketCapabilityTests {
    final class Recorder: LocationManagerDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var changes: [DeviceCapabilities] = []
        var capabilities: [DeviceCapabilities] { lock.withLock { changes } }
        func locationManager(_ manager: LocationManager, didChangeCapabilities capabilities: DeviceCapabilities) {
            lock.withLock { changes.append(capabilities) }
        }
    }

    @Test("a receiver that appears late makes location available over the socket; heading stays unavailable with its reason")
    func lateReceiverOverTheSocket() async throws {
        let folder = NSTemporaryDirectory() + "fieldloc-dev-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = folder + "/ttyUSB-gnss"
        var board = try BoardCatalog.load(builtin: "pi-l76k-icm20948")
        board.receiver?.uart = port
        board.i2cBus = 7
        board.bluetooth = nil
        let sim = try BoardHardware.simulatedBoard(for: BoardCatalog.load(builtin: "sim"))
        let engine = LocationEngine(board: board, platform: HardwareEnginePlatform(
            sim.platform, folders: DeviceAccess.Folders(devices: folder, system: folder + "/sys")))
        var configuration = ClientSocketConfiguration()
        configuration.path = csSocketPath()
        var logger = Logger(label: "fieldlocd-capability-tests")
        logger.logLevel = .warning
        let server = ClientSocketServer(engine: engine, configuration: configuration, logger: logger)
        try await server.start()
        do {
            // The wire: the hello lists the services with the problem and the reason.
            let raw = try CSUnixClient(path: configuration.path)
            let hello = try raw.message()
            let services = try #require(hello["capabilities"] as? [[String: Any]], "\(hello)")
            let location = try #require(services.first { $0["service"] as? String == "location" })
            #expect(location["available"] as? Bool == false && location["problem"] as? String == "missing")
            #expect((location["reason"] as? String)?.contains(port) == true)

            let provider = try RemoteLocationProvider(path: configuration.path, timeout: csReplyTimeout)
            #expect(!provider.locationServicesEnabled && !provider.headingAvailable)
            #expect(provider.capabilities[.location]?.reason?.contains(port) == true)
            let manager = LocationManager(provider: provider, name: "late")
            let recorder = Recorder()
            manager.delegate = recorder
            manager.startUpdatingLocation()
            #expect(manager.authorizationStatus == .authorizedWhenInUse, "unavailable is not denied")

            #expect(FileManager.default.createFile(atPath: port, contents: nil))
            #expect(await csWait(seconds: 10) { recorder.capabilities.last?.isAvailable(.location) == true },
                    "the change reaches the remote delegate: \(recorder.capabilities)")
            #expect(provider.locationServicesEnabled && manager.locationServicesEnabled)
            let heading = try #require(manager.capabilities[.heading])
            #expect(!heading.isAvailable && heading.reason?.contains(folder + "/i2c-7") == true, "\(heading)")
            #expect(!manager.headingAvailable)
            #expect(manager.authorizationStatus == .authorizedWhenInUse)
            raw.hangUp()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("the capabilities event's JSON: each service with device, availability, problem and reason; unknown services are skipped")
    func capabilitiesCoding() throws {
        let capabilities = DeviceCapabilities([
            ServiceAvailability(service: .heading, device: "/dev/i2c-1", problem: .notEnabled, reason: "/dev/i2c-1 (the sensors' I2C bus) does not exist"),
            ServiceAvailability(service: .location, device: "/dev/ttyUSB0"),
        ])
        #expect(capabilities.services.map(\.service) == [.location, .heading], "kept in service order")
        let text = String(decoding: try ClientSocketCodec.encoder().encode(EngineEvent.capabilities(capabilities)), as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "capabilities")
        let entries = try #require(object["capabilities"] as? [[String: Any]], "\(text)")
        #expect(entries.count == 2 && entries[0]["available"] as? Bool == true && entries[0]["problem"] == nil)
        #expect(entries[1]["problem"] as? String == "not-enabled" && entries[1]["device"] as? String == "/dev/i2c-1")
        let back = try ClientSocketCodec.decoder().decode(EngineEvent.self, from: Data(text.utf8))
        guard case .capabilities(let read) = back else { Issue.record("read back as \(back)"); return }
        #expect(read == capabilities)
        // A newer daemon's service this build does not know is left out; the others read as sent.
        let newer = #"{"kind":"capabilities","capabilities":[{"service":"radar","device":"/dev/x","available":true},"#
            + #"{"service":"time","device":"/dev/pps0","available":false,"problem":"missing","reason":"gone"}]}"#
        guard case .capabilities(let partial) = try ClientSocketCodec.decoder().decode(EngineEvent.self, from: Data(newer.utf8)) else {
            Issue.record("not a capabilities event")
            return
        }
        #expect(partial == DeviceCapabilities([ServiceAvailability(service: .time, device: "/dev/pps0", problem: .missing, reason: "gone")]))
    }
}
