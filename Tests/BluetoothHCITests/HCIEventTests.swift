import BluetoothHCI
import HardwareInterfaces
import Testing

/// Reports copied out of the parser's borrowed ones.
struct Seen: Equatable {
    var address: String
    var random: Bool
    var rssi: Int?
    var txPower: Int?
    var scanResponse: Bool
    var data: [UInt8]
}

func parseAll(_ packet: [UInt8], parser: inout HCIEventParser) -> (HCIEventKind, [Seen]) {
    var seen: [Seen] = []
    let kind = packet.withUnsafeBytes { raw in
        parser.parse(event: raw, timestamp: MonotonicInstant(nanoseconds: 7)) { report in
            seen.append(Seen(address: report.address.description, random: report.address.isRandom, rssi: report.rssi,
                             txPower: report.txPower, scanResponse: report.isScanResponse, data: Array(report.data)))
            #expect(report.timestamp == MonotonicInstant(nanoseconds: 7))
        }
    }
    return (kind, seen)
}

/// An iBeacon as a controller reports it (written out by hand from Core Vol 4, Part E, 7.7.65.2
/// and Apple's iBeacon layout): event 0x3E, 42 parameter bytes, subevent 0x02, one report,
/// ADV_NONCONN_IND, public address AA:BB:CC:DD:EE:FF, 30 data bytes, RSSI -59 (0xC5).
let iBeaconData: [UInt8] = [
    0x02, 0x01, 0x06,                                    // Flags
    0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,                  // Apple manufacturer data, iBeacon
    0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
    0x00, 0x01, 0x00, 0x02,                              // major 1, minor 2
    0xC5,                                                // measured power -59 dBm
]
let iBeaconEvent: [UInt8] = [0x3E, 0x2A, 0x02, 0x01, 0x03, 0x00, 0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x1E] + iBeaconData + [0xC5]

@Suite("HCI events: LE advertising reports parsed without allocation, malformed ones counted")
struct HCIEventTests {
    @Test("an iBeacon report: address, RSSI and the 30 data bytes, borrowed from the packet")
    func iBeacon() {
        var parser = HCIEventParser()
        let (kind, seen) = parseAll(iBeaconEvent, parser: &parser)
        #expect(kind == .advertisingReports(1))
        #expect(seen == [Seen(address: "AA:BB:CC:DD:EE:FF", random: false, rssi: -59, txPower: nil, scanResponse: false, data: iBeaconData)])
        #expect(parser.statistics.reports == 1 && parser.statistics.events == 1 && parser.statistics.malformed == 0)
    }

    @Test("the encoder writes the same bytes as the hand-written event")
    func encoderMatches() {
        let advert = HCIAdvertisement(address: BluetoothAddress(rawValue: 0xAABB_CCDD_EEFF), data: iBeaconData, rssi: -59)
        #expect(HCIEventEncoder.leAdvertisingReport([advert]) == [0x04] + iBeaconEvent)
        #expect(HCIEventEncoder.leAdvertisingReport([]) == nil)
        #expect(HCIEventEncoder.leAdvertisingReport([HCIAdvertisement(address: advert.address, data: [UInt8](repeating: 0, count: 32), rssi: 0)]) == nil)
    }

    @Test("two reports in one event, in order: a random-address scan response, and RSSI 127 (not available)")
    func twoReports() {
        let first = HCIAdvertisement(eventType: HCI.AdvertisingEventType.scanResponse,
                                     address: BluetoothAddress(rawValue: 0xC0FF_EE00_0001, isRandom: true), data: [0x02, 0x0A, 0xF4], rssi: -90)
        let second = HCIAdvertisement(address: BluetoothAddress(rawValue: 0x0011_2233_4455), data: [], rssi: nil)
        let bytes = Array(HCIEventEncoder.leAdvertisingReport([first, second])!.dropFirst())
        var parser = HCIEventParser()
        let (kind, seen) = parseAll(bytes, parser: &parser)
        #expect(kind == .advertisingReports(2))
        #expect(seen == [
            Seen(address: "C0:FF:EE:00:00:01", random: true, rssi: -90, txPower: nil, scanResponse: true, data: [0x02, 0x0A, 0xF4]),
            Seen(address: "00:11:22:33:44:55", random: false, rssi: nil, txPower: nil, scanResponse: false, data: []),
        ])
    }

    @Test("an extended report: TX power, RSSI, the scan-response bit; a fragment is counted, not handed over")
    func extended() {
        let address = BluetoothAddress(rawValue: 0x1234_5678_9ABC, isRandom: true)
        let bytes = Array(HCIEventEncoder.leExtendedAdvertisingReport(address: address, data: iBeaconData, rssi: -70, txPower: 4, scanResponse: true)!.dropFirst())
        #expect(bytes[0] == 0x3E && bytes[2] == 0x0D && Int(bytes[1]) == bytes.count - 2)
        var parser = HCIEventParser()
        var (kind, seen) = parseAll(bytes, parser: &parser)
        #expect(kind == .advertisingReports(1))
        #expect(seen == [Seen(address: "12:34:56:78:9A:BC", random: true, rssi: -70, txPower: 4, scanResponse: true, data: iBeaconData)])
        var fragment = bytes
        fragment[4] |= 0x20  // data status 01: incomplete, more to come
        (kind, seen) = parseAll(fragment, parser: &parser)
        #expect(kind == .advertisingReports(0) && seen.isEmpty)
        #expect(parser.statistics.fragments == 1 && parser.statistics.reports == 1)
    }

    @Test("Command Complete and Command Status name the opcode and the status")
    func commandEvents() {
        var parser = HCIEventParser()
        let complete = Array(HCIEventEncoder.commandComplete(opcode: 0x200B, status: 0x0C).dropFirst())
        #expect(complete == [0x0E, 0x04, 0x01, 0x0B, 0x20, 0x0C])
        #expect(parseAll(complete, parser: &parser).0 == .commandComplete(opcode: 0x200B, status: 0x0C))
        #expect(parseAll([0x0E, 0x03, 0x01, 0x00, 0x00], parser: &parser).0 == .commandComplete(opcode: 0, status: nil))
        let status = Array(HCIEventEncoder.commandStatus(opcode: 0x200C, status: 0x00).dropFirst())
        #expect(status == [0x0F, 0x04, 0x00, 0x01, 0x0C, 0x20])
        #expect(parseAll(status, parser: &parser).0 == .commandStatus(opcode: 0x200C, status: 0))
        #expect(parseAll([0x05, 0x04, 0x00, 0x40, 0x00, 0x13], parser: &parser).0 == .other(code: 0x05))
        #expect(parseAll([0x3E, 0x01, 0x01], parser: &parser).0 == .other(code: 0x3E))
    }

    @Test("malformed events name the problem and its byte, hand over nothing, and are counted", arguments: [
        ([UInt8]([0x3E]), HCIMalformation(.truncatedHeader, offset: 1)),
        ([0x3E, 0x05, 0x02, 0x01], HCIMalformation(.lengthMismatch, offset: 1)),
        ([0x3E, 0x00], HCIMalformation(.missingSubevent, offset: 2)),
        ([0x3E, 0x02, 0x02, 0x00], HCIMalformation(.noReports, offset: 3)),
        ([0x3E, 0x01, 0x02], HCIMalformation(.noReports, offset: 3)),
        ([0x0E, 0x02, 0x01, 0x0B], HCIMalformation(.truncatedCommandEvent, offset: 4)),
        ([0x0F, 0x03, 0x00, 0x01, 0x0B], HCIMalformation(.truncatedCommandEvent, offset: 5)),
        // one report announced, data length 5 but only 2 data bytes and the RSSI follow
        ([0x3E, 0x0E, 0x02, 0x01, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 0x05, 0xAA, 0xBB, 0xC5], HCIMalformation(.truncatedReport, offset: 4)),
        // two reports announced, one present
        ([0x3E, 0x0D, 0x02, 0x02, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 0x01, 0xAA, 0xC5], HCIMalformation(.truncatedReport, offset: 15)),
        // data length 32
        ([0x3E, 0x2C, 0x02, 0x01, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 0x20] + [UInt8](repeating: 0, count: 32) + [0xC5], HCIMalformation(.dataTooLong, offset: 12)),
        // a byte after the last report
        ([0x3E, 0x0E, 0x02, 0x01, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 0x01, 0xAA, 0xC5, 0x00], HCIMalformation(.trailingBytes, offset: 15)),
        ([0x3E, 0x03, 0x0D, 0x01, 0x00], HCIMalformation(.truncatedReport, offset: 4)),
    ])
    func malformed(bytes: [UInt8], expected: HCIMalformation) {
        var parser = HCIEventParser()
        let (kind, seen) = parseAll(bytes, parser: &parser)
        #expect(kind == .malformed(expected))
        #expect(seen.isEmpty)
        #expect(parser.statistics.malformed == 1 && parser.statistics.lastMalformation == expected)
        #expect(expected.description.hasSuffix("at byte \(expected.offset)"))
    }

    @Test("every cut of a valid event, fixed up or not, is refused or parsed without a crash")
    func everyCut() {
        var parser = HCIEventParser()
        let extended = Array(HCIEventEncoder.leExtendedAdvertisingReport(
            address: BluetoothAddress(rawValue: 1), data: iBeaconData, rssi: -1, txPower: nil)!.dropFirst())
        for event in [iBeaconEvent, extended] {
            for cut in 0..<event.count {
                var prefix = Array(event[..<cut])
                #expect(parseAll(prefix, parser: &parser).1.isEmpty)
                if prefix.count >= 2 {
                    prefix[1] = UInt8(prefix.count - 2)  // a consistent length byte: the report itself is cut
                    if case .advertisingReports = parseAll(prefix, parser: &parser).0 { Issue.record("a cut at \(cut) parsed as reports") }
                }
            }
        }
        #expect(parser.statistics.reports == 0)
    }
}
