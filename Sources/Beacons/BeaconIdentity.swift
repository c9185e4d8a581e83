/// A 128-bit beacon proximity UUID (iBeacon's UUID, the first 16 bytes of an AltBeacon's ID), held
/// in two words so that a parsed advertisement allocates nothing.
public struct BeaconUUID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Bytes 0-7, the first byte in the top bits.
    public var high: UInt64
    /// Bytes 8-15.
    public var low: UInt64

    /// A UUID from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The 16 bytes at `offset` of `bytes`, as they are sent (most significant first).
    /// `nil` when fewer than 16 bytes follow `offset`.
    public init?(bytes: UnsafeRawBufferPointer, offset: Int) {
        guard offset >= 0, bytes.count - offset >= 16 else { return nil }
        high = BeaconBytes.bigEndian(bytes, offset, 8)
        low = BeaconBytes.bigEndian(bytes, offset + 8, 8)
    }

    /// Parses `E2C56DB5-DFFB-48D2-B060-D0F5A71096E0` (either case; the four dashes where they
    /// belong, or no dashes at all). `nil` for anything else.
    public init?(_ text: String) {
        var value: (UInt64, UInt64) = (0, 0)
        var digits = 0
        var index = 0
        let dashes: Set<Int> = [8, 13, 18, 23]
        let scalars = Array(text.unicodeScalars)
        let dashed = scalars.count == 36
        guard dashed || scalars.count == 32 else { return nil }
        for scalar in scalars {
            defer { index += 1 }
            if dashed && dashes.contains(index) {
                guard scalar == "-" else { return nil }
                continue
            }
            let nibble: UInt64
            switch scalar.value {
            case 0x30...0x39: nibble = UInt64(scalar.value - 0x30)
            case 0x41...0x46: nibble = UInt64(scalar.value - 0x41 + 10)
            case 0x61...0x66: nibble = UInt64(scalar.value - 0x61 + 10)
            default: return nil
            }
            if digits < 16 { value.0 = value.0 << 4 | nibble } else { value.1 = value.1 << 4 | nibble }
            digits += 1
        }
        guard digits == 32 else { return nil }
        high = value.0
        low = value.1
    }

    /// `E2C56DB5-DFFB-48D2-B060-D0F5A71096E0`, upper case, as Core Location writes it.
    public var description: String {
        let hex: [Character] = Array("0123456789ABCDEF")
        var text = ""
        text.reserveCapacity(36)
        for index in 0..<32 {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append("-") }
            let word = index < 16 ? high : low
            let shift = UInt64(60 - 4 * (index % 16))
            text.append(hex[Int((word >> shift) & 0xF)])
        }
        return text
    }

    public static func < (a: BeaconUUID, b: BeaconUUID) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

/// How close a beacon is, in Core Location's four steps.
public enum BeaconProximity: String, Sendable, Hashable, CaseIterable, Codable {
    /// Not heard recently, or no estimate yet.
    case unknown
    /// Within about half a metre.
    case immediate
    /// Within about four metres.
    case near
    /// Further away.
    case far
}

/// Which beacons a ranging request or a beacon region covers: every beacon of a UUID, those with
/// a major value too, or one beacon (uuid, major and minor).
public struct BeaconIdentityConstraint: Hashable, Sendable, CustomStringConvertible {
    /// The proximity UUID.
    public var uuid: BeaconUUID
    /// The major value, or `nil` for any.
    public var major: UInt16?
    /// The minor value, or `nil` for any (only with a major value).
    public var minor: UInt16?

    /// Every beacon with `uuid`.
    public init(uuid: BeaconUUID) {
        self.uuid = uuid
        major = nil
        minor = nil
    }

    /// Every beacon with `uuid` and `major`.
    public init(uuid: BeaconUUID, major: UInt16) {
        self.uuid = uuid
        self.major = major
        minor = nil
    }

    /// The one beacon with `uuid`, `major` and `minor`.
    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// Whether a beacon with these values is covered.
    public func matches(uuid: BeaconUUID, major: UInt16, minor: UInt16) -> Bool {
        self.uuid == uuid && (self.major.map { $0 == major } ?? true) && (self.minor.map { $0 == minor } ?? true)
    }

    /// `UUID`, `UUID major`, or `UUID major minor`.
    public var description: String {
        var text = uuid.description
        if let major { text += " \(major)" }
        if let minor { text += " \(minor)" }
        return text
    }
}

/// A beacon as ranging reports it (Core Location's `CLBeacon`).
public struct Beacon: Hashable, Sendable, Codable {
    /// The proximity UUID.
    public var uuid: BeaconUUID
    /// The major value.
    public var major: UInt16
    /// The minor value.
    public var minor: UInt16
    /// How close it is; `unknown` when it fell silent.
    public var proximity: BeaconProximity
    /// The estimated distance in metres (the accuracy of its position, as Core Location calls
    /// it); negative when unknown.
    public var accuracy: Double
    /// The smoothed received signal strength in dBm; 0 when unknown.
    public var rssi: Int
    /// When it was last heard, seconds on the ranging clock.
    public var timestamp: Double

    /// A beacon.
    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16, proximity: BeaconProximity, accuracy: Double,
                rssi: Int, timestamp: Double) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.proximity = proximity
        self.accuracy = accuracy
        self.rssi = rssi
        self.timestamp = timestamp
    }
}

/// A region defined by beacons rather than by a circle (Core Location's `CLBeaconRegion`): the
/// unit is inside while it hears a beacon the constraint covers.
public struct BeaconRegion: Hashable, Sendable {
    /// The region's name, unique among a client's regions.
    public var identifier: String
    /// The beacons that make the region.
    public var constraint: BeaconIdentityConstraint
    /// Whether entering is reported.
    public var notifyOnEntry: Bool
    /// Whether leaving is reported.
    public var notifyOnExit: Bool

    /// A beacon region.
    public init(identifier: String, constraint: BeaconIdentityConstraint, notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
        self.identifier = identifier
        self.constraint = constraint
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// Why the region cannot be monitored, or `nil`.
    public func validate() -> String? {
        if identifier.isEmpty { return "a beacon region needs an identifier" }
        if constraint.minor != nil && constraint.major == nil { return "a minor value needs a major value" }
        return nil
    }
}

/// Big-endian and little-endian reads that never trap: callers check the length first.
enum BeaconBytes {
    static func bigEndian(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + count) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    static func littleEndian16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func bigEndian16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }
}
