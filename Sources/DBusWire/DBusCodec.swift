/// Writes D-Bus values in little-endian byte order with the specification's alignment.
///
/// Offsets are counted from the start of the message: a body written by a fresh encoder lands on
/// an 8-byte boundary after the header, so its alignment is the same.
public struct DBusEncoder: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty encoder.
    public init() {}

    /// Writes zero bytes up to the next multiple of `boundary`.
    public mutating func align(to boundary: Int) {
        while bytes.count % boundary != 0 { bytes.append(0) }
    }

    mutating func integer<T: FixedWidthInteger>(_ value: T) {
        align(to: MemoryLayout<T>.size)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ text: String) {
        let utf8 = Array(text.utf8)
        integer(UInt32(truncatingIfNeeded: utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    mutating func signature(_ text: String) {
        let utf8 = Array(text.utf8)
        bytes.append(UInt8(truncatingIfNeeded: utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    /// Writes one value.
    public mutating func encode(_ value: DBusValue) {
        switch value {
        case .byte(let v): bytes.append(v)
        case .boolean(let v): integer(UInt32(v ? 1 : 0))
        case .int16(let v): integer(v)
        case .uint16(let v): integer(v)
        case .int32(let v): integer(v)
        case .uint32(let v): integer(v)
        case .int64(let v): integer(v)
        case .uint64(let v): integer(v)
        case .double(let v): integer(v.bitPattern)
        case .string(let v), .objectPath(let v): string(v)
        case .signature(let v): signature(v)
        case .unixFD(let v): integer(v)
        case .array(let element, let items):
            integer(UInt32(0))
            let lengthAt = bytes.count - 4
            align(to: element.alignment)
            let start = bytes.count
            for item in items { encode(item) }
            let length = UInt32(truncatingIfNeeded: bytes.count - start)
            withUnsafeBytes(of: length.littleEndian) { raw in
                for index in 0..<4 { bytes[lengthAt + index] = raw[index] }
            }
        case .structure(let fields):
            align(to: 8)
            for field in fields { encode(field) }
        case .dictEntry(let key, let value):
            align(to: 8)
            encode(key)
            encode(value)
        case .variant(let inner):
            signature(inner.type.description)
            encode(inner)
        }
    }
}

/// Reads D-Bus values from one message's bytes, bounded: every length is checked against the
/// bytes there are, nesting is limited, and a fault throws ``DBusWireError`` with its offset.
public struct DBusDecoder {
    /// The message's bytes.
    let bytes: [UInt8]
    /// The next byte to read.
    public private(set) var position: Int
    /// The end of the readable bytes.
    let end: Int
    /// `true` for a message marked `B` (big-endian).
    let bigEndian: Bool
    /// Added to positions in errors: where the message starts in the stream.
    let base: Int

    /// Creates a decoder over `bytes[position..<end]`, whose alignment counts from `bytes[0]`.
    public init(bytes: [UInt8], position: Int = 0, end: Int? = nil, bigEndian: Bool = false, base: Int = 0) {
        self.bytes = bytes
        self.position = position
        self.end = min(end ?? bytes.count, bytes.count)
        self.bigEndian = bigEndian
        self.base = base
    }

    func fault(_ message: String, at offset: Int? = nil) -> DBusWireError {
        DBusWireError(offset: base + (offset ?? position), message)
    }

    /// Skips padding up to `boundary`; padding must be zero.
    public mutating func align(to boundary: Int) throws(DBusWireError) {
        while position % boundary != 0 {
            guard position < end else { throw fault("message ends inside padding") }
            guard bytes[position] == 0 else { throw fault("padding byte is 0x\(String(bytes[position], radix: 16)), not zero") }
            position += 1
        }
    }

    mutating func unsigned(_ size: Int) throws(DBusWireError) -> UInt64 {
        try align(to: size)
        guard end - position >= size else { throw fault("message ends inside a \(size)-byte value") }
        var value: UInt64 = 0
        for index in 0..<size {
            let byte = UInt64(bytes[position + index])
            value |= bigEndian ? byte << UInt64(8 * (size - 1 - index)) : byte << UInt64(8 * index)
        }
        position += size
        return value
    }

    mutating func text(length: Int, at start: Int) throws(DBusWireError) -> String {
        guard length >= 0, end - position > length else { throw fault("string of \(length) bytes runs past the end of the message", at: start) }
        let slice = bytes[position..<(position + length)]
        guard bytes[position + length] == 0 else { throw fault("string is not followed by its nul byte", at: position + length) }
        guard !slice.contains(0) else { throw fault("string contains a nul byte", at: start) }
        guard let text = String(validating: slice, as: UTF8.self) else { throw fault("string is not valid UTF-8", at: start) }
        position += length + 1
        return text
    }

    /// Reads a signature (`g`): a length byte, the codes and a nul.
    public mutating func signature() throws(DBusWireError) -> String {
        let start = position
        guard position < end else { throw fault("message ends before a signature") }
        let length = Int(bytes[position])
        position += 1
        return try text(length: length, at: start)
    }

    /// Reads one value of `type`.
    public mutating func decode(_ type: DBusType) throws(DBusWireError) -> DBusValue {
        try decode(type, depth: 0)
    }

    mutating func decode(_ type: DBusType, depth: Int) throws(DBusWireError) -> DBusValue {
        guard depth <= 64 else { throw fault("values nested over 64 deep") }
        switch type {
        case .basic(let code):
            switch code {
            case UInt8(ascii: "y"):
                guard position < end else { throw fault("message ends before a byte") }
                position += 1
                return .byte(bytes[position - 1])
            case UInt8(ascii: "b"):
                try align(to: 4)
                let start = position
                let raw = try unsigned(4)
                guard raw <= 1 else { throw fault("boolean is \(raw), not 0 or 1", at: start) }
                return .boolean(raw == 1)
            case UInt8(ascii: "n"): return .int16(Int16(truncatingIfNeeded: try unsigned(2)))
            case UInt8(ascii: "q"): return .uint16(UInt16(truncatingIfNeeded: try unsigned(2)))
            case UInt8(ascii: "i"): return .int32(Int32(truncatingIfNeeded: try unsigned(4)))
            case UInt8(ascii: "u"): return .uint32(UInt32(truncatingIfNeeded: try unsigned(4)))
            case UInt8(ascii: "h"): return .unixFD(UInt32(truncatingIfNeeded: try unsigned(4)))
            case UInt8(ascii: "x"): return .int64(Int64(bitPattern: try unsigned(8)))
            case UInt8(ascii: "t"): return .uint64(try unsigned(8))
            case UInt8(ascii: "d"): return .double(Double(bitPattern: try unsigned(8)))
            case UInt8(ascii: "s"), UInt8(ascii: "o"):
                try align(to: 4)
                let start = position
                let length = try unsigned(4)
                guard length < UInt64(end - position) else { throw fault("string of \(length) bytes runs past the end of the message", at: start) }
                let value = try text(length: Int(length), at: start)
                if code == UInt8(ascii: "o") {
                    guard value.hasPrefix("/") else { throw fault("object path '\(value)' does not start with /", at: start) }
                    return .objectPath(value)
                }
                return .string(value)
            case UInt8(ascii: "g"):
                let start = position
                let value = try signature()
                do { _ = try DBusType.parse(signature: value) } catch { throw fault("bad signature '\(value)': \(error.message)", at: start) }
                return .signature(value)
            default:
                throw fault("'\(UnicodeScalar(code))' is not a basic type")
            }
        case .array(let element):
            let start = position
            let length = try unsigned(4)
            guard length <= 1 << 26 else { throw fault("array of \(length) bytes is over the limit of 64 MiB", at: start) }
            try align(to: element.alignment)
            let first = position
            guard UInt64(end - first) >= length else { throw fault("array of \(length) bytes runs past the end of the message", at: start) }
            let stop = first + Int(length)
            var items: [DBusValue] = []
            while position < stop {
                items.append(try decode(element, depth: depth + 1))
            }
            guard position == stop else { throw fault("array's last element runs past its length of \(length)", at: start) }
            return .array(element: element, items)
        case .structure(let fields):
            try align(to: 8)
            var values: [DBusValue] = []
            values.reserveCapacity(fields.count)
            for field in fields { values.append(try decode(field, depth: depth + 1)) }
            return .structure(values)
        case .dictEntry(let keyType, let valueType):
            try align(to: 8)
            let key = try decode(keyType, depth: depth + 1)
            let value = try decode(valueType, depth: depth + 1)
            return .dictEntry(key, value)
        case .variant:
            let start = position
            let text = try signature()
            let types: [DBusType]
            do { types = try DBusType.parse(signature: text) } catch { throw fault("bad variant signature '\(text)': \(error.message)", at: start) }
            guard types.count == 1, let inner = types.first else {
                throw fault("variant signature '\(text)' is not one complete type", at: start)
            }
            return .variant(try decode(inner, depth: depth + 1))
        }
    }
}
