import HardwareInterfaces

/// One advertisement as a controller reports it, for building events (a virtual controller on
/// `/dev/vhci`, tests).
public struct HCIAdvertisement: Sendable, Equatable {
    /// The legacy event type (``HCI/AdvertisingEventType``); beacons send ADV_NONCONN_IND.
    public var eventType: UInt8
    /// The advertiser.
    public var address: BluetoothAddress
    /// The advertising data (at most 31 bytes in a legacy report).
    public var data: [UInt8]
    /// RSSI in dBm; `nil` is sent as 127, "not available".
    public var rssi: Int8?

    /// Creates an advertisement.
    public init(eventType: UInt8 = HCI.AdvertisingEventType.nonConnectableUndirected, address: BluetoothAddress, data: [UInt8], rssi: Int8?) {
        self.eventType = eventType
        self.address = address
        self.data = data
        self.rssi = rssi
    }
}

/// Builds event packets, packet indicator (0x04) first, as a controller sends them.
public enum HCIEventEncoder {
    /// HCI_Command_Complete for `opcode`: one command credit, `status`, then `returnParameters`.
    public static func commandComplete(opcode: UInt16, status: UInt8 = 0, returnParameters: [UInt8] = []) -> [UInt8] {
        event(HCI.EventCode.commandComplete, [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), status] + returnParameters)
    }

    /// HCI_Command_Status for `opcode`.
    public static func commandStatus(opcode: UInt16, status: UInt8) -> [UInt8] {
        event(HCI.EventCode.commandStatus, [status, 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)])
    }

    /// An HCI_LE_Advertising_Report event with `reports` (1 to 25, each with at most 31 bytes of
    /// data); `nil` when they do not fit one event.
    public static func leAdvertisingReport(_ reports: [HCIAdvertisement]) -> [UInt8]? {
        guard (1...25).contains(reports.count), reports.allSatisfy({ $0.data.count <= HCI.maximumLegacyDataLength }) else { return nil }
        var parameters: [UInt8] = [HCI.LESubevent.advertisingReport, UInt8(reports.count)]
        for report in reports {
            parameters.append(report.eventType)
            parameters.append(report.address.isRandom ? 0x01 : 0x00)
            parameters += addressBytes(report.address)
            parameters.append(UInt8(report.data.count))
            parameters += report.data
            parameters.append(UInt8(bitPattern: report.rssi ?? HCI.notAvailable))
        }
        guard parameters.count <= HCI.maximumEventParameters else { return nil }
        return event(HCI.EventCode.leMeta, parameters)
    }

    /// An HCI_LE_Extended_Advertising_Report event with one complete, legacy-PDU-free report
    /// (event type 0x0000 or 0x0008 for a scan response, LE 1M primary PHY, no secondary PHY).
    public static func leExtendedAdvertisingReport(
        address: BluetoothAddress, data: [UInt8], rssi: Int8?, txPower: Int8?, scanResponse: Bool = false
    ) -> [UInt8]? {
        var parameters: [UInt8] = [HCI.LESubevent.extendedAdvertisingReport, 1]
        parameters += [scanResponse ? 0x08 : 0x00, 0x00, address.isRandom ? 0x01 : 0x00]
        parameters += addressBytes(address)
        parameters += [0x01, 0x00, 0xFF]  // primary PHY LE 1M, no secondary PHY, no advertising SID
        parameters.append(UInt8(bitPattern: txPower ?? HCI.notAvailable))
        parameters.append(UInt8(bitPattern: rssi ?? HCI.notAvailable))
        parameters += [0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0]  // no periodic interval, no direct address
        parameters.append(UInt8(truncatingIfNeeded: data.count))
        parameters += data
        guard parameters.count <= HCI.maximumEventParameters else { return nil }
        return event(HCI.EventCode.leMeta, parameters)
    }

    /// An event packet: indicator, code, parameter length, parameters (at most 255 bytes; longer
    /// parameters are cut, which only a test of the parser would want).
    public static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        let kept = parameters.prefix(HCI.maximumEventParameters)
        return [HCI.PacketType.event.rawValue, code, UInt8(kept.count)] + kept
    }

    /// An address's six bytes, least significant first, as HCI carries them.
    public static func addressBytes(_ address: BluetoothAddress) -> [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: address.rawValue >> (8 * UInt64($0))) }
    }
}
