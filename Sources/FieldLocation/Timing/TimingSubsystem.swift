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
    private var tracker = PPSTracker()
    private var requestFailed = false

    init(board: BoardDescription, hardware: any HardwarePlatform) {
        self.board = board
        self.hardware = hardware
    }

    /// Requests the board's PPS line once; a failure is reported once and not retried.
    func ensureLine(report: (LocationError) -> Void) {
        guard line == nil, !requestFailed, let gpio = board.gpio, let id = gpio.line(.gnssPPS) else { return }
        do {
            line = try hardware.requestInput(chip: gpio.chip, line: id, edges: .rising, bias: .asIs)
        } catch {
            requestFailed = true
            report(.hardware(.other, "PPS line: \(error); time comes from NMEA only"))
        }
    }

    /// Takes the edges the kernel queued (no waiting).
    func drain() {
        guard let line else { return }
        while let event = try? line.waitForEdge(deadline: hardware.clock.now()) {
            if event.edge == .rising { tracker.pulse(at: event.timestamp) }
        }
    }

    /// A fix naming UTC second `utc`, received at `receivedAt`: the PPS sample it completes, if any.
    func fix(utc: Double, receivedAt: MonotonicInstant) -> PPSSample? {
        tracker.fix(utc: utc, receivedAt: receivedAt)
    }

    /// Time quality now.
    func status(at now: MonotonicInstant) -> PPSStatus {
        guard let line else { return board.gpio?.line(.gnssPPS) == nil ? .none : .waiting }
        return tracker.status(at: now, level: try? line.get())
    }
}
