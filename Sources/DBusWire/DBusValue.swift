/// A D-Bus type, parsed from a signature: one of the basic types, an array, a struct, a dict
/// entry or a variant.
public indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    /// `y` byte, `b` boolean, `n` int16, `q` uint16, `i` int32, `u` uint32, `x` int64,
    /// `t` uint64, `d` double, `s` string, `o` object path, `g` signature, `h` Unix fd index.
    case basic(UInt8)
    /// `a` followed by the element type.
    case array(DBusType)
    /// `(` … `)`: one or more fields.
    case structure([DBusType])
    /// `{` key value `}`: only as an array's element; the key is a basic type.
    case dictEntry(DBusType, DBusType)
    /// `v`: a value that carries its own signature.
    case variant

    /// The boundary this type's values start on, in bytes from the start of the message.
    public var alignment: Int {
        switch self {
        case .basic(let code):
            switch code {
            case UInt8(ascii: "y"), UInt8(ascii: "g"): return 1
            case UInt8(ascii: "n"), UInt8(ascii: "q"): return 2
            case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"): return 8
            default: return 4
            }
        case .array: return 4
        case .structure, .dictEntry: return 8
        case .variant: return 1
        }
    }

    /// The type's signature, e.g. `a{sv}`.
    public var description: String {
        switch self {
        case .basic(let code): return String(UnicodeScalar(code))
        case .array(let element): return "a" + element.description
        case .structure(let fields): return "(" + fields.map(\.description).joined() + ")"
        case .dictEntry(let key, let value): return "{" + key.description + value.description + "}"
        case .variant: return "v"
        }
    }

    /// The basic type codes.
    static let basicCodes: Set<UInt8> = Set("ybnqiuxtdsogh".utf8)

    /// Parses a signature into its complete types.
    ///
    /// - Throws: ``DBusWireError`` for an unknown code, an unbalanced bracket, a dict entry outside an
    ///   array or with a non-basic key, more than 32 nested arrays or structs, or over 255 bytes.
    public static func parse(signature: String) throws(DBusWireError) -> [DBusType] {
        let bytes = Array(signature.utf8)
        guard bytes.count <= 255 else { throw DBusWireError(offset: 0, "signature of \(bytes.count) bytes is over 255") }
        var position = 0
        var types: [DBusType] = []
        while position < bytes.count {
            types.append(try parseOne(bytes, &position, arrays: 0, structs: 0, inArray: false))
        }
        return types
    }

    private static func parseOne(_ bytes: [UInt8], _ position: inout Int, arrays: Int, structs: Int, inArray: Bool) throws(DBusWireError) -> DBusType {
        guard position < bytes.count else { throw DBusWireError(offset: position, "signature ends inside a type") }
        let code = bytes[position]
        position += 1
        switch code {
        case _ where basicCodes.contains(code):
            return .basic(code)
        case UInt8(ascii: "v"):
            return .variant
        case UInt8(ascii: "a"):
            guard arrays < 32 else { throw DBusWireError(offset: position - 1, "more than 32 nested arrays in a signature") }
            return .array(try parseOne(bytes, &position, arrays: arrays + 1, structs: structs, inArray: true))
        case UInt8(ascii: "("):
            guard structs < 32 else { throw DBusWireError(offset: position - 1, "more than 32 nested structs in a signature") }
            var fields: [DBusType] = []
            while position < bytes.count, bytes[position] != UInt8(ascii: ")") {
                fields.append(try parseOne(bytes, &position, arrays: arrays, structs: structs + 1, inArray: false))
            }
            guard position < bytes.count else { throw DBusWireError(offset: position, "signature ends inside a struct") }
            guard !fields.isEmpty else { throw DBusWireError(offset: position, "empty struct in a signature") }
            position += 1
            return .structure(fields)
        case UInt8(ascii: "{"):
            guard inArray else { throw DBusWireError(offset: position - 1, "dict entry outside an array in a signature") }
            let keyAt = position
            let key = try parseOne(bytes, &position, arrays: arrays, structs: structs + 1, inArray: false)
            guard case .basic = key else { throw DBusWireError(offset: keyAt, "dict entry key \(key) is not a basic type") }
            let value = try parseOne(bytes, &position, arrays: arrays, structs: structs + 1, inArray: false)
            guard position < bytes.count, bytes[position] == UInt8(ascii: "}") else {
                throw DBusWireError(offset: position, "dict entry does not close after its key and value")
            }
            position += 1
            return .dictEntry(key, value)
        default:
            throw DBusWireError(offset: position - 1, "'\(UnicodeScalar(code))' (0x\(String(code, radix: 16))) is not a type code")
        }
    }
}

/// One D-Bus value, of any type.
public indirect enum DBusValue: Equatable, Sendable {
    /// `y`.
    case byte(UInt8)
    /// `b`, written as a uint32 0 or 1.
    case boolean(Bool)
    /// `n`.
    case int16(Int16)
    /// `q`.
    case uint16(UInt16)
    /// `i`.
    case int32(Int32)
    /// `u`.
    case uint32(UInt32)
    /// `x`.
    case int64(Int64)
    /// `t`.
    case uint64(UInt64)
    /// `d`, IEEE 754.
    case double(Double)
    /// `s`, UTF-8 without nul bytes.
    case string(String)
    /// `o`.
    case objectPath(String)
    /// `g`.
    case signature(String)
    /// A Unix file descriptor, as its index into the message's descriptors.
    case unixFD(UInt32)
    /// An array; `element` is needed to write the signature of an empty array.
    case array(element: DBusType, [DBusValue])
    /// `(…)`.
    case structure([DBusValue])
    /// `{key value}`, only inside an array.
    case dictEntry(DBusValue, DBusValue)
    /// `v`: the value with its own signature.
    case variant(DBusValue)

    /// The value's type.
    public var type: DBusType {
        switch self {
        case .byte: return .basic(UInt8(ascii: "y"))
        case .boolean: return .basic(UInt8(ascii: "b"))
        case .int16: return .basic(UInt8(ascii: "n"))
        case .uint16: return .basic(UInt8(ascii: "q"))
        case .int32: return .basic(UInt8(ascii: "i"))
        case .uint32: return .basic(UInt8(ascii: "u"))
        case .int64: return .basic(UInt8(ascii: "x"))
        case .uint64: return .basic(UInt8(ascii: "t"))
        case .double: return .basic(UInt8(ascii: "d"))
        case .string: return .basic(UInt8(ascii: "s"))
        case .objectPath: return .basic(UInt8(ascii: "o"))
        case .signature: return .basic(UInt8(ascii: "g"))
        case .unixFD: return .basic(UInt8(ascii: "h"))
        case .array(let element, _): return .array(element)
        case .structure(let fields): return .structure(fields.map(\.type))
        case .dictEntry(let key, let value): return .dictEntry(key.type, value.type)
        case .variant: return .variant
        }
    }

    /// A dictionary `a{sv}` from string keys to variants, in the given order.
    public static func stringVariantDictionary(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(element: .dictEntry(.basic(UInt8(ascii: "s")), .variant),
               entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// The string of a `s`, `o` or `g` value.
    public var stringValue: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): return text
        default: return nil
        }
    }

    /// The value inside a variant (the value itself when it is not a variant).
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// Any integer value as `Int`.
    public var integerValue: Int? {
        switch self {
        case .byte(let v): return Int(v)
        case .int16(let v): return Int(v)
        case .uint16(let v): return Int(v)
        case .int32(let v): return Int(v)
        case .uint32(let v): return Int(v)
        case .int64(let v): return Int(v)
        case .uint64(let v): return v <= UInt64(Int.max) ? Int(v) : nil
        case .variant(let inner): return inner.integerValue
        default: return nil
        }
    }

    /// The entries of an array of dict entries, as key/value pairs in order (`nil` otherwise).
    public var dictionaryEntries: [(key: DBusValue, value: DBusValue)]? {
        guard case .array(_, let items) = self.unwrapped else { return nil }
        var out: [(key: DBusValue, value: DBusValue)] = []
        for item in items {
            guard case .dictEntry(let key, let value) = item else { return nil }
            out.append((key, value))
        }
        return out
    }

    /// The bytes of an `ay` (`nil` otherwise).
    public var byteArray: [UInt8]? {
        guard case .array(_, let items) = self.unwrapped else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .byte(let b) = item else { return nil }
            out.append(b)
        }
        return out
    }

    /// An `ay` value.
    public static func bytes(_ bytes: [UInt8]) -> DBusValue {
        .array(element: .basic(UInt8(ascii: "y")), bytes.map { .byte($0) })
    }
}

/// A malformed D-Bus message, signature or authentication line: what is wrong and the byte
/// offset where it was found (from the start of the stream for ``DBusMessageReader``).
public struct DBusWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The byte offset of the fault.
    public var offset: Int
    /// What is wrong.
    public var message: String

    /// Creates an error at `offset`.
    public init(offset: Int, _ message: String) {
        self.offset = offset
        self.message = message
    }

    /// `byte N: message`.
    public var description: String { "byte \(offset): \(message)" }
}
