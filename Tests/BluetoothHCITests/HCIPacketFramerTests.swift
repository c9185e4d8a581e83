import BluetoothHCI
import HardwareInterfaces
import Testing

@Suite("H4 packet framer: whole, byte by byte, in bursts")
struct HCIPacketFramerTests {
    /// Command Complete, an ACL packet to skip, a stray byte, the iBeacon report, a vendor byte,
    /// a command, an empty-parameter event, an extended report.
    static let stream: [UInt8] = {
        var bytes = HCIEventEncoder.commandComplete(opcode: 0x200B)
        bytes += [0x02, 0x40, 0x20, 0x05, 0x00, 1, 2, 3, 4, 5]     // ACL, 5 bytes
        bytes += [0x77]                                            // stray
        bytes += [0x04] + iBeaconEvent
        bytes += [0xFF]                                            // vendor indicator: skipped
        bytes += HCICommandPacket.leSetScanEnable(true).bytes
        bytes += [0x03, 0x01, 0x00, 0x02, 0xAB, 0xCD]              // SCO, 2 bytes
        bytes += [0x05, 0x01, 0x00, 0x01, 0x40, 0x99]              // ISO, 1 byte (flags in the top bits of the length)
        bytes += [0x04, 0x10, 0x00]                                // event 0x10, no parameters
        bytes += HCIEventEncoder.leExtendedAdvertisingReport(address: BluetoothAddress(rawValue: 5), data: [1, 2, 3], rssi: -40, txPower: nil)!
        return bytes
    }()

    static let expected: [[UInt8]] = [
        Array(HCIEventEncoder.commandComplete(opcode: 0x200B).dropFirst()),
        iBeaconEvent,
        Array(HCICommandPacket.leSetScanEnable(true).bytes.dropFirst()),
        [0x10, 0x00],
        Array(HCIEventEncoder.leExtendedAdvertisingReport(address: BluetoothAddress(rawValue: 5), data: [1, 2, 3], rssi: -40, txPower: nil)!.dropFirst()),
    ]

    static func run(chunks: [Int]) -> ([[UInt8]], [HCI.PacketType], HCIPacketFramer) {
        var framer = HCIPacketFramer()
        var packets: [[UInt8]] = []
        var types: [HCI.PacketType] = []
        var start = 0
        var chunk = 0
        while start < stream.count {
            let size = max(1, chunks[chunk % chunks.count])
            let end = min(stream.count, start + size)
            stream[start..<end].withUnsafeBytes { raw in
                framer.push(raw) { type, bytes in
                    types.append(type)
                    packets.append(Array(bytes))
                }
            }
            start = end
            chunk += 1
        }
        return (packets, types, framer)
    }

    @Test("whole")
    func whole() {
        let (packets, types, framer) = Self.run(chunks: [Self.stream.count])
        #expect(packets == Self.expected)
        #expect(types == [.event, .event, .command, .event, .event])
        #expect(framer.strayBytes == 2 && framer.skippedDataPackets == 3)
    }

    @Test("byte by byte")
    func byteByByte() {
        #expect(Self.run(chunks: [1]).0 == Self.expected)
    }

    @Test("in bursts of seeded random sizes")
    func bursts() {
        var state: UInt64 = 0x5EED_19B
        for _ in 0..<50 {
            var chunks: [Int] = []
            for _ in 0..<16 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                chunks.append(Int(state >> 59) + 1)  // 1...32
            }
            #expect(Self.run(chunks: chunks).0 == Self.expected)
        }
    }

    @Test("events from the framer parse to the same reports as whole events")
    func framedReports() {
        var parser = HCIEventParser()
        var reports = 0
        let (packets, types, _) = Self.run(chunks: [3])
        for (packet, type) in zip(packets, types) where type == .event {
            if case .advertisingReports(let count) = parseAll(packet, parser: &parser).0 { reports += count }
        }
        #expect(reports == 2 && parser.statistics.malformed == 0)
    }
}
