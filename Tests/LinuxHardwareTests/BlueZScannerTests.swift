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
}
