import Beacons
import DBusWire
import HardwareInterfaces
@testable import LinuxHardware
import Testing

/// An iBeacon's manufacturer bytes after the company id: type 0x02, length 0x15, uuid, major, minor, power.
let iBeaconPayload: [UInt8] = [0x02, 0x15, 0xF7, 0x82, 0x6D, 0xA6, 0x4F, 0xA2, 0x4E, 0x98, 0x80, 0x24, 0xBC, 0x5B, 0x71, 0xE0, 0x89, 0x3E,
                               0x12, 0x34, 0x56, 0x78, 0xC5]
/// An Eddystone-UID frame: type 0x00, power -18, namespace 01…0A, instance AA…FF, two reserved bytes.
let eddystoneUIDPayload: [UInt8] = [0x00, 0xEE, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0, 0]

/// The first Eddystone-UID frame in `data`, read by the Beacons parser from its 0x16 structure alone.
func eddystoneUID(in data: [UInt8]) -> EddystoneUIDFrame? {
    data.withUnsafeBytes { raw -> EddystoneUIDFrame? in
        for structure in AdvertisingStructures(raw) where structure.type == AdvertisingStructures.serviceData16 {
            let alone = [UInt8(structure.value.count + 1), structure.type] + Array(structure.value)
            if case .beacon(.eddystoneUID(let frame)) = alone.withUnsafeBytes({ BeaconParser.parse($0) }) { return frame }
        }
        return nil
    }
}

@Suite("BlueZ devices: Device1 properties rebuilt into advertising data")
struct BlueZDevicesTests {
    static let path = "/org/bluez/hci0/dev_C0_FF_EE_00_11_22"

    static func signal(_ member: String, interface: String, path: String = path, _ body: [DBusValue]) -> DBusMessage {
        DBusMessage(kind: .signal, serial: 9, path: path, interface: interface, member: member, sender: ":1.1", body: body)
    }

    static func changed(_ properties: [(String, DBusValue)], path: String = path) -> DBusMessage {
        signal("PropertiesChanged", interface: "org.freedesktop.DBus.Properties", path: path,
               [.string("org.bluez.Device1"), .stringVariantDictionary(properties), .array(element: .basic(UInt8(ascii: "s")), [])])
    }

    static let maker = DBusValue.array(element: .dictEntry(.basic(UInt8(ascii: "q")), .variant),
                                       [.dictEntry(.uint16(0x004C), .variant(.bytes(iBeaconPayload)))])

    @Test("manufacturer data, 16- and 128-bit service data and TX power become AD structures byte for byte")
    func rebuild() {
        var device = BlueZDevices.Device(address: BluetoothAddress(rawValue: 1))
        device.txPower = -4
        device.manufacturerData = [(0x004C, [1, 2])]
        device.serviceData = [("0000feaa-0000-1000-8000-00805f9b34fb", [9]), ("12345678-0000-1000-8000-00805f9b34fb", [8]),
                              ("00112233-4455-6677-8899-aabbccddeeff", [7]), ("not-a-uuid", [6])]
        let expected: [UInt8] = [2, 0x0A, 0xFC] + [5, 0xFF, 0x4C, 0x00, 1, 2] + [4, 0x16, 0xAA, 0xFE, 9] + [6, 0x20, 0x78, 0x56, 0x34, 0x12, 8]
            + [18, 0x21, 0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 7]
        #expect(BlueZDevices.advertisingData(for: device) == expected)
        device.manufacturerData = [(0x0059, [UInt8](repeating: 0, count: 253))]
        device.serviceData = []
        device.txPower = nil
        #expect(BlueZDevices.advertisingData(for: device).isEmpty)  // 1 + 2 + 253 bytes do not fit one structure
    }

    @Test("an update with RSSI is a sighting; one without only updates the device; other adapters are ignored")
    func sightings() throws {
        var devices = BlueZDevices(adapterPath: "/org/bluez/hci0")
        #expect(devices.handle(Self.changed([("ManufacturerData", Self.maker), ("AddressType", .string("random"))])) == nil)
        let update = devices.handle(Self.changed([("RSSI", .int16(-61))]))
        let sighting = try #require(update)
        #expect(sighting.rssi == -61)
        #expect(sighting.address.description == "C0:FF:EE:00:11:22")
        #expect(sighting.address.isRandom)
        let parsed = sighting.data.withUnsafeBytes { BeaconParser.parse($0) }
        guard case .beacon(.iBeacon(let frame)) = parsed else {
            Issue.record("not an iBeacon: \(parsed)")
            return
        }
        #expect(frame.uuid == BeaconUUID("F7826DA6-4FA2-4E98-8024-BC5B71E0893E"))
        #expect(frame.major == 0x1234 && frame.minor == 0x5678 && frame.measuredPower == -59)
        #expect(devices.handle(Self.changed([("RSSI", .int16(-70))], path: "/org/bluez/hci1/dev_C0_FF_EE_00_11_22")) == nil)
        let removed = Self.signal("InterfacesRemoved", interface: "org.freedesktop.DBus.ObjectManager", path: "/",
                                  [.objectPath(Self.path), .array(element: .basic(UInt8(ascii: "s")), [.string("org.bluez.Device1")])])
        _ = devices.handle(removed)
        #expect(devices.devices.isEmpty)
    }

    @Test("the cache forgets its oldest device past its limit")
    func bounded() {
        var devices = BlueZDevices(adapterPath: "/org/bluez/hci0", limit: 2)
        for index in 0..<5 { _ = devices.handle(Self.changed([("RSSI", .int16(-50))], path: "/org/bluez/hci0/dev_00_00_00_00_00_0\(index)")) }
        #expect(devices.devices.keys.sorted() == ["/org/bluez/hci0/dev_00_00_00_00_00_03", "/org/bluez/hci0/dev_00_00_00_00_00_04"])
    }

    @Test("BlueZ's error replies become hardware errors with hints")
    func errors() {
        let ready = DBusCallError(name: "org.bluez.Error.NotReady", message: "Resource Not Ready").hardwareError(operation: "StartDiscovery", path: "/org/bluez/hci0")
        #expect(ready.kind == .other && ready.device == "hci0" && ready.hint?.contains("power on") == true)
        let denied = DBusCallError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "").hardwareError(operation: "x", path: "/org/bluez/hci0")
        #expect(denied.kind == .permissionDenied && denied.hint?.contains("group bluetooth") == true)
        let missing = DBusCallError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "").hardwareError(operation: "x", path: "/")
        #expect(missing.kind == .notFound && missing.hint?.contains("bluetoothd") == true)
    }

    @Test("a scanner on a bus that does not answer fails with notFound and a hint")
    func noBus() {
        #expect(!BlueZScanner.serviceRuns(busAddress: "unix:path=/nonexistent/bus-socket"))
        do {
            _ = try BlueZScanner(adapter: "hci0", busAddress: "unix:path=/nonexistent/bus-socket")
            Issue.record("opened a scanner on no bus")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.hint != nil)
        }
        #expect(throws: HardwareError.self) { _ = try BlueZScanner(adapter: "bt0", busAddress: "unix:path=/nonexistent/bus-socket") }
    }
}
