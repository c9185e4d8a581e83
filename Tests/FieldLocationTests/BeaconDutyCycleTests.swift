import Beacons
import BoardConfig
import EnginePlatforms
@testable import FieldLocation
import Foundation
import HardwareInterfaces
import LinuxHardware
import NMEA
import PowerPolicy
import ReceiverProtocols
import Synchronization
import Testing

/// A scan that follows demand through a stack that takes no scan timing (BlueZ): ranging listens
/// all the time, beacon regions alone listen one second of every three, and the ledger shows it.
@Suite("Beacon duty cycle through a stack without scan timing", .serialized)
struct BeaconDutyCycleTests {
    /// A scanner that, like BlueZ, runs no duty cycle itself (unless told it does, as an HCI
    /// controller) and counts its starts and stops.
    final class SwitchedScanner: BluetoothLEScanner, @unchecked Sendable {
        let name = "hci0"
        let clock: any MonotonicClock
        let calls = Mutex<[String]>([])
        let runsDutyCycle: Bool
        private let scanning = Mutex(false)
        init(clock: any MonotonicClock, runsDutyCycle: Bool = false) {
            self.clock = clock
            self.runsDutyCycle = runsDutyCycle
        }
        var isScanning: Bool { scanning.withLock { $0 } }
        func startScanning(_ parameters: BluetoothScanParameters) throws(HardwareError) {
            calls.withLock { $0.append(parameters.window == parameters.interval ? "start" : "start duty-cycled") }
            scanning.withLock { $0 = true }
        }
        func stopScanning() throws(HardwareError) {
            if scanning.withLock({ $0 }) { calls.withLock { $0.append("stop") } }
            scanning.withLock { $0 = false }
        }
        func poll(deadline: MonotonicInstant, _ handler: (borrowing BluetoothAdvertisingReport) -> Void) throws(HardwareError) -> Int { 0 }
        func close() {}
    }

    /// The scanner the engine opened.
    final class Opened: Sendable { let value = Mutex<SwitchedScanner?>(nil) }

    static let region = BeaconRegion(identifier: "dock", constraint: BeaconIdentityConstraint(uuid: BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!))

    static func engine(_ open: @escaping @Sendable (any MonotonicClock) throws(HardwareError) -> any BluetoothLEScanner) throws -> LocationEngine {
        let board = try BoardCatalog.load(builtin: "sim")
        let sim = try BoardHardware.simulatedBoard(for: board)
        let clock = sim.platform.clock
        let platform = SimulatedPlatformVariant(SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver)) { () throws(HardwareError) in try open(clock) }
        return LocationEngine(board: board, platform: platform)
    }

    static func listening(_ ledger: EnergyLedger) -> Double { ledger.entries[.bluetooth]?["listening"]?.seconds ?? 0 }
    static func off(_ ledger: EnergyLedger) -> Double { ledger.entries[.bluetooth]?["duty-off"]?.seconds ?? 0 }

    @Test("regions only: one second of three, switched on and off; ranging: all the time; none: off")
    func followsDemand() throws {
        let scanner = Opened()
        let engine = try Self.engine { clock in
            let s = SwitchedScanner(clock: clock)
            scanner.value.withLock { $0 = s }
            return s
        }
        let client = engine.register(name: "regions", sink: { _ in }).id
        #expect(engine.startMonitoring(client, Self.region) == nil)
        engine.advance(by: .seconds(60))
        let ledger = engine.bluetoothEnergy
        let on = Self.listening(ledger), total = on + Self.off(ledger)
        #expect(total > 57 && total <= 60, "the scan was wanted for the whole minute: \(total) s counted")
        #expect(abs(on / total - 1.0 / 3) < 0.04, "listening \(on) of \(total) s, not one third")
        #expect(abs(ledger.charge(.bluetooth) - on * BeaconSubsystem.scanCurrent / 3600) < 1e-9, "only listening costs")
        let calls = try #require(scanner.value.withLock { $0 }).calls.withLock { $0 }
        #expect(calls.filter { $0 == "start" }.count >= 19 && calls.filter { $0 == "stop" }.count >= 19,
                "discovery was not started and stopped about 20 times: \(calls.count) calls")
        #expect(engine.beaconScan?.dutyCycle == 0.1, "the scan wanted stays the regions' 10 % one")

        // Ranging: listening all the time, started once.
        let before = Self.listening(engine.bluetoothEnergy)
        let countBefore = scanner.value.withLock { $0 }?.calls.withLock { $0.count } ?? 0
        #expect(engine.startRangingBeacons(client, satisfying: Self.region.constraint) == nil)
        engine.advance(by: .seconds(30))
        let ranged = Self.listening(engine.bluetoothEnergy) - before
        #expect(ranged > 28.5 && ranged <= 30.5, "ranging listened \(ranged) of 30 s")
        let rangingCalls = (scanner.value.withLock { $0 }?.calls.withLock { Array($0[countBefore...]) }) ?? []
        #expect(rangingCalls.filter { $0 == "stop" }.isEmpty, "ranging stopped the scan: \(rangingCalls)")

        // Nothing wanted: the scan stops and nothing more is counted.
        engine.stopRangingBeacons(client, satisfying: Self.region.constraint)
        _ = engine.stopMonitoring(client, beaconRegion: Self.region.identifier)
        engine.advance(by: .seconds(2))
        let stopped = engine.bluetoothEnergy
        engine.advance(by: .seconds(20))
        #expect(engine.bluetoothEnergy == stopped)
        #expect(scanner.value.withLock { $0 }?.isScanning == false)
        engine.shutdown()
    }

    @Test("a radio that runs the duty cycle itself is charged its duty cycle, started once")
    func selfCycled() throws {
        let engine = try Self.engine { clock in SwitchedScanner(clock: clock, runsDutyCycle: true) }
        let client = engine.register(name: "regions", sink: { _ in }).id
        #expect(engine.startMonitoring(client, Self.region) == nil)
        engine.advance(by: .seconds(60))
        let ledger = engine.bluetoothEnergy
        let on = Self.listening(ledger), total = on + Self.off(ledger)
        #expect(total > 57 && abs(on / total - 0.1) < 1e-9, "listening \(on) of \(total) s, not the controller's 10 %")
        engine.shutdown()
    }

    /// The tools the fake BlueZ needs: dbus-daemon and the system python with python3-dbus and python3-gi.
    static let fakeBlueZTools: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", "import dbus, dbus.service, dbus.mainloop.glib; from gi.repository import GLib"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    static func wait(seconds: Double, until ready: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if ready() { return true }
            usleep(20_000)
        }
        return ready()
    }

    @Test("through BlueZ (a fake bluetoothd on a private bus): regions only start and stop discovery, one second of three in the ledger",
          .enabled(if: fakeBlueZTools, "needs dbus-daemon, python3-dbus and python3-gi (apt install dbus python3-dbus python3-gi)"))
    func throughBlueZ() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluez-duty-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("bus").path
        let address = "unix:path=" + socket
        let logPath = directory.appendingPathComponent("calls.jsonl").path
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--print-address", "--address=" + address]
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        defer { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() }
        try #require(Self.wait(seconds: 10) { UnixSockets.answers(socket) }, "dbus-daemon did not listen")
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../LinuxHardwareTests/Fixtures/fake_bluez.py").standardizedFileURL.path
        let fake = Process()
        fake.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        fake.arguments = [fixture, logPath, address, "stay"]
        try fake.run()
        defer { if fake.isRunning { kill(fake.processIdentifier, SIGKILL) }; fake.waitUntilExit() }
        func calls(_ name: String) -> Int {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { $0.contains("\"call\": \"\(name)\"") }.count
        }
        try #require(Self.wait(seconds: 20) { calls("ready") == 1 }, "the fake BlueZ did not start")

        let engine = try Self.engine { clock throws(HardwareError) in
            try BlueZScanner(adapter: "hci0", clock: clock, busAddress: address, callTimeout: .seconds(5))
        }
        let client = engine.register(name: "regions", sink: { _ in }).id
        #expect(engine.startMonitoring(client, Self.region) == nil)
        engine.advance(by: .seconds(60))
        let ledger = engine.bluetoothEnergy
        let on = Self.listening(ledger), total = on + Self.off(ledger)
        #expect(engine.rangingProblem == nil)
        #expect(total > 57 && total <= 60, "the scan was wanted for the whole minute: \(total) s counted")
        #expect(abs(on / total - 1.0 / 3) < 0.04, "listening through BlueZ \(on) of \(total) s, not one third")
        let starts = calls("StartDiscovery"), stops = calls("StopDiscovery")
        #expect(starts >= 19 && starts <= 21 && stops >= 19 && stops <= 21, "StartDiscovery \(starts), StopDiscovery \(stops) times in 60 s")
        #expect(calls("SetDiscoveryFilter") == starts)
        engine.shutdown()
    }
}
