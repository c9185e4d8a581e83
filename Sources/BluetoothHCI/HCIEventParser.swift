import HardwareInterfaces

/// Why an event was refused. `offset` is the byte offset in the event packet (its first byte is
/// the event code) where the problem was found.
public struct HCIMalformation: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: String, Sendable, Equatable {
        /// Fewer than the two header bytes (event code, parameter length).
        case truncatedHeader = "event shorter than its two header bytes"
        /// The parameter length byte does not match the bytes that follow it.
        case lengthMismatch = "parameter length does not match the bytes received"
        /// A Command Complete or Command Status shorter than its fixed fields.
        case truncatedCommandEvent = "command event shorter than its fixed fields"
        /// An LE Meta event without its subevent code.
        case missingSubevent = "LE Meta event without a subevent code"
        /// Num_Reports is 0 (the range is 1 to 25).
        case noReports = "advertising report event with no reports"
        /// A report runs past the end of the event.
        case truncatedReport = "advertising report runs past the end of the event"
        /// A legacy report's data is longer than 31 bytes.
        case dataTooLong = "legacy advertising data longer than 31 bytes"
        /// Bytes left over after the last report.
        case trailingBytes = "bytes left after the last advertising report"
    }

    /// What was wrong.
    public var reason: Reason
    /// Byte offset in the event packet.
    public var offset: Int

    /// Creates a malformation.
    public init(_ reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// `advertising report runs past the end of the event at byte 14`.
    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}

/// What one event packet was.
public enum HCIEventKind: Sendable, Equatable {
    /// HCI_Command_Complete for `opcode`; `status` is the first return parameter (0 = success),
    /// `nil` when the event carries none (a NOP's credit-only event).
    case commandComplete(opcode: UInt16, status: UInt8?)
    /// HCI_Command_Status for `opcode`.
    case commandStatus(opcode: UInt16, status: UInt8)
    /// An LE advertising report event (legacy or extended) that handed over `reports` reports.
    case advertisingReports(Int)
    /// Any other event (the code), or another LE subevent (code 0x3E).
    case other(code: UInt8)
    /// A malformed event: nothing was handed over.
    case malformed(HCIMalformation)
}

/// What the parser has seen, for status lines and tests.
public struct HCIEventStatistics: Sendable, Equatable {
    /// Event packets parsed (malformed included).
    public var events = 0
    /// Advertising reports handed over.
    public var reports = 0
    /// Malformed events, ignored.
    public var malformed = 0
    /// Extended reports that were fragments of longer data (incomplete or truncated): not handed over.
    public var fragments = 0
    /// The last malformation, if any.
    public var lastMalformation: HCIMalformation?

    /// Creates empty statistics.
    public init() {}
}

/// Parses HCI event packets and hands each LE advertising report over as a
/// ``BluetoothAdvertisingReport`` that borrows its data from the packet: nothing is allocated.
///
/// A packet is one event without its packet indicator: event code, parameter length,
/// parameters (Core Vol 4, Part E, 5.4.4). An event is checked whole before any report in it is
/// handed over, so a malformed event hands over nothing and is counted in ``statistics``.
public struct HCIEventParser: Sendable {
    /// What the parser has seen.
    public private(set) var statistics = HCIEventStatistics()

    /// Creates a parser.
    public init() {}

    /// Parses one event packet; calls `report` once per advertising report, in order.
    @discardableResult
    public mutating func parse(
        event packet: UnsafeRawBufferPointer, timestamp: MonotonicInstant,
        _ report: (borrowing BluetoothAdvertisingReport) -> Void
    ) -> HCIEventKind {
        statistics.events += 1
        let kind = Self.parse(event: packet, timestamp: timestamp, report)
        switch kind {
        case .advertisingReports(let count): statistics.reports += count
        case .malformed(let problem):
            statistics.malformed += 1
            statistics.lastMalformation = problem
        default: break
        }
        if case .advertisingReports = kind, packet.count > 2, packet[2] == HCI.LESubevent.extendedAdvertisingReport {
            statistics.fragments += Self.extendedFragments(packet)
        }
        return kind
    }

    /// Parses one event packet without keeping statistics.
    public static func parse(
        event packet: UnsafeRawBufferPointer, timestamp: MonotonicInstant,
        _ report: (borrowing BluetoothAdvertisingReport) -> Void
    ) -> HCIEventKind {
        guard packet.count >= 2 else { return .malformed(.init(.truncatedHeader, offset: packet.count)) }
        let code = packet[0]
        guard Int(packet[1]) == packet.count - 2 else { return .malformed(.init(.lengthMismatch, offset: 1)) }
        switch code {
        case HCI.EventCode.commandComplete:
            // Num_HCI_Command_Packets, Command_Opcode, then the return parameters (status first).
            guard packet.count >= 5 else { return .malformed(.init(.truncatedCommandEvent, offset: packet.count)) }
            let opcode = UInt16(packet[3]) | UInt16(packet[4]) << 8
            return .commandComplete(opcode: opcode, status: packet.count > 5 ? packet[5] : nil)
        case HCI.EventCode.commandStatus:
            // Status, Num_HCI_Command_Packets, Command_Opcode.
            guard packet.count >= 6 else { return .malformed(.init(.truncatedCommandEvent, offset: packet.count)) }
            return .commandStatus(opcode: UInt16(packet[4]) | UInt16(packet[5]) << 8, status: packet[2])
        case HCI.EventCode.leMeta:
            guard packet.count >= 3 else { return .malformed(.init(.missingSubevent, offset: 2)) }
            switch packet[2] {
            case HCI.LESubevent.advertisingReport:
                return legacyReports(packet, timestamp: timestamp, report)
            case HCI.LESubevent.extendedAdvertisingReport:
                return extendedReports(packet, timestamp: timestamp, report)
            default:
                return .other(code: code)
            }
        default:
            return .other(code: code)
        }
    }

    /// Checks an advertising report event whole before anything is handed over: after the
    /// subevent code comes the report count (at least one), then each report of `fixed` bytes plus
    /// the data length that its byte at `lengthAt` gives (at most `maximumLength`), and nothing
    /// after the last. Returns the report count, or the malformation with its byte offset.
    private static func checkReports(
        _ packet: UnsafeRawBufferPointer, fixed: Int, lengthAt: Int, maximumLength: Int = .max
    ) -> Result<Int, HCIMalformation> {
        guard packet.count >= 4 else { return .failure(.init(.noReports, offset: packet.count)) }
        let count = Int(packet[3])
        guard count > 0 else { return .failure(.init(.noReports, offset: 3)) }
        var offset = 4
        for _ in 0..<count {
            guard offset + fixed <= packet.count else { return .failure(.init(.truncatedReport, offset: offset)) }
            let length = Int(packet[offset + lengthAt])
            guard length <= maximumLength else { return .failure(.init(.dataTooLong, offset: offset + lengthAt)) }
            guard offset + fixed + length <= packet.count else { return .failure(.init(.truncatedReport, offset: offset)) }
            offset += fixed + length
        }
        guard offset == packet.count else { return .failure(.init(.trailingBytes, offset: offset)) }
        return .success(count)
    }

    // MARK: LE Advertising Report (subevent 0x02)

    /// Each report: Event_Type (1), Address_Type (1), Address (6, little endian), Data_Length (1),
    /// Data, RSSI (1, signed; 127 = not available). Reports follow one another whole, as the
    /// controllers send them and as Linux reads them (net/bluetooth/hci_event.c).
    static let legacyFixed = 10

    private static func legacyReports(
        _ packet: UnsafeRawBufferPointer, timestamp: MonotonicInstant, _ report: (borrowing BluetoothAdvertisingReport) -> Void
    ) -> HCIEventKind {
        // First pass: every report must fit, so a bad event hands over nothing.
        let count: Int
        switch checkReports(packet, fixed: legacyFixed, lengthAt: 8, maximumLength: HCI.maximumLegacyDataLength) {
        case .success(let reports): count = reports
        case .failure(let malformation): return .malformed(malformation)
        }
        var offset = 4
        for _ in 0..<count {
            let eventType = packet[offset]
            let addressType = packet[offset + 1]
            let length = Int(packet[offset + 8])
            let data = UnsafeRawBufferPointer(rebasing: packet[(offset + 9)..<(offset + 9 + length)])
            let rssi = Int8(bitPattern: packet[offset + 9 + length])
            let advertisement = BluetoothAdvertisingReport(
                address: BluetoothAddress(littleEndianBytes: UnsafeRawBufferPointer(rebasing: packet[(offset + 2)..<(offset + 8)]), isRandom: addressType & 0x01 != 0),
                rssi: rssi == HCI.notAvailable ? nil : Int(rssi),
                txPower: nil,
                isScanResponse: eventType == HCI.AdvertisingEventType.scanResponse,
                timestamp: timestamp, data: data)
            report(advertisement)
            offset += legacyFixed + length
        }
        return .advertisingReports(count)
    }

    // MARK: LE Extended Advertising Report (subevent 0x0D)

    /// Each report: Event_Type (2), Address_Type (1), Address (6), Primary_PHY (1),
    /// Secondary_PHY (1), Advertising_SID (1), TX_Power (1), RSSI (1),
    /// Periodic_Advertising_Interval (2), Direct_Address_Type (1), Direct_Address (6),
    /// Data_Length (1), Data (Core Vol 4, Part E, 7.7.65.13).
    static let extendedFixed = 24

    private static func extendedReports(
        _ packet: UnsafeRawBufferPointer, timestamp: MonotonicInstant, _ report: (borrowing BluetoothAdvertisingReport) -> Void
    ) -> HCIEventKind {
        let count: Int
        switch checkReports(packet, fixed: extendedFixed, lengthAt: 23) {
        case .success(let reports): count = reports
        case .failure(let malformation): return .malformed(malformation)
        }
        var offset = 4
        var handed = 0
        for _ in 0..<count {
            let eventType = UInt16(packet[offset]) | UInt16(packet[offset + 1]) << 8
            let addressType = packet[offset + 2]
            let txPower = Int8(bitPattern: packet[offset + 12])
            let rssi = Int8(bitPattern: packet[offset + 13])
            let length = Int(packet[offset + 23])
            // Bits 5-6: data status. Only complete data is handed over; fragments are counted.
            if (eventType >> 5) & 0x3 == 0 {
                let data = UnsafeRawBufferPointer(rebasing: packet[(offset + 24)..<(offset + 24 + length)])
                let address = addressType == 0xFF
                    ? BluetoothAddress(rawValue: 0, isRandom: true)
                    : BluetoothAddress(littleEndianBytes: UnsafeRawBufferPointer(rebasing: packet[(offset + 3)..<(offset + 9)]), isRandom: addressType & 0x01 != 0)
                let advertisement = BluetoothAdvertisingReport(
                    address: address,
                    rssi: rssi == HCI.notAvailable ? nil : Int(rssi),
                    txPower: txPower == HCI.notAvailable ? nil : Int(txPower),
                    isScanResponse: eventType & 0x0008 != 0,
                    timestamp: timestamp, data: data)
                report(advertisement)
                handed += 1
            }
            offset += extendedFixed + length
        }
        return .advertisingReports(handed)
    }

    /// How many reports of a well-formed extended report event are fragments.
    private static func extendedFragments(_ packet: UnsafeRawBufferPointer) -> Int {
        var offset = 4
        var fragments = 0
        for _ in 0..<Int(packet[3]) {
            let eventType = UInt16(packet[offset]) | UInt16(packet[offset + 1]) << 8
            if (eventType >> 5) & 0x3 != 0 { fragments += 1 }
            offset += extendedFixed + Int(packet[offset + 23])
        }
        return fragments
    }
}
