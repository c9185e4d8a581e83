import BluetoothHCI
import HardwareInterfaces
import Testing

@Suite("HCI commands, byte for byte against the Core specification")
struct HCICommandTests {
    @Test("opcodes: OGF 0x08 (LE controller) with OCF 0x000B and 0x000C are 0x200B and 0x200C")
    func opcodes() {
        #expect(HCI.Opcode.make(ogf: 0x08, ocf: 0x000B) == 0x200B)
        #expect(HCI.Opcode.make(ogf: 0x08, ocf: 0x000C) == 0x200C)
        #expect(HCI.Opcode.leSetScanParameters == 0x200B)
        #expect(HCI.Opcode.leSetScanEnable == 0x200C)
        #expect(HCI.Opcode.make(ogf: 0x03, ocf: 0x0003) == HCI.Opcode.reset)
        #expect(HCI.EventCode.leMeta == 0x3E)
    }

    @Test("durations become 0.625 ms units, rounded, clamped to 0x0004...0x4000", arguments: [
        (Duration.milliseconds(10), UInt16(0x0010)),      // the spec's default interval and window
        (.microseconds(2_500), 0x0004), (.milliseconds(1), 0x0004), (.zero, 0x0004),
        (.milliseconds(100), 0x00A0), (.milliseconds(50), 0x0050), (.microseconds(625), 0x0004),
        (.milliseconds(30), 0x0030), (.microseconds(10_312), 0x0010), (.microseconds(10_313), 0x0011),
        (.milliseconds(10_240), 0x4000), (.seconds(20), 0x4000), (.milliseconds(-5), 0x0004),
    ])
    func units(duration: Duration, expected: UInt16) {
        #expect(HCICommandPacket.scanUnits(duration) == expected)
    }

    @Test("LE Set Scan Parameters: passive, 100 ms interval, 50 ms window, public address, accept all")
    func scanParametersPassive() {
        let packet = HCICommandPacket.leSetScanParameters(BluetoothScanParameters(interval: .milliseconds(100), window: .milliseconds(50)))
        #expect(packet.bytes == [0x01, 0x0B, 0x20, 0x07, 0x00, 0xA0, 0x00, 0x50, 0x00, 0x00, 0x00])
    }

    @Test("LE Set Scan Parameters: active, 10.24 s interval and window, random own address")
    func scanParametersActive() {
        let scan = BluetoothScanParameters(interval: .milliseconds(10_240), window: .seconds(30), active: true)
        let packet = HCICommandPacket.leSetScanParameters(scan, ownAddressRandom: true)
        #expect(packet.bytes == [0x01, 0x0B, 0x20, 0x07, 0x01, 0x00, 0x40, 0x00, 0x40, 0x01, 0x00])
    }

    @Test("LE Set Scan Enable: on with the duplicate filter off, and off")
    func scanEnable() {
        #expect(HCICommandPacket.leSetScanEnable(true).bytes == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        #expect(HCICommandPacket.leSetScanEnable(true, filterDuplicates: true).bytes == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x01])
        #expect(HCICommandPacket.leSetScanEnable(false).bytes == [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00])
    }

    @Test("a command packet reads back from its bytes; a wrong length or indicator is refused")
    func commandRoundTrip() {
        let packet = HCICommandPacket.leSetScanParameters(BluetoothScanParameters())
        let bytes = packet.bytes
        #expect(bytes.withUnsafeBytes { HCICommandPacket(packet: $0) } == packet)
        #expect(Array(bytes.dropLast()).withUnsafeBytes { HCICommandPacket(packet: $0) } == nil)
        #expect(([0x04] + bytes.dropFirst()).withUnsafeBytes { HCICommandPacket(packet: $0) } == nil)
        #expect([UInt8]([0x01, 0x03, 0x0C]).withUnsafeBytes { HCICommandPacket(packet: $0) } == nil)
        #expect([UInt8]([0x01, 0x03, 0x0C, 0x00]).withUnsafeBytes { HCICommandPacket(packet: $0) }?.opcode == HCI.Opcode.reset)
        #expect(HCICommandPacket(opcode: 0x200B, parameters: [UInt8](repeating: 0, count: 256)) == nil)
    }

    @Test("status names for messages")
    func statusNames() {
        #expect(HCI.statusName(0x0C) == "Command Disallowed")
        #expect(HCI.statusName(0x00) == "Success")
        #expect(HCI.statusName(0x7E) == "error 0x7e")
    }
}
