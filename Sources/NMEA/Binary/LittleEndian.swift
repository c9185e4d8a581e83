/// Little-endian field reads over a binary payload, as UBX and CASIC lay their messages out.
///
/// Every read is bounds-checked against the payload: a field past its end reads as zero, so a decoder
/// that checked the length first never traps, and one that did not reads zeros instead of crashing.
/// Nothing here allocates.
enum LittleEndian {
    @inline(__always)
    static func u8(_ payload: borrowing Span<UInt8>, _ offset: Int) -> UInt8 {
        guard offset >= 0, offset < payload.count else { return 0 }
        return payload[offset]
    }

    @inline(__always)
    static func i8(_ payload: borrowing Span<UInt8>, _ offset: Int) -> Int8 {
        Int8(bitPattern: u8(payload, offset))
    }

    @inline(__always)
    static func u16(_ payload: borrowing Span<UInt8>, _ offset: Int) -> UInt16 {
        UInt16(u8(payload, offset)) | UInt16(u8(payload, offset + 1)) << 8
    }

    @inline(__always)
    static func i16(_ payload: borrowing Span<UInt8>, _ offset: Int) -> Int16 {
        Int16(bitPattern: u16(payload, offset))
    }

    @inline(__always)
    static func u32(_ payload: borrowing Span<UInt8>, _ offset: Int) -> UInt32 {
        UInt32(u16(payload, offset)) | UInt32(u16(payload, offset + 2)) << 16
    }

    @inline(__always)
    static func i32(_ payload: borrowing Span<UInt8>, _ offset: Int) -> Int32 {
        Int32(bitPattern: u32(payload, offset))
    }

    @inline(__always)
    static func u64(_ payload: borrowing Span<UInt8>, _ offset: Int) -> UInt64 {
        UInt64(u32(payload, offset)) | UInt64(u32(payload, offset + 4)) << 32
    }

    /// An IEEE 754 single (CASIC `R4`).
    @inline(__always)
    static func f32(_ payload: borrowing Span<UInt8>, _ offset: Int) -> Float {
        Float(bitPattern: u32(payload, offset))
    }

    /// An IEEE 754 double (CASIC `R8`).
    @inline(__always)
    static func f64(_ payload: borrowing Span<UInt8>, _ offset: Int) -> Double {
        Double(bitPattern: u64(payload, offset))
    }
}
