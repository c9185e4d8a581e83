import Beacons
import Foundation
import HardwareInterfaces
@testable import LinuxHardware
import Testing

/// The tools the fake-BlueZ test needs: dbus-daemon and the system python with python3-dbus and python3-gi.
private let fakeBlueZTools: Bool = {
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

/// Waits, up to `seconds`, until `ready` holds (a readiness check with a bound, not a timing assumption).
private func wait(seconds: Double, until ready: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if ready() { return true }
        usleep(20_000)
    }
    return ready()
}

@Suite("BlueZ scanner against a fake BlueZ on a private bus")
struct BlueZScannerTests {
    @Test("discovery filter, iBeacon and Eddystone from rebuilt data, RSSI, StopDiscovery",
          .enabled(if: fakeBlueZTools, "needs dbus-daemon, python3-dbus and python3-gi (apt install dbus python3-dbus python3-gi)"))
    func fakeBlueZ() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluez-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
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
        // SIGKILL: dbus-daemon may inherit a blocked SIGTERM from the test process and not exit on terminate().
        defer { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() }
        #expect(wait(seconds: 10) { UnixSockets.answers(socket) }, "dbus-daemon did not listen")

        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/fake_bluez.py").path
        let fake = Process()
        fake.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        fake.arguments = [fixture, logPath, address]
        try fake.run()
        defer { if fake.isRunning { kill(fake.processIdentifier, SIGKILL) }; fake.waitUntilExit() }
        func calls() -> [[String: Any]] {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        func called(_ name: String) -> Bool { calls().contains { $0["call"] as? String == name } }
        try #require(wait(seconds: 20) { called("ready") }, "the fake BlueZ did not start")

        #expect(BlueZScanner.serviceRuns(busAddress: address))
        let scanner = try BlueZScanner(adapter: "hci0", busAddress: address, callTimeout: .seconds(5))
        #expect(throws: HardwareError.self) { _ = try BlueZScanner(adapter: "hci1", busAddress: address, callTimeout: .seconds(5)) }
        try scanner.startScanning(BluetoothScanParameters())
        #expect(scanner.isScanning)

        var reports: [(address: String, random: Bool, rssi: Int?, data: [UInt8])] = []
        let deadline = scanner.clock.deadline(after: .seconds(20))
        while reports.count < 2, scanner.clock.now() < deadline {
            _ = try scanner.poll(deadline: deadline) { report in
                reports.append((report.address.description, report.address.isRandom, report.rssi, Array(report.data)))
            }
        }
        try scanner.stopScanning()
        #expect(!scanner.isScanning)
        scanner.close()

        try #require(reports.count == 2)
        #expect(reports.allSatisfy { $0.address == "C0:FF:EE:00:11:22" && $0.random && $0.rssi == -61 })
        // The iBeacon, from the rebuilt manufacturer data (InterfacesAdded, then kept for the update).
        for report in reports {
            guard case .beacon(.iBeacon(let frame)) = report.data.withUnsafeBytes({ BeaconParser.parse($0) }) else {
                Issue.record("no iBeacon in \(report.data)")
                continue
            }
            #expect(frame.uuid == BeaconUUID("F7826DA6-4FA2-4E98-8024-BC5B71E0893E"))
            #expect(frame.major == 0x1234 && frame.minor == 0x5678)
        }
        // The Eddystone-UID and TX power, from the PropertiesChanged update.
        let uid = try #require(eddystoneUID(in: reports[1].data))
        #expect(uid.namespaceHigh == 0x0102_0304_0506_0708 && uid.namespaceLow == 0x090A && uid.instance == 0xAABB_CCDD_EEFF)
        #expect(Array(reports[1].data.prefix(3)) == [2, 0x0A, 4])

        let log = calls()
        let filter = log.first { $0["call"] as? String == "SetDiscoveryFilter" }?["filter"] as? [String: Any]
        #expect(filter?["Transport"] as? String == "le")
        #expect(filter?["DuplicateData"] as? Bool == true)
        let order = log.compactMap { $0["call"] as? String }.filter { ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"].contains($0) }
        #expect(order == ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"])
    }

    @Test("bluetoothd restarts mid-scan: devices forgotten, discovery started again on the new owner; a refused start ends in a power cycle",
          .enabled(if: fakeBlueZTools, "needs dbus-daemon, python3-dbus and python3-gi (apt install dbus python3-dbus python3-gi)"))
    func restartRecovery() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluez-restart-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("bus").path
        let address = "unix:path=" + socket
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--address=" + address]
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        defer { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() }
        #expect(wait(seconds: 10) { UnixSockets.answers(socket) }, "dbus-daemon did not listen")

        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/fake_bluez.py").path
        func calls(_ log: String) -> [[String: Any]] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        func startFake(_ log: String, mode: String) throws -> Process {
            let fake = Process()
            fake.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            fake.arguments = [fixture, log, address, mode]
            try fake.run()
            try #require(wait(seconds: 20) { calls(log).contains { $0["call"] as? String == "ready" } }, "the fake BlueZ did not start")
            return fake
        }
        let firstLog = directory.appendingPathComponent("first.jsonl").path
        let secondLog = directory.appendingPathComponent("second.jsonl").path
        let first = try startFake(firstLog, mode: "stay")
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) }; first.waitUntilExit() }

        let scanner = try BlueZScanner(adapter: "hci0", busAddress: address, callTimeout: .seconds(5))
        defer { scanner.close() }
        try scanner.startScanning(BluetoothScanParameters())
        var before: [[UInt8]] = []
        let clock = scanner.clock
        var deadline = clock.deadline(after: .seconds(20))
        while before.count < 2, clock.now() < deadline {
            _ = try scanner.poll(deadline: deadline) { before.append(Array($0.data)) }
        }
        try #require(before.count == 2)
        // The second report carries the TX power and Eddystone-UID the first bluetoothd told.
        #expect(Array(before[1].prefix(3)) == [2, 0x0A, 4] && eddystoneUID(in: before[1]) != nil)

        // bluetoothd crashes: its name leaves the bus. Nothing is reported while it is away.
        kill(first.processIdentifier, SIGKILL)
        var during = 0
        deadline = clock.deadline(after: .seconds(10))
        while scanner.availability.adapterAvailable, clock.now() < deadline {
            during += try scanner.poll(deadline: clock.deadline(after: .milliseconds(100))) { _ in }
        }
        var availability = scanner.availability
        #expect(!availability.adapterAvailable && availability.outages == 1 && availability.recoveries == 0)
        #expect(availability.lastOutageReason == "bluetoothd left the bus")
        #expect(during == 0)
        #expect(scanner.isScanning, "the scan stays wanted through the outage")

        // A new bluetoothd takes the name; its StartDiscovery is refused as in progress until the
        // adapter is powered off and on.
        let second = try startFake(secondLog, mode: "busy")
        defer { if second.isRunning { kill(second.processIdentifier, SIGKILL) }; second.waitUntilExit() }
        var after: [[UInt8]] = []
        deadline = clock.deadline(after: .seconds(20))
        while after.isEmpty, clock.now() < deadline {
            _ = try scanner.poll(deadline: deadline) { after.append(Array($0.data)) }
        }
        availability = scanner.availability
        #expect(availability.adapterAvailable && availability.outages == 1 && availability.recoveries == 1)
        #expect(availability.refusedStarts >= 1 && availability.powerCycles == 1)
        #expect(availability.lastRecoveryTime != nil && availability.lastRecoveryFailure == nil)
        // The first report after the restart comes from the new bluetoothd's InterfacesAdded alone:
        // the iBeacon, without the TX power or service data the old one had told (no stale data).
        let recovered = try #require(after.first)
        let iBeacon: [UInt8] = [0x02, 0x15, 0xF7, 0x82, 0x6D, 0xA6, 0x4F, 0xA2, 0x4E, 0x98, 0x80, 0x24, 0xBC, 0x5B, 0x71, 0xE0, 0x89, 0x3E, 0x12, 0x34, 0x56, 0x78, 0xC5]
        #expect(recovered == [0x1A, 0xFF, 0x4C, 0x00] + iBeacon)
        let order = calls(secondLog).compactMap { call -> String? in
            guard let name = call["call"] as? String, name != "GetManagedObjects", name != "ready", name != "advertised" else { return nil }
            if name == "Set" { return "Set Powered \(call["value"] as? Bool == true ? "on" : "off")" }
            return name + (call["refused"] as? Bool == true ? " refused" : "")
        }
        let refused = order.filter { $0 == "StartDiscovery refused" }.count
        #expect(refused >= 1 && refused == availability.refusedStarts)
        let off = try #require(order.firstIndex(of: "Set Powered off"), "no power cycle: \(order)")
        #expect(order.dropFirst(off + 1).first == "Set Powered on", "\(order)")
        #expect(!order[..<off].contains("StartDiscovery") && order.last == "StartDiscovery", "\(order)")
    }
}
