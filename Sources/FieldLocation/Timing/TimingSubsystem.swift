import BoardConfig
import HardwareInterfaces
import LocationServices

/// Time from the board's PPS line: the line requested once (rising edges, kernel-timestamped),
/// its queued edges taken without waiting, and each edge paired with the UTC second a fix names.
///
/// Inputs: the clock, the fixes' UTC seconds. Outputs: ``PPSSample`` values and a ``PPSStatus``;
/// a line that cannot be requested is reported once as a ``LocationError``.
///
/// Only the thread that advances the engine touches it (see `LocationEngine`).
final class TimingSubsystem {
    private let board: BoardDescription
    private let hardware: any HardwarePlatform
    private var line: (any GPIOLine)?
    private var device: (any PPSDevice)?
    private var lastSequence: UInt32?
    private var tracker = PPSTracker()
    private var requestFailed = false

    init(board: BoardDescription, hardware: any HardwarePlatform) {
        self.board = board
        self.hardware = hardware
    }

    /// Requests the board's PPS line (or opens its `/dev/ppsN`) once; a failure is reported once and not retried.
    func ensureLine(report: (LocationError) -> Void) {
        if let path = board.gpio?.ppsDevice {
            guard device == nil, !requestFailed else { return }
            do {
                let opened = try hardware.openPPSDevice(path)
                lastSequence = try? opened.latest()?.sequence
                device = opened
            } catch {
                requestFailed = true
                report(.hardware(.other, "PPS device: \(error); time comes from NMEA only"))
            }
            return
        }
        guard line == nil, !requestFailed, let gpio = board.gpio, let id = gpio.line(.gnssPPS) else { return }
        do {
            line = try hardware.requestInput(chip: gpio.chip, line: id, edges: .rising, bias: .asIs)
        } catch {
            requestFailed = true
            report(.hardware(.other, "PPS line: \(error); time comes from NMEA only"))
        }
    }

    /// Takes the edges the kernel queued (no waiting). A GPIO edge's kernel stamp (CLOCK_MONOTONIC)
    /// is placed on the system clock by the platform's clock bracket; a `/dev/ppsN` edge comes with
    /// the kernel's CLOCK_REALTIME stamp (only its latest edge is kept by the kernel: polled at
    /// least once a second, as the engine's loop does, none is lost).
    func drain() {
        if let device {
            guard let event = try? device.latest(), event.sequence != lastSequence else { return }
            lastSequence = event.sequence
            tracker.pulse(at: event.monotonic, system: SystemTimeConversion(systemNanoseconds: event.systemNanoseconds, errorBoundNanoseconds: 0))
            return
        }
        guard let line else { return }
        while let event = try? line.waitForEdge(deadline: hardware.clock.now()) {
            if event.edge == .rising { tracker.pulse(at: event.timestamp, system: hardware.systemTime(at: event.timestamp)) }
        }
    }

    /// A fix naming UTC second `utc`, received at `receivedAt`: the PPS sample it completes, if any.
    func fix(utc: Double, receivedAt: MonotonicInstant) -> PPSSample? {
        tracker.fix(utc: utc, receivedAt: receivedAt)
    }

    /// Time quality now.
    func status(at now: MonotonicInstant) -> PPSStatus {
        if device != nil { return tracker.status(at: now, level: nil) }
        guard let line else { return board.gpio?.line(.gnssPPS) == nil && board.gpio?.ppsDevice == nil ? .none : .waiting }
        return tracker.status(at: now, level: try? line.get())
    }
}
