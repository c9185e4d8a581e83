import HardwareInterfaces
import LocationAPI
import LocationServices
import SensorDrivers

/// The accelerometer chip's motion latch standing in for 4 Hz sampling while no client wants
/// locations: armed, read every ``SensorSubsystem/latchReadPeriod``, and its verdicts handed to
/// the motion detector as intervals (``MotionDetector/addLatched(moved:from:to:)``).
extension SensorSubsystem {
    /// Arms the latch when the accelerometer has one; a chip without one, or a failed arm,
    /// leaves the 4 Hz sampling in place (a failed arm is not tried again until the sensors reopen).
    func armLatch(at now: MonotonicInstant, report: (LocationError) -> Void) {
        guard var s = sensors, var latch = s.accelerometer as? any MotionLatch else {
            latchUsable = sensors == nil
            return
        }
        do {
            try latch.armMotionLatch(threshold: latchThreshold)
            s.accelerometer = latch
            sensors = s
            motion.reset()
            latchArmedAt = now
        } catch {
            s.accelerometer = latch
            sensors = s
            latchUsable = false
            // Back to sampling from the chip's own configuration: a half-armed chip is disarmed.
            disarm(&s, report: report)
        }
    }

    /// Reads and clears the latch: the interval since it was armed or last read gets its verdict.
    func readLatch(at now: MonotonicInstant, report: (LocationError) -> Void) {
        guard var s = sensors, let start = latchArmedAt, var latch = s.accelerometer as? any MotionLatch else { return }
        do {
            let moved = try latch.takeMotionLatch()
            s.accelerometer = latch
            sensors = s
            motion.addLatched(moved: moved, from: start, to: now)
            latchArmedAt = now
            problem = nil
            failuresInRow = 0
        } catch {
            s.accelerometer = latch
            sensors = s
            noteFailure("\(error)", report: report)
        }
    }

    /// Stops using the latch: with `verdict`, reads it a last time first (a client arriving
    /// finds the motion latched up to now), then disarms it (the chip goes back to the
    /// configuration the samples are read in).
    func disarmLatch(at now: MonotonicInstant, verdict: Bool, report: (LocationError) -> Void) {
        if verdict { readLatch(at: now, report: report) }
        latchArmedAt = nil
        motion.reset()
        guard var s = sensors else { return }
        disarm(&s, report: report)
    }

    private func disarm(_ s: inout BoardSensors, report: (LocationError) -> Void) {
        guard var latch = s.accelerometer as? any MotionLatch else { return }
        do {
            try latch.disarmMotionLatch()
            s.accelerometer = latch
            sensors = s
        } catch {
            s.accelerometer = latch
            sensors = s
            noteFailure("\(error)", report: report)
        }
    }
}
