import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import LocationAPI
import LocationServices
import SimulatedHardware
import Testing

/// Capabilities come from the hardware, per service: a temporary folder stands in for `/dev`, with
/// the board file's receiver port inside it. Every wait has a deadline.
@Suite("Capabilities from the hardware, per service", .serialized)
struct CapabilityTests {
    /// A Pi board (receiver, I2C sensors, GPIO chip with the PPS line) whose nodes are in `folder`:
    /// the receiver's port `folder/ttyUSB-gnss`, I2C bus 7, the GPIO chip `folder/gpiochip0`.
    static func board(in folder: String) throws -> BoardDescription {
        var board = try BoardCatalog.load(builtin: "pi-l76k-icm20948")
        board.receiver?.uart = folder + "/ttyUSB-gnss"
        board.i2cBus = 7
        board.bluetooth = nil
        return board
    }

    /// An engine on that board over simulated buses (never run: only its device checks are used).
    static func engine(board: BoardDescription, folder: String,
                       mayReadWrite: @escaping @Sendable (String) -> Bool = DeviceAccess.mayReadWrite) throws -> LocationEngine {
        let sim = try BoardHardware.simulatedBoard(for: BoardCatalog.load(builtin: "sim"))
        let folders = DeviceAccess.Folders(devices: folder, system: folder + "/sys", mayReadWrite: mayReadWrite)
        return LocationEngine(board: board, platform: HardwareEnginePlatform(sim.platform, folders: folders))
    }

    static func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "fieldloc-dev-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Polls `condition` every 5 ms until it holds or `seconds` pass.
    static func wait(seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() >= end { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    final class CapabilityRecorder: LocationManagerDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var changes: [DeviceCapabilities] = []
        private var authorizationCalls = 0
        private var failures: [LocationError] = []
        var capabilities: [DeviceCapabilities] { lock.withLock { changes } }
        var authorizations: Int { lock.withLock { authorizationCalls } }
        var errors: [LocationError] { lock.withLock { failures } }
        func locationManager(_ manager: LocationManager, didChangeCapabilities capabilities: DeviceCapabilities) {
            lock.withLock { changes.append(capabilities) }
        }
        func locationManagerDidChangeAuthorization(_ manager: LocationManager) { lock.withLock { authorizationCalls += 1 } }
        func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) { lock.withLock { failures.append(error) } }
    }

    @Test("a receiver that appears late makes location available without a restart; missing I2C leaves heading unavailable alone")
    func lateReceiver() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/gpiochip0", contents: nil))
        let port = folder + "/ttyUSB-gnss"
        let engine = try Self.engine(board: Self.board(in: folder), folder: folder)
        let manager = LocationManager(engine: engine)
        let recorder = CapabilityRecorder()
        manager.delegate = recorder

        // Nothing plugged in, no I2C: both services unavailable with their device and reason; PPS works.
        let before = manager.capabilities
        let location = try #require(before[.location])
        #expect(location.problem == .missing && location.device == port)
        #expect(location.reason?.contains(port) == true && location.reason?.contains("does not exist") == true, "\(location)")
        let heading = try #require(before[.heading])
        #expect(heading.problem == .notEnabled && heading.device == folder + "/i2c-7")
        #expect(heading.reason?.contains(folder + "/i2c-7") == true && heading.reason?.contains("I2C is not enabled") == true, "\(heading)")
        #expect(before.isAvailable(.time))
        #expect(!manager.locationServicesEnabled && !manager.headingAvailable)

        // Unavailable is not denied: authorisation is the access policy's.
        manager.startUpdatingLocation()
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        #expect(Self.wait(seconds: 5) { recorder.errors.contains { if case .locationUnknown(let m) = $0 { m.contains(port) } else { false } } },
                "the delegate hears why locations do not come yet: \(recorder.errors)")
        #expect(!recorder.errors.contains { if case .denied = $0 { true } else { false } })

        // The receiver appears: location becomes available, the delegate hears it, updates stay on.
        let authorizationsBefore = recorder.authorizations
        #expect(FileManager.default.createFile(atPath: port, contents: nil))
        #expect(Self.wait(seconds: 5) { recorder.capabilities.last?.isAvailable(.location) == true },
                "a capabilities change within 5 s of the node appearing: \(recorder.capabilities)")
        #expect(manager.locationServicesEnabled && manager.capabilities.isAvailable(.location))
        #expect(Self.wait(seconds: 5) { recorder.authorizations > authorizationsBefore })
        #expect(manager.authorizationStatus == .authorizedWhenInUse)
        #expect((1...100).contains { engine.services($0)?.updatingLocation == true }, "the manager's updates stayed on")

        // Heading is still unavailable, with its reason; starting it says why.
        #expect(!manager.headingAvailable)
        manager.startUpdatingHeading()
        #expect(Self.wait(seconds: 5) {
            recorder.errors.contains { if case .headingFailure(let m) = $0 { m.contains(folder + "/i2c-7") } else { false } }
        }, "\(recorder.errors)")

        // The receiver is unplugged: unavailable again, still not denied.
        try FileManager.default.removeItem(atPath: port)
        #expect(Self.wait(seconds: 5) { recorder.capabilities.last?.isAvailable(.location) == false })
        #expect(!manager.locationServicesEnabled && manager.authorizationStatus == .authorizedWhenInUse)

        // The I2C bus appears (the module loaded): heading becomes available too.
        #expect(FileManager.default.createFile(atPath: folder + "/i2c-7", contents: nil))
        #expect(Self.wait(seconds: 5) { recorder.capabilities.last?.isAvailable(.heading) == true })
        #expect(manager.headingAvailable)
    }

    @Test("each reason names the device: missing bus beside others, no permission with the group, no GPIO chip at all")
    func reasons() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = folder + "/ttyUSB-gnss"
        for name in ["ttyUSB-gnss", "i2c-1", "i2c-2"] { #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil)) }
        // The port exists but may not be opened; bus 7 is missing while 1 and 2 exist; no gpiochip at all.
        let engine = try Self.engine(board: Self.board(in: folder), folder: folder, mayReadWrite: { $0 != port })
        let c = engine.capabilities
        let location = try #require(c[.location])
        #expect(location.problem == .permission)
        #expect(location.reason?.contains(port) == true && location.reason?.contains("dialout") == true, "\(location)")
        let heading = try #require(c[.heading])
        #expect(heading.problem == .missing)
        #expect(heading.reason?.contains(folder + "/i2c-7") == true && heading.reason?.contains("i2c-1, i2c-2") == true, "\(heading)")
        let time = try #require(c[.time])
        #expect(time.problem == .notEnabled && time.reason?.contains(folder + "/gpiochip0") == true, "\(time)")
        // In process, no device decides authorisation.
        #expect(engine.authorization(policy: AccessPolicy()).status == .authorizedAlways)
    }

    @Test("fieldloc status shows each service's availability and reason, as text and as JSON")
    func statusShowsServices() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/ttyUSB-gnss", contents: nil))
        #expect(FileManager.default.createFile(atPath: folder + "/gpiochip0", contents: nil))
        let engine = try Self.engine(board: Self.board(in: folder), folder: folder)
        let monitor = StatusMonitor(engine: engine, demand: false)
        defer { monitor.close() }
        let snapshot = monitor.snapshot()
        let text = StatusView.text(snapshot)
        #expect(text.contains("Services   location available (\(folder)/ttyUSB-gnss)"), "\(text)")
        #expect(text.contains("heading  unavailable (not-enabled): \(folder)/i2c-7"), "\(text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(StatusView.json(snapshot).utf8)) as? [String: Any])
        let services = try #require(json["services"] as? [[String: Any]])
        #expect(services.map { $0["service"] as? String } == ["location", "heading", "time"])
        #expect(services[0]["available"] as? Bool == true)
        #expect(services[1]["available"] as? Bool == false && services[1]["problem"] as? String == "not-enabled")
        #expect((services[1]["reason"] as? String)?.contains("\(folder)/i2c-7") == true)
    }

    @Test("a simulated board has every service it describes, available")
    func simulatedBoard() throws {
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"), clock: ManualClock())
        #expect(engine.capabilities.isAvailable(.location) && engine.capabilities.isAvailable(.heading))
        #expect(engine.locationServicesEnabled && engine.headingAvailable)
    }
}
