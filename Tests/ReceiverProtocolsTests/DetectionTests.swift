import HardwareInterfaces
import ReceiverProtocols
import Synchronization
import Testing

/// A virtual clock: sleeping moves time forward at once.
final class VirtualClock: MonotonicClock {
    let time = Mutex<UInt64>(0)
    func now() -> MonotonicInstant { MonotonicInstant(nanoseconds: time.withLock { $0 }) }
    func sleep(until deadline: MonotonicInstant) {
        time.withLock { $0 = max($0, deadline.nanoseconds) }
    }
}

/// A scripted receiver behind a serial port: it talks at its own line rate (anything read at
/// another rate is garbage, as a UART would deliver it), streams one epoch a second when its output
/// is on, and answers the queries of its family.
final class FakeReceiverPort: SerialPort, @unchecked Sendable {
    enum Kind { case mediatek, ubloxM10, casic, generic, silent }
    let kind: Kind
    let receiverBaud: Int
    var outputOn: Bool
    let virtualClock = VirtualClock()
    var clock: any MonotonicClock { virtualClock }
    var name: String { "/dev/fake" }
    private(set) var baudRate: BaudRate = .b9600
    private var pending: [UInt8] = []
    private var nextEpoch: UInt64 = 1_000_000_000
    private(set) var written: [[UInt8]] = []
    private(set) var baudChanges: [Int] = []
    private var seed: UInt32 = 12345

    init(_ kind: Kind, baud: Int, outputOn: Bool = true) {
        self.kind = kind
        self.receiverBaud = baud
        self.outputOn = outputOn
    }

    private func garble(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { _ in
            seed = seed &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: seed >> 16)
        }
    }

    private func deliver(_ bytes: [UInt8]) {
        pending += baudRate.rawValue == receiverBaud ? bytes : garble(bytes)
    }

    private func epoch() -> [UInt8] {
        let lines = [
            "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
            "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A",
        ]
        return Array(lines.joined(separator: "\r\n").utf8) + [13, 10]
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        if pending.isEmpty, kind != .silent, outputOn, virtualClock.now().nanoseconds < nextEpoch || true {
            let due = nextEpoch
            if due <= deadline.nanoseconds {
                virtualClock.sleep(until: MonotonicInstant(nanoseconds: due))
                nextEpoch += 1_000_000_000
                deliver(epoch())
            }
        }
        if pending.isEmpty {
            virtualClock.sleep(until: deadline)
            return 0
        }
        let n = min(buffer.count, pending.count)
        for i in 0..<n { buffer[i] = pending[i] }
        pending.removeFirst(n)
        return n
    }

    func write(_ bytes: UnsafeRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        let data = Array(bytes)
        written.append(data)
        guard baudRate.rawValue == receiverBaud else { return data.count }
        let text = String(decoding: data, as: UTF8.self)
        switch kind {
        case .mediatek where text.hasPrefix("$PMTK605"):
            deliver(Array("$PMTK705,AXN_2.31_3339_13101700,5632,PA6H,1.0*6B\r\n".utf8))
        case .ubloxM10 where data.starts(with: UBXMessage.pollVersion.bytes):
            let payload = monVerPayload(software: "ROM SPG 5.10 (7b202e)", hardware: "000A0000",
                                        extensions: ["PROTVER=34.10", "MOD=MAX-M10S"])
            deliver(UBXMessage(class: 0x0A, id: 0x04, payload: payload).bytes)
        case .casic where data.starts(with: UBXMessage.pollVersion.bytes):
            // The AT6558 partly answers u-blox polls, with its own hardware string.
            deliver(UBXMessage(class: 0x0A, id: 0x04, payload: monVerPayload(software: "V5.3.0.0", hardware: "AT6558", extensions: [])).bytes)
        case .casic where text.hasPrefix("$PCAS06,0"):
            deliver(Array("$GPTXT,01,01,02,SW=URANUS5,V5.3.0.0*1D\r\n".utf8))
        default:
            break
        }
        return data.count
    }

    func setBaudRate(_ rate: BaudRate) throws(HardwareError) {
        baudRate = rate
        baudChanges.append(rate.rawValue)
    }
    func drain(deadline: MonotonicInstant) throws(HardwareError) {}
    func discard(_ queue: SerialQueue) throws(HardwareError) { if queue != .output { pending.removeAll() } }
    func close() {}
}

@Suite("Receiver detection: autobaud, banners, identity queries")
struct DetectionTests {
    @Test("a MediaTek receiver at 9600 answers $PMTK605")
    func mediatek() throws {
        let port = FakeReceiverPort(.mediatek, baud: 9600)
        let result = try ReceiverDetector(port: port).detect()
        #expect(result.baudRate == 9600)
        #expect(result.identity?.family == .mediatek)
        #expect(result.identity?.model == "PA6H")
        #expect(result.sentenceTypes == ["GPGGA", "GPRMC"])
        // MON-VER went first and was ignored; PMTK605 second.
        #expect(port.written.count == 2)
        #expect(port.baudChanges == [9600])
    }

    @Test("a u-blox M10 at 38400 is found after garbage at 9600, by MON-VER")
    func ublox() throws {
        let port = FakeReceiverPort(.ubloxM10, baud: 38400)
        let result = try ReceiverDetector(port: port).detect()
        #expect(result.baudRate == 38400)
        #expect(result.identity?.ubloxGeneration == .m10)
        #expect(result.identity?.model == "MAX-M10S")
        #expect(result.identity?.protocolVersion == "34.10")
        #expect(port.baudChanges == [9600, 38400])
        #expect(result.steps.first?.outcome.contains("garbage") == true || result.steps.first?.outcome.contains("bytes") == true)
    }

    @Test("the CASIC chip's MON-VER answer is not taken for u-blox; $PCAS06 identifies it")
    func casic() throws {
        let port = FakeReceiverPort(.casic, baud: 9600)
        let result = try ReceiverDetector(port: port).detect()
        #expect(result.identity?.family == .casic)
        #expect(result.identity?.firmware == "URANUS5,V5.3.0.0")
        #expect(port.written.count == 3)
    }

    @Test("a receiver with its output off at 115200 is woken and answers at that rate")
    func outputOff() throws {
        let port = FakeReceiverPort(.mediatek, baud: 115200, outputOn: false)
        let result = try ReceiverDetector(port: port).detect()
        #expect(result.baudRate == 115200)
        #expect(result.identity?.family == .mediatek)
        // The wake byte was sent before the queries at every rate tried.
        #expect(port.written.filter { $0 == [0xFF] }.count == 3)
    }

    @Test("a receiver that answers nothing is generic NMEA")
    func generic() throws {
        let port = FakeReceiverPort(.generic, baud: 4800)
        let result = try ReceiverDetector(port: port).detect()
        #expect(result.baudRate == 4800)
        #expect(result.identity?.family == .genericNMEA)
    }

    @Test("a silent port gives advice, every rate tried, and a bounded run")
    func silent() throws {
        let port = FakeReceiverPort(.silent, baud: 9600)
        let detector = ReceiverDetector(port: port)
        let result = try detector.detect()
        #expect(result.baudRate == nil)
        #expect(result.identity == nil)
        #expect(result.advice.first?.contains("Nothing at all arrived") == true)
        #expect(port.baudChanges == [9600, 38400, 115200, 57600, 4800, 19200])
        // 6 rates x (1.2 s listen + 0.2 s after the wake byte + 5 queries x 1 s) = 38.4 s of virtual time.
        #expect(port.virtualClock.now().seconds <= 38.41)
        #expect(result.steps.count == 6 * 6)
    }
}
