import FieldLocationStore
import Foundation
import Heading

/// Why a heading or calibration file could not be used. Every case names the file and, where
/// there is one, the line (1-based) and the column or key.
public enum SampleFileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The header lacks a required column.
    case missingColumn(file: String, column: String, header: String)
    /// The header names a column twice, or one the format does not know.
    case unknownColumn(file: String, column: String)
    /// A cell is not a finite number.
    case badCell(file: String, line: Int, column: String, text: String)
    /// A row has the wrong number of cells.
    case badRow(file: String, line: Int, cells: Int, expected: Int)
    /// The file is empty.
    case empty(file: String)

    public var description: String {
        switch self {
        case .missingColumn(let file, let column, let header):
            return "\(file): line 1: the header has no column '\(column)' (header: '\(header)')"
        case .unknownColumn(let file, let column):
            return "\(file): line 1: unknown or repeated column '\(column)'"
        case .badCell(let file, let line, let column, let text):
            return "\(file): line \(line), column \(column): '\(text)' is not a finite number"
        case .badRow(let file, let line, let cells, let expected):
            return "\(file): line \(line): \(cells) cells, expected \(expected)"
        case .empty(let file):
            return "\(file): the file is empty"
        }
    }
}

/// Reads numeric CSV with a header, by column name. Blank lines and lines starting with `#` are skipped.
struct NumericCSV {
    let file: String
    let header: String
    let columns: [String]
    /// (line number, values in header order)
    let rows: [(Int, [Double])]

    /// Reads `text`; a cell of a `blankable` column may be empty (read as NaN: not known).
    init(_ text: String, file: String, required: [String], optional: [String], blankable: [String] = []) throws(SampleFileError) {
        self.file = file
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init).enumerated()
            .map { ($0.offset + 1, $0.element.trimmingCharacters()) }
            .filter { !$0.1.isEmpty && !$0.1.hasPrefix("#") }
        guard !lines.isEmpty else { throw .empty(file: file) }
        let (_, header) = lines.removeFirst()
        self.header = header
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters() }
        for (i, name) in names.enumerated() {
            if !(required + optional).contains(name) || names[..<i].contains(name) {
                throw .unknownColumn(file: file, column: name)
            }
        }
        for name in required where !names.contains(name) {
            throw .missingColumn(file: file, column: name, header: header)
        }
        columns = names
        var rows: [(Int, [Double])] = []
        for (number, line) in lines {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters() }
            guard cells.count == names.count else {
                throw .badRow(file: file, line: number, cells: cells.count, expected: names.count)
            }
            var values: [Double] = []
            for (i, cell) in cells.enumerated() {
                if cell.isEmpty, blankable.contains(names[i]) {
                    values.append(.nan)
                    continue
                }
                guard let value = Double(cell), value.isFinite else {
                    throw .badCell(file: file, line: number, column: names[i], text: cell)
                }
                values.append(value)
            }
            rows.append((number, values))
        }
        self.rows = rows
    }

    func index(_ name: String) -> Int? { columns.firstIndex(of: name) }
}

/// `fieldloc heading --samples`: body-frame accelerometer (g) and magnetometer (µT) rows to headings.
public enum HeadingCSV {
    /// The required input columns.
    public static let inputColumns = ["acc_x_g", "acc_y_g", "acc_z_g", "mag_x_uT", "mag_y_uT", "mag_z_uT"]
    /// The output header: headings, then the tilt (pitch nose up, roll right side down).
    public static let outputHeader = "magnetic_heading_deg,true_heading_deg,pitch_deg,roll_deg"
    /// The output header of rows that went through the attitude filter: the attitude quaternion
    /// (body FRD to magnetic NED) follows the tilt.
    public static let fusedOutputHeader = outputHeader + ",q_w,q_x,q_y,q_z"

    /// The decimal years `--year` accepts: recordings older (or newer) than the model are
    /// normal, so anything plausible is taken.
    public static let plausibleYears: ClosedRange<Double> = 1900...2100

    /// The warning for a decimal year outside WMM2025's validity (its field is still the best
    /// prior there is), or `nil` inside it.
    public static func modelYearWarning(_ year: Double) -> String? {
        guard !(2024.9...2030.1).contains(year) else { return nil }
        return "--year \(year) is outside WMM2025's validity (2025.0 to 2030.0): using the model there anyway; "
            + "declination may be off by a few tenths of a degree a year"
    }

    /// A heading as printed: three decimals, in [0, 360) after the rounding (359.9996 prints
    /// `0.000`, never `360.000`).
    public static func headingText(_ degrees: Double) -> String {
        let text = FixText.fixed(wrap360(degrees), 3)
        return text == "360.000" ? "0.000" : text
    }

    /// The optional columns that switch to the attitude filter: time and body rates.
    public static let motionColumns = ["t_s", "gyro_x_dps", "gyro_y_dps", "gyro_z_dps"]

    /// The optional columns of a vehicle's GNSS fix beside the motion columns: speed over ground
    /// (m/s) and course over ground (degrees from true north), as the engine gives the filter
    /// from a fix under 2 s old. A cell may be empty (no fix then). With a speed above
    /// ``AttitudeFilter/centripetalSpeed`` the filter takes the vehicle's centripetal and
    /// longitudinal acceleration off the accelerometer, as in the engine.
    public static let vehicleColumns = ["speed_mps", "course_deg"]

    /// The header of the samples `fieldloc record` writes on a board with a gyroscope
    /// (`OUT.samples.csv`): time, then today's columns, then the body rates and the fix's speed and
    /// course as the filter had them, so
    /// `fieldloc heading --samples` runs them through the attitude filter again.
    public static let recordedHeader = (["t_s"] + inputColumns + ["gyro_x_dps", "gyro_y_dps", "gyro_z_dps"] + vehicleColumns)
        .joined(separator: ",")

    /// Computes one output row per input row. Rows with no heading (near vertical, no gravity)
    /// have empty cells and a warning naming the line and the reason; `true_heading_deg` is empty
    /// where the row has no `declination_deg`.
    ///
    /// With `t_s` and `gyro_x_dps,gyro_y_dps,gyro_z_dps` the rows go through an
    /// ``AttitudeFilter`` in time order (see ``processWithGyroscope(_:reference:gains:)``);
    /// `reference` (the WMM field where the samples were taken) then enables its magnitude and
    /// dip checks, and gives true heading to rows without `declination_deg`.
    public static func process(_ text: String, file: String, reference: ReferenceField? = nil,
                               gains: AttitudeFilterGains = AttitudeFilterGains()) throws(SampleFileError)
        -> (csv: String, warnings: [String])
    {
        let table = try NumericCSV(text, file: file, required: inputColumns,
                                   optional: ["declination_deg"] + motionColumns + vehicleColumns, blankable: vehicleColumns)
        if motionColumns.contains(where: { table.index($0) != nil }) || vehicleColumns.contains(where: { table.index($0) != nil }) {
            for name in motionColumns where table.index(name) == nil {
                throw .missingColumn(file: file, column: name, header: table.header)
            }
            return processWithGyroscope(table, reference: reference, gains: gains)
        }
        let idx = inputColumns.map { table.index($0) ?? 0 }
        let declinationIndex = table.index("declination_deg")
        var out = outputHeader + "\n"
        var warnings: [String] = []
        for (line, v) in table.rows {
            let a = Vector3(v[idx[0]], v[idx[1]], v[idx[2]])
            let m = Vector3(v[idx[3]], v[idx[4]], v[idx[5]])
            let g = a.length
            let tilt = g > 1e-9
                ? FixText.fixed(asin(max(-1, min(1, a.x / g))) * 180 / Double.pi, 3) + "," + FixText.fixed(atan2(-a.y, -a.z) * 180 / Double.pi, 3)
                : ","
            switch TiltCompensation.solve(acceleration: a, field: m) {
            case .success(let s):
                var row = headingText(s.magneticHeading) + ","
                if let d = declinationIndex {
                    row += headingText(s.magneticHeading + v[d])
                }
                out += row + "," + tilt + "\n"
            case .failure(let reason):
                out += ",," + tilt + "\n"
                warnings.append("\(file): line \(line): no heading: \(reason)")
            }
        }
        return (out, warnings)
    }
}

/// `fieldloc calibrate --samples`: raw magnetometer rows (`mx_uT,my_uT,mz_uT`) to a calibration.
public enum CalibrationCSV {
    /// The input columns.
    public static let columns = ["mx_uT", "my_uT", "mz_uT"]

    /// Reads the samples.
    public static func samples(_ text: String, file: String) throws(SampleFileError) -> [Vector3] {
        let table = try NumericCSV(text, file: file, required: columns, optional: [])
        let i = columns.map { table.index($0) ?? 0 }
        return table.rows.map { Vector3($0.1[i[0]], $0.1[i[1]], $0.1[i[2]]) }
    }
}

/// A calibration as it is stored and printed: JSON with the offset, the matrix, the residual,
/// the coverage and the verdict. Unknown keys are refused when reading.
public struct StoredCalibration: Codable, Sendable, Equatable {
    /// File format version.
    public var version: Int = 1
    /// The board the calibration belongs to.
    public var board: String?
    /// The sensor (chip name) it belongs to.
    public var sensor: String?
    /// When it was made, ISO 8601 UTC.
    public var created: String?
    /// Hard-iron offset, µT, sensor axes.
    public var offset_uT: [Double]
    /// Soft-iron matrix, row-major, 9 values.
    public var matrix: [Double]
    /// Field magnitude the calibration maps to, µT.
    public var field_uT: Double
    /// RMS residual, µT.
    public var residual_uT: Double
    /// Residual as a share of the field.
    public var residual_relative: Double
    /// Orientation coverage, 0…1.
    public var coverage: Double
    /// Soft-iron eigenvalue ratio.
    public var shape_ratio: Double
    /// Fitted over expected field, when the expected field was known.
    public var scale_ratio: Double?
    /// Samples used.
    public var samples: Int
    /// `sphere` or `ellipsoid`.
    public var method: CalibrationMethod
    /// `good`, `fair` or `poor`.
    public var quality: CalibrationVerdict
    /// 0…100.
    public var score: Double
    /// What keeps it from being good.
    public var reasons: [String]

    /// Creates the stored form of a calibration.
    public init(_ c: MagnetometerCalibration, board: String? = nil, sensor: String? = nil, created: Date? = nil) {
        self.board = board
        self.sensor = sensor
        self.created = created.map { ISO8601DateFormatter().string(from: $0) }
        offset_uT = [c.offset.x, c.offset.y, c.offset.z]
        matrix = c.softIron.values
        field_uT = c.fieldStrength
        residual_uT = c.quality.residualRMS
        residual_relative = c.quality.relativeResidual
        coverage = c.quality.coverage
        shape_ratio = c.quality.shapeRatio
        scale_ratio = c.quality.scaleRatio
        samples = c.quality.sampleCount
        method = c.quality.method
        quality = c.quality.verdict
        score = c.quality.score
        reasons = c.quality.reasons
    }

    /// The calibration this record describes, or an error naming the key that is wrong.
    public func calibration(file: String) throws(CalibrationFileError) -> MagnetometerCalibration {
        guard version == 1 else { throw .badValue(file: file, key: "version", problem: "version \(version) is not supported (1 is)") }
        do {
            return try MagnetometerCalibration(
                offset: offset_uT, matrix: matrix, fieldStrength: field_uT, residualRMS: residual_uT,
                relativeResidual: residual_relative, coverage: coverage, shapeRatio: shape_ratio,
                scaleRatio: scale_ratio, sampleCount: samples, method: method)
        } catch {
            throw .badValue(file: file, key: error.key, problem: error.problem)
        }
    }

    /// Pretty JSON with sorted keys and a final newline.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

/// Why a stored calibration could not be read or written.
public enum CalibrationFileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The file is not valid JSON, or a key is missing or of the wrong type.
    case malformed(file: String, detail: String)
    /// A key holds an unusable value.
    case badValue(file: String, key: String, problem: String)
    /// A key the format does not know.
    case unknownKey(file: String, key: String)
    /// The new calibration is worse than the stored one and `force` was not given.
    case worseThanStored(file: String, stored: String, new: String)
    /// Reading or writing failed.
    case io(file: String, detail: String)

    public var description: String {
        switch self {
        case .malformed(let file, let detail): return "\(file): \(detail)"
        case .badValue(let file, let key, let problem): return "\(file): key '\(key)': \(problem)"
        case .unknownKey(let file, let key): return "\(file): unknown key '\(key)'"
        case .worseThanStored(let file, let stored, let new):
            return "\(file): the stored calibration (\(stored)) is better than the new one (\(new)); nothing was written. Use --force to replace it anyway"
        case .io(let file, let detail): return "\(file): \(detail)"
        }
    }
}

/// Calibrations on disk, one file per board and sensor, written atomically (temporary file,
/// fsync, rename, fsync of the directory) so a power cut leaves the old file or the new one,
/// never a torn one.
public struct CalibrationStore: Sendable {
    /// The folder the files live in.
    public var directory: String

    /// A store in `directory`.
    public init(directory: String) { self.directory = directory }

    /// The default folder: `$FIELDLOC_STATE_DIR`, else `$XDG_STATE_HOME/fieldloc`, else
    /// `~/.local/state/fieldloc`, else `/var/lib/fieldloc` for a daemon without a home.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["FIELDLOC_STATE_DIR"], !dir.isEmpty { return dir }
        if let dir = environment["XDG_STATE_HOME"], !dir.isEmpty { return dir + "/fieldloc" }
        if let home = environment["HOME"], !home.isEmpty, home != "/" { return home + "/.local/state/fieldloc" }
        return "/var/lib/fieldloc"
    }

    /// The file of one board's sensor.
    public func path(board: String, sensor: String) -> String {
        func clean(_ s: String) -> String {
            String(s.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        }
        return directory + "/" + clean(board) + "." + clean(sensor) + ".calibration.json"
    }

    /// Reads a stored calibration; `nil` when there is none.
    public func load(board: String, sensor: String) throws(CalibrationFileError) -> StoredCalibration? {
        let file = path(board: board, sensor: sensor)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw .io(file: file, detail: "cannot be read (permissions?)")
        }
        return try Self.decode(data, file: file)
    }

    /// Decodes a stored calibration, refusing unknown keys and naming the key at fault.
    public static func decode(_ data: Data, file: String) throws(CalibrationFileError) -> StoredCalibration {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw .malformed(file: file, detail: "not valid JSON (\(error.localizedDescription))")
        }
        guard let dictionary = object as? [String: Any] else { throw .malformed(file: file, detail: "the top level is not an object") }
        let known: Set<String> = ["version", "board", "sensor", "created", "offset_uT", "matrix", "field_uT", "residual_uT",
                                  "residual_relative", "coverage", "shape_ratio", "scale_ratio", "samples", "method",
                                  "quality", "score", "reasons"]
        if let unknown = dictionary.keys.sorted().first(where: { !known.contains($0) }) {
            throw .unknownKey(file: file, key: unknown)
        }
        do {
            let stored = try JSONDecoder().decode(StoredCalibration.self, from: data)
            _ = try stored.calibration(file: file)
            return stored
        } catch let error as CalibrationFileError {
            throw error
        } catch {
            throw .malformed(file: file, detail: DecodingProblem.describe(error))
        }
    }

    /// Saves `calibration` unless the stored one is better (then throws
    /// ``CalibrationFileError/worseThanStored(file:stored:new:)``) or `force` is set. A stored
    /// file that cannot be read is never silently replaced without `force`. Returns the path written.
    @discardableResult
    public func save(_ calibration: StoredCalibration, board: String, sensor: String, force: Bool = false)
        throws(CalibrationFileError) -> String
    {
        let file = path(board: board, sensor: sensor)
        if !force, let existing = try load(board: board, sensor: sensor) {
            let old = try existing.calibration(file: file).quality
            let new = try calibration.calibration(file: file).quality
            if !new.isBetter(than: old) && !(new.verdict == old.verdict && new.score == old.score) {
                throw .worseThanStored(file: file, stored: "\(old.verdict.rawValue), score \(Int(old.score))",
                                       new: "\(new.verdict.rawValue), score \(Int(new.score))")
            }
        }
        do {
            try AtomicFile.write(Data(calibration.json().utf8), to: file)
        } catch {
            throw .io(file: file, detail: error.description)
        }
        return file
    }
}
