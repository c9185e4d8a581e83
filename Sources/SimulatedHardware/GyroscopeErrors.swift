import RealModule

/// What a MEMS gyroscope adds to the true rate before it is quantised (saturation happens in
/// the chip model, at the range's last count): a scale error, a zero-rate bias that drifts with
/// temperature, and white noise of a given density. Deterministic for a given seed.
public struct GyroscopeErrors: Sendable {
    /// Zero-rate level at 25 °C, degrees per second per axis.
    public var bias: SIMD3<Double>
    /// Change of the zero-rate level per °C away from 25 °C, dps/°C per axis.
    public var biasTemperatureCoefficient: SIMD3<Double>
    /// Rate noise density, dps/√Hz (white; each sample gets σ = density · √(ODR / 2)).
    public var noiseDensity: Double
    /// Sensitivity error per axis: the chip reads (1 + scaleError) · rate.
    public var scaleError: SIMD3<Double>
    private var random: SplitMix64

    /// Creates an error model.
    public init(bias: SIMD3<Double> = .zero, biasTemperatureCoefficient: SIMD3<Double> = .zero, noiseDensity: Double = 0,
                scaleError: SIMD3<Double> = .zero, seed: UInt64 = 1) {
        self.bias = bias
        self.biasTemperatureCoefficient = biasTemperatureCoefficient
        self.noiseDensity = noiseDensity
        self.scaleError = scaleError
        random = SplitMix64(seed: seed)
    }

    /// A perfect gyroscope (the chips' default, so existing simulations read the true rate).
    public static let ideal = GyroscopeErrors()

    /// An LSM6DSOX within its datasheet's typical figures (DS12814 table 2): zero-rate level
    /// ±1 dps, its change with temperature ±0.01 dps/°C, noise density 3.8 mdps/√Hz
    /// (high-performance mode), sensitivity tolerance ±1 %.
    public static func lsm6dsoxTypical(seed: UInt64 = 1) -> GyroscopeErrors {
        GyroscopeErrors(bias: SIMD3(0.6, -0.8, 0.4), biasTemperatureCoefficient: SIMD3(0.01, -0.008, 0.006),
                        noiseDensity: 0.0038, scaleError: SIMD3(0.004, -0.007, 0.005), seed: seed)
    }

    /// An ICM-20948 within its datasheet's figures (DS-000189 table 1): initial zero-rate
    /// output ±5 dps, its change with temperature ±0.05 dps/°C, noise density 0.015 dps/√Hz,
    /// sensitivity tolerance ±1.5 %.
    public static func icm20948Typical(seed: UInt64 = 1) -> GyroscopeErrors {
        GyroscopeErrors(bias: SIMD3(2.1, -3.4, 1.2), biasTemperatureCoefficient: SIMD3(0.03, -0.04, 0.02),
                        noiseDensity: 0.015, scaleError: SIMD3(0.008, -0.012, 0.01), seed: seed)
    }

    /// The bias at `temperature` °C, dps.
    public func bias(at temperature: Double) -> SIMD3<Double> {
        bias + biasTemperatureCoefficient * (temperature - 25)
    }

    /// What the chip senses for the true `rate` (dps) at `temperature`, sampled at `dataRate` Hz.
    public mutating func apply(_ rate: SIMD3<Double>, temperature: Double, dataRate: Double) -> SIMD3<Double> {
        var sensed = rate * (SIMD3(repeating: 1) + scaleError) + bias(at: temperature)
        if noiseDensity > 0, dataRate > 0 {
            let sigma = noiseDensity * (dataRate / 2).squareRoot()
            sensed += SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * sigma
        }
        return sensed
    }
}
