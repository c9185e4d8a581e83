/// A stored calibration value that cannot be used: the key at fault (as a stored calibration and a
/// recording name it: `offset_uT`, `matrix`, `field_uT`, ...) and what is wrong with it.
public struct CalibrationValueError: Error, Sendable, Equatable {
    /// The key at fault.
    public var key: String
    /// What is wrong with its value, e.g. `must be from 0 to 1`.
    public var problem: String

    /// An error for `key`.
    public init(key: String, problem: String) {
        self.key = key
        self.problem = problem
    }
}

extension MagnetometerCalibration {
    /// A calibration from the values a stored calibration or a recording keeps, checked the one way
    /// both need: a finite offset of three values, a finite, invertible row-major 3×3 matrix, a
    /// positive field, a coverage from 0 to 1, a positive shape ratio (and scale ratio, when there is
    /// one), residuals that are not negative (an unmeasured residual is infinite) and a sample count
    /// from 0.
    ///
    /// - Throws: ``CalibrationValueError`` naming the first key whose value cannot be used.
    public init(offset: [Double], matrix: [Double], fieldStrength: Double, residualRMS: Double,
                relativeResidual: Double, coverage: Double, shapeRatio: Double, scaleRatio: Double?,
                sampleCount: Int, method: CalibrationMethod) throws(CalibrationValueError) {
        func bad(_ key: String, _ problem: String) -> CalibrationValueError { CalibrationValueError(key: key, problem: problem) }
        guard offset.count == 3, offset.allSatisfy(\.isFinite) else {
            throw bad("offset_uT", "must be a list of three numbers (µT)")
        }
        guard matrix.allSatisfy(\.isFinite), let m = Matrix3(matrix) else {
            throw bad("matrix", "must be a list of nine numbers (row-major 3×3)")
        }
        guard m.inverse != nil else { throw bad("matrix", "is singular") }
        guard fieldStrength.isFinite, fieldStrength > 0 else { throw bad("field_uT", "must be a positive number (µT)") }
        guard coverage.isFinite, (0...1).contains(coverage) else { throw bad("coverage", "must be from 0 to 1") }
        guard shapeRatio.isFinite, shapeRatio > 0 else { throw bad("shape_ratio", "must be a positive number") }
        if let scaleRatio, !(scaleRatio.isFinite && scaleRatio > 0) { throw bad("scale_ratio", "must be a positive number") }
        guard residualRMS >= 0, relativeResidual >= 0 else { throw bad("residual_uT", "residuals cannot be negative") }
        guard sampleCount >= 0 else { throw bad("samples", "must be a whole number from 0") }
        self.init(offset: Vector3(offset[0], offset[1], offset[2]), softIron: m, fieldStrength: fieldStrength,
                  quality: CalibrationQuality(residualRMS: residualRMS, relativeResidual: relativeResidual,
                                              coverage: coverage, shapeRatio: shapeRatio, scaleRatio: scaleRatio,
                                              sampleCount: sampleCount, method: method))
    }
}
