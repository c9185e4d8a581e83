import HardwareInterfaces

/// The Host Controller Interface's numbers that the LE scanner uses, from the Bluetooth Core
/// Specification (version 5.4), Volume 4, Part E (the HCI functional specification) and Part A
/// (the UART transport's packet indicators).
public enum HCI {
    /// The packet indicator that starts every packet on a UART (H4) transport, on `/dev/vhci` and
    /// on the kernel's raw HCI sockets (Core Vol 4, Part A, 2).
    public enum PacketType: UInt8, Sendable, CaseIterable {
        /// A command, host to controller.
        case command = 0x01
        /// ACL data.
        case acl = 0x02
        /// Synchronous (SCO) data.
        case sco = 0x03
        /// An event, controller to host.
        case event = 0x04
        /// Isochronous data.
        case iso = 0x05
        /// Linux's vendor packet (`HCI_VENDOR_PKT`): `/dev/vhci` uses it to create its controller.
        case vendor = 0xFF
    }

    /// Command opcodes: the Opcode Group Field in the top 6 bits, the Opcode Command Field in the
    /// low 10 (Core Vol 4, Part E, 5.4.1 and 7).
    public enum Opcode {
        /// HCI_Reset (OGF 0x03, OCF 0x0003).
        public static let reset: UInt16 = 0x0C03
        /// HCI_Set_Event_Mask (OGF 0x03, OCF 0x0001).
        public static let setEventMask: UInt16 = 0x0C01
        /// HCI_Read_Local_Version_Information (OGF 0x04, OCF 0x0001).
        public static let readLocalVersion: UInt16 = 0x1001
        /// HCI_Read_Local_Supported_Commands (OGF 0x04, OCF 0x0002).
        public static let readLocalCommands: UInt16 = 0x1002
        /// HCI_Read_Local_Supported_Features (OGF 0x04, OCF 0x0003).
        public static let readLocalFeatures: UInt16 = 0x1003
        /// HCI_Read_Buffer_Size (OGF 0x04, OCF 0x0005).
        public static let readBufferSize: UInt16 = 0x1005
        /// HCI_Read_BD_ADDR (OGF 0x04, OCF 0x0009).
        public static let readBDAddress: UInt16 = 0x1009
        /// HCI_LE_Set_Event_Mask (OGF 0x08, OCF 0x0001).
        public static let leSetEventMask: UInt16 = 0x2001
        /// HCI_LE_Read_Buffer_Size (OGF 0x08, OCF 0x0002).
        public static let leReadBufferSize: UInt16 = 0x2002
        /// HCI_LE_Read_Local_Supported_Features (OGF 0x08, OCF 0x0003).
        public static let leReadLocalFeatures: UInt16 = 0x2003
        /// HCI_LE_Set_Scan_Parameters (OGF 0x08, OCF 0x000B).
        public static let leSetScanParameters: UInt16 = 0x200B
        /// HCI_LE_Set_Scan_Enable (OGF 0x08, OCF 0x000C).
        public static let leSetScanEnable: UInt16 = 0x200C
        /// HCI_LE_Read_Supported_States (OGF 0x08, OCF 0x001C).
        public static let leReadSupportedStates: UInt16 = 0x201C

        /// The opcode of group `ogf` and command `ocf`.
        public static func make(ogf: UInt16, ocf: UInt16) -> UInt16 { (ogf & 0x3F) << 10 | (ocf & 0x3FF) }
    }

    /// Event codes (Core Vol 4, Part E, 7.7).
    public enum EventCode {
        /// HCI_Command_Complete.
        public static let commandComplete: UInt8 = 0x0E
        /// HCI_Command_Status.
        public static let commandStatus: UInt8 = 0x0F
        /// HCI_LE_Meta: the first parameter is the LE subevent code.
        public static let leMeta: UInt8 = 0x3E
    }

    /// LE Meta subevent codes (Core Vol 4, Part E, 7.7.65).
    public enum LESubevent {
        /// HCI_LE_Advertising_Report (legacy advertising).
        public static let advertisingReport: UInt8 = 0x02
        /// HCI_LE_Extended_Advertising_Report.
        public static let extendedAdvertisingReport: UInt8 = 0x0D
    }

    /// Legacy advertising report event types (Core Vol 4, Part E, 7.7.65.2).
    public enum AdvertisingEventType {
        /// ADV_IND: connectable and scannable undirected.
        public static let connectableUndirected: UInt8 = 0x00
        /// ADV_DIRECT_IND.
        public static let connectableDirected: UInt8 = 0x01
        /// ADV_SCAN_IND: scannable undirected.
        public static let scannableUndirected: UInt8 = 0x02
        /// ADV_NONCONN_IND: what beacons send.
        public static let nonConnectableUndirected: UInt8 = 0x03
        /// SCAN_RSP.
        public static let scanResponse: UInt8 = 0x04
    }

    /// The RSSI (and TX power) value that means "not available" (Core Vol 4, Part E, 7.7.65.2).
    public static let notAvailable: Int8 = 127
    /// The longest legacy advertising data: 31 bytes (Core Vol 6, Part B, 2.3.1).
    public static let maximumLegacyDataLength = 31
    /// The longest event parameter block: the length field is one byte.
    public static let maximumEventParameters = 255

    /// The controller's words for an error code (Core Vol 1, Part F, 1.3), for messages.
    public static func statusName(_ status: UInt8) -> String {
        switch status {
        case 0x00: return "Success"
        case 0x01: return "Unknown HCI Command"
        case 0x02: return "Unknown Connection Identifier"
        case 0x03: return "Hardware Failure"
        case 0x0C: return "Command Disallowed"
        case 0x0D: return "Connection Rejected due to Limited Resources"
        case 0x11: return "Unsupported Feature or Parameter Value"
        case 0x12: return "Invalid HCI Command Parameters"
        case 0x1F: return "Unspecified Error"
        case 0x3A: return "Controller Busy"
        default: return "error 0x" + hexByte(status)
        }
    }

    static func hexByte(_ value: UInt8) -> String {
        let digits: [Character] = Array("0123456789abcdef")
        return String([digits[Int(value >> 4)], digits[Int(value & 0xF)]])
    }
}

/// One HCI command packet as the host sends it: the packet indicator (0x01), the opcode (little
/// endian), the parameter length and the parameters (Core Vol 4, Part E, 5.4.1).
public struct HCICommandPacket: Sendable, Equatable {
    /// The opcode.
    public var opcode: UInt16
    /// The parameters (at most 255 bytes).
    public var parameters: [UInt8]

    /// Creates a command; `nil` when the parameters are longer than 255 bytes.
    public init?(opcode: UInt16, parameters: [UInt8]) {
        guard parameters.count <= 255 else { return nil }
        self.opcode = opcode
        self.parameters = parameters
    }

    /// Reads a command packet (with its 0x01 indicator) as `/dev/vhci` hands it to a controller;
    /// `nil` unless it is exactly one well-formed command.
    public init?(packet: UnsafeRawBufferPointer) {
        guard packet.count >= 4, packet[0] == HCI.PacketType.command.rawValue,
              Int(packet[3]) == packet.count - 4 else { return nil }
        opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
        parameters = Array(packet[4...])
    }

    /// The packet's bytes, indicator first, as written to a raw HCI socket or a UART.
    public var bytes: [UInt8] {
        [HCI.PacketType.command.rawValue, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
    }

    /// HCI_LE_Set_Scan_Parameters (0x200B): scan type (0 passive, 1 active), interval and window
    /// in 0.625 ms units (little endian, see ``scanUnits(_:)``), own address type (0 public,
    /// 1 random) and the scanning filter policy (0: accept every advertisement).
    public static func leSetScanParameters(_ scan: BluetoothScanParameters, ownAddressRandom: Bool = false) -> HCICommandPacket {
        let interval = scanUnits(scan.interval)
        let window = min(scanUnits(scan.window), interval)
        let parameters: [UInt8] = [
            scan.active ? 0x01 : 0x00,
            UInt8(interval & 0xFF), UInt8(interval >> 8),
            UInt8(window & 0xFF), UInt8(window >> 8),
            ownAddressRandom ? 0x01 : 0x00,
            0x00,
        ]
        return HCICommandPacket(uncheckedOpcode: HCI.Opcode.leSetScanParameters, parameters: parameters)
    }

    /// HCI_LE_Set_Scan_Enable (0x200C): enable and the duplicate filter. The scanner always turns
    /// the duplicate filter off: ranging needs every advertisement, not the first of each device.
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommandPacket {
        HCICommandPacket(uncheckedOpcode: HCI.Opcode.leSetScanEnable, parameters: [enable ? 0x01 : 0x00, filterDuplicates ? 0x01 : 0x00])
    }

    /// A duration in the scan commands' 0.625 ms units, rounded to the nearest unit and clamped to
    /// the range the command takes, 0x0004 (2.5 ms) to 0x4000 (10.24 s).
    public static func scanUnits(_ duration: Duration) -> UInt16 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0x0004 }
        if seconds > 11 { return 0x4000 }
        // 0.625 ms = 625_000 ns; work in microseconds to stay inside 64 bits.
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let units = (microseconds * 10 + 3_125) / 6_250
        return UInt16(min(0x4000, max(0x0004, units)))
    }

    init(uncheckedOpcode opcode: UInt16, parameters: [UInt8]) {
        self.opcode = opcode
        self.parameters = parameters
    }
}
