import BoardConfig
import EnginePlatforms
import FieldLocation
import Foundation
import Glibc
import HardwareInterfaces
import LinuxHardware
import LocationAPI
import LocationServices
import NTRIP
import Testing

/// A caster that cannot be reached is Core Location's `network` error for the clients running
/// location updates: told once per outage, transient, and the fixes go on.
@Suite("NTRIP failures as the network error")
struct NTRIPNetworkErrorTests {
    final class Errors: LocationManagerDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var errors: [LocationError] = []
        private var locations = 0
        func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) { lock.withLock { errors.append(error) } }
        func locationManager(_ manager: LocationManager, didUpdateLocations l: [Location]) { lock.withLock { locations += l.count } }
        var network: [LocationError] { lock.withLock { errors.filter { if case .network = $0 { return true } else { return false } } } }
        var locationCount: Int { lock.withLock { locations } }
    }

    /// A loopback port nobody listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw CancellationError() }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The system's network, counting connection attempts.
    final class CountingNetwork: NetworkConnector, @unchecked Sendable {
        let base = LinuxNetwork()
        private let lock = NSLock()
        private var count = 0
        var attempts: Int { lock.withLock { count } }
        var clock: any MonotonicClock { base.clock }
        func connect(host: String, port: Int, deadline: MonotonicInstant) throws(HardwareError) -> any NetworkConnection {
            lock.withLock { count += 1 }
            return try base.connect(host: host, port: port, deadline: deadline)
        }
    }

    @Test("a refused caster: one network error naming the caster (no password) while it keeps failing; fixes go on")
    func refused() async throws {
        let engine = try LocationEngine.simulated(board: BoardCatalog.load(builtin: "sim"))
        let manager = LocationManager(engine: engine)
        let recorder = Errors()
        manager.delegate = recorder
        manager.startUpdatingLocation()
        let port = try Self.closedPort()
        let configuration = NTRIPConfiguration(host: "127.0.0.1", port: port, mountpoint: "MOUNT", user: "user", password: "secret-word")
        let network = CountingNetwork()
        let client = NTRIPClient(configuration: configuration, network: network, silenceTimeout: 3, connectTimeout: 2, backoff: (0.1, 0.2))
        engine.attachCorrections(client)
        defer { engine.detachCorrections() }
        // Three seconds of refusals (a retry every 0.1-0.2 s) while the engine steps.
        let deadline = ContinuousClock.now.advanced(by: .seconds(3))
        while ContinuousClock.now < deadline {
            engine.advance(by: .milliseconds(200))
            try await Task.sleep(for: .milliseconds(10))
        }
        engine.advance(by: .seconds(2))
        #expect(network.attempts >= 3, "the client tried again (\(network.attempts) attempts)")
        let told = recorder.network
        #expect(told.count == 1, "\(told)")
        #expect(told.first?.isTransient == true)
        #expect(told.first?.description.contains("127.0.0.1:\(port)/MOUNT") == true, "\(told)")
        #expect(told.first?.description.contains("secret-word") == false)
        #expect(recorder.locationCount > 0, "fixes go on without corrections")
    }
}
