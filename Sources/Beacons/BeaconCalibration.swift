/// A site calibration of the log-distance model: the path-loss exponent `n` and the RSSI at 1 m,
/// fitted by least squares to RSSI samples taken at known distances (a one-minute walk with the
/// beacon at marked distances; see docs/BEACONS.md).
public struct BeaconCalibration: Sendable, Hashable {
    /// The fitted path-loss exponent `n` (`beacon_path_loss_exponent`).
    public var pathLossExponent: Double
    /// The fitted RSSI at 1 m, dBm (`beacon_power_1m`).
    public var measuredPower: Double
    /// The samples fitted.
    public var samples: Int
    /// The root-mean-square of the fit's residuals, dB: the spread no model of distance explains
    /// (fading, bodies, orientation).
    public var residualRMS: Double

    /// Fits `RSSI = P₁ − 10·n·log₁₀(d)` to `(distance in metres, RSSI in dBm)` samples. Returns
    /// `nil` when the samples cannot determine a line: fewer than two, or all at one distance
    /// (the distances must differ by at least a factor of 1.5 between the nearest and farthest),
    /// or a non-positive or non-finite distance.
    public static func fit(_ samples: [(distance: Double, rssi: Double)]) -> BeaconCalibration? {
        guard samples.count >= 2 else { return nil }
        var sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        var lo = Double.infinity, hi = -Double.infinity
        for sample in samples {
            guard sample.distance > 0, sample.distance.isFinite, sample.rssi.isFinite else { return nil }
            let x = -10 * Decibels.log10(sample.distance)
            sx += x
            sy += sample.rssi
            sxx += x * x
            sxy += x * sample.rssi
            lo = min(lo, sample.distance)
            hi = max(hi, sample.distance)
        }
        guard hi >= 1.5 * lo else { return nil }
        let count = Double(samples.count)
        let denominator = count * sxx - sx * sx
        guard denominator > 0 else { return nil }
        let n = (count * sxy - sx * sy) / denominator
        let p1 = (sy - n * sx) / count
        var squares = 0.0
        for sample in samples {
            let residual = sample.rssi - (p1 - 10 * n * Decibels.log10(sample.distance))
            squares += residual * residual
        }
        return BeaconCalibration(pathLossExponent: n, measuredPower: p1, samples: samples.count,
                                 residualRMS: (squares / count).squareRoot())
    }

    /// `model` with this calibration applied (its exponent and its 1 m power for every beacon).
    public func applied(to model: RangingModel) -> RangingModel {
        var model = model
        model.pathLossExponent = pathLossExponent
        model.siteMeasuredPower = measuredPower
        return model
    }
}
