/// One D-Bus message: its header fields and its body.
public struct DBusMessage: Equatable, Sendable {
    /// The message type (the header's second byte).
    public enum Kind: UInt8, Sendable {
        /// A method call.
        case methodCall = 1
        /// A method's reply.
        case methodReturn = 2
        /// An error reply.
        case error = 3
        /// A signal.
        case signal = 4
    }

    /// The flag bit: the caller wants no reply.
    public static let noReplyExpected: UInt8 = 0x1
    /// The flag bit: do not start a service to deliver the message.
    public static let noAutoStart: UInt8 = 0x2

    /// The message type.
    public var kind: Kind
    /// ``noReplyExpected`` and ``noAutoStart`` bits.
    public var flags: UInt8
    /// The sender's serial of this message (not zero).
    public var serial: UInt32
    /// PATH (1): the object.
    public var path: String?
    /// INTERFACE (2).
    public var interface: String?
    /// MEMBER (3): the method or signal.
    public var member: String?
    /// ERROR_NAME (4).
    public var errorName: String?
    /// REPLY_SERIAL (5): the serial of the call answered.
    public var replySerial: UInt32?
    /// DESTINATION (6).
    public var destination: String?
    /// SENDER (7), set by the bus.
    public var sender: String?
    /// The body's values; the SIGNATURE header field is their types.
    public var body: [DBusValue]

    /// Creates a message.
    public init(
        kind: Kind, flags: UInt8 = 0, serial: UInt32, path: String? = nil, interface: String? = nil, member: String? = nil,
        errorName: String? = nil, replySerial: UInt32? = nil, destination: String? = nil, sender: String? = nil, body: [DBusValue] = []
    ) {
        self.kind = kind
        self.flags = flags
        self.serial = serial
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.replySerial = replySerial
        self.destination = destination
        self.sender = sender
        self.body = body
    }

    /// A method call.
    public static func methodCall(
        serial: UInt32, destination: String?, path: String, interface: String?, member: String, body: [DBusValue] = []
    ) -> DBusMessage {
        DBusMessage(kind: .methodCall, serial: serial, path: path, interface: interface, member: member, destination: destination, body: body)
    }

    /// The body's signature, e.g. `sa{sv}as`.
    public var signature: String { body.map(\.type.description).joined() }

    /// The header field codes.
    enum Field: UInt8 {
        case path = 1, interface, member, errorName, replySerial, destination, sender, signature, unixFDs
    }

    /// The message in the wire format, little-endian.
    public func encoded() -> [UInt8] {
        var fields: [DBusValue] = []
        func field(_ code: Field, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(code.rawValue), .variant(value)])) }
        }
        field(.path, path.map { .objectPath($0) })
        field(.interface, interface.map { .string($0) })
        field(.member, member.map { .string($0) })
        field(.errorName, errorName.map { .string($0) })
        field(.replySerial, replySerial.map { .uint32($0) })
        field(.destination, destination.map { .string($0) })
        field(.sender, sender.map { .string($0) })
        if !body.isEmpty { field(.signature, .signature(signature)) }

        var bodyEncoder = DBusEncoder()
        for value in body { bodyEncoder.encode(value) }

        var encoder = DBusEncoder()
        encoder.encode(.byte(UInt8(ascii: "l")))
        encoder.encode(.byte(kind.rawValue))
        encoder.encode(.byte(flags))
        encoder.encode(.byte(1))
        encoder.encode(.uint32(UInt32(truncatingIfNeeded: bodyEncoder.bytes.count)))
        encoder.encode(.uint32(serial))
        encoder.encode(.array(element: .structure([.basic(UInt8(ascii: "y")), .variant]), fields))
        encoder.align(to: 8)
        return encoder.bytes + bodyEncoder.bytes
    }

    /// The most a message may take, header and body (the specification's limit is 128 MiB).
    public static let maximumLength = 1 << 27

    /// How many bytes the message starting with these 16 fixed header bytes takes in all, or a
    /// fault for a header that is not D-Bus.
    static func totalLength(fixedHeader bytes: ArraySlice<UInt8>, base: Int) throws(DBusWireError) -> Int {
        let start = bytes.startIndex
        let endian = bytes[start]
        guard endian == UInt8(ascii: "l") || endian == UInt8(ascii: "B") else {
            throw DBusWireError(offset: base, "endianness byte is 0x\(String(endian, radix: 16)), not 'l' or 'B'")
        }
        guard bytes[start + 3] == 1 else { throw DBusWireError(offset: base + 3, "protocol version is \(bytes[start + 3]), not 1") }
        func word(_ at: Int) -> Int {
            var value = 0
            for index in 0..<4 {
                let byte = Int(bytes[start + at + index])
                value |= endian == UInt8(ascii: "l") ? byte << (8 * index) : byte << (8 * (3 - index))
            }
            return value
        }
        let bodyLength = word(4)
        let fieldsLength = word(12)
        let headerLength = (16 + fieldsLength + 7) & ~7
        guard bodyLength <= maximumLength, fieldsLength <= maximumLength, headerLength + bodyLength <= maximumLength else {
            throw DBusWireError(offset: base + 4, "message of \(headerLength + bodyLength) bytes is over the limit of \(maximumLength)")
        }
        return headerLength + bodyLength
    }

    /// Decodes one whole message; `base` is its offset in the stream, for errors.
    public static func decode(_ bytes: [UInt8], base: Int = 0) throws(DBusWireError) -> DBusMessage {
        guard bytes.count >= 16 else { throw DBusWireError(offset: base + bytes.count, "message of \(bytes.count) bytes is shorter than its 16-byte header") }
        let total = try totalLength(fixedHeader: bytes[0..<16], base: base)
        guard bytes.count == total else { throw DBusWireError(offset: base, "message is \(bytes.count) bytes, its header says \(total)") }
        let bigEndian = bytes[0] == UInt8(ascii: "B")
        guard let kind = Kind(rawValue: bytes[1]) else { throw DBusWireError(offset: base + 1, "message type \(bytes[1]) is not 1 to 4") }
        var decoder = DBusDecoder(bytes: bytes, position: 8, bigEndian: bigEndian, base: base)
        guard case .uint32(let serial) = try decoder.decode(.basic(UInt8(ascii: "u"))), serial != 0 else {
            throw DBusWireError(offset: base + 8, "serial is zero")
        }
        var message = DBusMessage(kind: kind, flags: bytes[2], serial: serial)
        let fieldsAt = decoder.position
        let fields = try decoder.decode(.array(.structure([.basic(UInt8(ascii: "y")), .variant])))
        var signature = ""
        if case .array(_, let items) = fields {
            for item in items {
                guard case .structure(let pair) = item, pair.count == 2, case .byte(let code) = pair[0], case .variant(let value) = pair[1] else { continue }
                func expect(_ text: String?, _ name: String) throws(DBusWireError) -> String {
                    guard let text else { throw DBusWireError(offset: base + fieldsAt, "header field \(name) has the wrong type \(value.type)") }
                    return text
                }
                switch Field(rawValue: code) {
                case .path:
                    guard case .objectPath(let text) = value else { throw DBusWireError(offset: base + fieldsAt, "header field PATH is not an object path") }
                    message.path = text
                case .interface: message.interface = try expect(value.stringValue, "INTERFACE")
                case .member: message.member = try expect(value.stringValue, "MEMBER")
                case .errorName: message.errorName = try expect(value.stringValue, "ERROR_NAME")
                case .destination: message.destination = try expect(value.stringValue, "DESTINATION")
                case .sender: message.sender = try expect(value.stringValue, "SENDER")
                case .signature:
                    guard case .signature(let text) = value else { throw DBusWireError(offset: base + fieldsAt, "header field SIGNATURE is not a signature") }
                    signature = text
                case .replySerial:
                    guard case .uint32(let reply) = value else { throw DBusWireError(offset: base + fieldsAt, "header field REPLY_SERIAL is not a uint32") }
                    message.replySerial = reply
                case .unixFDs, nil:
                    continue  // Unknown fields are ignored, as the specification says.
                }
            }
        }
        switch kind {
        case .methodCall where message.path == nil || message.member == nil:
            throw DBusWireError(offset: base + fieldsAt, "method call without PATH or MEMBER")
        case .signal where message.path == nil || message.member == nil || message.interface == nil:
            throw DBusWireError(offset: base + fieldsAt, "signal without PATH, INTERFACE or MEMBER")
        case .error where message.errorName == nil || message.replySerial == nil:
            throw DBusWireError(offset: base + fieldsAt, "error without ERROR_NAME or REPLY_SERIAL")
        case .methodReturn where message.replySerial == nil:
            throw DBusWireError(offset: base + fieldsAt, "method return without REPLY_SERIAL")
        default: break
        }
        try decoder.align(to: 8)
        let bodyAt = decoder.position
        let types: [DBusType]
        do { types = try DBusType.parse(signature: signature) } catch {
            throw DBusWireError(offset: base + fieldsAt, "body signature '\(signature)': \(error.message)")
        }
        for type in types { message.body.append(try decoder.decode(type)) }
        guard decoder.position == bytes.count else {
            throw DBusWireError(offset: base + decoder.position, "body has \(bytes.count - decoder.position) bytes after its values (starts at \(base + bodyAt))")
        }
        return message
    }
}

/// Cuts a byte stream from the bus into messages: feed it what arrives, whole, byte by byte or
/// in bursts, and take the messages out.
///
/// Bounded: a message longer than ``DBusMessage/maximumLength`` or the reader's `limit` is an
/// error at the header, before its bytes are kept. After an error the stream is out of step and
/// the reader keeps failing; close the connection.
public struct DBusMessageReader: Sendable {
    private var buffer: [UInt8] = []
    private var consumed = 0
    /// How many bytes of the stream came before the buffer's first byte.
    public private(set) var streamOffset = 0
    private var failure: DBusWireError?
    /// The longest message accepted.
    public let limit: Int

    /// Creates a reader accepting messages up to `limit` bytes.
    public init(limit: Int = 1 << 22) {
        self.limit = min(limit, DBusMessage.maximumLength)
    }

    /// Adds bytes as they arrive.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
    }

    /// Bytes kept, waiting for the rest of their message.
    public var pendingCount: Int { buffer.count - consumed }

    /// The next whole message, or `nil` until more bytes arrive.
    public mutating func next() throws(DBusWireError) -> DBusMessage? {
        if let failure { throw failure }
        do throws(DBusWireError) {
            guard buffer.count - consumed >= 16 else { return nil }
            let base = streamOffset + consumed
            let total = try DBusMessage.totalLength(fixedHeader: buffer[consumed..<(consumed + 16)], base: base)
            guard total <= limit else { throw DBusWireError(offset: base + 4, "message of \(total) bytes is over the reader's limit of \(limit)") }
            guard buffer.count - consumed >= total else { return nil }
            let bytes = Array(buffer[consumed..<(consumed + total)])
            consumed += total
            if consumed == buffer.count || consumed > 1 << 16 {
                buffer.removeFirst(consumed)
                streamOffset += consumed
                consumed = 0
            }
            return try DBusMessage.decode(bytes, base: base)
        } catch {
            failure = error
            throw error
        }
    }
}
