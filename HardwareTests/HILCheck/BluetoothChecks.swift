#if canImport(Glibc)
import Glibc
#endif
import BluetoothHCI
import HardwareInterfaces
import LinuxHardware

/// `fieldloc-hil --bluetooth /dev/vhci`: LinuxBluetoothScanner against the kernel's own Bluetooth
/// stack. A ``VirtualHCIController`` on `/dev/vhci` is the radio; the kernel initialises it as
/// `hciN`; the scanner powers it on, scans through a raw HCI socket and must read back the
/// iBeacon, AltBeacon and Eddystone adverts the controller injects, with their RSSI, byte for byte.
enum BluetoothChecks {
    struct Beacon {
        var name: String
        var advertisement: HCIAdvertisement
    }

    static let uuid: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
    static let flags: [UInt8] = [0x02, 0x01, 0x06]
    static let eddystoneList: [UInt8] = [0x03, 0x03, 0xAA, 0xFE]

    /// The legacy adverts, one event each, sent every round.
    static let beacons: [Beacon] = [
        Beacon(name: "iBeacon", advertisement: HCIAdvertisement(
            address: BluetoothAddress(rawValue: 0x1122_3344_5501),
            data: flags + [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuid + [0x00, 0x07, 0x01, 0x2C, 0xC5], rssi: -59)),
        Beacon(name: "AltBeacon", advertisement: HCIAdvertisement(
            address: BluetoothAddress(rawValue: 0xC122_3344_5502, isRandom: true),
            data: flags + [0x1B, 0xFF, 0x18, 0x01, 0xBE, 0xAC] + uuid + [0x00, 0x02, 0x00, 0x03, 0xBA, 0x00], rssi: -71)),
        Beacon(name: "Eddystone-UID", advertisement: HCIAdvertisement(
            address: BluetoothAddress(rawValue: 0x1122_3344_5503),
            data: flags + eddystoneList + [0x17, 0x16, 0xAA, 0xFE, 0x00, 0xEE]
                + [0x8B, 0x0C, 0xA7, 0x50, 0xE7, 0xA7, 0x4E, 0x14, 0xBD, 0x99] + [0x00, 0x00, 0x00, 0x00, 0x00, 0x19] + [0x00, 0x00],
            rssi: -65)),
        Beacon(name: "Eddystone-URL", advertisement: HCIAdvertisement(
            address: BluetoothAddress(rawValue: 0x1122_3344_5504),
            data: flags + eddystoneList + [0x0E, 0x16, 0xAA, 0xFE, 0x10, 0xEB, 0x03] + Array("example".utf8) + [0x07],
            rssi: -80)),
    ]

    /// An Eddystone-TLM frame in an LE Extended Advertising Report, with the advertiser's TX power.
    static let tlmAddress = BluetoothAddress(rawValue: 0x1122_3344_5505)
    static let tlmData: [UInt8] = flags + eddystoneList
        + [0x11, 0x16, 0xAA, 0xFE, 0x20, 0x00, 0x0B, 0xB8, 0x19, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x10]

    /// A report whose data length (5) runs past the event: the scanner must count it and go on.
    static let malformed: [UInt8] = [0x04, 0x3E, 0x0E, 0x02, 0x01, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 0x05, 0xAA, 0xBB, 0xC5]

    struct Seen {
        var count = 0
        var rssi: [Int?] = []
        var txPower: Int?
        var data: [UInt8] = []
    }

    /// Runs the checks, printing `ok - ` / `not ok - ` lines; returns whether all passed.
    static func run(vhci path: String, say: (String) -> Void) -> Bool {
        var failures = 0
        func check(_ name: String, _ body: () throws -> String) {
            do {
                say("ok - \(name): \(try body())")
            } catch {
                failures += 1
                say("not ok - \(name): \(error)")
            }
        }
        var round = beacons.map { HCIEventEncoder.leAdvertisingReport([$0.advertisement]) ?? [] }
        round.append(HCIEventEncoder.leExtendedAdvertisingReport(address: tlmAddress, data: tlmData, rssi: -50, txPower: 4) ?? [])
        round.append(malformed)
        let controller: VirtualHCIController
        do {
            controller = try VirtualHCIController(path: path, round: round)
            try controller.start()
        } catch {
            say("not ok - bluetooth-vhci: \(error)")
            return false
        }
        let adapter = "hci\(controller.index)"
        let clock = SystemMonotonicClock()

        check("bluetooth-hci-scan") {
            let scanner = try LinuxBluetoothScanner(adapter: adapter, clock: clock, powerOn: true)
            defer { scanner.close() }
            try scanner.startScanning(BluetoothScanParameters(interval: .milliseconds(100), window: .milliseconds(50)))
            var seen: [BluetoothAddress: Seen] = [:]
            let expected = Set(beacons.map(\.advertisement.address) + [tlmAddress])
            let deadline = clock.deadline(after: .seconds(20))
            while clock.now() < deadline, !expected.allSatisfy({ (seen[$0]?.count ?? 0) >= 3 }) {
                _ = try scanner.poll(deadline: deadline) { report in
                    var entry = seen[report.address] ?? Seen()
                    entry.count += 1
                    entry.rssi.append(report.rssi)
                    entry.txPower = report.txPower
                    if entry.data.isEmpty { entry.data = Array(report.data) }
                    seen[report.address] = entry
                }
            }
            var lines: [String] = []
            for beacon in beacons {
                let got = seen[beacon.advertisement.address] ?? Seen()
                let rssi = beacon.advertisement.rssi.map(Int.init)
                guard got.count >= 3 else { throw HILError("\(beacon.name) (\(beacon.advertisement.address)): \(got.count) reports, expected 3 or more") }
                guard got.rssi.allSatisfy({ $0 == rssi }) else { throw HILError("\(beacon.name): RSSI \(got.rssi), injected \(rssi ?? 127)") }
                guard got.data == beacon.advertisement.data else { throw HILError("\(beacon.name): data \(got.data), injected \(beacon.advertisement.data)") }
                lines.append("\(beacon.name) \(got.count)x rssi \(rssi ?? 127)")
            }
            let tlm = seen[tlmAddress] ?? Seen()
            guard tlm.count >= 3, tlm.rssi.allSatisfy({ $0 == -50 }), tlm.txPower == 4, tlm.data == tlmData else {
                throw HILError("Eddystone-TLM (extended report): \(tlm.count) reports, rssi \(tlm.rssi), tx \(tlm.txPower.map(String.init) ?? "nil")")
            }
            lines.append("Eddystone-TLM (extended) \(tlm.count)x rssi -50 tx 4")
            let statistics = scanner.statistics
            guard statistics.malformed >= 1, statistics.lastMalformation?.reason == .truncatedReport else {
                throw HILError("the malformed report was not counted (\(statistics))")
            }
            let record = controller.record.withLock { $0 }
            guard record.scanParameters.first == [0x00, 0xA0, 0x00, 0x50, 0x00, 0x00, 0x00] else {
                throw HILError("LE Set Scan Parameters reached the controller as \(record.scanParameters), expected passive 0x00a0/0x0050")
            }
            guard record.scanEnables.first == [0x01, 0x00] else {
                throw HILError("LE Set Scan Enable reached the controller as \(record.scanEnables), expected 01 00 (duplicates kept)")
            }
            return "\(adapter) via the kernel's HCI socket: " + lines.joined(separator: ", ")
                + "; \(statistics.malformed) malformed event(s) counted; scan parameters 00 a0 00 50 00 00 00, enable 01 00"
        }

        check("bluetooth-hci-rescan-stop") {
            let scanner = try LinuxBluetoothScanner(adapter: adapter, clock: clock, powerOn: true)
            defer { scanner.close() }
            let before = controller.record.withLock { $0.scanEnables.count + $0.scanParameters.count }
            try scanner.startScanning(BluetoothScanParameters(interval: .milliseconds(200), window: .milliseconds(30)))
            try scanner.startScanning(BluetoothScanParameters(interval: .milliseconds(1_000), window: .milliseconds(1_000), active: true))
            guard scanner.isScanning else { throw HILError("isScanning is false after startScanning") }
            try scanner.stopScanning()
            guard !scanner.isScanning else { throw HILError("isScanning is true after stopScanning") }
            let record = controller.record.withLock { $0 }
            guard Array(record.scanParameters.suffix(2)) == [[0x00, 0x40, 0x01, 0x30, 0x00, 0x00, 0x00], [0x01, 0x40, 0x06, 0x40, 0x06, 0x00, 0x00]] else {
                throw HILError("scan parameters reached the controller as \(record.scanParameters.suffix(2))")
            }
            guard Array(record.scanEnables.suffix(4)) == [[1, 0], [0, 0], [1, 0], [0, 0]] else {
                throw HILError("scan enables reached the controller as \(record.scanEnables.suffix(4)), expected on, off, on, off")
            }
            guard record.scanEnables.count + record.scanParameters.count - before == 6 else {
                throw HILError("\(record.scanEnables.count + record.scanParameters.count - before) scan commands, expected 6")
            }
            return "a running scan restarts with new parameters (off, 0x0140/0x0030 passive, on, off, 0x0640/0x0640 active, on) and stops (off)"
        }

        check("bluetooth-hci-missing-adapter") {
            do {
                _ = try LinuxBluetoothScanner(adapter: "hci\(Int(controller.index) + 7)", clock: clock)
                throw HILError("opening an absent adapter succeeded")
            } catch let error as HardwareError {
                guard error.kind == .notFound, error.hint?.contains("no Bluetooth adapter") == true else { throw HILError("got \(error)") }
            }
            do {
                _ = try LinuxBluetoothScanner(adapter: "bluetooth0", clock: clock)
                throw HILError("opening adapter bluetooth0 succeeded")
            } catch let error as HardwareError {
                guard error.kind == .invalidArgument else { throw HILError("got \(error)") }
            }
            return "hci\(Int(controller.index) + 7): not found, with the hint; bluetooth0: invalid argument"
        }

        check("bluetooth-hci-adapter-removed") {
            let scanner = try LinuxBluetoothScanner(adapter: adapter, clock: clock, powerOn: true)
            defer { scanner.close() }
            controller.stop(closeDevice: true)  // closing /dev/vhci unregisters the controller
            do {
                let count = try scanner.poll(deadline: clock.deadline(after: .seconds(10))) { _ in }
                throw HILError("poll returned \(count) after the controller was removed, expected deviceGone")
            } catch let error as HardwareError {
                guard error.kind == .deviceGone else { throw HILError("got \(error), expected deviceGone") }
                return "poll throws deviceGone (\(error.detail)) when /dev/vhci closes"
            }
        }
        controller.stop(closeDevice: false)
        return failures == 0
    }
}
