import Devices
import HardwareInterfaces
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Synchronization
import Testing

/// A receiver that streams NMEA (GGA and RMC once a second) and answers nothing: what a receiver
/// of a family the package has no query for looks like.
final class NMEAOnlyPeer: SimulatedSerialPeer, @unchecked Sendable {
    private let next: Mutex<MonotonicInstant>
    private let received = Mutex(0)
    init(start: MonotonicInstant) { next = Mutex(start.advanced(by: .seconds(1))) }
    var bytesReceived: Int { received.withLock { $0 } }
    func nextTransmission(after instant: MonotonicInstant) -> MonotonicInstant? { next.withLock { max($0, instant.advanced(by: .nanoseconds(1))) } }
    func transmit(upTo instant: MonotonicInstant) -> [UInt8] {
        next.withLock { due in
            var out: [UInt8] = []
            while due <= instant {
                out += NMEAChecksum.sentence(body: Array("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,".utf8)) + [13, 10]
                out += NMEAChecksum.sentence(body: Array("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W".utf8)) + [13, 10]
                due = due.advanced(by: .seconds(1))
            }
            return out
        }
    }
    func receive(_ bytes: [UInt8], at instant: MonotonicInstant) { received.withLock { $0 += bytes.count } }
}

/// Family detection on arrival (`ReceiverDetector.identifyOnArrival`) against the receiver
/// emulator of each family on a manual clock: the queries the real receivers answer, another line
/// rate, a silent port, and passive mode, where only what the receiver sends counts.
@Suite("Receiver identification on arrival")
struct ArrivalIdentificationTests {
    /// An emulator of `family` behind a port at 9600 baud, talking at `baud`, on its own manual clock.
    static func bench(_ family: ReceiverEmulator.Family, baud: BaudRate = .b9600, tracking: Bool = true)
        -> (port: SimulatedSerialPort, receiver: ReceiverEmulator, clock: ManualClock)
    {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "/dev/ttyEMU", clock: clock)
        let receiver = ReceiverEmulator(family: family, profile: family.model.powerProfile,
                                        trajectory: Trajectory.scenario("walk", seconds: 3600)!, start: clock.now(), tracking: tracking)
        port.attach(receiver)
        port.setPeerBaudRate(baud)
        return (port, receiver, clock)
    }

    static func identify(_ port: SimulatedSerialPort, passive: Bool = false, seconds: Int64 = 10) throws -> ArrivalIdentification {
        try ReceiverDetector(port: port).identifyOnArrival(passive: passive, deadline: port.clock.now().advanced(by: .seconds(seconds)))
    }

    @Test("each family answers its query at the board's rate: family, generation and module", arguments: [
        (ReceiverEmulator.Family.mediatek, ReceiverFamily.mediatek, "PA6H" as String?, ReceiverModel.mt3339),
        (.ublox8, .ublox, "NEO-M8N", .ubloxM8),
        (.ublox9, .ublox, "NEO-M9N", .ubloxM9),
        (.ublox10, .ublox, "MAX-M10S", .ubloxM10),
        (.casic, .casic, nil, .at6558),
    ])
    func eachFamily(_ emulated: ReceiverEmulator.Family, _ family: ReceiverFamily, _ module: String?, _ model: ReceiverModel) throws {
        let bench = Self.bench(emulated)
        let start = bench.clock.now()
        let result = try Self.identify(bench.port)
        #expect(result.identity?.family == family, "\(result)")
        #expect(result.baudRate == .b9600)
        if let module { #expect(result.identity?.model == module) }
        let name = result.identity?.model ?? result.identity?.ubloxGeneration?.rawValue
        #expect(ReceiverModel.lookup(family: family, model: name) == model || family == .casic, "\(result)")
        #expect(result.wrote)
        // Within a listen and the queries it took (1.2 s, and at most 1 s per query).
        #expect((bench.clock.now() - start) <= .milliseconds(4300), "\(result.steps)")
        if emulated == .ublox9 { #expect(result.identity?.ubloxGeneration == .m9 && result.identity?.protocolVersion == "32.01") }
    }

    @Test("the CASIC receiver is named by its antenna line before anything is asked, then its hardware query gives the module")
    func casicFromItsStream() throws {
        let bench = Self.bench(.casic)
        let result = try Self.identify(bench.port)
        #expect(result.identity?.family == .casic)
        #expect(result.identity?.model == "ATGM336H")
        #expect(result.reason.contains("ANTENNA OK"))
        #expect(bench.receiver.commands == ["PCAS06,1"])
        #expect(ReceiverModel.lookup(family: .casic, model: result.identity?.model) == .at6558)
    }

    @Test("a receiver at another line rate is found at it by autobaud, and the port is left there", arguments: [
        (ReceiverEmulator.Family.ublox10, BaudRate.b38400), (.mediatek, .b115200), (.ublox8, BaudRate(57600)!),
    ])
    func wrongRate(_ emulated: ReceiverEmulator.Family, _ baud: BaudRate) throws {
        let bench = Self.bench(emulated, baud: baud)
        let result = try Self.identify(bench.port)
        #expect(result.baudRate == baud)
        #expect(bench.port.baudRate == baud)
        #expect(result.identity?.family == (emulated == .mediatek ? .mediatek : .ublox), "\(result)")
        #expect(result.steps.first?.outcome.contains("garbage") == true, "\(result.steps)")
    }

    @Test("a silent port: nothing by the deadline, the reason says so, the port goes back to the board's rate")
    func silent() throws {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "/dev/ttyEMU", clock: clock)
        let start = clock.now()
        let result = try Self.identify(port, seconds: 6)
        #expect(result.identity == nil && result.baudRate == nil)
        #expect(result.reason.hasPrefix("silent"), "\(result.reason)")
        #expect(clock.now() - start <= .seconds(6))
        #expect(port.baudRate == .b9600)
        // The wake byte and the three queries at the board's rate, then only listening.
        let written = port.peerRead()
        #expect(written.first == 0xFF)
        #expect(written.count == 1 + ReceiverDetector.arrivalQueries.reduce(0) { $0 + $1.bytes.count })
    }

    @Test("a receiver that streams NMEA and answers nothing is unknown, with the reason")
    func nmeaOnly() throws {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "/dev/ttyEMU", clock: clock)
        let peer = NMEAOnlyPeer(start: clock.now())
        port.attach(peer)
        let result = try Self.identify(port)
        #expect(result.identity == nil)
        #expect(result.baudRate == .b9600)
        #expect(result.reason.contains("no identity query answered"), "\(result.reason)")
        #expect(result.reason.contains("talkers GP"))
        #expect(peer.bytesReceived > 0)
    }

    @Test("passive: a MediaTek receiver powered on is named by its start-up sentences, with nothing written")
    func passiveBanner() throws {
        let bench = Self.bench(.mediatek)
        bench.receiver.setPower(false, at: bench.clock.now())
        bench.receiver.setPower(true, at: bench.clock.now())
        let result = try Self.identify(bench.port, passive: true)
        #expect(result.identity?.family == .mediatek)
        #expect(result.reason.contains("PMTK011"), "\(result.reason)")
        #expect(!result.wrote)
        #expect(bench.receiver.bytesReceived == 0)
    }

    @Test("passive: a u-blox receiver powered on is named by its boot screen (family only: MON-VER is not asked)")
    func passiveUblox() throws {
        let bench = Self.bench(.ublox10)
        bench.receiver.setPower(false, at: bench.clock.now())
        bench.receiver.setPower(true, at: bench.clock.now())
        let result = try Self.identify(bench.port, passive: true)
        #expect(result.identity?.family == .ublox)
        #expect(result.identity?.ubloxGeneration == nil)
        #expect(bench.receiver.bytesReceived == 0)
        // Not passive, the same start-up is refined by MON-VER.
        let active = Self.bench(.ublox10)
        active.receiver.setPower(false, at: active.clock.now())
        active.receiver.setPower(true, at: active.clock.now())
        let refined = try Self.identify(active.port)
        #expect(refined.identity?.ubloxGeneration == .m10)
        #expect(refined.reason.contains("u-blox ag") && refined.reason.contains("MON-VER"), "\(refined.reason)")
    }

    @Test("passive: a receiver already running whose stream names no family is unknown; CASIC's is named; nothing is written")
    func passiveMidStream() throws {
        let mediatek = Self.bench(.mediatek)
        let unknown = try Self.identify(mediatek.port, passive: true)
        #expect(unknown.identity == nil)
        #expect(unknown.baudRate == .b9600)
        #expect(unknown.reason.hasPrefix("passive"), "\(unknown.reason)")
        #expect(mediatek.receiver.bytesReceived == 0)
        let casic = Self.bench(.casic)
        let named = try Self.identify(casic.port, passive: true)
        #expect(named.identity?.family == .casic)
        #expect(casic.receiver.bytesReceived == 0)
    }

    @Test("passive at another rate: autobaud by listening only")
    func passiveWrongRate() throws {
        let bench = Self.bench(.casic, baud: .b38400)
        let result = try Self.identify(bench.port, passive: true)
        #expect(result.identity?.family == .casic)
        #expect(result.baudRate == .b38400)
        #expect(bench.receiver.bytesReceived == 0)
    }
}
