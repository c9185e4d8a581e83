/// The EGM96 geoid, carried in the package: the height of mean sea level above the WGS84 ellipsoid
/// (the geoid separation, N), for receivers that give only a height above the ellipsoid (UBX NAV-SOL
/// and other ECEF-only solutions) or only a height above mean sea level (a GGA with an empty
/// separation field).
///
/// The model is NGA's EGM96 (public domain) on a 20' grid of decimetres (541 × 1080 values, about
/// 200 KB Rice-coded, carried as 266 KB of base64 text, 1.2 MB once decoded on first use), read with bicubic
/// (Catmull-Rom) interpolation. Against every node of NGA's 15' grid it is within 0.58 m of EGM96
/// (RMS 0.03 m); docs/GEOID.md has the measurements and how the grid is made
/// (`Benchmarks/geoid/make_geoid.py`).
///
/// ```swift
/// let n = EGM96.separation(latitude: 47.3769, longitude: 8.5417)   // ≈ 47.2 m (Zurich)
/// let msl = heightAboveEllipsoid - (n ?? 0)
/// ```
public enum EGM96 {
    static let rows = 541
    static let columns = 1080
    /// Nodes per degree.
    static let perDegree = 3.0

    /// The decoded grid in decimetres, row 0 at −90°, column 0 at −180°; empty if the data could not
    /// be decoded (then every lookup is `nil`).
    static let grid: [Int16] = decode()

    /// The geoid separation N (metres above the WGS84 ellipsoid of mean sea level) at a point, or `nil`
    /// for a latitude outside ±90° or a non-finite coordinate. Height above mean sea level is the
    /// height above the ellipsoid minus N.
    public static func separation(latitude: Double, longitude: Double) -> Double? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 else { return nil }
        let values = grid
        guard values.count == rows * columns else { return nil }
        var lon = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if lon < 0 { lon += 360 }
        let y = (latitude + 90) * perDegree
        let x = lon * perDegree
        let i = min(Int(y), rows - 2)
        let j = Int(x)
        let ty = y - Double(i)
        let tx = x - Double(j)
        let wy = weights(ty)
        let wx = weights(tx)
        var sum = 0.0
        for a in 0..<4 {
            var r = i - 1 + a
            var shift = 0
            // Beyond a pole: the row on the other side of it, half a turn away.
            if r < 0 { r = -r; shift = columns / 2 } else if r > rows - 1 { r = 2 * (rows - 1) - r; shift = columns / 2 }
            var row = 0.0
            for b in 0..<4 {
                var c = (j - 1 + b + shift) % columns
                if c < 0 { c += columns }
                row += wx[b] * Double(values[r * columns + c])
            }
            sum += wy[a] * row
        }
        return sum / 10
    }

    /// Catmull-Rom weights of the nodes −1, 0, 1, 2 for a fraction `t` in [0, 1).
    @inline(__always)
    static func weights(_ t: Double) -> SIMD4<Double> {
        let t2 = t * t, t3 = t2 * t
        return SIMD4((-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2)
    }

    /// Decodes ``encoded``: base64, then per row a 4-bit Rice parameter and the Rice-coded, zigzagged
    /// residuals of each value from the plane through its left, upper and upper-left neighbours.
    static func decode() -> [Int16] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(210_000)
        var accumulator: UInt32 = 0
        var pending = 0
        for line in encoded {
            var valid = true
            line.withUTF8Buffer { text in
                for character in text {
                    guard let sextet = sextet(character) else {
                        if character != UInt8(ascii: "=") { valid = false }
                        continue
                    }
                    accumulator = accumulator << 6 | UInt32(sextet)
                    pending += 6
                    if pending >= 8 {
                        pending -= 8
                        bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(pending)))
                    }
                }
            }
            guard valid else { return [] }
        }
        var reader = BitReader(bytes: bytes)
        var values = [Int16](repeating: 0, count: rows * columns)
        for r in 0..<rows {
            guard let k = reader.bits(4) else { return [] }
            for c in 0..<columns {
                var quotient = 0
                while true {
                    guard let bit = reader.bits(1) else { return [] }
                    if bit == 0 { break }
                    quotient += 1
                    if quotient > 1 << 16 { return [] }
                }
                guard let remainder = reader.bits(k) else { return [] }
                let zigzag = quotient << k | remainder
                let residual = zigzag & 1 == 0 ? zigzag >> 1 : -(zigzag >> 1) - 1
                let prediction: Int
                if r == 0 {
                    prediction = c == 0 ? 0 : Int(values[c - 1])
                } else if c == 0 {
                    prediction = Int(values[(r - 1) * columns])
                } else {
                    let up = (r - 1) * columns + c
                    prediction = Int(values[r * columns + c - 1]) + Int(values[up]) - Int(values[up - 1])
                }
                guard let value = Int16(exactly: prediction + residual) else { return [] }
                values[r * columns + c] = value
            }
        }
        return values
    }

    /// The value of a base64 character, or `nil` for padding and anything else.
    static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }

    /// Bits of a byte array, most significant first.
    struct BitReader {
        let bytes: [UInt8]
        var position = 0

        /// The next `count` bits (at most 16) as a number, or `nil` past the end.
        mutating func bits(_ count: Int) -> Int? {
            guard position + count <= bytes.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                let bit = Int(bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
                value = value << 1 | bit
                position += 1
            }
            return value
        }
    }
}
