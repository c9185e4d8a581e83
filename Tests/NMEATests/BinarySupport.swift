import NMEA

/// A CASIC frame with a correct checksum, the sum computed here independently of `CASICFrame`.
func casicFrame(_ cls: UInt8, _ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
    let header: [UInt8] = [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), cls, id]
    let words = stride(from: 0, to: payload.count, by: 4).map { k in
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(k + $1 < payload.count ? payload[k + $1] : 0) << (8 * UInt32($1)) }
    }
    let sum = words.reduce(UInt32(cls) << 16 | UInt32(id) << 24 | UInt32(payload.count), &+)
    return [0xBA, 0xCE] + header + payload + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: sum >> $0) }
}

/// Little-endian payload builder for the interface-description frames.
struct Payload {
    var bytes: [UInt8]
    init(_ count: Int) { bytes = [UInt8](repeating: 0, count: count) }
    mutating func u8(_ offset: Int, _ value: UInt8) { bytes[offset] = value }
    mutating func i8(_ offset: Int, _ value: Int8) { bytes[offset] = UInt8(bitPattern: value) }
    mutating func u16(_ offset: Int, _ value: UInt16) { for k in 0..<2 { bytes[offset + k] = UInt8(value >> (8 * k) & 0xFF) } }
    mutating func i16(_ offset: Int, _ value: Int16) { u16(offset, UInt16(bitPattern: value)) }
    mutating func u32(_ offset: Int, _ value: UInt32) { for k in 0..<4 { bytes[offset + k] = UInt8(value >> (8 * k) & 0xFF) } }
    mutating func i32(_ offset: Int, _ value: Int32) { u32(offset, UInt32(bitPattern: value)) }
    mutating func f32(_ offset: Int, _ value: Float) { u32(offset, value.bitPattern) }
    mutating func f64(_ offset: Int, _ value: Double) {
        for k in 0..<8 { bytes[offset + k] = UInt8(value.bitPattern >> (8 * UInt64(k)) & 0xFF) }
    }
}

/// Every binary frame of a log, in order, as (protocol, class, id, payload).
struct BinaryFrames: NMEAFramerSink {
    var frames: [(casic: Bool, cls: UInt8, id: UInt8, payload: [UInt8])] = []
    mutating func framer(sentence: Span<UInt8>) {}
    mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {
        var bytes: [UInt8] = []
        for i in payload.indices { bytes.append(payload[i]) }
        frames.append((false, ubxClass, id, bytes))
    }
    mutating func framer(casicClass: UInt8, id: UInt8, payload: Span<UInt8>) {
        var bytes: [UInt8] = []
        for i in payload.indices { bytes.append(payload[i]) }
        frames.append((true, casicClass, id, bytes))
    }

    /// The frames of a shared-corpus log (`nil` without ../shared).
    static func of(log name: String) -> BinaryFrames? {
        guard let shared = sharedFolder(), let bytes = FileProbe.read(shared + "/corpus/gpsd/" + name) else { return nil }
        let framer = NMEAFramer(skipsCommentLines: true)
        var sink = BinaryFrames()
        framer.feed(bytes.span, into: &sink)
        framer.finish(into: &sink)
        return sink
    }

    func payloads(casic: Bool = false, _ cls: UInt8, _ id: UInt8) -> [[UInt8]] {
        frames.filter { $0.casic == casic && $0.cls == cls && $0.id == id }.map(\.payload)
    }
}

/// Runs bytes through a whole ``NMEAStream`` and returns its fixes and the stream.
func streamFixes(_ bytes: [UInt8], chunk: Int = 4096, options: AssemblerOptions = AssemblerOptions(),
                 skipsCommentLines: Bool = true) -> (fixes: [Fix], stream: NMEAStream) {
    let stream = NMEAStream(assemblerOptions: options, skipsCommentLines: skipsCommentLines)
    var fixes: [Fix] = []
    var index = 0
    while index < bytes.count {
        let end = min(bytes.count, index + chunk)
        let slice = Array(bytes[index..<end])
        stream.feed(slice.span) { fixes.append($0) }
        index = end
    }
    stream.finish { fixes.append($0) }
    return (fixes, stream)
}

// Array-taking forms of the decoders, for the test macros (which cannot capture a `Span`).
extension UBXNavPVT { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXHNRPVT { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavSOL { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavPOSLLH { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavPOSECEF { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavVELNED { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavVELECEF { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavDOP { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavTimeGPS { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavTimeUTC { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavTimeLS { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavStatus { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXTimTP { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXMonRF { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension CASICNavPV { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension CASICNavTimeUTC { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension CASICNavDOP { init?(bytes: [UInt8]) { self.init(payload: bytes.span) } }
extension UBXNavSAT { static func decode(bytes: [UInt8], into sky: inout SatelliteList) -> UInt32? { decode(payload: bytes.span, into: &sky) } }
extension UBXNavSIG { static func decode(bytes: [UInt8], into sky: inout SatelliteList) -> UInt32? { decode(payload: bytes.span, into: &sky) } }
extension CASICNavSatelliteInfo {
    static func decode(messageID: UInt8, bytes: [UInt8], appendingTo sky: inout SatelliteList) -> UInt32? {
        decode(messageID: messageID, payload: bytes.span, appendingTo: &sky)
    }
}
