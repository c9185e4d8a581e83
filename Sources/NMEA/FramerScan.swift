/// What the framer learned of a sentence's bytes while finding its end: every byte after the
/// delimiter up to the line end (the `*hh` of a checksum included), XORed together, and the number
/// of commas among them. The parser derives the checksum and the field count from it instead of
/// reading the sentence once more.
public struct SentenceDigest: Sendable, Hashable {
    /// The XOR of the bytes after the delimiter.
    public var xor: UInt8
    /// The number of commas among them.
    public var commas: Int

    /// The longest sentence (delimiter included) the framer's scan gives a digest for: its comma
    /// counts are kept per byte lane of sixteen-byte blocks, and two lanes are added in a byte
    /// before they are summed, so at most 127 blocks. Real sentences stay below 300 bytes.
    static let maximumLength = 127 * 16 + 1

    /// A digest of bytes that were XORed to `xor` and had `commas` commas.
    public init(xor: UInt8 = 0, commas: Int = 0) {
        self.xor = xor
        self.commas = commas
    }
}

extension FramerCore {
    /// The index of the first byte from `from` on that cannot continue a sentence (a control or
    /// non-ASCII byte, DEL, `$` or `!`), or `end` if there is none before it; `digest` gets the XOR
    /// and the commas of the bytes before that index. Sixteen bytes at a time while sixteen are left;
    /// the last few in one more load of the sixteen bytes that end at `end` (those it shares with the
    /// loads before are known to continue the sentence, and are left out of the digest), or one at a
    /// time when the whole range is shorter than sixteen.
    ///
    /// The stop test and the digest share each load: the parser's checksum pass used to read the
    /// same bytes again.
    @inline(__always)
    static func sentenceEnd(_ base: UnsafePointer<UInt8>, from: Int, to end: Int, digest: inout SentenceDigest) -> Int {
        var index = from
        let raw = UnsafeRawPointer(base)
        let space = SIMD16<UInt8>(repeating: 0x20)
        let printable = SIMD16<UInt8>(repeating: 0x5F)   // 0x20...0x7E less 0x20
        let dollar = SIMD16<UInt8>(repeating: 0x24)
        let bang = SIMD16<UInt8>(repeating: 0x21)
        let comma = SIMD16<UInt8>(repeating: 0x2C)
        let zero = SIMD16<UInt8>()
        let ones = SIMD16<UInt8>(repeating: 0xFF)
        let one = SIMD16<UInt8>(repeating: 1)
        // Each lane's number, as signed bytes (a signed comparison of bytes is one SSE2 instruction).
        let lane = SIMD16<Int8>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        var xor = SIMD16<UInt8>()
        var commas = SIMD16<UInt8>()
        while index &+ 16 <= end {
            let bytes = raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
            let stops = ((bytes &- space) .>= printable) .| (bytes .== dollar) .| (bytes .== bang)
            let lanes = unsafeBitCast(zero.replacing(with: ones, where: stops), to: (UInt64, UInt64).self)
            if lanes.0 | lanes.1 != 0 {
                let stop = lanes.0 != 0 ? lanes.0.trailingZeroBitCount &>> 3 : 8 &+ lanes.1.trailingZeroBitCount &>> 3
                // The bytes before the stop (a zero byte changes neither the XOR nor the count).
                let taken = bytes.replacing(with: zero, where: lane .>= SIMD16<Int8>(repeating: Int8(truncatingIfNeeded: stop)))
                xor ^= taken
                commas &+= one.replacing(with: zero, where: taken .!= comma)
                digest = Self.digest(xor, commas)
                return index &+ stop
            }
            xor ^= bytes
            commas &+= one.replacing(with: zero, where: bytes .!= comma)
            index &+= 16
        }
        // The same test as the loop's, written out: as a shared helper it compiled to more
        // instructions a sentence.
        if index < end, end &- from >= 16 {
            let last = end &- 16
            let bytes = raw.loadUnaligned(fromByteOffset: last, as: SIMD16<UInt8>.self)
            let stops = ((bytes &- space) .>= printable) .| (bytes .== dollar) .| (bytes .== bang)
            let lanes = unsafeBitCast(zero.replacing(with: ones, where: stops), to: (UInt64, UInt64).self)
            var stop = 16
            if lanes.0 != 0 {
                stop = lanes.0.trailingZeroBitCount &>> 3
            } else if lanes.1 != 0 {
                stop = 8 &+ lanes.1.trailingZeroBitCount &>> 3
            }
            // Lanes below `index - last` were in the blocks before (and are not stops); lanes from
            // the stop on are not the sentence's.
            let seen = SIMD16<Int8>(repeating: Int8(truncatingIfNeeded: index &- last))   // 1...15
            let taken = bytes.replacing(with: zero, where: (lane .< seen) .| (lane .>= SIMD16<Int8>(repeating: Int8(truncatingIfNeeded: stop))))
            xor ^= taken
            commas &+= one.replacing(with: zero, where: taken .!= comma)
            digest = Self.digest(xor, commas)
            return last &+ stop
        }
        var sum: UInt8 = 0
        var count = 0
        while index < end {
            let byte = base[index]
            if byte &- 0x20 >= 0x5F || byte == 0x24 || byte == 0x21 { break }
            sum ^= byte
            if byte == 0x2C { count &+= 1 }
            index &+= 1
        }
        digest = Self.digest(xor, commas)
        digest.xor ^= sum
        digest.commas &+= count
        return index
    }

    /// The XOR of sixteen lanes and the sum of sixteen per-lane counts (each at most 127).
    @inline(__always)
    static func digest(_ xor: SIMD16<UInt8>, _ commas: SIMD16<UInt8>) -> SentenceDigest {
        let halves = unsafeBitCast(xor, to: (UInt64, UInt64).self)
        var sum = halves.0 ^ halves.1
        sum ^= sum &>> 32
        sum ^= sum &>> 16
        sum ^= sum &>> 8
        let counts = unsafeBitCast(commas, to: (UInt64, UInt64).self)
        return SentenceDigest(xor: UInt8(truncatingIfNeeded: sum), commas: BodyPass.sumOfLanes(counts.0 &+ counts.1))
    }
}
