/// A Bluetooth LE beacon placed in a simulated board's world (`[[beacon]]` in a simulated board file).
public struct SimulatedBeaconDescription: Sendable, Equatable {
    /// The proximity UUID as written (`E2C56DB5-DFFB-48D2-B060-D0F5A71096E0`).
    public var uuid: String
    /// The major and minor values.
    public var major: Int, minor: Int
    /// Where it is, metres east and north of the simulation's start position.
    public var east: Double, north: Double
    /// Its calibrated RSSI at 1 m (the measured power it advertises), dBm.
    public var measuredPower: Int
    /// Milliseconds between its advertisements.
    public var intervalMilliseconds: Int

    /// A beacon.
    public init(uuid: String, major: Int, minor: Int, east: Double, north: Double, measuredPower: Int = -59, intervalMilliseconds: Int = 100) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.east = east
        self.north = north
        self.measuredPower = measuredPower
        self.intervalMilliseconds = intervalMilliseconds
    }
}

/// Which Linux Bluetooth stack scans for beacons (`bluetooth_backend`).
public enum BluetoothBackend: String, Sendable, Hashable, CaseIterable {
    /// BlueZ's D-Bus API when `bluetoothd` owns `org.bluez` on the system bus, else the kernel's
    /// HCI socket.
    case auto
    /// BlueZ's D-Bus API only (an error when `bluetoothd` does not run).
    case bluez
    /// The kernel's HCI socket only (needs the adapter free of `bluetoothd`'s scans, and
    /// CAP_NET_RAW/CAP_NET_ADMIN).
    case hci
}

extension BoardLoader {
    /// Reads `bluetooth_backend`, `beacon_path_loss_exponent` and `beacon_power_1m`.
    static func readBeaconSettings(_ top: Section, into board: inout BoardDescription) throws(BoardError) {
        if let (text, location) = try top.string("bluetooth_backend") {
            guard let backend = BluetoothBackend(rawValue: text) else {
                throw top.error("'\(text)' is not a Bluetooth backend: \"auto\", \"bluez\" or \"hci\"", key: "bluetooth_backend", at: location)
            }
            board.bluetoothBackend = backend
        }
        if let (n, location) = try top.number("beacon_path_loss_exponent") {
            guard n >= 1, n <= 6 else {
                throw top.error("\(n) is not a path-loss exponent: between 1 and 6 (2 in free space, 2-4 indoors)", key: "beacon_path_loss_exponent", at: location)
            }
            board.beaconPathLossExponent = n
        }
        if let (power, location) = try top.number("beacon_power_1m") {
            guard power >= -120, power <= 20 else {
                throw top.error("\(power) is not an RSSI at 1 m: dBm between -120 and 20, such as -59", key: "beacon_power_1m", at: location)
            }
            board.beaconPower1m = power
        }
    }

    /// The keys allowed in each `[[beacon]]`.
    public static let beaconKeys = ["uuid", "major", "minor", "east", "north", "measured_power", "interval_ms"]

    /// Reads the top-level `bluetooth` key: the adapter's name (`hci0`), letters and digits.
    static func readBluetooth(_ top: Section) throws(BoardError) -> String? {
        guard let (name, location) = try top.string("bluetooth") else { return nil }
        guard !name.isEmpty, name.utf8.count <= 16, name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) }) else {
            throw top.error("'\(name)' is not an adapter name: lower-case letters and digits, such as \"hci0\"", key: "bluetooth", at: location)
        }
        return name
    }

    /// Reads `[[beacon]]` tables (simulated boards only).
    static func readBeacons(_ sections: [Section], simulated: Bool) throws(BoardError) -> [SimulatedBeaconDescription] {
        var beacons: [SimulatedBeaconDescription] = []
        var seen: [String: SourceLocation] = [:]
        for section in sections {
            guard simulated else {
                throw section.error("[[beacon]] places a simulated beacon: only allowed when simulated = true", key: "beacon", at: section.location)
            }
            try section.checkKeys(beaconKeys)
            let (uuid, uuidLocation) = try section.requiredString("uuid", what: "the proximity UUID, 8-4-4-4-12 hexadecimal digits")
            guard isUUID(uuid) else {
                throw section.error("'\(uuid)' is not a UUID (8-4-4-4-12 hexadecimal digits)", key: "uuid", at: uuidLocation)
            }
            let (major, majorLocation) = try section.requiredInteger("major", what: "the major value, 0...65535")
            guard (0...65535).contains(major) else { throw section.error("major \(major) is outside 0...65535", key: "major", at: majorLocation) }
            let (minor, minorLocation) = try section.requiredInteger("minor", what: "the minor value, 0...65535")
            guard (0...65535).contains(minor) else { throw section.error("minor \(minor) is outside 0...65535", key: "minor", at: minorLocation) }
            let (east, eastLocation) = try section.requiredNumber("east", what: "metres east of the start position")
            let (north, northLocation) = try section.requiredNumber("north", what: "metres north of the start position")
            guard abs(east) <= 100_000 else { throw section.error("east \(east) m is outside ±100 km", key: "east", at: eastLocation) }
            guard abs(north) <= 100_000 else { throw section.error("north \(north) m is outside ±100 km", key: "north", at: northLocation) }
            var power = -59
            if let (value, location) = try section.number("measured_power") {
                guard value == value.rounded(), (-127...20).contains(value) else {
                    throw section.error("measured_power \(value) is not a whole dBm in -127...20", key: "measured_power", at: location)
                }
                power = Int(value)
            }
            var interval = 100
            if let (value, location) = try section.number("interval_ms") {
                guard value == value.rounded(), (20...10_240).contains(value) else {
                    throw section.error("interval_ms \(value) is not a whole number of milliseconds in 20...10240", key: "interval_ms", at: location)
                }
                interval = Int(value)
            }
            let identity = "\(uuid.uppercased()) \(major) \(minor)"
            if let first = seen[identity] {
                throw section.error("two beacons with uuid, major and minor \(identity) (the other is at \(first))", key: "minor", at: minorLocation)
            }
            seen[identity] = minorLocation
            beacons.append(SimulatedBeaconDescription(uuid: uuid, major: major, minor: minor, east: east, north: north,
                                                      measuredPower: power, intervalMilliseconds: interval))
        }
        return beacons
    }

    /// 8-4-4-4-12 hexadecimal digits.
    static func isUUID(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 36 else { return false }
        for (index, scalar) in scalars.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard scalar == "-" else { return false }
            } else {
                guard scalar.properties.isASCIIHexDigit else { return false }
            }
        }
        return true
    }
}
