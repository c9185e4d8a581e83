import BoardConfig
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy
import SensorDrivers

/// The board's magnetometer and accelerometer: opened (and reopened after failures), read at the
/// rate the policy's decision asks for, turned into headings by the heading engine (calibration,
/// the World Magnetic Model reference at the last position, the GNSS course cross-check) and into
/// motion (stillness) by the motion detector.
///
/// Inputs: the policy's decision (``schedule(_:at:report:)``), locations (``updateReference(_:fix:fallbackUTC:)``,
/// and the last one for the cross-check). Outputs: ``HeadingUpdate`` values, the ``MotionDetector``'s
/// verdict, and problems as ``LocationError`` values.
///
/// Only the thread that advances the engine touches it (see `LocationEngine`).
final class SensorSubsystem {
    /// What the sensors did, for the engine's counters.
    struct Counters: Sendable, Equatable {
        /// Heading reads that failed or gave no heading.
        var headingFailures = 0
        /// Sensor reads that failed.
        var sensorFailures = 0
        /// Times the sensors were opened again after failing.
        var sensorReopens = 0
    }

    private let board: BoardDescription
    private let hardware: any HardwarePlatform
    private let clock: any MonotonicClock
    private(set) var counters = Counters()
    /// The opened sensors; `nil` before the first need and after three failed reads in a row.
    var sensors: BoardSensors?
    /// Why the sensors are not working now.
    var problem: String?
    /// Stillness from the accelerometer.
    var motion = MotionDetector()
    /// When the next sample is due (`distantFuture` while the policy wants none).
    private(set) var nextSample = MonotonicInstant.distantFuture
    /// The period between headings while headings are wanted (and between samples, except on a
    /// board with a gyroscope, which samples at least every ``gyroscopeSamplePeriod``).
    var headingPeriod: Duration = .milliseconds(100)
    /// How often a board with a gyroscope samples while headings are wanted, at the longest: the
    /// attitude filter integrates the rates it is given, and at 10 Hz a walker's 2 Hz gait and
    /// quick turns are sampled too coarsely (2.8° RMS through the engine against 1.0° at 50 Hz,
    /// `AttitudeWiringTests`). Headings still come every ``headingPeriod``.
    static let gyroscopeSamplePeriod = Duration.milliseconds(20)
    /// Whether the board's accelerometer has its gyroscope on (`gyro` in its `[[sensor]]`).
    private let hasGyroscope: Bool
    /// When the next heading is due on a board with a gyroscope (samples between only feed the filter).
    private var nextHeadingDue = MonotonicInstant.zero
    private var interval: Duration?
    private var wantsHeading = false
    private var nextAttempt = MonotonicInstant.zero
    var failuresInRow = 0
    private var referencePosition: (Double, Double)?
    private var calibrationValue: MagnetometerCalibration?
    /// When the last burst went through the attitude filter (boards with a gyroscope).
    private var lastInertialSample: MonotonicInstant?
    /// A replay board's recorded samples, read in place of the chips at their recorded instants.
    private let recorded: RecordedSensorSamples?
    /// Called with every burst of raw readings taken (live or recorded), for recorders.
    var onRawSample: ((RawSensorSample) -> Void)?
    /// How often the motion latch is read while it stands in for sampling.
    ///
    /// 5 s: twelve short reads a minute instead of 240, and no motion between two reads is missed
    /// (the chip latches it). The period bounds only how late a motion is noted, and nothing is
    /// served on the strength of the verdict while the latch is in use (no client wants
    /// locations); a client that arrives has the latch read at once, so it finds the motion the
    /// chip latched up to that instant. Longer periods save little more: the daemon's own
    /// once-a-second tick already dominates its idle wakes.
    static let latchReadPeriod = Duration.seconds(5)
    /// The threshold the motion latch is armed with, g: the high-pass-filtered deviation of one
    /// axis. The motion detector counts a standard deviation of |a| above its threshold
    /// (0.015 g) over its window as motion; a sinusoidal motion with that standard deviation
    /// peaks at √2 times it (0.021 g), which the chip rounds down to its step (16 mg at ±2 g on an
    /// LSM303AGR): the chip fires on any motion the detector would call motion along an axis,
    /// and, at eight times the sensor noise (2 mg), not on a still unit.
    var latchThreshold: Double { motion.threshold * 2.0.squareRoot() }
    /// Since when the armed motion latch covers the unit (armed, or last read); `nil` while not armed.
    var latchArmedAt: MonotonicInstant?
    /// Whether the accelerometer's motion latch may be used (false after it failed to arm, until the sensors reopen).
    var latchUsable = true

    init(board: BoardDescription, hardware: any HardwarePlatform, recorded: RecordedSensorSamples? = nil) {
        self.board = board
        self.hardware = hardware
        self.recorded = recorded
        clock = hardware.clock
        hasGyroscope = board.accelerometer?.gyroscopeRange != nil
    }

    /// The magnetometer calibration applied to headings.
    var calibration: MagnetometerCalibration? {
        get { calibrationValue }
        set {
            calibrationValue = newValue
            if let newValue { sensors?.engine.calibration = newValue }
        }
    }

    /// Follows a decision: headings at ``headingPeriod`` while the magnetometer is wanted, motion
    /// detection at 4 Hz, else nothing (and the motion detector forgets). Motion detection with
    /// no client wanting locations (``PowerDecision/motionLatchSuffices``) is left to the
    /// accelerometer chip's motion latch where the chip has one (``SensorDrivers/MotionLatch``),
    /// read every ``latchReadPeriod``; the stillness history goes on across the switches.
    func schedule(_ decision: PowerDecision, at now: MonotonicInstant, report: (LocationError) -> Void) {
        wantsHeading = decision.magnetometer != .powerDown
        let headingSamples = hasGyroscope ? min(headingPeriod, Self.gyroscopeSamplePeriod) : headingPeriod
        var period: Duration? = wantsHeading ? headingSamples : (decision.motionDetection ? .milliseconds(250) : nil)
        if let wanted = period {
            if sensors == nil && now >= nextAttempt { open(report: report) }
            // The chip's motion latch stands in for sampling only on live hardware (a replay has no chip).
            let latch = recorded == nil && !wantsHeading && decision.motionLatchSuffices && latchUsable
            if latch && latchArmedAt == nil { armLatch(at: now, report: report) }
            if !latch && latchArmedAt != nil { disarmLatch(at: now, verdict: true, report: report) }
            period = latchArmedAt == nil ? wanted : Self.latchReadPeriod
            if sensors != nil && (nextSample == .distantFuture || period != interval) {
                // A replay samples when the recording did.
                nextSample = recorded.map { $0.nextDue(from: now) ?? .distantFuture } ?? now.advanced(by: period ?? wanted)
            }
        } else {
            if latchArmedAt != nil { disarmLatch(at: now, verdict: false, report: report) }
            nextSample = .distantFuture
            motion.reset()
        }
        interval = period
    }

    private func open(report: (LocationError) -> Void) {
        let reopening = problem != nil
        do {
            sensors = try recorded == nil ? BoardSensors.open(board, platform: hardware) : BoardSensors.replayed(board)
            lastInertialSample = nil
            latchArmedAt = nil
            latchUsable = true
            if let calibrationValue { sensors?.engine.calibration = calibrationValue }
            problem = nil
            failuresInRow = 0
            if reopening { counters.sensorReopens += 1 }
        } catch {
            let first = problem == nil
            problem = "\(error)"
            nextAttempt = clock.now().advanced(by: .seconds(2))
            if first { report(.headingFailure("\(error)")) }
        }
    }

    /// Takes the sample due now: the accelerometer alone for motion, or both sensors for a heading
    /// (cross-checked against `lastLocation`'s course while it is under 2 s old). Returns the
    /// heading, if one was computed.
    func sample(lastLocation: Location?, report: (LocationError) -> Void) -> HeadingUpdate? {
        let now = clock.now()
        var replayed: RawSensorSample?
        if let recorded {
            replayed = recorded.take(at: now)
            nextSample = interval == nil ? .distantFuture : recorded.nextDue(from: now) ?? .distantFuture
            guard replayed != nil else { return nil }
        } else {
            nextSample = interval.map { now.advanced(by: $0) } ?? .distantFuture
        }
        guard var s = sensors else { return nil }
        if latchArmedAt != nil {
            readLatch(at: now, report: report)
            return nil
        }
        var reader = RawReader(replayed: replayed, at: now)
        defer { if let sample = reader.taken { onRawSample?(sample) } }
        if !wantsHeading {
            do {
                let a = try reader.acceleration(&s)
                motion.add(x: a.x, y: a.y, z: a.z, at: now)
                problem = nil
                failuresInRow = 0
                sensors = s
            } catch {
                sensors = s
                noteFailure("\(error)", report: report)
            }
            return nil
        }
        do {
            let recent = lastLocation.flatMap { $0.age(at: now) < 2 ? $0 : nil }
            var reading: HeadingReading
            if s.attitude != nil {
                reading = try fused(&s, reader: &reader, at: now, recent: recent)
                // Every sample feeds the filter; a heading goes out every headingPeriod.
                guard now >= nextHeadingDue else {
                    sensors = s
                    problem = nil
                    failuresInRow = 0
                    return nil
                }
                nextHeadingDue = nextHeadingDue.advanced(by: headingPeriod)
                if nextHeadingDue <= now { nextHeadingDue = now.advanced(by: headingPeriod) }
            } else {
                let (a, m) = try reader.pair(&s)
                motion.add(x: a.x, y: a.y, z: a.z, at: now)
                reading = s.engine.process(acceleration: a, field: m)
            }
            if let last = recent, let course = last.course, let speed = last.speed {
                HeadingEngine.crossCheck(&reading, course: course, speed: speed)
            }
            sensors = s
            problem = nil
            failuresInRow = 0
            guard let magnetic = reading.magneticHeading else {
                counters.headingFailures += 1
                return nil
            }
            return HeadingUpdate(reading, magnetic: magnetic, takenAt: now)
        } catch {
            sensors = s
            noteFailure("\(error)", report: report)
            return nil
        }
    }

    /// One burst from a board with a gyroscope through the attitude filter: `dt` is the engine
    /// clock's time since the previous burst (a first burst, or one after a gap of more than
    /// ``AttitudeFilter/maximumStep``, starts the filter again from the sensors), and the GNSS
    /// speed and course of a fix under 2 s old go with it (bias learning stops while moving; the
    /// course aids heading when the board says `gnss_course_aid`).
    private func fused(_ s: inout BoardSensors, reader: inout RawReader, at now: MonotonicInstant,
                       recent: Location?) throws(SensorError) -> HeadingReading {
        let (a, w, m) = try reader.inertial(&s)
        motion.add(x: a.x, y: a.y, z: a.z, at: now)
        let dt = lastInertialSample.map { (now - $0).secondsDouble } ?? 0
        lastInertialSample = now
        guard var filter = s.attitude else { return s.engine.process(acceleration: a, field: m) }
        let reading = s.engine.fuse(into: &filter, acceleration: a, field: m, rotationRate: w, deltaTime: dt,
                                    speed: recent?.speed, course: recent?.course)
        s.attitude = filter
        return reading
    }

    /// A failed read: after three in a row the sensors are closed, reported, and opened again
    /// every 2 s until they answer (identity checks and configuration run again).
    func noteFailure(_ message: String, report: (LocationError) -> Void) {
        failuresInRow += 1
        counters.headingFailures += 1
        counters.sensorFailures += 1
        guard failuresInRow >= 3 else { return }
        let first = problem == nil
        problem = message
        sensors = nil
        latchArmedAt = nil
        nextAttempt = clock.now().advanced(by: .seconds(2))
        if first { report(.hardware(.sensorNotAcknowledging, message)) }
    }

    /// A location: once the unit is more than 1 km from where the reference field was last
    /// evaluated, the World Magnetic Model is evaluated again there, at the fix's date (or, for
    /// a fix without one, at `fallbackUTC`, seconds since 1970 from the platform's clock).
    func updateReference(_ location: Location, fix: Fix, fallbackUTC: @autoclosure () -> Double) {
        guard var s = sensors else { return }
        let moved = referencePosition.map {
            Geodesy.distance(latitude1: $0.0, longitude1: $0.1, latitude2: location.latitude, longitude2: location.longitude)
        } ?? .infinity
        guard moved > 1000 else { return }
        let year = Self.decimalYear(utcSeconds: fix.time?.secondsSinceEpoch ?? fallbackUTC())
        let e = WorldMagneticModel.wmm2025.evaluate(latitude: location.latitude, longitude: location.longitude,
                                                    heightKm: (location.ellipsoidalAltitude ?? location.altitude ?? 0) / 1000,
                                                    decimalYear: year)
        s.engine.reference = ReferenceField(e)
        sensors = s
        referencePosition = (location.latitude, location.longitude)
    }

    /// NOAA's decimal year (year + (day of year − 1) / days in the year) of a UTC instant.
    static func decimalYear(utcSeconds: Double) -> Double {
        let date = CalendarDate(daysSinceEpoch: Int((utcSeconds / 86_400).rounded(.down)))
        let start = CalendarDate(year: date.year, month: 1, day: 1)?.daysSinceEpoch ?? date.daysSinceEpoch
        let end = CalendarDate(year: date.year + 1, month: 1, day: 1)?.daysSinceEpoch ?? start + 365
        return Double(date.year) + Double(date.daysSinceEpoch - start) / Double(end - start)
    }
}

extension HeadingUpdate {
    /// The update for a reading of the heading engine with a magnetic heading.
    init(_ reading: HeadingReading, magnetic: Double, takenAt: MonotonicInstant) {
        self.init(magneticHeading: magnetic, trueHeading: reading.trueHeading, headingAccuracy: reading.accuracy ?? -1,
                  x: reading.field.x, y: reading.field.y, z: reading.field.z,
                  accelerationX: reading.acceleration.x, accelerationY: reading.acceleration.y,
                  accelerationZ: reading.acceleration.z,
                  pitch: reading.attitude?.pitch ?? reading.pitch, roll: reading.attitude?.roll ?? reading.roll,
                  inclination: reading.inclination, quality: reading.quality,
                  flags: reading.flags.names, takenAt: takenAt, attitude: reading.attitude)
    }
}
