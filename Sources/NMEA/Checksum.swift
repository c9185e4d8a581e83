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
    @inlinable @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte &- 0x30
        case 0x41...0x46: return byte &- 0x37
        case 0x61...0x66: return byte &- 0x57
        default: return nil
        }
    }
}

extension NMEAChecksum {
    /// Computes the checksum of `body` (the bytes after `$`/`!` and before `*`).
    @inlinable
    public static func compute(_ body: some Sequence<UInt8>) -> UInt8 {
        var sum: UInt8 = 0
        for byte in body { sum ^= byte }
        return sum
    }

    /// The sentence `$`, `body`, `*` and the checksum's two upper-case hexadecimal digits, without
    /// the line terminator: `$PMTK220,1000*1F` for the body `PMTK220,1000`.
    public static func sentence(body: some Collection<UInt8>) -> [UInt8] {
        let (high, low) = hexDigits(compute(body))
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 4)
        out.append(0x24)
        out.append(contentsOf: body)
        out.append(0x2A)
        out.append(high)
        out.append(low)
        return out
    }
}

/// u-blox UBX framing: `B5 62 | class | id | length (little-endian U2) | payload | CK_A CK_B`, the
/// checksum an 8-bit Fletcher sum over class, id, length and payload (CASIC's is ``CASICFrame``).
public enum UBXFraming {
    /// The longest payload a frame's 16-bit length field can describe.
    public static let maximumPayload = Int(UInt16.max)

    /// The 8-bit Fletcher checksum over `bytes` (`CK_A += b; CK_B += CK_A`, both modulo 256).
    @inlinable
    public static func checksum(_ bytes: some Sequence<UInt8>) -> (a: UInt8, b: UInt8) {
        var a: UInt8 = 0
        var b: UInt8 = 0
        for byte in bytes {
            a &+= byte
            b &+= a
        }
        return (a, b)
    }

    /// The whole frame of a message, sync bytes through checksum. A payload longer than
    /// ``maximumPayload`` is cut to that length (no UBX message is that long).
    public static func encode(class messageClass: UInt8, id: UInt8, payload: some Collection<UInt8>) -> [UInt8] {
        let length = min(payload.count, maximumPayload)
        var frame: [UInt8] = []
        frame.reserveCapacity(length + 8)
        frame += [0xB5, 0x62, messageClass, id, UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF)]
        frame.append(contentsOf: payload.prefix(length))
        let (a, b) = checksum(frame[2...])
        frame.append(a)
        frame.append(b)
        return frame
    }
}

/// The CRC-24Q of RTCM 3 frames (polynomial 0x1864CFB, initial value 0, no reflection, no final
/// XOR), computed over the frame from its `D3` preamble through the payload.
public enum CRC24Q {
    /// The CRC after one more byte.
    @inlinable
    public static func step(_ crc: UInt32, _ byte: UInt8) -> UInt32 {
        var crc = crc ^ (UInt32(byte) << 16)
        for _ in 0..<8 {
            crc <<= 1
            if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
        }
        return crc & 0xFF_FFFF
    }

    /// The CRC of `bytes`.
    @inlinable
    public static func compute(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = step(crc, byte) }
        return crc
    }

    /// The three bytes that end an RTCM 3 frame: the CRC, most significant byte first.
    public static func bytes(_ crc: UInt32) -> [UInt8] {
        [UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }
}
