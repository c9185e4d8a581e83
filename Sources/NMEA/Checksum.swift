/// The NMEA 0183 checksum: the XOR of every byte between the start delimiter (`$` or `!`) and `*`.
public enum NMEAChecksum {
    /// Computes the checksum of `body` (the bytes after `$`/`!` and before `*`).
    @inlinable
    public static func compute(_ body: Span<UInt8>) -> UInt8 {
        var sum: UInt8 = 0
        for index in body.indices { sum ^= body[index] }
        return sum
    }

    /// Writes `value` as the two upper-case hexadecimal digits NMEA uses.
    public static func hexDigits(_ value: UInt8) -> (UInt8, UInt8) {
        (hexDigit(value >> 4), hexDigit(value & 0x0F))
    }

    @usableFromInline
    static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x37 + nibble }

    /// The value of an ASCII hexadecimal digit (either case), or `nil`.
    @inlinable
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte &- 0x30
        case 0x41...0x46: return byte &- 0x37
        case 0x61...0x66: return byte &- 0x57
        default: return nil
        }
    }
}
