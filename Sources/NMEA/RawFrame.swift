/// One frame of a receiver's byte stream exactly as it was received, as gpsd's `nmea` and `raw`
/// watchers are handed it: an NMEA sentence from its `$` or `!` through its checksum, then CR LF
/// (whatever line end the receiver used), or a binary frame from its sync bytes through its checksum.
///
/// ``NMEAStream`` hands these out (``NMEAStream/deliversFrames``) from the framer that splits the
/// stream for the parser: the bytes are the received ones, never re-encoded.
public struct RawFrame: Sendable, Hashable {
    /// What a frame is.
    public enum Kind: Sendable, Hashable {
        /// An NMEA 0183 sentence (its checksum not yet checked: rejected sentences are frames too).
        case sentence
        /// A u-blox UBX frame with a correct checksum.
        case ubx
        /// An RTCM 3 frame with a correct CRC-24Q.
        case rtcm3
        /// A CASIC binary frame with a correct checksum.
        case casic
    }

    /// What the frame is.
    public var kind: Kind
    /// The frame's bytes; a sentence's end with CR LF.
    public var bytes: [UInt8]

    /// A frame of `kind` with `bytes` as they are.
    public init(kind: Kind, bytes: [UInt8]) {
        self.kind = kind
        self.bytes = bytes
    }

    /// A frame copied from what the framer found: for a sentence, its bytes up to its line end
    /// (not included), to which CR LF is added; for a binary frame, the whole frame.
    public init(kind: Kind, framed: Span<UInt8>) {
        self.kind = kind
        var bytes = [UInt8]()
        bytes.reserveCapacity(framed.count + 2)
        for index in framed.indices { bytes.append(framed[index]) }
        if kind == .sentence {
            bytes.append(0x0D)
            bytes.append(0x0A)
        }
        self.bytes = bytes
    }

    /// Whether this is a binary frame (gpsd's `raw:1` watchers see these as hex dumps).
    public var isBinary: Bool { kind != .sentence }
}
