import BoardConfig
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationAPI
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Synchronization

/// The far end of a replay board's serial port: the recording's reads, each at its time after the
/// replay's start on the manual clock, exactly as they were read. What the engine writes (its
/// receiver commands) is dropped: a recording cannot answer.
final class RecordedReceiver: SimulatedSerialPeer {
    private let chunks: [RecordedSession.Chunk]
    private let start: MonotonicInstant
    private let next = Mutex(0)

    init(chunks: [RecordedSession.Chunk], start: MonotonicInstant) {
        self.chunks = chunks
        self.start = start
    }

    func instant(_ t: Double) -> MonotonicInstant { start.advanced(by: .nanoseconds(Int64((t * 1e9).rounded()))) }

    func nextTransmission(after instant: MonotonicInstant) -> MonotonicInstant? {
        next.withLock { index in index < chunks.count ? max(self.instant(chunks[index].t), instant) : nil }
    }

    func transmit(upTo instant: MonotonicInstant) -> [UInt8] {
        next.withLock { index in
            var out: [UInt8] = []
            while index < chunks.count, self.instant(chunks[index].t) <= instant {
                out += chunks[index].bytes
                index += 1
            }
            return out
        }
    }

    func receive(_ bytes: [UInt8], at instant: MonotonicInstant) {}
}

/// A replay board (`[replay]` in its board file): a recorded session stands in for the hardware.
/// The receiver's bytes come on the simulated serial port at the times they were read; on a board
/// that names its sensors (`[[sensor]]`, as the recorded board did) the raw sensor samples go
/// through the engine's sensor subsystem at their times (calibration, mounting, heading engine,
/// attitude filter), else the recorded headings are published at theirs; on a board with
/// `bluetooth` the advertising reports come from its radio at the times they were received; and a PPS line named in `[gpio]` (`gnss_pps`) pulses once a second from the
/// first recorded edge; all on a manual clock, so ``LocationEngine`` and ``LocationManager`` run over
/// the session at once (``LocationEngine/advance(by:)``) or paced (``LocationEngine/run(speed:)``).
public struct ReplayEnginePlatform: EnginePlatform {
    /// The simulated hardware the recording plays on.
    public let platform: SimulatedPlatform
    /// The recording.
    public let session: RecordedSession
    public let recordedHeadings: RecordedHeadingSource?
    public let recordedSensorSamples: RecordedSensorSamples?
    /// The recording's radio (boards with `bluetooth`).
    private let scanner: RecordedBeaconScanner?
    /// The calendar: seconds since 1970 UTC at instant zero (the first recorded PPS second when
    /// there is one, else the simulated boards' date).
    public var utcAtZero: Double = 1_777_593_600

    /// Loads `board`'s recording onto a simulated platform on `clock`; the replay starts at the clock's now.
    public init(board: BoardDescription, clock: ManualClock = ManualClock()) throws(HardwareError) {
        guard let replay = board.replay else {
            throw HardwareError(.invalidArgument, device: board.name, operation: "replay", detail: "the board has no [replay] table")
        }
        let session: RecordedSession
        do { session = try RecordedSession.load(log: replay.log, events: replay.events) } catch {
            throw HardwareError(.invalidArgument, device: error.file, operation: "load the recording", detail: error.description)
        }
        var chips: [SimulatedPlatformDescription.GPIOChip] = []
        if let g = board.gpio {
            let names = g.lines.values.compactMap { id -> String? in if case .name(let n) = id { return n } else { return nil } }
            chips.append(.init(name: g.chip, lines: names.sorted()))
        }
        let rate = board.receiver?.baudRate.rawValue ?? 9600
        let ports = try Self.receiverPorts(board: board, session: session, events: replay.events)
        let platform = try SimulatedPlatform(SimulatedPlatformDescription(gpioChips: chips,
                                                                          serialPorts: ports.map { .init(path: $0.path, baudRate: rate) }),
                                             clock: clock)
        let start = clock.now()
        for port in ports {
            platform.serialPort(port.path)?.attach(RecordedReceiver(chunks: session.chunks.filter { $0.receiver == port.receiver }, start: start))
        }
        Self.schedulePortEvents(session, ports: ports, platform: platform, clock: clock, start: start)
        if let g = board.gpio, let id = g.lines[.gnssPPS], let first = session.pulses.first,
           let line = platform.gpioChip(named: g.chip)?.line(id) {
            line.schedulePulses(GPIOPulseTrain(start: start.advanced(by: .nanoseconds(Int64((first.edge * 1e9).rounded())))))
        }
        self.platform = platform
        self.session = session
        if board.magnetometer != nil && board.accelerometer != nil {
            guard !session.sensorSamples.isEmpty else {
                throw HardwareError(.invalidArgument, device: replay.events, operation: "load the recording",
                                    detail: "\(replay.events): no SENSOR lines (recorded before raw samples were kept, or on a board without sensors): "
                                        + "remove the board's [[sensor]] tables to replay its HEADING lines instead")
            }
            recordedSensorSamples = RecordedSensorSamples(session.rawSensorSamples(from: start), calibration: session.calibration)
        } else {
            recordedSensorSamples = nil
        }
        scanner = board.bluetooth.map { name in
            RecordedBeaconScanner(name: name, clock: clock, reports: session.adverts.map { a in
                .init(at: start.advanced(by: .nanoseconds(Int64((a.t * 1e9).rounded()))), address: a.address, rssi: a.rssi,
                      txPower: a.txPower, isScanResponse: a.isScanResponse, data: a.data)
            })
        }
        recordedHeadings = session.headings.isEmpty || recordedSensorSamples != nil ? nil : RecordedHeadingSource(session.headings.map { h in
            let at = start.advanced(by: .nanoseconds(Int64((h.t * 1e9).rounded())))
            return (at, HeadingUpdate(magneticHeading: h.magnetic, trueHeading: h.trueHeading, headingAccuracy: h.accuracy ?? -1,
                                      field: (0, 0, 0), acceleration: (0, 0, 0), pitch: nil, roll: nil, inclination: nil,
                                      quality: h.quality, flags: ["replayed"], takenAt: at))
        })
        if let first = session.pulses.first { utcAtZero = Double(first.utc) - first.edge - start.seconds }
    }

    public var hardware: any HardwarePlatform { platform }
    public var pacing: EnginePacing { .manual }
    public var provenance: Provenance { .replay }
    public var providesReceiver: Bool { true }
    /// The simulated port; on a replay of several receivers, the port of `board`'s receiver
    /// (``ReplayDescription/port(of:)``).
    public func receiverPort(for board: BoardDescription) -> String { board.receiver?.uart ?? BoardHardware.simulatedPortName }
    public func receiverLines(for board: BoardDescription) throws(HardwareError) -> ReceiverLines { ReceiverLines() }
    public func measuredReceiverEnergy() -> EnergyLedger? { nil }
    public func utcSeconds(at instant: MonotonicInstant) -> Double { utcAtZero + instant.seconds }

    /// The recording's radio: its advertising reports at the times they were received.
    public func bluetoothScanner(for board: BoardDescription) throws(HardwareError) -> any BluetoothLEScanner {
        guard let scanner else {
            throw HardwareError(.unsupported, device: board.bluetooth ?? "bluetooth", operation: "open",
                                detail: "the replay board names no Bluetooth adapter (bluetooth = \"hci0\")")
        }
        scanner.reopen()
        return scanner
    }
}
