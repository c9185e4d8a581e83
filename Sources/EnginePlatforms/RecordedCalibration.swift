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

        /// The calibration, or an error naming the key at fault.
        func calibration(fail: (String) -> LoadError) throws(LoadError) -> MagnetometerCalibration {
            func bad(_ key: String, _ problem: String) -> LoadError { fail("RECORDING: key 'calibration.\(key)' \(problem)") }
            guard let offset = offset_uT, offset.count == 3, offset.allSatisfy(\.isFinite) else {
                throw bad("offset_uT", "must be a list of three numbers (µT)")
            }
            guard let values = matrix, values.allSatisfy(\.isFinite), let m = Matrix3(values) else {
                throw bad("matrix", "must be a list of nine numbers (row-major 3×3)")
            }
            guard m.inverse != nil else { throw bad("matrix", "is singular") }
            guard let field = field_uT, field.isFinite, field > 0 else { throw bad("field_uT", "must be a positive number (µT)") }
            guard let coverage, coverage.isFinite, (0...1).contains(coverage) else { throw bad("coverage", "must be from 0 to 1") }
            guard let shape = shape_ratio, shape.isFinite, shape > 0 else { throw bad("shape_ratio", "must be a positive number") }
            guard let count = samples, count >= 0, count == count.rounded(), count <= Double(Int32.max) else {
                throw bad("samples", "must be a whole number from 0")
            }
            guard let word = method, let method = CalibrationMethod(rawValue: word) else {
                throw bad("method", "must be none, sphere or ellipsoid, found \(String((method ?? "nothing").prefix(32)))")
            }
            let residual = residual_uT ?? .infinity, relative = residual_relative ?? .infinity
            guard residual >= 0, relative >= 0 else { throw bad("residual_uT", "residuals cannot be negative") }
            if let scale_ratio, !(scale_ratio.isFinite && scale_ratio > 0) { throw bad("scale_ratio", "must be a positive number") }
            return MagnetometerCalibration(
                offset: Vector3(offset[0], offset[1], offset[2]), softIron: m, fieldStrength: field,
                quality: CalibrationQuality(residualRMS: residual, relativeResidual: relative, coverage: coverage,
                                            shapeRatio: shape, scaleRatio: scale_ratio, sampleCount: Int(count), method: method))
        }
    }
}
