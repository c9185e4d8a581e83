/// An iBeacon advertisement: Apple's manufacturer data (company 0x004C), type 0x02, length 0x15.
public struct IBeaconFrame: Hashable, Sendable {
    /// The proximity UUID.
    public var uuid: BeaconUUID
    /// The major value.
    public var major: UInt16
    /// The minor value.
    public var minor: UInt16
    /// The calibrated RSSI at 1 m, dBm.
    public var measuredPower: Int8
}

/// An AltBeacon advertisement (manufacturer data with beacon code 0xBEAC).
public struct AltBeaconFrame: Hashable, Sendable {
    /// The company identifier of the manufacturer data.
    public var manufacturer: UInt16
    /// The first 16 bytes of the 20-byte beacon ID (by convention a proximity UUID).
    public var uuid: BeaconUUID
    /// Bytes 16-17 of the beacon ID (by convention the major value).
    public var major: UInt16
    /// Bytes 18-19 of the beacon ID (by convention the minor value).
    public var minor: UInt16
    /// The reference RSSI at 1 m, dBm.
    public var referenceRSSI: Int8
    /// The manufacturer's reserved byte.
    public var reserved: UInt8
}

/// An Eddystone-UID frame: a 10-byte namespace and a 6-byte instance.
public struct EddystoneUIDFrame: Hashable, Sendable {
    /// Calibrated transmit power at 0 m, dBm.
    public var txPower: Int8
    /// The namespace's first 8 bytes, the first in the top bits.
    public var namespaceHigh: UInt64
    /// The namespace's last 2 bytes.
    public var namespaceLow: UInt16
    /// The 6-byte instance in the low 48 bits.
    public var instance: UInt64
}

/// An Eddystone-TLM frame (unencrypted, version 0): battery, temperature and counters.
public struct EddystoneTLMFrame: Hashable, Sendable {
    /// Battery voltage in mV; 0 when the beacon does not measure it.
    public var batteryMillivolts: UInt16
    /// Temperature in °C (8.8 fixed point); `nil` when not supported (0x8000).
    public var temperature: Double?
    /// Advertising PDUs sent since power-up or reboot.
    public var advertisingCount: UInt32
    /// Time since power-up or reboot, in 0.1 s.
    public var uptimeTenths: UInt32
}

/// An Eddystone-EID frame: an 8-byte ephemeral identifier.
public struct EddystoneEIDFrame: Hashable, Sendable {
    /// Calibrated transmit power at 0 m, dBm.
    public var txPower: Int8
    /// The ephemeral identifier, the first byte in the top bits.
    public var identifier: UInt64
}

/// A beacon frame found in an advertisement.
public enum BeaconFrame: Hashable, Sendable {
    /// An iBeacon.
    case iBeacon(IBeaconFrame)
    /// An AltBeacon.
    case altBeacon(AltBeaconFrame)
    /// An Eddystone-UID frame.
    case eddystoneUID(EddystoneUIDFrame)
    /// An Eddystone-URL frame.
    case eddystoneURL(EddystoneURL)
    /// An Eddystone-TLM frame (unencrypted).
    case eddystoneTLM(EddystoneTLMFrame)
    /// An encrypted Eddystone-TLM frame (version 1): its contents need the beacon's key.
    case eddystoneEncryptedTLM
    /// An Eddystone-EID frame.
    case eddystoneEID(EddystoneEIDFrame)

    /// The identity ranging uses (uuid, major, minor, the calibrated power at 1 m): iBeacon and
    /// AltBeacon frames have one; Eddystone frames do not.
    public var rangingIdentity: (uuid: BeaconUUID, major: UInt16, minor: UInt16, measuredPower: Int)? {
        switch self {
        case .iBeacon(let f): return (f.uuid, f.major, f.minor, Int(f.measuredPower))
        case .altBeacon(let f): return (f.uuid, f.major, f.minor, Int(f.referenceRSSI))
        default: return nil
        }
    }
}

/// What one advertisement holds.
public enum AdvertParse: Hashable, Sendable {
    /// A beacon frame.
    case beacon(BeaconFrame)
    /// No beacon frame (another kind of device).
    case none
    /// Beacon-looking data that is malformed, and why.
    case rejected(AdvertRejection)
}

/// Finds the beacon frame in an advertisement's data, allocating nothing.
public enum BeaconParser {
    /// Apple's company identifier.
    public static let appleCompany: UInt16 = 0x004C
    /// The Eddystone service UUID.
    public static let eddystoneService: UInt16 = 0xFEAA

    /// The first beacon frame of `data`; `.none` when it has none, `.rejected` when a structure is
    /// malformed (the rest of the data is not used). Never traps, whatever the bytes.
    public static func parse(_ data: UnsafeRawBufferPointer) -> AdvertParse {
        var iterator = AdvertisingStructures(data).makeIterator()
        while let structure = iterator.next() {
            let result: AdvertParse
            switch structure.type {
            case AdvertisingStructures.manufacturerData: result = manufacturer(structure.value)
            case AdvertisingStructures.serviceData16: result = serviceData(structure.value)
            default: continue
            }
            if case .none = result { continue }
            return result
        }
        if let malformed = iterator.malformed { return .rejected(malformed) }
        return .none
    }

    /// Manufacturer data: iBeacon or AltBeacon.
    static func manufacturer(_ v: UnsafeRawBufferPointer) -> AdvertParse {
        guard v.count >= 4 else { return .none }
        let company = BeaconBytes.littleEndian16(v, 0)
        if company == appleCompany && v[2] == 0x02 {
            guard v[3] == 0x15, v.count >= 25, let uuid = BeaconUUID(bytes: v, offset: 4) else { return .rejected(.iBeaconLength) }
            return .beacon(.iBeacon(IBeaconFrame(uuid: uuid, major: BeaconBytes.bigEndian16(v, 20), minor: BeaconBytes.bigEndian16(v, 22),
                                                 measuredPower: Int8(bitPattern: v[24]))))
        }
        if v[2] == 0xBE && v[3] == 0xAC {
            guard v.count == 26, let uuid = BeaconUUID(bytes: v, offset: 4) else { return .rejected(.altBeaconLength) }
            return .beacon(.altBeacon(AltBeaconFrame(manufacturer: company, uuid: uuid, major: BeaconBytes.bigEndian16(v, 20),
                                                     minor: BeaconBytes.bigEndian16(v, 22), referenceRSSI: Int8(bitPattern: v[24]),
                                                     reserved: v[25])))
        }
        return .none
    }

    /// 16-bit service data: Eddystone frames.
    static func serviceData(_ v: UnsafeRawBufferPointer) -> AdvertParse {
        guard v.count >= 2, BeaconBytes.littleEndian16(v, 0) == eddystoneService else { return .none }
        guard v.count >= 3 else { return .rejected(.eddystoneLength) }
        let frame = UnsafeRawBufferPointer(rebasing: v[3...])
        switch v[2] {
        case 0x00:
            // TX power, namespace (10), instance (6), then two reserved bytes many beacons omit.
            guard frame.count == 17 || frame.count == 19 else { return .rejected(.eddystoneLength) }
            return .beacon(.eddystoneUID(EddystoneUIDFrame(
                txPower: Int8(bitPattern: frame[0]), namespaceHigh: BeaconBytes.bigEndian(frame, 1, 8),
                namespaceLow: BeaconBytes.bigEndian16(frame, 9), instance: BeaconBytes.bigEndian(frame, 11, 6))))
        case 0x10:
            guard frame.count >= 2, frame.count <= 2 + EddystoneURL.maximumEncodedLength else { return .rejected(.eddystoneLength) }
            guard let url = EddystoneURL(txPower: Int8(bitPattern: frame[0]), scheme: frame[1],
                                         encoded: UnsafeRawBufferPointer(rebasing: frame[2...])) else {
                return .rejected(.eddystoneURLEncoding)
            }
            return .beacon(.eddystoneURL(url))
        case 0x20:
            guard frame.count >= 1 else { return .rejected(.eddystoneLength) }
            switch frame[0] {
            case 0x00:
                guard frame.count == 13 else { return .rejected(.eddystoneLength) }
                let raw = BeaconBytes.bigEndian16(frame, 3)
                return .beacon(.eddystoneTLM(EddystoneTLMFrame(
                    batteryMillivolts: BeaconBytes.bigEndian16(frame, 1),
                    temperature: raw == 0x8000 ? nil : Double(Int16(bitPattern: raw)) / 256,
                    advertisingCount: UInt32(BeaconBytes.bigEndian(frame, 5, 4)),
                    uptimeTenths: UInt32(BeaconBytes.bigEndian(frame, 9, 4)))))
            case 0x01:
                // Version, 12 bytes of ciphertext, salt (2), integrity check (2).
                guard frame.count == 17 else { return .rejected(.eddystoneLength) }
                return .beacon(.eddystoneEncryptedTLM)
            default:
                return .rejected(.eddystoneTLMVersion)
            }
        case 0x30:
            guard frame.count == 9 else { return .rejected(.eddystoneLength) }
            return .beacon(.eddystoneEID(EddystoneEIDFrame(txPower: Int8(bitPattern: frame[0]),
                                                           identifier: BeaconBytes.bigEndian(frame, 1, 8))))
        default:
            return .rejected(.eddystoneFrameType)
        }
    }
}
