/// Advertising data for beacons, as a beacon sends it (for simulators, tests and seeds).
public enum BeaconAdvert {
    /// The flags structure every advert starts with (LE General Discoverable, BR/EDR not supported).
    public static let flags: [UInt8] = [0x02, 0x01, 0x06]

    /// An iBeacon advert: flags, then Apple's manufacturer data.
    public static func iBeacon(uuid: BeaconUUID, major: UInt16, minor: UInt16, measuredPower: Int8) -> [UInt8] {
        flags + [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + bytes(uuid)
            + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), UInt8(bitPattern: measuredPower)]
    }

    /// An AltBeacon advert: flags, then `manufacturer`'s data with beacon code 0xBEAC.
    public static func altBeacon(manufacturer: UInt16, uuid: BeaconUUID, major: UInt16, minor: UInt16,
                                 referenceRSSI: Int8, reserved: UInt8 = 0) -> [UInt8] {
        flags + [0x1B, 0xFF, UInt8(manufacturer & 0xFF), UInt8(manufacturer >> 8), 0xBE, 0xAC] + bytes(uuid)
            + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), UInt8(bitPattern: referenceRSSI), reserved]
    }

    /// The 16 bytes of a UUID, most significant first.
    public static func bytes(_ uuid: BeaconUUID) -> [UInt8] {
        (0..<16).map { index in
            let word = index < 8 ? uuid.high : uuid.low
            return UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * (index % 8)))
        }
    }
}
