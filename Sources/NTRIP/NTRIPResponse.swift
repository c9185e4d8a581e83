/// The head of a caster's answer: its status line and header fields.
public struct NTRIPResponseHead: Sendable, Hashable {
    /// What the status line was.
    public enum Kind: Sendable, Hashable {
        /// `ICY 200 OK`: an NTRIP 1.0 stream follows.
        case icy
        /// `SOURCETABLE 200 OK`: an NTRIP 1.0 source table follows (also a 1.0 caster's answer
        /// to an unknown mountpoint).
        case sourceTable
        /// `HTTP/1.x CODE REASON`.
        case http
    }

    /// The status line's kind.
    public var kind: Kind
    /// The status code (200 for ICY and SOURCETABLE).
    public var statusCode: Int
    /// The reason phrase.
    public var reason: String
    /// Header fields, names in lower case (the last of repeated names wins).
    public var headers: [String: String]

    /// Whether the body uses chunked transfer encoding.
    public var isChunked: Bool { headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false }
    /// Whether the caster answered with NTRIP 2.0 (`Ntrip-Version: Ntrip/2.0`).
    public var isNTRIP2: Bool { headers["ntrip-version"]?.lowercased().hasPrefix("ntrip/2") ?? false }
    /// Whether the body is a source table (v1 `SOURCETABLE`, or v2 `Content-Type: gnss/sourcetable`).
    public var isSourceTable: Bool {
        kind == .sourceTable || (headers["content-type"]?.lowercased().hasPrefix("gnss/sourcetable") ?? false)
    }
}

/// Reads a caster's response head from the bytes received so far.
public enum NTRIPResponseParser {
    /// The longest head accepted, bytes.
    public static let maximumHeadLength = 8192

    /// The head at the start of `bytes` and how many bytes it took, or `nil` when more bytes are
    /// needed. An `ICY 200 OK` line may be followed directly by the stream (NTRIP 1.0 casters send
    /// no header fields), so it is complete as soon as its line is, unless header-looking text
    /// follows at once; the others end with a blank line. Lines may end in CR LF or LF.
    /// With `atEnd` (the caster closed the connection), a complete status line is enough: casters
    /// answer `HTTP/1.0 401 Unauthorized` and close without a blank line.
    public static func parse(_ bytes: some Collection<UInt8>, atEnd: Bool = false) throws(NTRIPError) -> (head: NTRIPResponseHead, length: Int)? {
        let buffer = Array(bytes.prefix(maximumHeadLength + 1))
        guard let firstEnd = buffer.firstIndex(of: 0x0A) else {
            if buffer.count > maximumHeadLength { throw .headerTooLong(maximumHeadLength) }
            if let bad = buffer.firstIndex(where: { $0 != 0x0D && $0 != 0x09 && ($0 < 0x20 || $0 > 0x7E) }) {
                throw .malformedResponse("byte \(bad) of the status line is 0x\(hex(buffer[bad]))")
            }
            return nil
        }
        if let bad = buffer[..<firstEnd].firstIndex(where: { $0 != 0x0D && $0 != 0x09 && ($0 < 0x20 || $0 > 0x7E) }) {
            throw .malformedResponse("byte \(bad) of the status line is 0x\(hex(buffer[bad]))")
        }
        let statusLine = line(buffer[..<firstEnd])
        var head = try status(statusLine)
        var offset = firstEnd + 1
        if head.kind == .icy {
            // Header fields follow only if text follows; an RTCM3 preamble (0xD3) or nothing means the stream.
            guard offset < buffer.count else { return (head, offset) }
            let next = buffer[offset]
            guard next == 0x0D || next == 0x0A || (next >= 0x41 && next <= 0x7A) else { return (head, offset) }
        }
        while true {
            guard let end = buffer[offset...].firstIndex(of: 0x0A) else {
                if buffer.count > maximumHeadLength { throw .headerTooLong(maximumHeadLength) }
                return atEnd ? (head, buffer.count) : nil
            }
            let text = line(buffer[offset..<end])
            offset = end + 1
            if text.isEmpty { return (head, offset) }
            guard let colon = text.firstIndex(of: ":") else {
                throw .malformedResponse("header line '\(text.prefix(60))' has no ':'")
            }
            let name = text[..<colon].trimmingSpaces().lowercased()
            head.headers[name] = String(text[text.index(after: colon)...].trimmingSpaces())
        }
    }

    static func status(_ text: String) throws(NTRIPError) -> NTRIPResponseHead {
        if text.hasPrefix("ICY ") {
            let rest = text.dropFirst(4)
            guard rest.hasPrefix("200") else { throw .malformedResponse("status line '\(text.prefix(60))'") }
            return NTRIPResponseHead(kind: .icy, statusCode: 200, reason: String(rest.dropFirst(3).trimmingSpaces()), headers: [:])
        }
        if text.hasPrefix("SOURCETABLE 200") {
            return NTRIPResponseHead(kind: .sourceTable, statusCode: 200, reason: "OK", headers: [:])
        }
        if text.hasPrefix("HTTP/1.") {
            let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard parts.count >= 2, parts[1].count == 3, let code = Int(parts[1]) else {
                throw .malformedResponse("status line '\(text.prefix(60))' has no 3-digit code")
            }
            return NTRIPResponseHead(kind: .http, statusCode: code, reason: parts.count > 2 ? String(parts[2]) : "", headers: [:])
        }
        throw .malformedResponse("status line '\(text.prefix(60))' is neither ICY, SOURCETABLE nor HTTP")
    }

    static func line(_ bytes: ArraySlice<UInt8>) -> String {
        var slice = bytes
        if slice.last == 0x0D { slice = slice.dropLast() }
        return String(decoding: slice, as: UTF8.self)
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

extension StringProtocol {
    func trimmingSpaces() -> Substring {
        var s = Substring(self)
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}

/// Decodes HTTP/1.1 chunked transfer encoding incrementally: feed any split of the body, get the
/// data bytes out. Chunk extensions and trailers are skipped; a size over 16 MiB or a missing CR LF
/// is an error naming the body offset.
public struct ChunkedDecoder: Sendable {
    enum State: Sendable { case size, sizeExtension, sizeLF, data, dataCR, dataLF, trailer, done }

    private var state = State.size
    private var size = 0
    private var digits = 0
    private var remaining = 0
    private var lineLength = 0
    /// Body bytes consumed so far (for error offsets).
    public private(set) var offset = 0
    /// Whether the last (zero-size) chunk and its trailer have been read.
    public var isFinished: Bool { if case .done = state { return true } else { return false } }

    /// A decoder at the start of a body.
    public init() {}

    /// Decodes `bytes`, appending the chunks' data to `output`.
    public mutating func decode(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws(NTRIPError) {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if case .data = state {
                let available = bytes.distance(from: index, to: bytes.endIndex)
                let take = min(available, remaining)
                let end = bytes.index(index, offsetBy: take)
                output.append(contentsOf: bytes[index..<end])
                index = end
                remaining -= take
                offset += take
                if remaining == 0 { state = .dataCR }
                continue
            }
            let byte = bytes[index]
            index = bytes.index(after: index)
            try step(byte)
            offset += 1
        }
    }

    private mutating func step(_ byte: UInt8) throws(NTRIPError) {
        switch state {
        case .size:
            if let value = NTRIPConfiguration.hexValue(byte) {
                digits += 1
                size = size << 4 | Int(value)
                guard digits <= 7, size <= 16 << 20 else { throw .badChunk(offset: offset, "chunk size over 16 MiB") }
            } else if byte == 0x0D {
                guard digits > 0 else { throw .badChunk(offset: offset, "no chunk size") }
                state = .sizeLF
            } else if byte == 0x0A {
                guard digits > 0 else { throw .badChunk(offset: offset, "no chunk size") }
                endOfSize()
            } else if byte == 0x3B || byte == 0x20 || byte == 0x09 {
                guard digits > 0 else { throw .badChunk(offset: offset, "no chunk size") }
                state = .sizeExtension
            } else {
                throw .badChunk(offset: offset, "0x\(NTRIPResponseParser.hex(byte)) in a chunk size")
            }
        case .sizeExtension:
            if byte == 0x0A { endOfSize() } else if byte == 0x0D { state = .sizeLF }
        case .sizeLF:
            guard byte == 0x0A else { throw .badChunk(offset: offset, "CR without LF after a chunk size") }
            endOfSize()
        case .data:
            break
        case .dataCR:
            if byte == 0x0D { state = .dataLF } else if byte == 0x0A { state = .size } else {
                throw .badChunk(offset: offset, "chunk data longer than its size (no CR LF)")
            }
        case .dataLF:
            guard byte == 0x0A else { throw .badChunk(offset: offset, "CR without LF after chunk data") }
            state = .size
        case .trailer:
            if byte == 0x0A {
                if lineLength == 0 { state = .done } else { lineLength = 0 }
            } else if byte != 0x0D {
                lineLength += 1
            }
        case .done:
            break
        }
    }

    private mutating func endOfSize() {
        if size == 0 {
            state = .trailer
            lineLength = 0
        } else {
            remaining = size
            state = .data
        }
        size = 0
        digits = 0
    }
}
