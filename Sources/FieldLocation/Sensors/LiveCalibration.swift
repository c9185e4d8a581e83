import HardwareInterfaces
import Heading
import SensorDrivers

/// The guided calibration routine on live sensors: sample the magnetometer while the unit is
/// turned through every orientation, refit as samples arrive, report coverage as it grows, and
/// stop as soon as the calibration is good (or at the time limit).
public struct LiveCalibration {
    /// Progress reported along the way.
    public struct Progress: Sendable {
        /// Seconds since the start.
        public var seconds: Double
        /// Samples collected.
        public var samples: Int
        /// The fit so far, if one could be made.
        public var calibration: MagnetometerCalibration?
    }

    /// Samples per second.
    public var rate: Double = 10
    /// Give up after this long.
    public var timeout: Duration = .seconds(180)
    /// Refit this often.
    public var refitEvery: Duration = .seconds(3)
    /// The expected field (WMM total intensity), µT, when known.
    public var expectedField: Double?
    /// Samples needed before a good fit may end the routine.
    public var minimumSamples = 150

    /// Creates a routine.
    public init() {}

    /// Runs on `sensors` with `clock`, calling `progress` after each refit. Returns the last fit
    /// (good, or the best reached at the time limit) and the samples.
    public func run(_ sensors: inout BoardSensors, clock: any MonotonicClock,
                    progress: (Progress) -> Void) throws(SensorError) -> (MagnetometerCalibration?, [Vector3]) {
        let start = clock.now()
        let end = start.advanced(by: timeout)
        let interval = Duration.nanoseconds(Int64(1e9 / max(1, rate)))
        var nextRefit = start.advanced(by: refitEvery)
        var samples: [Vector3] = []
        var last: MagnetometerCalibration? = nil
        var next = start
        while clock.now() < end {
            clock.sleep(until: next)
            next = next.advanced(by: interval)
            let m = try sensors.magnetometer.read().field
            samples.append(Vector3(m.x, m.y, m.z))
            if clock.now() >= nextRefit {
                nextRefit = nextRefit.advanced(by: refitEvery)
                last = try? CalibrationFitter.fit(samples, expectedField: expectedField)
                progress(Progress(seconds: (clock.now() - start).secondsDouble, samples: samples.count, calibration: last))
                if let fit = last, fit.quality.verdict == .good, samples.count >= minimumSamples { break }
            }
        }
        if last == nil || last?.quality.sampleCount != samples.count {
            last = try? CalibrationFitter.fit(samples, expectedField: expectedField)
        }
        return (last, samples)
    }
}
