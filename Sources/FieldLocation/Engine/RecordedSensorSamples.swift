import HardwareInterfaces
import Heading
import LocationAPI
import Synchronization

/// A recording's raw sensor samples for the engine (a replay board): the sensor subsystem reads
/// them in place of its chips, each at its recorded instant, and runs them through calibration,
/// mounting, the heading engine and the attitude filter as it does live readings
/// (``EnginePlatform/recordedSensorSamples``).
public final class RecordedSensorSamples: Sendable {
    private let samples: [RawSensorSample]
    private let next = Mutex(0)
    /// The magnetometer calibration the unit applied when the samples were recorded: the engine
    /// starts with it (a calibration set on the engine afterwards, such as a stored one, replaces it).
    public let calibration: MagnetometerCalibration?

    /// The samples, in time order (``RawSensorSample/takenAt`` on the replay's clock), and the
    /// calibration the unit applied to them.
    public init(_ samples: [RawSensorSample], calibration: MagnetometerCalibration? = nil) {
        self.samples = samples
        self.calibration = calibration
    }

    /// How many samples the recording holds.
    public var count: Int { samples.count }

    /// When the next sample is due, if any is left.
    public var nextDue: MonotonicInstant? { next.withLock { $0 < samples.count ? samples[$0].takenAt : nil } }

    /// When the first sample at or after `instant` is due, if any is left; samples before it
    /// (recorded while the engine did not want them here) are passed over.
    public func nextDue(from instant: MonotonicInstant) -> MonotonicInstant? {
        next.withLock { index in
            while index < samples.count, samples[index].takenAt < instant { index += 1 }
            return index < samples.count ? samples[index].takenAt : nil
        }
    }

    /// The sample due at `instant`: the last one at or before it (earlier ones, which the engine
    /// did not ask for, are passed over), or `nil` when none is due.
    public func take(at instant: MonotonicInstant) -> RawSensorSample? {
        next.withLock { index in
            var found: RawSensorSample?
            while index < samples.count, samples[index].takenAt <= instant {
                found = samples[index]
                index += 1
            }
            return found
        }
    }
}
