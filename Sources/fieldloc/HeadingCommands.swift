import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import Heading
import LinuxHardware
import LocationAPI
import SensorDrivers

extension FieldLoc {
    /// `fieldloc heading --samples FILE.csv`: tilt-compensated heading of recorded samples.
    struct HeadingCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "heading",
            abstract: "Tilt-compensated (or, with gyroscope columns, fused) magnetic and true heading of recorded samples.",
            discussion: """
            Reads rows 'acc_x_g,acc_y_g,acc_z_g,mag_x_uT,mag_y_uT,mag_z_uT' (optional 'declination_deg'), in \
            the body frame (x forward, y right, z down; a level still unit reads acc_z_g = -1), calibrated. \
            Prints 'magnetic_heading_deg,true_heading_deg,pitch_deg,roll_deg' per row (headings in \
            [0, 360)); true heading is empty without a declination, and the headings are empty (with a \
            warning naming the line) where no heading exists. \
            With 't_s,gyro_x_dps,gyro_y_dps,gyro_z_dps' as well (seconds; body rates in degrees per \
            second) the rows go through the attitude filter in time order (docs/ATTITUDE.md) and each \
            row gets the filter's heading and tilt after it, and its attitude quaternion 'q_w,q_x,q_y,q_z' \
            (body to magnetic north-east-down). A vehicle's GNSS 'speed_mps,course_deg' may come beside \
            them (cells may be empty: no fix); above 2 m/s its centripetal and longitudinal acceleration \
            come off the accelerometer, as the engine does with its fix. --lat/--lon give the filter the WMM2025 field there (the \
            prior of its field reference) and a declination for rows without one; --year before 2025 is \
            accepted with a warning.
            """)

        @Option(help: "CSV file of body-frame samples.")
        var samples: String

        @Option(help: "Latitude where the samples were taken, degrees (for the attitude filter's reference field).")
        var lat: Double?

        @Option(help: "Longitude where the samples were taken, degrees.")
        var lon: Double?

        @Option(help: "Decimal year of the samples for the reference field (default: now).")
        var year: Double?

        func validate() throws {
            if (lat == nil) != (lon == nil) { throw ValidationError("give both --lat and --lon, or neither") }
            if let lat, !(lat.isFinite && (-90...90).contains(lat)) { throw ValidationError("--lat \(lat) is outside -90...90") }
            if let lon, !(lon.isFinite && (-180...360).contains(lon)) { throw ValidationError("--lon \(lon) is outside -180...360") }
            if let year, !(year.isFinite && HeadingCSV.plausibleYears.contains(year)) {
                throw ValidationError("--year \(year) is not a plausible decimal year (1900 to 2100)")
            }
        }

        func run() throws {
            guard let data = FileManager.default.contents(atPath: samples) else {
                throw ValidationError("cannot read \(samples): no such file or no permission")
            }
            var reference: ReferenceField? = nil
            if let year, lat != nil, let warning = HeadingCSV.modelYearWarning(year) {
                FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
            }
            if let lat, let lon {
                let now = 1970 + Date().timeIntervalSince1970 / (365.2425 * 86_400)
                let elements = WorldMagneticModel.wmm2025.evaluate(latitude: lat, longitude: lon, heightKm: 0,
                                                                   decimalYear: year ?? now)
                reference = ReferenceField(elements)
            }
            do {
                let result = try HeadingCSV.process(String(decoding: data, as: UTF8.self), file: samples, reference: reference)
                FileHandle.standardOutput.write(Data(result.csv.utf8))
                for warning in result.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    /// `fieldloc calibrate`: fit a magnetometer calibration and judge it.
    struct Calibrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fit a hard- and soft-iron magnetometer calibration and judge its quality.",
            discussion: """
            With --samples FILE.csv (columns mx_uT,my_uT,mz_uT: raw samples in sensor axes) fits an \
            ellipsoid (sphere first) and prints the offset, the matrix, the residual, the orientation \
            coverage and the verdict. A small residual is not enough: samples taken only near level \
            are judged poor because they do not cover the sphere. --field-ut or --lat/--lon scale \
            the result to the expected field (WMM2025 total intensity). --save stores it for a board \
            and sensor, atomically; a worse calibration never replaces a better one without --force.
            """)

        @Option(help: "CSV of raw magnetometer samples (mx_uT,my_uT,mz_uT). Without it the board's live magnetometer is sampled.")
        var samples: String?

        @Option(help: "Seconds to sample live before giving up.")
        var timeout: Double = 180

        @Flag(help: "Print JSON.")
        var json = false

        @Option(name: .customLong("field-ut"), help: "Expected total field, µT (default: from --lat/--lon, else the samples' mean).")
        var fieldMicrotesla: Double?

        @Option(help: "Latitude of the unit, degrees (for the WMM2025 total intensity).")
        var lat: Double?

        @Option(help: "Longitude of the unit, degrees.")
        var lon: Double?

        @Flag(help: "Store the calibration for --board and --sensor.")
        var save = false

        @Option(help: "Board: sampled live when there is no --samples, and the owner of a --save'd calibration.")
        var board: String = "sim"

        @Option(help: "Sensor the calibration belongs to, e.g. lsm303agr-mag (with --save).")
        var sensor: String?

        @Flag(help: "Replace a stored calibration even when it is better than the new one.")
        var force = false

        @Option(name: .customLong("state-dir"), help: "Folder of stored calibrations (default: $FIELDLOC_STATE_DIR, $XDG_STATE_HOME/fieldloc, ~/.local/state/fieldloc).")
        var stateDirectory: String?

        func validate() throws {
            if let f = fieldMicrotesla, !(f.isFinite && f > 1 && f < 100) {
                throw ValidationError("--field-ut \(f) is outside 1...100 µT (the Earth's field is 22-67 µT)")
            }
            if (lat == nil) != (lon == nil) { throw ValidationError("give both --lat and --lon, or neither") }
            if let lat, !(lat.isFinite && (-90...90).contains(lat)) { throw ValidationError("--lat \(lat) is outside -90...90") }
            if let lon, !lon.isFinite { throw ValidationError("--lon must be a number") }
            if save && sensor == nil && samples != nil { throw ValidationError("--save with --samples needs --sensor NAME") }
            guard timeout.isFinite, timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be 1 to 3600 seconds") }
        }

        func run() throws {
            var expected = fieldMicrotesla
            if expected == nil, let lat, let lon { expected = Self.expectedField(latitude: lat, longitude: lon, heightKm: 0) }
            var sensorName = sensor
            let calibration: MagnetometerCalibration
            if let samples {
                guard let data = FileManager.default.contents(atPath: samples) else {
                    throw ValidationError("cannot read \(samples): no such file or no permission")
                }
                do {
                    let points = try CalibrationCSV.samples(String(decoding: data, as: UTF8.self), file: samples)
                    calibration = try CalibrationFitter.fit(points, expectedField: expected)
                } catch let error as SampleFileError {
                    throw ValidationError(error.description)
                } catch let error as CalibrationError {
                    throw ValidationError("\(samples): \(error.description)")
                }
            } else {
                calibration = try live(expected: expected, sensorName: &sensorName)
            }
            let stored = StoredCalibration(calibration, board: board, sensor: sensorName, created: Date())
            if json {
                FileHandle.standardOutput.write(Data(stored.json().utf8))
            } else {
                FileHandle.standardOutput.write(Data(CalibrationText.describe(calibration).utf8))
            }
            if save, let sensor = sensorName {
                let store = CalibrationStore(directory: stateDirectory ?? CalibrationStore.defaultDirectory())
                do {
                    let path = try store.save(stored, board: board, sensor: sensor, force: force)
                    FileHandle.standardError.write(Data("saved \(path)\n".utf8))
                } catch {
                    throw CommandFailure(error.description)
                }
            }
        }

        /// The WMM2025 total intensity today at a point, µT: what a calibrated sphere's radius should be.
        static func expectedField(latitude: Double, longitude: Double, heightKm: Double) -> Double {
            let year = GeomagCSV.decimalYear(CalendarDateToday.now())
            return WorldMagneticModel.wmm2025.evaluate(latitude: latitude, longitude: longitude, heightKm: heightKm,
                                                       decimalYear: year).totalIntensity / 1000
        }

        /// Samples the board's magnetometer live (a simulated board performs a calibration dance)
        /// and shows coverage as it grows.
        func live(expected: Double?, sensorName: inout String?) throws -> MagnetometerCalibration {
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            var expected = expected
            if expected == nil, let sim = description.simulation {
                expected = Self.expectedField(latitude: sim.latitude, longitude: sim.longitude, heightKm: sim.altitude / 1000)
            }
            let platform: any HardwarePlatform
            do {
                platform = try BoardHardware.platform(for: description, linux: LinuxPlatform(),
                                                      motion: .calibrationDance(maximumTilt: 180))
            } catch { throw ValidationError(error.description) }
            var sensors: BoardSensors
            do { sensors = try BoardSensors.open(description, platform: platform) } catch { throw ValidationError(error.description) }
            sensorName = sensorName ?? sensors.magnetometerName
            FileHandle.standardError.write(Data("Turn the unit slowly through every orientation: level, on each side, nose up and down, upside down.\n".utf8))
            var routine = LiveCalibration()
            routine.expectedField = expected
            routine.timeout = .seconds(timeout)
            let outcome = Result { () throws(SensorError) -> (MagnetometerCalibration?, [Heading.Vector3]) in
                var lastScore = -1
                return try routine.run(&sensors, clock: platform.clock) { p in
                    let current = Int(p.calibration?.quality.score ?? 0)
                    guard current != lastScore else { return }
                    lastScore = current
                    let coverage = p.calibration?.quality.coverage ?? 0
                    let score = p.calibration.map { String(Int($0.quality.score)) } ?? "-"
                    let bar = String(repeating: "#", count: Int(coverage * 30)).padding(toLength: 30, withPad: ".", startingAt: 0)
                    FileHandle.standardError.write(Data("  \(FixText.fixed(p.seconds, 0)) s  \(p.samples) samples  coverage [\(bar)] \(FixText.fixed(coverage * 100, 0)) %  score \(score)\n".utf8))
                }
            }
            let result: MagnetometerCalibration?
            switch outcome {
            case .success(let r): result = r.0
            case .failure(let error): throw ValidationError(error.description)
            }
            guard let result else { throw ValidationError("no calibration could be fitted: too few or degenerate samples") }
            if result.quality.verdict != .good {
                FileHandle.standardError.write(Data("time limit reached before the calibration was good\n".utf8))
            }
            return result
        }
    }
}
