/// GSV's satellite groups in their standard width, read twelve bytes at a time.
extension FieldReader {
    /// The next four fields when they have the width NMEA 0183 gives a GSV satellite, `pp,ee,aaa,ss`
    /// (or `pp,ee,aaa,` with the SNR empty, for a satellite not tracked), each ending at a comma or
    /// at the end of the fields, with an elevation of at most 90 and an azimuth of at most 360: the
    /// satellite number, elevation, azimuth and SNR, as the four bounded reads of the general path
    /// would give them, and the reader moved past the four fields. `nil`, the reader unchanged, for
    /// any other shape (other widths, signs, values out of range, bytes that are not digits), which
    /// the caller reads field by field.
    ///
    /// One eight-byte and one four-byte load; the digits are checked eight at a time, and the
    /// two-digit values come out of one multiplication.
    @inline(__always)
    mutating func standardSatellite() -> (prn: Int, elevation: Int, azimuth: Int, snr: Int?)? {
        let first = position
        // Bytes 0...11 are loaded; those past the fields (the checksum's) are read only where the
        // length of the fields says they are fields.
        guard first &+ 12 <= readable, count &- first >= 10 else { return nil }
        let left = count &- first
        let digits = UInt64(littleEndian: start.loadUnaligned(fromByteOffset: first, as: UInt64.self)) ^ 0x3030_3030_3030_3030
        // Commas at 2 and 5 (0x2C ^ 0x30 = 0x1C); digits (below 10) at 0, 1, 3, 4, 6 and 7. A byte of
        // 0x8A or more carries into the next, but has its own high bit set, so the test fails anyway.
        guard digits & 0x0000_FF00_00FF_0000 == 0x0000_1C00_001C_0000,
              (digits &+ 0x7676_7676_7676_7676 | digits) & 0x8080_0080_8000_8080 == 0 else { return nil }
        let tail = UInt32(littleEndian: start.loadUnaligned(fromByteOffset: first &+ 8, as: UInt32.self)) ^ 0x3030_3030
        // Byte 8 is the azimuth's last digit, byte 9 its comma.
        guard tail & 0xFF < 10, tail & 0xFF00 == 0x1C00 else { return nil }
        // Each byte pair ab becomes 10a + b in the byte of b (no byte exceeds 99, so nothing carries).
        let pairs = (digits & 0xFFFF_00FF_FF00_FFFF) &* 0xA01
        let prn = Int(truncatingIfNeeded: pairs &>> 8 & 0xFF)
        let elevation = Int(truncatingIfNeeded: pairs &>> 32 & 0xFF)
        let azimuth = Int(truncatingIfNeeded: pairs &>> 56) &* 10 &+ Int(truncatingIfNeeded: tail & 0xFF)
        guard elevation <= 90, azimuth <= 360 else { return nil }
        // The SNR: empty (ending at byte 10, a comma or the end of the fields), or two digits ending
        // at byte 12 (a comma or the end).
        if left == 10 || tail & 0xFF_0000 == 0x1C_0000 {
            position = first &+ 11
            return (prn, elevation, azimuth, nil)
        }
        let high = tail &>> 16 & 0xFF
        let low = tail &>> 24
        guard left >= 12, high < 10, low < 10, left == 12 || byte(first &+ 12) == 0x2C else { return nil }
        position = first &+ 13
        return (prn, elevation, azimuth, Int(truncatingIfNeeded: high &* 10 &+ low))
    }
}
