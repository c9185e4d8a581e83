import HardwareInterfaces
import ReceiverProtocols
import Synchronization
import Testing

/// A receiver behind a port that answers UBX CFG messages with ACK or NAK, `$PMTK` commands with
/// `$PMTK001`, streams a GGA before each answer (so pass-through can be checked), and can stay
/// silent for the first N commands.
final class AckingPort: SerialPort, @unchecked Sendable {
    enum Answer { case ack, nak, silent }
    let virtualClock = VirtualClock()
    var clock: any MonotonicClock { virtualClock }
    var name: String { "/dev/acking" }
    var baudRate: BaudRate = .b9600
    var answer: Answer = .ack
    var pmtkFlag = 3
    var silentFor = 0
    var pending: [UInt8] = []
    var written: [[UInt8]] = []
    var discards = 0
    let gga = Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n".utf8)

    func write(_ bytes: UnsafeRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        let data = Array(bytes)
        written.append(data)
        if silentFor > 0 { silentFor -= 1; return data.count }
        if data.count >= 8, data[0] == 0xB5, data[1] == 0x62, data[2] == 0x06, answer != .silent {
            pending += gga
            pending += UBXMessage(class: 0x05, id: answer == .ack ? 0x01 : 0x00, payload: [data[2], data[3]]).bytes
        } else if data.starts(with: Array("$PMTK".utf8)) {
            let number = String(decoding: data.dropFirst(5).prefix { $0 != 0x2C && $0 != 0x2A }, as: UTF8.self)
            pending += gga
            pending += NMEACommand("PMTK001,\(number),\(pmtkFlag)").bytes
        }
        return data.count
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        if pending.isEmpty {
            virtualClock.sleep(until: deadline)
            return 0
        }
        virtualClock.sleep(until: virtualClock.now().advanced(by: .milliseconds(50)))
        let n = min(buffer.count, pending.count)
        for i in 0..<n { buffer[i] = pending[i] }
        pending.removeFirst(n)
        return n
    }

    func setBaudRate(_ rate: BaudRate) throws(HardwareError) { baudRate = rate }
    func drain(deadline: MonotonicInstant) throws(HardwareError) {}
    func discard(_ queue: SerialQueue) throws(HardwareError) { discards += 1; pending.removeAll() }
    func close() {}
}

final class RecordingLine: GPIOLine, @unchecked Sendable {
    let name: String
    var level: Bool
    var history: [Bool] = []
    init(_ name: String, level: Bool) { self.name = name; self.level = level }
    var isOutput: Bool { true }
    func set(_ high: Bool) throws(HardwareError) { level = high; history.append(high) }
    func get() throws(HardwareError) -> Bool { level }
    func waitForEdge(deadline: MonotonicInstant) throws(HardwareError) -> GPIOEvent? { nil }
    func release() {}
}

@Suite("Command channel and receiver drivers")
struct DriverTests {
    @Test("a CFG message waits for ACK-ACK; the NMEA read meanwhile is passed through")
    func ack() throws {
        let port = AckingPort()
        var seen: [UInt8] = []
        let channel = CommandChannel(port: port) { seen += $0 }
        try channel.send(UBXMessage.rate(milliseconds: 1000))
        #expect(port.written.count == 1)
        #expect(String(decoding: seen, as: UTF8.self).contains("$GPGGA,123519"))
    }

    @Test("ACK-NAK is a refusal; silence is retried a bounded number of times, then an error")
    func nakAndRetries() {
        let port = AckingPort()
        port.answer = .nak
        let channel = CommandChannel(port: port, timeout: .seconds(1), attempts: 3)
        #expect(throws: ReceiverError.rejected(command: "UBX 06 08 (6 bytes)", reason: "ACK-NAK")) {
            try channel.send(UBXMessage.rate(milliseconds: 200))
        }
        let quiet = AckingPort()
        quiet.answer = .silent
        let start = quiet.virtualClock.now()
        do {
            try CommandChannel(port: quiet, timeout: .seconds(1), attempts: 3).send(UBXMessage.rate(milliseconds: 200))
            Issue.record("no error from a silent receiver")
        } catch {
            guard case .noAcknowledgement(_, let attempts, _) = error else { Issue.record("\(error)"); return }
            #expect(attempts == 3)
        }
        #expect(quiet.written.count == 3)
        #expect(quiet.virtualClock.now() - start <= .seconds(3.2))
        // Silent once, then answering: the retry succeeds.
        let flaky = AckingPort()
        flaky.silentFor = 1
        #expect(throws: Never.self) { try CommandChannel(port: flaky).send(UBXMessage.rate(milliseconds: 500)) }
        #expect(flaky.written.count == 2)
    }

    @Test("PMTK001 flag 3 is success; flags 0-2 are refusals with their meaning")
    func pmtk() throws {
        let port = AckingPort()
        let driver = MediaTekDriver(channel: CommandChannel(port: port))
        try driver.configure()
        #expect(port.written.map { String(decoding: $0, as: UTF8.self) } == ["$PMTK220,1000*1F\r\n", "$PMTK314,0,1,0,1,1,5,0,1,0,0,0,0,0,0,0,0,0,0,0*2D\r\n"])
        port.pmtkFlag = 1
        #expect(throws: ReceiverError.rejected(command: "$PMTK161,0*28", reason: "flag 1: unsupported command")) {
            try driver.enterStandby()
        }
        #expect(throws: ReceiverError.self) { try driver.setRate(milliseconds: 50) }
    }

    @Test("u-blox M10 uses configuration keys, u-blox M8 legacy messages; standby by RXM-PMREQ")
    func ublox() throws {
        let m10Port = AckingPort()
        let m10 = UBloxDriver(channel: CommandChannel(port: m10Port), generation: .m10)
        try m10.configure(outputs: [.gga: 1, .rmc: 1])
        #expect(m10Port.written[0] == UBXMessage.setValues([(.rateMeasurement, 1000), (.rateNavigation, 1)]).bytes)
        #expect(m10Port.written.count == 2)
        try m10.enterStandby()
        #expect(m10Port.written.last == UBXMessage.sleepRequest(milliseconds: 0, wake: .uartRX).bytes)
        let m8Port = AckingPort()
        let m8 = UBloxDriver(channel: CommandChannel(port: m8Port), generation: .m8)
        try m8.configure(outputs: [.gga: 1])
        #expect(m8Port.written[0] == UBXMessage.rate(milliseconds: 1000).bytes)
        #expect(m8Port.written.count == 1 + NMEASentenceType.allCases.count)
        try m8.setCyclicTracking(true)
        #expect(m8Port.written.last == UBXMessage.receiverMode(lowPowerMode: 1).bytes)
    }

    @Test("backup cuts the enable line; wake restores it and waits for the boot; without a line a wake byte is sent")
    func lines() throws {
        let port = AckingPort()
        let power = RecordingLine("gnss-enable", level: true)
        let driver = UBloxDriver(channel: CommandChannel(port: port), generation: .m10, lines: ReceiverLines(powerEnable: power))
        try driver.enterBackup()
        #expect(power.level == false)
        let before = port.virtualClock.now()
        try driver.wake()
        #expect(power.history == [false, true])
        #expect(port.virtualClock.now() - before >= .seconds(1))
        let bare = AckingPort()
        try CASICDriver(channel: CommandChannel(port: bare)).wake()
        #expect(bare.written == [[0xFF]])
        #expect(bare.discards == 1)
    }

    @Test("CASIC takes only 200, 500 and 1000 ms and is not acknowledged")
    func casic() throws {
        let port = AckingPort()
        let driver = CASICDriver(channel: CommandChannel(port: port))
        try driver.setRate(milliseconds: 500)
        #expect(port.written == [Array("$PCAS02,500*1A\r\n".utf8)])
        #expect(throws: ReceiverError.invalidValue(operation: "set rate", detail: "CASIC receivers take only 200, 500 or 1000 ms, not 250")) {
            try driver.setRate(milliseconds: 250)
        }
    }
}
