import Beacons
import Testing

/// Adverts shaped as the specifications show them (flags, then the beacon's structure).
enum Adverts {
    static let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let uuidBytes: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]

    /// Apple's iBeacon: flags, then manufacturer data 4C 00 02 15, UUID, major 1, minor 2, power −59 dBm.
    static let iBeacon: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuidBytes + [0x00, 0x01, 0x00, 0x02, 0xC5]

    /// AltBeacon (Radius Networks, company 0x0118): BE AC, a 20-byte ID, reference RSSI −59, reserved 0.
    static let altBeacon: [UInt8] = [0x02, 0x01, 0x06, 0x1B, 0xFF, 0x18, 0x01, 0xBE, 0xAC] + uuidBytes + [0x00, 0x07, 0x00, 0x09, 0xC5, 0x00]

    static let eddystoneHeader: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE]

    /// Eddystone-UID: TX power −25 dBm at 0 m, namespace 10 bytes, instance 6 bytes, 2 reserved.
    static let eddystoneUID: [UInt8] = eddystoneHeader + [0x17, 0x16, 0xAA, 0xFE, 0x00, 0xE7,
        0x8B, 0x0C, 0xA7, 0x50, 0xE7, 0xA7, 0x4E, 0x14, 0xBD, 0x99, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x00, 0x00]

    /// Eddystone-URL `https://www.example.com/beacons`: scheme 0x01, "example", 0x00 (".com/"), "beacons".
    static let eddystoneURL: [UInt8] = eddystoneHeader + [0x15, 0x16, 0xAA, 0xFE, 0x10, 0xEB, 0x01]
        + Array("example".utf8) + [0x00] + Array("beacons".utf8)

    /// Eddystone-TLM version 0: 3000 mV, 23.5 °C, 256 PDUs, 1000.0 s.
    static let eddystoneTLM: [UInt8] = eddystoneHeader + [0x11, 0x16, 0xAA, 0xFE, 0x20, 0x00, 0x0B, 0xB8, 0x17, 0x80,
        0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x27, 0x10]

    /// Eddystone-EID: TX power −16 dBm, an 8-byte identifier.
    static let eddystoneEID: [UInt8] = eddystoneHeader + [0x0D, 0x16, 0xAA, 0xFE, 0x30, 0xF0,
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]

    static func parse(_ bytes: [UInt8]) -> AdvertParse { bytes.withUnsafeBytes { BeaconParser.parse($0) } }
}

@Suite struct AdvertParsingTests {
    @Test func iBeacon() {
        guard case .beacon(.iBeacon(let f)) = Adverts.parse(Adverts.iBeacon) else { Issue.record("not an iBeacon"); return }
        #expect(f.uuid == Adverts.uuid)
        #expect(f.uuid.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(f.major == 1 && f.minor == 2 && f.measuredPower == -59)
    }

    @Test func altBeacon() {
        guard case .beacon(.altBeacon(let f)) = Adverts.parse(Adverts.altBeacon) else { Issue.record("not an AltBeacon"); return }
        #expect(f.manufacturer == 0x0118 && f.uuid == Adverts.uuid && f.major == 7 && f.minor == 9)
        #expect(f.referenceRSSI == -59 && f.reserved == 0)
        #expect(BeaconFrame.altBeacon(f).rangingIdentity?.measuredPower == -59)
    }

    @Test func eddystoneUIDWithAndWithoutReservedBytes() {
        guard case .beacon(.eddystoneUID(let f)) = Adverts.parse(Adverts.eddystoneUID) else { Issue.record("not a UID"); return }
        #expect(f.txPower == -25 && f.namespaceHigh == 0x8B0C_A750_E7A7_4E14 && f.namespaceLow == 0xBD99 && f.instance == 0x0102_0304_0506)
        var short = Adverts.eddystoneUID
        short.removeLast(2)
        short[7] = 0x15
        #expect(Adverts.parse(short) == .beacon(.eddystoneUID(f)))
    }

    @Test func eddystoneURLExpands() {
        guard case .beacon(.eddystoneURL(let f)) = Adverts.parse(Adverts.eddystoneURL) else { Issue.record("not a URL"); return }
        #expect(f.txPower == -21)
        #expect(f.url == "https://www.example.com/beacons")
        for (scheme, prefix) in EddystoneURL.schemes.enumerated() {
            let bytes: [UInt8] = [0x07]  // ".com"
            let url = bytes.withUnsafeBytes { EddystoneURL(txPower: 0, scheme: UInt8(scheme), encoded: $0) }
            #expect(url?.url == prefix + ".com")
        }
    }

    @Test func eddystoneTLMAndEID() {
        guard case .beacon(.eddystoneTLM(let t)) = Adverts.parse(Adverts.eddystoneTLM) else { Issue.record("not TLM"); return }
        #expect(t.batteryMillivolts == 3000 && t.temperature == 23.5 && t.advertisingCount == 256 && t.uptimeTenths == 10000)
        guard case .beacon(.eddystoneEID(let e)) = Adverts.parse(Adverts.eddystoneEID) else { Issue.record("not EID"); return }
        #expect(e.txPower == -16 && e.identifier == 0x1122_3344_5566_7788)
        var encrypted = Adverts.eddystoneTLM
        encrypted[7] = 0x15
        encrypted[12] = 0x01
        encrypted += [0, 0, 0, 0]
        #expect(Adverts.parse(encrypted) == .beacon(.eddystoneEncryptedTLM))
    }

    @Test func otherDevicesAreNotBeacons() {
        // Flags and a complete local name; Apple continuity data (type 0x10); service data of another UUID.
        #expect(Adverts.parse([0x02, 0x01, 0x06, 0x05, 0x09, 0x54, 0x65, 0x73, 0x74]) == .none)
        #expect(Adverts.parse([0x07, 0xFF, 0x4C, 0x00, 0x10, 0x02, 0x0B, 0x00]) == .none)
        #expect(Adverts.parse([0x05, 0x16, 0x0F, 0x18, 0x50, 0x00]) == .none)
        #expect(Adverts.parse([]) == .none)
        // A zero length ends the data: what follows is padding.
        #expect(Adverts.parse([0x02, 0x01, 0x06, 0x00, 0xFF, 0xFF]) == .none)
    }

    @Test func malformedAdvertsAreRejectedWithTheirReason() {
        var counters = AdvertCounters()
        let cases: [([UInt8], AdvertRejection)] = [
            (Array(Adverts.iBeacon.dropLast()), .truncatedStructure),
            ([0x05, 0xFF, 0x4C, 0x00, 0x02, 0x15], .iBeaconLength),
            ([0x06, 0xFF, 0x18, 0x01, 0xBE, 0xAC, 0x00], .altBeaconLength),
            ([0x03, 0x16, 0xAA, 0xFE], .eddystoneLength),
            ([0x05, 0x16, 0xAA, 0xFE, 0x40, 0x00], .eddystoneFrameType),
            ([0x06, 0x16, 0xAA, 0xFE, 0x10, 0x00, 0x04, 0x41], .eddystoneURLEncoding),
            ([0x07, 0x16, 0xAA, 0xFE, 0x10, 0x00, 0x00, 0x20], .eddystoneURLEncoding),
            ([0x05, 0x16, 0xAA, 0xFE, 0x20, 0x02], .eddystoneTLMVersion),
            ([0x05, 0x16, 0xAA, 0xFE, 0x30, 0x00], .eddystoneLength),
        ]
        for (bytes, reason) in cases {
            let result = Adverts.parse(bytes)
            #expect(result == .rejected(reason), "\(bytes): \(result)")
            counters.record(result)
        }
        counters.record(Adverts.parse(Adverts.iBeacon))
        counters.record(Adverts.parse([0x02, 0x01, 0x06]))
        #expect(counters.seen == cases.count + 2 && counters.beacons == 1 && counters.other == 1)
        #expect(counters.rejected == cases.count)
        #expect(counters[.eddystoneURLEncoding] == 2 && counters[.truncatedStructure] == 1)
    }

    /// Every prefix and every single-byte change of every real advert parses without trapping,
    /// and each outcome is counted once.
    @Test func mutationsNeverTrap() {
        var counters = AdvertCounters()
        var seed: UInt64 = 0x1234_5678
        let all = [Adverts.iBeacon, Adverts.altBeacon, Adverts.eddystoneUID, Adverts.eddystoneURL, Adverts.eddystoneTLM, Adverts.eddystoneEID]
        var runs = 0
        for advert in all {
            for length in 0...advert.count {
                counters.record(Adverts.parse(Array(advert.prefix(length))))
                runs += 1
            }
            for index in advert.indices {
                for _ in 0..<8 {
                    seed = seed &* 6364136223846793005 &+ 1442695040888963407
                    var copy = advert
                    copy[index] = UInt8(truncatingIfNeeded: seed >> 33)
                    counters.record(Adverts.parse(copy))
                    runs += 1
                }
            }
        }
        #expect(counters.seen == runs)
        #expect(counters.beacons + counters.other + counters.rejected == runs)
        #expect(counters.rejected > 0 && counters.beacons > 0)
    }

    @Test func uuidText() {
        #expect(BeaconUUID("e2c56db5dffb48d2b060d0f5a71096e0") == Adverts.uuid)
        #expect(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E") == nil)
        #expect(BeaconUUID("E2C56DB5-DFFB-48D2-B060+D0F5A71096E0") == nil)
        #expect(BeaconUUID("G2C56DB5-DFFB-48D2-B060-D0F5A71096E0") == nil)
    }
}
