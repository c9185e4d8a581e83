/// CASIC binary framing (Zhongkewei AT6558: Quectel L76K, ATGM336H), from the CASIC protocol
/// specification section 2 and gpsd's `gpsd/packet.c`:
///
///     0xBA 0xCE | length U2 (payload bytes) | class U1 | id U1 | payload | checksum U4
///
/// The checksum is the 32-bit sum of the little-endian words from the length field to the end of the
/// payload (`(id << 24) + (class << 16) + length`, then the payload words); payloads are whole words.
extension FramerCore {
    /// The largest CASIC payload accepted (gpsd's limit); a longer length is a false sync.
    static let maximumCASICPayload = 2048

    @inline(__always)
    mutating func casic<Sink: NMEAFramerSink>(_ byte: UInt8, into sink: inout Sink) {
        switch length {
        case 1:
            guard byte == 0xCE else { abandonBinary(byte, into: &sink); return }
        case 3:
            let payload = Int(buffer[2]) | Int(byte) << 8
            guard payload <= FramerCore.maximumCASICPayload, payload % 4 == 0 else {
                abandonBinary(byte, into: &sink)
                return
            }
            expected = 6 + payload + 4
        default:
            break
        }
        buffer[length] = byte
        length &+= 1
        guard length >= 6, length == expected else { return }
        var sum: UInt32 = 0
        var index = 2
        while index + 4 <= expected - 4 {
            sum = sum &+ (UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8
                          | UInt32(buffer[index + 2]) << 16 | UInt32(buffer[index + 3]) << 24)
            index += 4
        }
        let found = UInt32(buffer[expected - 4]) | UInt32(buffer[expected - 3]) << 8
            | UInt32(buffer[expected - 2]) << 16 | UInt32(buffer[expected - 1]) << 24
        if sum == found {
            counters.casicFrames += 1
            let payload = UnsafeBufferPointer<UInt8>(
                start: buffer.baseAddress?.advanced(by: 6).assumingMemoryBound(to: UInt8.self), count: expected - 10)
            sink.framer(casicClass: buffer[4], id: buffer[5], payload: payload.span, frame: held(expected).span)
            state = .idle
            length = 0
        } else {
            counters.badBinaryChecksums += 1
            sink.framer(error: .badCASICChecksum(offset: frameStart, messageClass: buffer[4], id: buffer[5]))
            abandonBinary(nil, into: &sink)
        }
    }
}

/// Builds CASIC frames (for commands, the emulator and tests; the framer checks them without allocating).
public enum CASICFrame {
    /// The 32-bit CASIC checksum: the sum of the little-endian words of `bytes` (length field to the
    /// end of the payload; a short last word is zero-padded).
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var sum: UInt32 = 0
        var word: UInt32 = 0
        var shift: UInt32 = 0
        for byte in bytes {
            word |= UInt32(byte) << shift
            shift += 8
            if shift == 32 { sum = sum &+ word; word = 0; shift = 0 }
        }
        return shift == 0 ? sum : sum &+ word
    }

    /// `0xBA 0xCE`, length, class, id, the payload zero-padded to whole words (at most 2048 bytes), checksum.
    public static func encode(class messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
        var body = Array(payload.prefix(FramerCore.maximumCASICPayload))
        while body.count % 4 != 0 { body.append(0) }
        let header: [UInt8] = [UInt8(body.count & 0xFF), UInt8(body.count >> 8), messageClass, id]
        let sum = checksum(header + body)
        return [0xBA, 0xCE] + header + body + (0..<4).map { UInt8(truncatingIfNeeded: sum >> (8 * UInt32($0))) }
    }
}
