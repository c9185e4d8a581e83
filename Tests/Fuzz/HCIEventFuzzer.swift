// libFuzzer entry point for the Bluetooth HCI event parser (HCIEventParser) and the H4 packet
// framer (HCIPacketFramer) of BluetoothHCI. The input is a byte stream as a UART or /dev/vhci
// would carry it: packet indicators, headers, parameters, in any order and any state.
//
// Built by .ci/fuzz.sh against the real modules HardwareInterfaces and BluetoothHCI:
//
//   .ci/fuzz.sh 60 .build-fuzz hci
//
// Any trap or memory error is a crash, and so is a broken invariant (checked with `require`):
// - the framer hands over only events and commands whose length byte matches their size;
//   fed whole, byte by byte and in bursts of 7 it hands over the same packets;
// - every event handed over parses; a malformed one hands over no report and names an offset
//   inside the packet (0 to its size); an accepted one hands over exactly the count it returns;
// - every report's data lies inside the packet, a legacy report's is at most 31 bytes, RSSI and
//   TX power are nil or within -128...126;
// - the whole input parsed as one event (no indicator) obeys the same rules.

import BluetoothHCI
import HardwareInterfaces
#if canImport(Glibc)
import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    print("hci fuzz invariant broken: \(message())")
    abort()
}

private func checkEvent(_ packet: UnsafeRawBufferPointer, parser: inout HCIEventParser) {
    var handed = 0
    let before = parser.statistics
    let kind = parser.parse(event: packet, timestamp: MonotonicInstant(nanoseconds: 1)) { report in
        handed += 1
        if let base = packet.baseAddress, report.data.count > 0, let start = report.data.baseAddress {
            require(start >= base && start + report.data.count <= base + packet.count, "report data outside the packet")
        }
        if packet.count > 2, packet[2] == HCI.LESubevent.advertisingReport {
            require(report.data.count <= HCI.maximumLegacyDataLength, "legacy data of \(report.data.count) bytes")
            require(report.txPower == nil, "legacy report with a TX power")
        }
        require(report.rssi.map { (-128...126).contains($0) } ?? true, "RSSI \(report.rssi ?? 0)")
        require(report.txPower.map { (-128...126).contains($0) } ?? true, "TX power \(report.txPower ?? 0)")
    }
    switch kind {
    case .malformed(let problem):
        require(handed == 0, "a malformed event handed over \(handed) reports")
        require(problem.offset >= 0 && problem.offset <= packet.count, "malformation offset \(problem.offset) outside 0...\(packet.count)")
        require(parser.statistics.malformed == before.malformed + 1, "malformed event not counted")
    case .advertisingReports(let count):
        require(count == handed, "returned \(count), handed over \(handed)")
        require(parser.statistics.reports == before.reports + count, "reports not counted")
    default:
        require(handed == 0, "a non-report event handed over reports")
    }
}

private func frame(_ bytes: UnsafeRawBufferPointer, chunk: Int) -> [[UInt8]] {
    var framer = HCIPacketFramer()
    var packets: [[UInt8]] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + chunk)
        framer.push(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { type, packet in
            require(type == .event || type == .command, "framer handed over a \(type) packet")
            let header = type == .event ? 2 : 3
            require(packet.count >= header && Int(packet[header - 1]) == packet.count - header, "packet length byte does not match")
            packets.append(Array(packet))
        }
        start = end
    }
    return packets
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var parser = HCIEventParser()
    checkEvent(bytes, parser: &parser)
    let whole = frame(bytes, chunk: max(1, size))
    require(frame(bytes, chunk: 1) == whole, "byte-by-byte framing differs from whole")
    require(frame(bytes, chunk: 7) == whole, "framing in bursts of 7 differs from whole")
    for packet in whole where packet.count >= 2 {
        packet.withUnsafeBytes { checkEvent($0, parser: &parser) }
    }
    return 0
}
