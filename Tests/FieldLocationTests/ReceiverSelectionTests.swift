import BoardConfig
import EnginePlatforms
@testable import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import Testing

/// The best-source rule (``ReceiverSelection``) on injected instants: fix type, then accuracy
/// estimate, then age; a failed port drops its receiver at once.
@Suite("Best receiver source")
struct ReceiverSelectionTests {
    static func location(_ type: LocationFixType, accuracy: Double?) -> Location {
        var l = Location(latitude: 52, longitude: 4, horizontalAccuracy: accuracy ?? Location.unknownAccuracy, receivedAt: .zero)
        l.fixType = type
        return l
    }

    static func at(_ ms: Int64) -> MonotonicInstant { MonotonicInstant.zero.advanced(by: .milliseconds(ms)) }

    /// Two receivers, 1 Hz, 400 ms apart, for `seconds`; returns which source each delivered fix came from.
    static func run(_ selection: inout ReceiverSelection, seconds: Int, from: Int = 0,
                    a: (Int) -> Location?, b: (Int) -> Location?) -> [Int] {
        var delivered: [Int] = []
        for s in from..<(from + seconds) {
            if let l = a(s), selection.offer(0, l, at: at(Int64(s) * 1000)) { delivered.append(0) }
            if let l = b(s), selection.offer(1, l, at: at(Int64(s) * 1000 + 400)) { delivered.append(1) }
        }
        return delivered
    }

    @Test("fix type first: a DGPS receiver beats a better-accuracy autonomous one; RTK fixed beats float")
    func fixTypeFirst() {
        var selection = ReceiverSelection()
        let delivered = Self.run(&selection, seconds: 5, a: { _ in Self.location(.threeD, accuracy: 1.0) },
                                 b: { _ in Self.location(.dgps, accuracy: 2.0) })
        // The first fix is A's (nothing else yet); from B's first fix on, only B.
        #expect(delivered == [0, 1, 1, 1, 1, 1])
        #expect(ReceiverSelection.rank(.rtkFixed) > ReceiverSelection.rank(.rtkFloat))
        #expect(ReceiverSelection.rank(.rtkFloat) > ReceiverSelection.rank(.dgps))
        #expect(ReceiverSelection.rank(.twoD) > ReceiverSelection.rank(.deadReckoning))
    }

    @Test("then accuracy: the smaller estimate wins beyond 10 %; a known estimate beats none; within 10 % the chosen one stays")
    func accuracyThenAge() {
        var better = ReceiverSelection()
        #expect(Self.run(&better, seconds: 3, a: { _ in Self.location(.threeD, accuracy: 5) },
                         b: { _ in Self.location(.threeD, accuracy: 3) }) == [0, 1, 1, 1])
        var known = ReceiverSelection()
        #expect(Self.run(&known, seconds: 3, a: { _ in Self.location(.threeD, accuracy: nil) },
                         b: { _ in Self.location(.threeD, accuracy: 30) }) == [0, 1, 1, 1])
        // 4.0 against 4.3 (7 %): a tie; A was chosen first and keeps it, B's fixes are not interleaved.
        var tie = ReceiverSelection()
        #expect(Self.run(&tie, seconds: 4, a: { _ in Self.location(.threeD, accuracy: 4.3) },
                         b: { _ in Self.location(.threeD, accuracy: 4.0) }) == [0, 0, 0, 0])
    }

    @Test("a chosen receiver that goes silent is replaced after 1.5 of its epochs; one whose port fails at once")
    func silenceAndFailure() {
        var selection = ReceiverSelection()
        let dgps = { (_: Int) in Self.location(.dgps, accuracy: 1) }
        let auto = { (_: Int) in Self.location(.threeD, accuracy: 3) }
        #expect(Self.run(&selection, seconds: 3, a: auto, b: dgps) == [0, 1, 1, 1])
        // B falls silent after second 2 (its last fix at 2.4 s): A's fix at 3.0 s is 0.6 s later, B
        // is still live; at 4.0 s B's fix is 1.6 s old, more than 1.5 epochs: A takes over.
        let silent = Self.run(&selection, seconds: 3, from: 3, a: auto, b: { _ in nil })
        #expect(silent == [0, 0])
        #expect(selection.chosen == 0)
        // B back: A's fix at 6.0 s is still delivered, B is chosen again at its first fix (6.4 s).
        #expect(Self.run(&selection, seconds: 2, from: 6, a: auto, b: dgps) == [0, 1, 1])
        // B's port fails (dropped): A's next fix is delivered at once.
        selection.drop(1)
        #expect(selection.chosen == nil)
        let delivered = selection.offer(0, auto(0), at: Self.at(8000))
        #expect(delivered)
        #expect(!selection.isLive(1, at: Self.at(8000)))
    }

    @Test("epochs read in one burst keep the receiver's own spacing (its fix times), so it stays live")
    func burst() {
        var selection = ReceiverSelection()
        func fix(_ type: LocationFixType, _ accuracy: Double, utc: Double) -> Location {
            var l = Self.location(type, accuracy: accuracy)
            l.timestamp = utc
            return l
        }
        // B's port held two epochs (UTC 100 and 101) when it was first read: both arrive at 1.0 s.
        let first = selection.offer(1, fix(.dgps, 1, utc: 100), at: Self.at(1000))
        let second = selection.offer(1, fix(.dgps, 1, utc: 101), at: Self.at(1000))
        #expect(first && second)
        #expect(selection.candidates[1]?.epoch == .seconds(1))
        // A's fix 0.5 s later: B is live (epoch 1 s, not the 0 s between the arrivals) and better.
        let a = selection.offer(0, fix(.threeD, 4, utc: 101.5), at: Self.at(1500))
        #expect(!a)
        #expect(selection.chosen == 1)
        // Without fix times, arrivals under 50 ms apart keep the previous epoch.
        var untimed = ReceiverSelection()
        _ = untimed.offer(1, Self.location(.dgps, accuracy: 1), at: Self.at(0))
        _ = untimed.offer(1, Self.location(.dgps, accuracy: 1), at: Self.at(1000))
        _ = untimed.offer(1, Self.location(.dgps, accuracy: 1), at: Self.at(1010))
        #expect(untimed.candidates[1]?.epoch == .seconds(1))
    }
}

/// USB receivers found in a sysfs tree the way udev sees them (a temporary folder stands in for `/sys`).
@Suite("USB receiver by identity")
struct USBSerialDevicesTests {
    /// `sys/class/tty/NAME/device` links to a USB interface folder whose parent has the USB device's attributes.
    static func makeTree(_ root: String, ttys: [(name: String, vendor: String, product: String, serial: String?)]) throws {
        let files = FileManager.default
        for (index, tty) in ttys.enumerated() {
            let device = root + "/devices/usb1/1-\(index + 1)"
            let interface = device + "/1-\(index + 1):1.0"
            try files.createDirectory(atPath: interface, withIntermediateDirectories: true)
            try (tty.vendor + "\n").write(toFile: device + "/idVendor", atomically: true, encoding: .utf8)
            try (tty.product + "\n").write(toFile: device + "/idProduct", atomically: true, encoding: .utf8)
            if let serial = tty.serial { try (serial + "\n").write(toFile: device + "/serial", atomically: true, encoding: .utf8) }
            let ttyFolder = root + "/class/tty/" + tty.name
            try files.createDirectory(atPath: ttyFolder, withIntermediateDirectories: true)
            try files.createSymbolicLink(atPath: ttyFolder + "/device", withDestinationPath: "../../../devices/usb1/1-\(index + 1)/1-\(index + 1):1.0")
        }
        // A tty without a USB device (the Pi's UART).
        try files.createDirectory(atPath: root + "/class/tty/ttyAMA0", withIntermediateDirectories: true)
    }

    @Test("vendor and product find the node; the serial tells two of a kind apart; nothing plugged in finds nothing")
    func find() throws {
        let root = NSTemporaryDirectory() + "fieldloc-sys-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.makeTree(root, ttys: [("ttyACM0", "1546", "01a9", "A1"), ("ttyACM1", "1546", "01A9", "B2"), ("ttyUSB0", "10c4", "ea60", nil)])
        #expect(USBSerialDevices.node(matching: USBSerialMatch(vendor: "1546", product: "01a9", serial: "B2"), system: root, devices: "/dev") == "/dev/ttyACM1")
        #expect(USBSerialDevices.node(matching: USBSerialMatch(vendor: "1546", product: "01a9"), system: root, devices: "/dev") == "/dev/ttyACM0")
        #expect(USBSerialDevices.node(matching: USBSerialMatch(vendor: "10C4", product: "EA60"), system: root, devices: "/d") == "/d/ttyUSB0")
        #expect(USBSerialDevices.node(matching: USBSerialMatch(vendor: "1546", product: "01a8"), system: root, devices: "/dev") == nil)
        #expect(USBSerialDevices.node(matching: USBSerialMatch(vendor: "1546", product: "01a9", serial: "C3"), system: root, devices: "/dev") == nil)
        let folders = DeviceAccess.Folders(devices: "/dev", system: root)
        var receiver = ReceiverDescription(uart: nil, baudRate: .b9600, family: .ublox, model: nil, wake: [])
        receiver.usb = USBSerialMatch(vendor: "1546", product: "01a9", serial: "A1")
        #expect(USBSerialDevices.port(of: receiver, folders: folders) == "/dev/ttyACM0")
        receiver.usb = USBSerialMatch(vendor: "0000", product: "0000")
        #expect(USBSerialDevices.port(of: receiver, folders: folders) == "")
    }
}
