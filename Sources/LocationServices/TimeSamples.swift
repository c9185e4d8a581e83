import HardwareInterfaces
import NMEA

/// Decides which fixes and pulses become time samples for chrony or ntpd, and measures the
/// receiver's sentence delay against PPS.
///
/// Rules (written down in `docs/TIME-SERVICE.md`):
/// - **Serial time** comes from a fix with mode 2D or better whose UTC time has a date. Where the
///   receiver states validity (UBX, CASIC), it must say date and time valid. The time must be
///   *confirmed*: ``Configuration/confirmations`` successive fixes whose UTC times advance as the
///   system's monotonic clock does (within ``Configuration/tolerance``), or a receiver that says it
///   confirmed the time itself (u-blox `confirmedTime`). A receiver that loses its fix, or whose time
///   jumps, starts the confirmation again; no sample goes out meanwhile.
/// - The sample pairs the arrival of the epoch's first byte (system time) with the epoch's UTC
///   second plus ``Configuration/timeOffset``: the receiver's delay from the start of the second
///   to its first byte, as gpsd's `fudge time1` and chrony's `offset`.
/// - **PPS**: a pulse gives a sample only while the serial time is confirmed, and only for the
///   second the last confirmed epoch names or the one after it (receivers send the time after the
///   pulse): never a pulse paired with the wrong second.
/// - **Leap seconds**: an announced leap second is passed on only in June and December, when
///   leap seconds happen (as gpsd does: receivers announce them months ahead).
public struct TimeSampler: Sendable {
    /// What the sampler is told about the receiver.
    public struct Configuration: Sendable, Hashable {
        /// Seconds from the start of the UTC second to the arrival of its epoch's first byte
        /// (the board's `time_offset`; ``TimeSampler/measuredSentenceDelay`` measures it with PPS).
        public var timeOffset: Double
        /// Successive consistent fixes needed before the serial time is trusted.
        public var confirmations: Int
        /// How far the fix-to-fix UTC step may differ from the monotonic step, seconds.
        public var tolerance: Double

        /// A configuration (defaults: no offset, 3 consistent fixes, 0.25 s).
        public init(timeOffset: Double = 0, confirmations: Int = 3, tolerance: Double = 0.25) {
            self.timeOffset = timeOffset.isFinite ? timeOffset : 0
            self.confirmations = max(1, confirmations)
            self.tolerance = tolerance.isFinite && tolerance > 0 ? tolerance : 0.25
        }
    }

    /// Why no sample was given.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The fix has no 2D or 3D solution.
        case noFix
        /// The fix has no UTC time with a date.
        case noTime
        /// The receiver says its date or time is not valid.
        case receiverSaysInvalid
        /// The time is not yet confirmed: `consistent` of `needed` fixes.
        case unconfirmed(consistent: Int, needed: Int)
        /// A pulse came while the serial time was not confirmed.
        case pulseWithoutConfirmedSecond
        /// A pulse named a second that is neither the last confirmed epoch's nor the next.
        case pulseForOtherSecond(pulse: Int64, epoch: Int64)

        public var description: String {
            switch self {
            case .noFix: return "no fix"
            case .noTime: return "no UTC date and time"
            case .receiverSaysInvalid: return "the receiver says its time is not valid"
            case .unconfirmed(let consistent, let needed): return "time not confirmed yet (\(consistent) of \(needed) consistent fixes)"
            case .pulseWithoutConfirmedSecond: return "pulse without a confirmed second"
            case .pulseForOtherSecond(let pulse, let epoch): return "pulse for second \(pulse) while the last epoch named \(epoch)"
            }
        }
    }

    /// The configuration.
    public var configuration: Configuration
    private var consistent = 0
    private var last: (utc: Int64, monotonic: MonotonicInstant)?
    private var confirmedSecond: Int64?
    private var delays: [Int64] = []
    private var delayNext = 0

    /// A sampler.
    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Whether the serial time is confirmed now.
    public var isConfirmed: Bool { confirmedSecond != nil }

    /// The median delay from a pulse to the arrival of its second's sentences over the last 16
    /// paired pulses, seconds: the value to give ``Configuration/timeOffset`` (chrony's `offset` for the
    /// serial source). `nil` before any pulse was paired.
    public var measuredSentenceDelay: Double? {
        guard !delays.isEmpty else { return nil }
        let sorted = delays.sorted()
        return Double(sorted[sorted.count / 2]) / 1e9
    }

    /// The serial-time sample of `fix`, which started arriving at `arrivalSystemNanoseconds` (system
    /// clock) and `arrival` (monotonic clock). `pendingLeap` is the receiver's announced leap second
    /// (+1, -1), if any.
    public mutating func serial(_ fix: Fix, arrivalSystemNanoseconds: Int64, arrival: MonotonicInstant,
                                pendingLeap: Int? = nil) -> Result<TimeReferenceSample, Refusal> {
        guard fix.mode >= .twoD else { return refuse(.noFix) }
        guard let time = fix.time else { return refuse(.noTime) }
        if let validity = fix.timeValidity, !validity.isSuperset(of: [.validDate, .validTime]) {
            return refuse(.receiverSaysInvalid)
        }
        let utc = time.nanosecondsSinceEpoch
        if let last, utc > last.utc, arrival > last.monotonic {
            let step = Double(utc - last.utc) / 1e9
            let elapsed = (arrival - last.monotonic).secondsDouble
            consistent = abs(step - elapsed) <= configuration.tolerance ? consistent + 1 : 1
        } else {
            consistent = 1
        }
        last = (utc, arrival)
        let receiverConfirmed = fix.timeValidity?.isSuperset(of: [.confirmedDate, .confirmedTime]) == true
        guard consistent >= configuration.confirmations || receiverConfirmed else {
            confirmedSecond = nil
            return .failure(.unconfirmed(consistent: consistent, needed: configuration.confirmations))
        }
        confirmedSecond = utc.floorSeconds
        let reference = utc + Int64((configuration.timeOffset * 1e9).rounded())
        return .success(TimeReferenceSample(systemNanoseconds: arrivalSystemNanoseconds, referenceNanoseconds: reference,
                                            isPulse: false, leap: TimeSampler.leap(pendingLeap, at: utc), precision: -1))
    }

    /// The PPS sample of `pulse`, whose edge the kernel stamped at `edgeSystemNanoseconds` (system clock;
    /// the pulse's own ``PPSSample/edgeSystemNanoseconds`` where the platform gave it).
    public mutating func pulse(_ pulse: PPSSample, edgeSystemNanoseconds: Int64, pendingLeap: Int? = nil) -> Result<TimeReferenceSample, Refusal> {
        guard let epoch = confirmedSecond else { return .failure(.pulseWithoutConfirmedSecond) }
        guard pulse.utcSecond == epoch || pulse.utcSecond == epoch + 1 else {
            return .failure(.pulseForOtherSecond(pulse: pulse.utcSecond, epoch: epoch))
        }
        if pulse.nmeaArrival > pulse.edge {
            let delay = Int64((pulse.nmeaArrival - pulse.edge).nanosecondsClamped)
            if delay < 1_000_000_000 {
                if delays.count < 16 { delays.append(delay) } else { delays[delayNext] = delay }
                delayNext = (delayNext + 1) % 16
            }
        }
        let reference = pulse.utcSecond * 1_000_000_000
        return .success(TimeReferenceSample(systemNanoseconds: edgeSystemNanoseconds, referenceNanoseconds: reference,
                                            isPulse: true, leap: TimeSampler.leap(pendingLeap, at: reference), precision: -20,
                                            systemErrorNanoseconds: pulse.edgeSystemErrorNanoseconds))
    }

    private mutating func refuse(_ refusal: Refusal) -> Result<TimeReferenceSample, Refusal> {
        consistent = 0
        last = nil
        confirmedSecond = nil
        return .failure(refusal)
    }

    /// The leap indicator for an announced `change` at UTC `nanoseconds`: only in June and December.
    static func leap(_ change: Int?, at nanoseconds: Int64) -> TimeReferenceSample.Leap {
        guard let change, change != 0 else { return .none }
        let month = CalendarDate(daysSinceEpoch: Int(nanoseconds.floorSeconds.floorDivided(by: 86_400))).month
        guard month == 6 || month == 12 else { return .none }
        return change > 0 ? .insert : .delete
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor < 0) ? q - 1 : q
    }

    fileprivate var floorSeconds: Int64 { floorDivided(by: 1_000_000_000) }
}
