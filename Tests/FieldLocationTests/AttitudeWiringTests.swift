import FieldLocationStore
import EnginePlatforms
import LocationAPI
import BoardConfig
@testable import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import Heading
import LocationServices
import PowerPolicy
import SensorDrivers
import SimulatedHardware
import Testing

/// The attitude filter in the engine (issue 18): board option, sensor subsystem, surfaces, recording.
@Suite("Attitude filter wiring")
struct AttitudeWiringTests {
    /// A simulated board with the Adafruit 4517's chips: LSM6DSOX (accelerometer and gyroscope) and LIS3MDL.
    static func boardText(gyro: String? = "true", extra: String = "") -> String {
        """
        name = "sim-gyro"
        title = "Simulated LSM6DSOX + LIS3MDL"
        simulated = true

        [receiver]
        baud = 9600
        family = "mtk"
        model = "MT3339 (simulated)"
        wake = "uart-byte"

        [i2c]
        bus = 1

        [[sensor]]
        chip = "lsm6dsox"
        address = 0x6a
        orientation = [[1, 0, 0], [0, -1, 0], [0, 0, -1]]
        \(gyro.map { "gyro = \($0)" } ?? "")
        \(extra)

        [[sensor]]
        chip = "lis3mdl"
        address = 0x1c
        orientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

        [sim]
        latitude = 47.3769
        longitude = 8.5417
        scenario = "stationary"
        """
    }

    static func board(gyro: String? = "true", extra: String = "") throws -> BoardDescription {
        try BoardLoader.load(text: boardText(gyro: gyro, extra: extra), file: "test board")
    }

    /// The simulated chips' iron distortion undone: what a good calibration gives.
    static var calibration: MagnetometerCalibration {
        let d = IronDistortion.typical
        return MagnetometerCalibration(
            offset: d.hardIron, softIron: d.softIron.inverse ?? .identity, fieldStrength: 48,
            quality: CalibrationQuality(residualRMS: 0.2, relativeResidual: 0.004, coverage: 0.9, shapeRatio: 1.1,
                                        scaleRatio: nil, sampleCount: 600, method: .ellipsoid))
    }

    /// 0 → 1 smoothly over [0, 1].
    static func ease(_ x: Double) -> Double { x <= 0 ? 0 : x >= 1 ? 1 : 0.5 - 0.5 * cos(Double.pi * x) }

    /// A walker's gait (2 Hz, 0.3 g bounce, 0.15 g surge, 0.08 g sway) from 5 s on: the unit is
    /// switched on standing, as a carried unit is.
    static let walking: LinearMotion = .custom { t, attitude in
        t < 5 ? .zero : LinearMotion.gait().acceleration(at: t, attitude: attitude)
    }

    /// A walker holding the unit 12° nose up: straight, a 90° turn over 2 s at 10 s, a 180° turn
    /// over 3 s at 25 s.
    static let walker: MotionScript = .custom { t in
        let yaw = 40 + 90 * ease((t - 10) / 2) + 180 * ease((t - 25) / 3)
        return BodyAttitude(yaw: wrap360(yaw), pitch: 12, roll: -4)
    }

    /// Runs the sensor subsystem for `seconds` at 100 Hz on a manual clock; returns the updates
    /// and, for each, the true magnetic heading of the world at its time.
    static func run(_ board: BoardDescription, seconds: Double, motion: MotionScript = walker,
                    linearMotion: LinearMotion? = walking, period: Duration? = .milliseconds(10),
                    fix: (@Sendable (MonotonicInstant) -> Location?)? = nil) throws -> (updates: [HeadingUpdate], truth: [Double]) {
        let platform = try BoardHardware.simulatedPlatform(for: board, motion: motion, linearMotion: linearMotion)
        let declination = WorldMagneticModel.wmm2025.evaluate(latitude: 47.3769, longitude: 8.5417, heightKm: 0,
                                                              decimalYear: 2026.5).declination
        let policy = PowerPolicy(profile: .mt3339)
        let decision = policy.decide([ClientDemand(client: "h", desiredAccuracy: nil, wantsHeading: true, headingFilter: nil)],
                                     state: PolicyState())
        let sensors = SensorSubsystem(board: board, hardware: platform)
        if let period { sensors.headingPeriod = period }
        sensors.calibration = calibration
        var reports: [LocationError] = []
        sensors.schedule(decision, at: platform.clock.now()) { reports.append($0) }
        var updates: [HeadingUpdate] = [], truth: [Double] = []
        let end = platform.clock.now().advanced(by: .milliseconds(Int64(seconds * 1000)))
        while sensors.nextSample < end {
            platform.clock.sleep(until: sensors.nextSample)
            if let h = sensors.sample(lastLocation: fix?(platform.clock.now()), report: { reports.append($0) }) {
                updates.append(h)
                truth.append(wrap360(motion.attitude(at: h.takenAt.seconds).yaw - declination))
            }
        }
        #expect(reports.isEmpty, "\(reports)")
        return (updates, truth)
    }

    static func rms(_ errors: [Double]) -> Double {
        (errors.map { $0 * $0 }.reduce(0, +) / Double(max(1, errors.count))).squareRoot()
    }

    // MARK: Board files

    @Test("gyro = true turns a gyroscope chip's gyroscope on at ±500 dps; a range, false, and the mistakes")
    func boardOption() throws {
        #expect(try Self.board().accelerometer?.gyroscopeRange == 500)
        #expect(try Self.board(gyro: "2000").accelerometer?.gyroscopeRange == 2000)
        #expect(try Self.board(gyro: "false").accelerometer?.gyroscopeRange == nil)
        #expect(try Self.board(gyro: nil).accelerometer?.gyroscopeRange == nil)
        #expect(try Self.board().accelerometer?.gnssCourseAid == false)
        #expect(try Self.board(extra: "gnss_course_aid = true").accelerometer?.gnssCourseAid == true)
        #expect(try BoardCatalog.load(builtin: "sim").accelerometer?.gyroscopeRange == 500)
        #expect(try BoardCatalog.load(builtin: "pizero2w-adafruit-gps-hat-lis3mdl-lsm6dsox").accelerometer?.gyroscopeRange == 500)
        #expect(try BoardCatalog.load(builtin: "pi-l76k-icm20948").accelerometer?.gyroscopeRange == 500)

        func message(_ text: String) -> String {
            do { _ = try BoardLoader.load(text: text, file: "b"); return "" } catch { return error.description }
        }
        #expect(message(Self.boardText(gyro: "300")).contains("key 'gyro': 300 dps is not a lsm6dsox gyroscope range (125, 250, 500, 1000, 2000)"))
        #expect(message(Self.boardText(gyro: "\"on\"")).contains("key 'gyro': expected true, false or a range"))
        #expect(message(Self.boardText(gyro: "false", extra: "gnss_course_aid = true")).contains("key 'gnss_course_aid'"))
        let onMagnetometer = Self.boardText(gyro: nil).replacingOccurrences(of: "chip = \"lis3mdl\"", with: "chip = \"lis3mdl\"\ngyro = true")
        #expect(message(onMagnetometer).contains("key 'gyro': lis3mdl has no gyroscope"))
    }

    @Test("without gyro the LSM6DSOX's gyroscope stays powered down and the subsystem keeps tilt compensation")
    func noGyroscopeKeepsTodaysPath() throws {
        let board = try Self.board(gyro: nil)
        // Headings every 100 ms on both; the board with a gyroscope samples every 20 ms between.
        let decision = PowerPolicy(profile: .mt3339).decide(
            [ClientDemand(client: "h", desiredAccuracy: nil, wantsHeading: true, headingFilter: nil)], state: PolicyState())
        for (b, expected) in [(board, Duration.milliseconds(100)), (try Self.board(), .milliseconds(20))] {
            let platform = try BoardHardware.simulatedPlatform(for: b)
            let subsystem = SensorSubsystem(board: b, hardware: platform)
            #expect(subsystem.headingPeriod == .milliseconds(100))
            subsystem.schedule(decision, at: platform.clock.now()) { _ in }
            #expect(subsystem.nextSample == platform.clock.now().advanced(by: expected))
        }
        let platform = try BoardHardware.simulatedPlatform(for: board)
        var sensors = try BoardSensors.open(board, platform: platform)
        #expect(!sensors.hasGyroscope)
        #expect(throws: SensorError.self) { _ = try sensors.readInertial() }
        let address = try #require(I2CAddress(UInt8(0x6A)))
        let device = try #require(platform.bus(1)?.device(at: address))
        let ctrl2G = (device as? SimulatedRegisterDevice<LSM6DSOXModel>)?.withModel { $0.registers[0x11] }
        #expect(ctrl2G == 0x00, "gyroscope off")
        let (updates, _) = try Self.run(board, seconds: 2, motion: .still(BodyAttitude(yaw: 30)), linearMotion: nil)
        #expect(!updates.isEmpty && updates.allSatisfy { $0.attitude == nil })

        let gyroBoard = try Self.board()
        let gyroPlatform = try BoardHardware.simulatedPlatform(for: gyroBoard)
        let withGyro = try BoardSensors.open(gyroBoard, platform: gyroPlatform)
        #expect(withGyro.hasGyroscope)
        let gyroDevice = try #require(gyroPlatform.bus(1)?.device(at: address))
        let gyroCtrl2G = (gyroDevice as? SimulatedRegisterDevice<LSM6DSOXModel>)?.withModel { $0.registers[0x11] }
        #expect(gyroCtrl2G == 0x44, "104 Hz, ±500 dps")
    }

    // MARK: End to end

    @Test("a walking, turning unit: headings come from the filter, within 2° RMS where tilt compensation is far off",
          arguments: [Duration?.some(.milliseconds(10)), nil])
    func walkingEndToEnd(period: Duration?) throws {
        let (updates, truth) = try Self.run(try Self.board(), seconds: 40, period: period)
        // Without a period set, headings come at 10 Hz (the filter runs at 50 Hz between them).
        let expected = 40 / (period ?? .milliseconds(100)).secondsDouble
        #expect(Double(updates.count) > 0.98 * expected && Double(updates.count) <= expected + 1, "\(updates.count)")
        #expect(updates.allSatisfy { $0.attitude != nil })
        var fused: [Double] = [], tilt: [Double] = []
        for (h, t) in zip(updates, truth) where h.takenAt.seconds >= 5 {
            fused.append(wrap180(h.magneticHeading - t))
            if case .success(let s) = TiltCompensation.solve(acceleration: Vector3(h.accelerationX, h.accelerationY, h.accelerationZ),
                                                             field: Vector3(h.x, h.y, h.z)) {
                tilt.append(wrap180(s.magneticHeading - t))
            }
        }
        let fusedRMS = Self.rms(fused), tiltRMS = Self.rms(tilt)
        #expect(fusedRMS < 2, "filter \(fusedRMS)° RMS")
        #expect(tiltRMS > 5, "tilt compensation \(tiltRMS)° RMS")
        print("walking through the engine, headings every \(period ?? .milliseconds(100)): filter \(fusedRMS)° RMS, tilt compensation \(tiltRMS)° RMS")
        // The gyroscope always propagates; the gait's acceleration is not gated off but averaged
        // out in the filter's low-pass, so the accelerometer is believed on every update.
        let sources = updates.dropFirst(1).compactMap { $0.attitude?.sources }
        #expect(sources.allSatisfy { $0.contains(.gyroscope) })
        #expect(sources.allSatisfy { $0.contains(.accelerometer) })
        #expect(sources.contains { $0.contains(.accelerometer) && $0.contains(.magnetometer) })
        // Pitch and roll are the filter's: the unit is held 12° nose up, 4° left side down.
        let last = try #require(updates.last)
        #expect(abs((last.pitch ?? 0) - 12) < 2 && abs((last.roll ?? 0) + 4) < 2, "\(String(describing: last.pitch)) \(String(describing: last.roll))")
        // The rates are reported in body axes: a still unit reads about zero.
        #expect(abs(last.attitude?.rotationRate.z ?? 99) < 1)
    }

    @Test("the turn rate is reported in body axes (the LSM6DSOX is mounted upside down) and the bias estimate grows still")
    func ratesAndStillness() throws {
        let turning: MotionScript = .turning(yawRate: 20, pitch: 0, roll: 0)
        let (updates, _) = try Self.run(try Self.board(), seconds: 3, motion: turning, linearMotion: nil)
        let rates = updates.dropFirst(10).compactMap { $0.attitude?.rotationRate.z }
        #expect(rates.allSatisfy { abs($0 - 20) < 0.5 }, "body z rate \(rates.prefix(5))")
        let (still, _) = try Self.run(try Self.board(), seconds: 3, motion: .still(BodyAttitude(yaw: 10)), linearMotion: nil)
        #expect(still.last?.attitude?.isStill == true)
        #expect(still.last?.quality == .good)
    }

    // MARK: Surfaces

    @Test("status shows the filter's state on a board with a gyroscope, and nothing new without one")
    func statusShowsFilter() throws {
        let (updates, _) = try Self.run(try Self.board(), seconds: 2, motion: .still(BodyAttitude(yaw: 10)), linearMotion: nil)
        let h = try #require(updates.last)
        let snapshot = StatusSnapshot(board: "sim-gyro", boardTitle: "t", receiver: "r", fix: nil, fixAge: nil, heading: h,
                                      headingAge: 0, calibration: nil, decision: nil, energy: EnergyLedger(), uptime: 1,
                                      counters: LocationEngine.Counters(), warnings: [])
        let text = StatusView.text(snapshot)
        #expect(text.contains("Filter     believes gyroscope, accelerometer, magnetometer"), "\(text)")
        #expect(text.contains("bias"))
        let json = StatusView.json(snapshot)
        #expect(json.contains("\"attitude\":{\"roll\":"))
        #expect(json.contains("\"sources\":[\"gyroscope\",\"accelerometer\",\"magnetometer\"]"))
        var plain = h
        plain.attitude = nil
        let plainSnapshot = StatusSnapshot(board: "sim", boardTitle: "t", receiver: "r", fix: nil, fixAge: nil, heading: plain,
                                           headingAge: 0, calibration: nil, decision: nil, energy: EnergyLedger(), uptime: 1,
                                           counters: LocationEngine.Counters(), warnings: [])
        #expect(!StatusView.text(plainSnapshot).contains("Filter"))
        #expect(!StatusView.json(plainSnapshot).contains("attitude"))
    }

    // MARK: Recording

    @Test("recorded samples (t_s and gyro columns) replay through fieldloc heading --samples to the same headings")
    func recordRoundTrip() throws {
        // As fieldloc record runs the engine: a heading for every sample the filter takes.
        let (updates, _) = try Self.run(try Self.board(), seconds: 20, period: LocationEngine.gyroscopeSamplePeriod)
        #expect(updates.count >= 990, "\(updates.count)")
        let start = try #require(updates.first).takenAt
        var csv = HeadingCSV.recordedHeader + "\n"
        for h in updates {
            csv += try #require(HeadingCSV.recordedRow(h, seconds: (h.takenAt - start).secondsDouble)) + "\n"
        }
        #expect(HeadingCSV.recordedHeader == "t_s,acc_x_g,acc_y_g,acc_z_g,mag_x_uT,mag_y_uT,mag_z_uT,gyro_x_dps,gyro_y_dps,gyro_z_dps,speed_mps,course_deg")
        let (out, warnings) = try HeadingCSV.process(csv, file: "rec.samples.csv")
        #expect(warnings.isEmpty, "\(warnings.prefix(3))")
        let replayed = out.split(separator: "\n").dropFirst().map { Double($0.split(separator: ",", omittingEmptySubsequences: false)[0]) }
        #expect(replayed.count == updates.count)
        var worst = 0.0
        for (h, r) in zip(updates, replayed) {
            let r = try #require(r)
            worst = max(worst, abs(wrap180(h.magneticHeading - r)))
        }
        #expect(worst < 0.05, "replay differs by up to \(worst)°")
        var plain = try #require(updates.first)
        plain.attitude = nil
        #expect(HeadingCSV.recordedRow(plain, seconds: 0) == nil)
    }

    @Test("a car's recorded samples carry the fix's speed and course the filter had, and replay through fieldloc heading --samples to the same headings")
    func recordRoundTripInACar() throws {
        // 15 m/s: straight for 5 s, then a right turn at 10 °/s for 25 s (0.27 g to the right);
        // a fix (speed, course) from 0.4 s before every sample.
        let turn: MotionScript = .custom { t in BodyAttitude(yaw: wrap360(40 + 10 * max(0, t - 5)), pitch: 0, roll: 0) }
        let corner: LinearMotion = .vehicle(longitudinal: { _ in 0 }, lateral: { $0 < 5 ? 0 : 15 * (10 * Double.pi / 180) / 9.80665 },
                                            vibration: 0)
        let start = MonotonicInstant.zero
        let fix: @Sendable (MonotonicInstant) -> Location? = { now in
            let t = (now - start).secondsDouble
            return Location(latitude: 47.3769, longitude: 8.5417, horizontalAccuracy: 3, receivedAt: now.advanced(by: .milliseconds(-400)),
                            speed: 15, course: wrap360(40 + 10 * max(0, t - 5.4)))
        }
        let (updates, truth) = try Self.run(try Self.board(), seconds: 30, motion: turn, linearMotion: corner,
                                            period: LocationEngine.gyroscopeSamplePeriod, fix: fix)
        let first = try #require(updates.first)
        #expect(first.attitude?.groundSpeed == 15 && first.attitude?.groundCourse != nil)
        var csv = HeadingCSV.recordedHeader + "\n"
        for h in updates {
            csv += try #require(HeadingCSV.recordedRow(h, seconds: (h.takenAt - first.takenAt).secondsDouble)) + "\n"
        }
        let (out, warnings) = try HeadingCSV.process(csv, file: "car.samples.csv")
        #expect(warnings.isEmpty, "\(warnings.prefix(3))")
        let replayed = out.split(separator: "\n").dropFirst().map { Double($0.split(separator: ",", omittingEmptySubsequences: false)[0]) }
        #expect(replayed.count == updates.count)
        var worst = 0.0
        for (h, r) in zip(updates, replayed) { worst = max(worst, abs(wrap180(h.magneticHeading - (r ?? .nan)))) }
        #expect(worst < 0.05, "replay differs by up to \(worst)°")
        // The corner is compensated live: the heading follows the turn.
        let errors = zip(updates, truth).dropFirst(300).map { wrap180($0.magneticHeading - $1) }
        #expect(Self.rms(errors) < 2, "\(Self.rms(errors))° RMS in the corner")
        // Without the speed and course columns the replay tilts in the corner and goes astray.
        let blind = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).prefix(10).joined(separator: ",") }
        let (blindOut, _) = try HeadingCSV.process(blind.joined(separator: "\n"), file: "car.samples.csv")
        let blindHeadings = blindOut.split(separator: "\n").dropFirst().map { Double($0.split(separator: ",", omittingEmptySubsequences: false)[0]) ?? .nan }
        let blindErrors = zip(blindHeadings, truth).dropFirst(300).map { wrap180($0 - $1) }
        #expect(Self.rms(blindErrors) > 2 * Self.rms(errors), "without the fix: \(Self.rms(blindErrors))° RMS")
    }
}
