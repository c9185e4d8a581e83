import Foundation
import LocationServices
import NIOCore

/// Lines in and out of the client socket: JSON objects, one a line, no line longer than
/// ``ClientSocketProtocol/maximumLineLength``, framed by ``LineDecoder``.
package enum ClientSocketCodec {
    /// The encoder of both ends: sorted keys, non-finite numbers as the strings `inf`, `-inf`, `nan`.
    package static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    /// The decoder of both ends (reads what ``encoder()`` writes).
    package static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }

    /// The line decoder of both ends: the protocol's limit, a CR before the LF dropped, empty lines
    /// skipped, a line the peer did not finish before closing dropped.
    package static func lineDecoder() -> LineDecoder {
        LineDecoder(maximumLength: ClientSocketProtocol.maximumLineLength, stripsCarriageReturn: true, skipsEmptyLines: true,
                    deliversUnterminatedLine: false)
    }

    /// A value as one line with its LF, or `nil` when it cannot be encoded within the limit.
    package static func line<T: Encodable>(_ value: T, encoder: JSONEncoder) -> [UInt8]? {
        guard var data = try? encoder.encode(value), data.count <= ClientSocketProtocol.maximumLineLength else { return nil }
        data.append(0x0A)
        return [UInt8](data)
    }

    /// Decodes one line (a `ByteBuffer` from ``LineDecoder``).
    package static func decode<T: Decodable>(_ type: T.Type, from line: ByteBuffer, decoder: JSONDecoder) throws -> T {
        try decoder.decode(type, from: Data(line.readableBytesView))
    }

    /// What describes a decoding failure to the sender (no type names or coding paths of this build).
    package static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.codingPath.isEmpty ? "not a JSON object" : "\(path(c.codingPath)): \(c.debugDescription)"
        case DecodingError.keyNotFound(let key, let c): return "missing key '\(path(c.codingPath + [key]))'"
        case DecodingError.typeMismatch(_, let c): return "key '\(path(c.codingPath))' has the wrong type"
        case DecodingError.valueNotFound(_, let c): return "key '\(path(c.codingPath))' is null"
        case let e as LocationError: return e.message
        default: return "not a request"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
