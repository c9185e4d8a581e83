/// The AD structures of an advertisement (Bluetooth Core Specification, Vol 3, Part C, §11):
/// each is a length byte, a type byte and `length - 1` bytes of value. A length of zero ends the
/// data early (the rest is padding).
///
/// Walking them allocates nothing: each structure is a slice of the borrowed bytes.
public struct AdvertisingStructures: Sequence {
    /// The advertising data.
    public let data: UnsafeRawBufferPointer

    /// The structures of `data`.
    public init(_ data: UnsafeRawBufferPointer) { self.data = data }

    /// One AD structure.
    public struct Structure {
        /// The AD type (0xFF manufacturer data, 0x16 16-bit service data, ...).
        public var type: UInt8
        /// Its value, borrowed from the advertisement.
        public var value: UnsafeRawBufferPointer
        /// The offset of its length byte in the advertisement.
        public var offset: Int
    }

    /// Walks the structures; after the last one, ``Iterator/malformed`` tells whether the data
    /// ended inside a structure.
    public struct Iterator: IteratorProtocol {
        let data: UnsafeRawBufferPointer
        var offset = 0
        /// Set when a structure's length runs past the end of the data (the walk stops there).
        public private(set) var malformed: AdvertRejection?

        init(_ data: UnsafeRawBufferPointer) { self.data = data }

        public mutating func next() -> Structure? {
            guard offset < data.count, malformed == nil else { return nil }
            let length = Int(data[offset])
            if length == 0 {
                offset = data.count
                return nil
            }
            guard offset + 1 + length <= data.count else {
                malformed = .truncatedStructure
                return nil
            }
            let start = offset + 2
            let value = UnsafeRawBufferPointer(rebasing: data[start..<(offset + 1 + length)])
            let structure = Structure(type: data[offset + 1], value: value, offset: offset)
            offset += 1 + length
            return structure
        }
    }

    public func makeIterator() -> Iterator { Iterator(data) }

    /// AD type of manufacturer-specific data.
    public static let manufacturerData: UInt8 = 0xFF
    /// AD type of 16-bit UUID service data.
    public static let serviceData16: UInt8 = 0x16
}

/// Why an advertisement that looked like a beacon was not taken.
public enum AdvertRejection: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// An AD structure's length runs past the end of the data.
    case truncatedStructure
    /// Apple iBeacon data (0x4C00 0x02) whose length byte is not 0x15 or whose value is short.
    case iBeaconLength
    /// AltBeacon data (0xBEAC) of the wrong length.
    case altBeaconLength
    /// Eddystone service data (0xFEAA) too short for its frame.
    case eddystoneLength
    /// An Eddystone frame type this parser does not know.
    case eddystoneFrameType
    /// An Eddystone-URL with an unknown scheme prefix or a byte that is neither printable nor an expansion.
    case eddystoneURLEncoding
    /// An Eddystone-TLM of a version other than 0 (unencrypted) or 1 (encrypted).
    case eddystoneTLMVersion

    /// The reason's name, as counters print it.
    public var description: String {
        switch self {
        case .truncatedStructure: return "truncated AD structure"
        case .iBeaconLength: return "iBeacon length"
        case .altBeaconLength: return "AltBeacon length"
        case .eddystoneLength: return "Eddystone frame length"
        case .eddystoneFrameType: return "Eddystone frame type"
        case .eddystoneURLEncoding: return "Eddystone-URL encoding"
        case .eddystoneTLMVersion: return "Eddystone-TLM version"
        }
    }
}

/// Counts of advertisements by outcome, per rejection reason; no allocation.
public struct AdvertCounters: Sendable, Hashable {
    /// Advertisements seen.
    public var seen = 0
    /// Beacon frames parsed.
    public var beacons = 0
    /// Advertisements with no beacon frame (other devices).
    public var other = 0
    private var rejections: (Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0)

    /// No counts yet.
    public init() {}

    /// Rejections for one reason.
    public subscript(reason: AdvertRejection) -> Int {
        get {
            switch reason {
            case .truncatedStructure: return rejections.0
            case .iBeaconLength: return rejections.1
            case .altBeaconLength: return rejections.2
            case .eddystoneLength: return rejections.3
            case .eddystoneFrameType: return rejections.4
            case .eddystoneURLEncoding: return rejections.5
            case .eddystoneTLMVersion: return rejections.6
            }
        }
        set {
            switch reason {
            case .truncatedStructure: rejections.0 = newValue
            case .iBeaconLength: rejections.1 = newValue
            case .altBeaconLength: rejections.2 = newValue
            case .eddystoneLength: rejections.3 = newValue
            case .eddystoneFrameType: rejections.4 = newValue
            case .eddystoneURLEncoding: rejections.5 = newValue
            case .eddystoneTLMVersion: rejections.6 = newValue
            }
        }
    }

    /// Every rejection.
    public var rejected: Int {
        rejections.0 + rejections.1 + rejections.2 + rejections.3 + rejections.4 + rejections.5 + rejections.6
    }

    /// Counts one parse's outcome.
    public mutating func record(_ result: AdvertParse) {
        seen += 1
        switch result {
        case .beacon: beacons += 1
        case .none: other += 1
        case .rejected(let reason): self[reason] += 1
        }
    }

    public static func == (a: AdvertCounters, b: AdvertCounters) -> Bool {
        a.seen == b.seen && a.beacons == b.beacons && a.other == b.other
            && AdvertRejection.allCases.allSatisfy { a[$0] == b[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(seen)
        hasher.combine(beacons)
        hasher.combine(other)
        for reason in AdvertRejection.allCases { hasher.combine(self[reason]) }
    }
}
