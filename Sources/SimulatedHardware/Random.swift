import RealModule

/// Deterministic random numbers for the simulators (SplitMix64 with Box-Muller Gaussians), so a
/// seed reproduces a run exactly.
public struct SplitMix64: Sendable, Hashable {
    private var state: UInt64

    /// A generator seeded with `seed`.
    public init(seed: UInt64) { state = seed }

    /// A uniform number in [0, 1).
    public mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(UInt64(1) << 53)
    }

    /// A standard normal number.
    public mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300), u2 = uniform()
        return (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * Double.pi * u2)
    }
}
