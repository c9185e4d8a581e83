import Heading

extension RecordedSession {
    /// The RECORDING line's `calibration` (format version 3): the magnetometer calibration the
    /// unit applied when the recording started, with the keys of a stored calibration
    /// (`fieldloc calibrate --json`): `offset_uT`, `matrix` (row-major, nine values), `field_uT`,
    /// `residual_uT`, `residual_relative`, `coverage`, `shape_ratio`, `scale_ratio` (when known),
    /// `samples` and `method`. A replay applies it, so its headings are the unit's; a residual that
    /// was not finite is written as `null`.
    struct CalibrationRecord: Decodable {
        var offset_uT: [Double]?
        var matrix: [Double]?
        var field_uT: Double?
        var residual_uT: Double?
        var residual_relative: Double?
        var coverage: Double?
        var shape_ratio: Double?
        var scale_ratio: Double?
        var samples: Double?
        var method: String?

        /// The calibration, or an error naming the key at fault (the checks are the stored
        /// calibration's, `MagnetometerCalibration.init(offset:matrix:…)`; a missing key fails them).
        func calibration(fail: (String) -> LoadError) throws(LoadError) -> MagnetometerCalibration {
            func bad(_ key: String, _ problem: String) -> LoadError { fail("RECORDING: key 'calibration.\(key)' \(problem)") }
            guard let count = samples, count >= 0, count == count.rounded(), count <= Double(Int32.max) else {
                throw bad("samples", "must be a whole number from 0")
            }
            guard let word = method, let method = CalibrationMethod(rawValue: word) else {
                throw bad("method", "must be none, sphere or ellipsoid, found \(String((method ?? "nothing").prefix(32)))")
            }
            do {
                return try MagnetometerCalibration(
                    offset: offset_uT ?? [], matrix: matrix ?? [], fieldStrength: field_uT ?? .nan,
                    residualRMS: residual_uT ?? .infinity, relativeResidual: residual_relative ?? .infinity,
                    coverage: coverage ?? .nan, shapeRatio: shape_ratio ?? .nan, scaleRatio: scale_ratio,
                    sampleCount: Int(count), method: method)
            } catch {
                throw bad(error.key, error.problem)
            }
        }
    }
}
