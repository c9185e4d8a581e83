import DBusWire
import HardwareInterfaces

/// What BlueZ told us about the devices under one adapter, from `InterfacesAdded` and
/// `PropertiesChanged` of `org.bluez.Device1`, and the advertising data rebuilt from it.
///
/// BlueZ hands out an advertisement's parts as properties (ManufacturerData, ServiceData,
/// TxPower); ``advertisingData(for:)`` writes them back as AD structures, so the Beacons parser
/// reads iBeacon, AltBeacon and Eddystone frames from them as from an HCI report.
public struct BlueZDevices: Sendable {
    /// One device's last known properties.
    public struct Device: Sendable, Equatable {
        /// The device's address and whether it is random.
        public var address: BluetoothAddress
        /// Manufacturer data by company identifier, in the order BlueZ sent them.
        public var manufacturerData: [(company: UInt16, bytes: [UInt8])] = []
        /// Service data by UUID (as BlueZ writes it, lower case with dashes), in order.
        public var serviceData: [(uuid: String, bytes: [UInt8])] = []
        /// The advertised TX power in dBm.
        public var txPower: Int?

        /// Equal addresses, TX power and data.
        public static func == (a: Device, b: Device) -> Bool {
            a.address == b.address && a.txPower == b.txPower
                && a.manufacturerData.map(\.company) == b.manufacturerData.map(\.company) && a.manufacturerData.map(\.bytes) == b.manufacturerData.map(\.bytes)
                && a.serviceData.map(\.uuid) == b.serviceData.map(\.uuid) && a.serviceData.map(\.bytes) == b.serviceData.map(\.bytes)
        }
    }

    /// An update that carried an RSSI: one advertisement to hand over.
    public struct Sighting: Sendable {
        /// Who advertised.
        public var address: BluetoothAddress
        /// The RSSI in dBm.
        public var rssi: Int
        /// The advertising data rebuilt from the device's properties.
        public var data: [UInt8]
    }

    /// The adapter's object path, `/org/bluez/hci0`.
    public let adapterPath: String
    /// The most devices remembered; the oldest is forgotten past it.
    public let limit: Int
    /// The devices known, by object path.
    public private(set) var devices: [String: Device] = [:]
    private var order: [String] = []

    /// Creates an empty cache for the devices under `adapterPath`.
    public init(adapterPath: String, limit: Int = 1024) {
        self.adapterPath = adapterPath
        self.limit = max(1, limit)
    }

    /// Reads a signal from BlueZ; returns the sighting when it carried an RSSI for a device of this adapter.
    public mutating func handle(_ signal: DBusMessage) -> Sighting? {
        guard signal.kind == .signal, let path = signal.path else { return nil }
        switch (signal.interface, signal.member) {
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard signal.body.count >= 2, signal.body[0].stringValue == "org.bluez.Device1",
                  let changed = signal.body[1].dictionaryEntries else { return nil }
            return update(path: path, properties: changed)
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
            guard signal.body.count >= 2, case .objectPath(let added) = signal.body[0],
                  let interfaces = signal.body[1].dictionaryEntries else { return nil }
            for (name, properties) in interfaces where name.stringValue == "org.bluez.Device1" {
                if let entries = properties.dictionaryEntries { return update(path: added, properties: entries) }
            }
            return nil
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
            if case .objectPath(let removed)? = signal.body.first, devices.removeValue(forKey: removed) != nil {
                order.removeAll { $0 == removed }
            }
            return nil
        default:
            return nil
        }
    }

    /// Takes the devices of a `GetManagedObjects` reply (`a{oa{sa{sv}}}`) without sightings.
    public mutating func seed(managedObjects: DBusValue) {
        for (path, interfaces) in managedObjects.dictionaryEntries ?? [] {
            guard case .objectPath(let devicePath) = path else { continue }
            for (name, properties) in interfaces.dictionaryEntries ?? [] where name.stringValue == "org.bluez.Device1" {
                _ = update(path: devicePath, properties: properties.dictionaryEntries ?? [], report: false)
            }
        }
    }

    /// Applies Device1 properties to the device at `path`.
    mutating func update(path: String, properties: [(key: DBusValue, value: DBusValue)], report: Bool = true) -> Sighting? {
        guard path.hasPrefix(adapterPath + "/") else { return nil }
        var device = devices[path] ?? Device(address: Self.address(path: path) ?? BluetoothAddress(rawValue: 0))
        var rssi: Int?
        for (key, value) in properties {
            switch key.stringValue {
            case "Address": if let text = value.unwrapped.stringValue, let parsed = Self.address(text: text, isRandom: device.address.isRandom) { device.address = parsed }
            case "AddressType": device.address.isRandom = value.unwrapped.stringValue == "random"
            case "RSSI": rssi = value.integerValue
            case "TxPower": device.txPower = value.integerValue
            case "ManufacturerData":
                device.manufacturerData = (value.dictionaryEntries ?? []).compactMap { entry in
                    guard case .uint16(let company) = entry.key.unwrapped, let bytes = entry.value.byteArray else { return nil }
                    return (company, bytes)
                }
            case "ServiceData":
                device.serviceData = (value.dictionaryEntries ?? []).compactMap { entry in
                    guard let uuid = entry.key.stringValue, let bytes = entry.value.byteArray else { return nil }
                    return (uuid.lowercased(), bytes)
                }
            default: continue
            }
        }
        if devices.updateValue(device, forKey: path) == nil {
            order.append(path)
            if order.count > limit { devices.removeValue(forKey: order.removeFirst()) }
        }
        guard report, let rssi else { return nil }
        return Sighting(address: device.address, rssi: rssi, data: Self.advertisingData(for: device))
    }

    /// The AD structures of a device: TX Power (0x0A), then manufacturer data (0xFF, company id
    /// little-endian, then the bytes), then service data (0x16 with a 16-bit UUID, 0x20 with a
    /// 32-bit one, 0x21 with a 128-bit one, little-endian). A part too long for one structure is left out.
    public static func advertisingData(for device: Device) -> [UInt8] {
        var data: [UInt8] = []
        func structure(_ type: UInt8, _ value: [UInt8]) {
            guard value.count <= 254 else { return }
            data.append(UInt8(value.count + 1))
            data.append(type)
            data.append(contentsOf: value)
        }
        if let power = device.txPower, power >= -128, power <= 127 { structure(0x0A, [UInt8(bitPattern: Int8(power))]) }
        for (company, bytes) in device.manufacturerData { structure(0xFF, [UInt8(company & 0xFF), UInt8(company >> 8)] + bytes) }
        for (uuid, bytes) in device.serviceData {
            guard let raw = uuidBytes(uuid) else { continue }
            if raw.prefix(2) == [0, 0], raw.suffix(12) == baseUUIDTail {
                structure(0x16, [raw[3], raw[2]] + bytes)
            } else if raw.suffix(12) == baseUUIDTail {
                structure(0x20, [raw[3], raw[2], raw[1], raw[0]] + bytes)
            } else {
                structure(0x21, raw.reversed() + bytes)
            }
        }
        return data
    }

    /// The last 12 bytes of the Bluetooth base UUID, 0000xxxx-0000-1000-8000-00805F9B34FB.
    static let baseUUIDTail: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    /// The 16 bytes of a UUID written with or without dashes, most significant first.
    static func uuidBytes(_ text: String) -> [UInt8]? {
        let hex = Array(text.utf8.filter { $0 != UInt8(ascii: "-") })
        guard hex.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index..<(index + 2)], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// `AA:BB:CC:DD:EE:FF`.
    static func address(text: String, isRandom: Bool) -> BluetoothAddress? {
        let parts = text.split(separator: ":")
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        return BluetoothAddress(rawValue: value, isRandom: isRandom)
    }

    /// The address in a device path, `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`.
    static func address(path: String) -> BluetoothAddress? {
        guard let last = path.split(separator: "/").last, last.hasPrefix("dev_") else { return nil }
        return address(text: last.dropFirst(4).replacingUnderscores(), isRandom: false)
    }
}

extension Substring {
    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? ":" : $0 }) }
}
