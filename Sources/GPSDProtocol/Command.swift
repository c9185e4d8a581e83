// The client side of gpsd's socket protocol: request lines such as `?WATCH={"enable":true};?POLL;`.
#if canImport(NMEA)
import NMEA
#endif

/// One request a gpsd client can send.
///
/// Grammar accepted (a superset of what gpsd 3.22 accepts; details on `parse(_:)`):
/// `?NAME;`, `?NAME` at the end of the line or before the next `?`, and for WATCH and DEVICE
/// `?NAME={json object}` with an optional `;`. Whitespace may surround every token.
public enum GPSDCommand: Sendable, Equatable {
    /// `?VERSION;`: answer with a VERSION report.
    case version
    /// `?DEVICES;`: answer with a DEVICES report.
    case devices
    /// `?WATCH;` (`nil`: report the policy) or `?WATCH={...}` (change it, then report it).
    case watch(GPSDWatchRequest?)
    /// `?POLL;`: answer with a POLL report.
    case poll
    /// `?DEVICE;` (`nil`: report the device) or `?DEVICE={...}` (configure it).
    case device(GPSDDeviceRequest?)

    /// The longest request line accepted, in bytes, not counting a trailing CR/LF.
    ///
    /// gpsd's manual caps requests at 80 characters (`GPS_JSON_COMMAND_MAX`) but gpsd 3.22 does not
    /// enforce it: it handles whatever one `recv()` of up to 8191 bytes delivered, and answered a
    /// 101-character request. 1024 bytes leaves room for long device paths and `hexdata` while
    /// bounding what the server buffers per client.
    public static let maxLineLength = 1024

    /// Parses one client line (with or without its CR/LF) without copying it.
    ///
    /// - A line whose first non-whitespace byte is not `?` is ``GPSDParsedLine/ignored`` (gpsd
    ///   answers nothing; relays send NMEA probe strings such as `$PFEC,GPint*58`).
    /// - Otherwise the line yields its requests in order. The first failing request ends the line
    ///   (gpsd likewise discards the rest of a line after an unrecognized request). Text after a
    ///   complete request that does not start with `?` (`?WATCH={...};$PFEC,GPsrq*5B`) is ignored.
    /// - A `?` line longer than ``maxLineLength`` yields only ``GPSDRequestError/lineTooLong(length:limit:)``.
    ///
    /// Never traps; the number of results never exceeds the number of `?` bytes in the line.
    public static func parse(_ line: Span<UInt8>) -> GPSDParsedLine {
        line.withUnsafeBufferPointer { buffer in
            var parser = GPSDLineParser(GPSDByteReader(buffer))
            return parser.run()
        }
    }

    /// Parses one client line held in any byte collection (for example `text.utf8` or an `ArraySlice`).
    /// A line over ``maxLineLength`` is rejected without being copied.
    public static func parse(_ line: some Collection<UInt8>) -> GPSDParsedLine {
        var length = 0
        var trailing = 0
        for byte in line {
            length += 1
            trailing = byte == 0x0A || byte == 0x0D ? trailing + 1 : 0
        }
        guard length - trailing > maxLineLength else { return parse(Array(line).span) }
        guard line.first(where: { !GPSDLineParser.isWhitespace($0) }) == UInt8(ascii: "?") else { return .ignored }
        return .requests([.failure(.lineTooLong(length: length - trailing, limit: maxLineLength))])
    }
}

/// What one client line amounts to.
public enum GPSDParsedLine: Sendable, Equatable {
    /// The line does not start with `?`: say nothing, keep the connection.
    case ignored
    /// The line's requests in order; a failure is always the last element.
    case requests([Result<GPSDCommand, GPSDRequestError>])

    /// The commands that parsed, in order.
    public var commands: [GPSDCommand] {
        guard case .requests(let results) = self else { return [] }
        return results.compactMap { try? $0.get() }
    }

    /// The error that ended the line, if any.
    public var error: GPSDRequestError? {
        guard case .requests(let results) = self, case .failure(let error)? = results.last else { return nil }
        return error
    }
}

/// A request the server must answer with gpsd's ERROR report (``GPSDReport/error(_:)``).
public enum GPSDRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An unknown command, a command with a malformed terminator, or an argument given to a command
    /// that takes none. `request` is the rest of the line from its `?` (ending in LF, as gpsd echoes
    /// it); `offset` is the byte offset of that `?`.
    case unrecognized(request: String, offset: Int)
    /// The JSON argument of `WATCH` or `DEVICE` (`command`) was malformed or held a bad value.
    case invalidArgument(command: String, error: GPSDJSONError)
    /// The request line exceeds ``GPSDCommand/maxLineLength`` (`length` excludes a trailing CR/LF).
    case lineTooLong(length: Int, limit: Int)

    /// The `message` of the ERROR report, worded as gpsd words it where gpsd has the case:
    /// `Unrecognized request '?FOO;\n'`, `Invalid WATCH: ...`, `Invalid DEVICE: ...`.
    public var message: String {
        switch self {
        case .unrecognized(let request, _): return "Unrecognized request '\(request)'"
        case .invalidArgument(let command, let error): return "Invalid \(command): \(error)"
        case .lineTooLong(let length, let limit): return "Request too long: \(length) bytes (limit \(limit))"
        }
    }

    /// The same text as ``message``.
    public var description: String { message }
}

/// The argument of `?WATCH={...}`: only the members the client sent are set. gpsd's merge rules are
/// applied by ``GPSDWatchPolicy/apply(_:)``.
public struct GPSDWatchRequest: Sendable, Equatable {
    /// Start (`true`) or stop streaming.
    public var enable: Bool?
    /// Stream JSON reports.
    public var json: Bool?
    /// Stream NMEA sentences.
    public var nmea: Bool?
    /// 0 off, 1 NMEA verbatim and binary as hex, 2 every byte verbatim.
    public var raw: Int?
    /// Scale AIS/subframe fields (no effect here, kept for the echo).
    public var scaled: Bool?
    /// Report AIS type 24 halves separately (no effect here, kept for the echo).
    public var split24: Bool?
    /// Also send TOFF and PPS reports.
    public var pps: Bool?
    /// gpsd's developer timing data.
    public var timing: Bool?
    /// Watch only this device path.
    public var device: String?
    /// Set by relaying gpsd instances.
    public var remote: String?

    /// A request with the given members set (the others omitted).
    public init(enable: Bool? = nil, json: Bool? = nil, nmea: Bool? = nil, raw: Int? = nil, scaled: Bool? = nil,
                split24: Bool? = nil, pps: Bool? = nil, timing: Bool? = nil, device: String? = nil, remote: String? = nil) {
        self.enable = enable
        self.json = json
        self.nmea = nmea
        self.raw = raw
        self.scaled = scaled
        self.split24 = split24
        self.pps = pps
        self.timing = timing
        self.device = device
        self.remote = remote
    }
}

/// Serial parity for ``GPSDDeviceRequest`` and ``GPSDDevice``.
public enum GPSDParity: String, Sendable, Hashable {
    /// `N`, `O`, `E` on the wire.
    case none = "N", odd = "O", even = "E"
}

/// The argument of `?DEVICE={...}`: only the members the client sent are set.
public struct GPSDDeviceRequest: Sendable, Equatable {
    /// The device to configure (needed when there are several).
    public var path: String?
    /// Serial speed, bits per second.
    public var bps: Int?
    /// Serial parity.
    public var parity: GPSDParity?
    /// 1 or 2.
    public var stopbits: Int?
    /// 0 NMEA mode, 1 the receiver's binary protocol.
    public var native: Int?
    /// Requested measurement cycle, seconds.
    public var cycle: Double?
    /// Minimum cycle, seconds (reported by gpsd, accepted here for symmetry).
    public var mincycle: Double?
    /// Bytes to write to the device, decoded from the request's hex string.
    public var hexdata: [UInt8]?

    /// A request with the given members set (the others omitted).
    public init(path: String? = nil, bps: Int? = nil, parity: GPSDParity? = nil, stopbits: Int? = nil, native: Int? = nil,
                cycle: Double? = nil, mincycle: Double? = nil, hexdata: [UInt8]? = nil) {
        self.path = path
        self.bps = bps
        self.parity = parity
        self.stopbits = stopbits
        self.native = native
        self.cycle = cycle
        self.mincycle = mincycle
        self.hexdata = hexdata
    }
}

/// The request-line state machine over one line's bytes.
struct GPSDLineParser {
    var reader: GPSDByteReader

    init(_ reader: GPSDByteReader) { self.reader = reader }

    /// gpsd skips `isspace()` bytes between requests: space, tab, LF, VT, FF, CR.
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    mutating func skipWhitespace() {
        while let byte = reader.current, Self.isWhitespace(byte) { reader.position += 1 }
    }

    mutating func run() -> GPSDParsedLine {
        skipWhitespace()
        guard reader.current == UInt8(ascii: "?") else { return .ignored }
        let bytes = reader.bytes
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        guard end <= GPSDCommand.maxLineLength else {
            return .requests([.failure(.lineTooLong(length: end, limit: GPSDCommand.maxLineLength))])
        }
        var results: [Result<GPSDCommand, GPSDRequestError>] = []
        while reader.current == UInt8(ascii: "?") {
            let result = request()
            results.append(result)
            if case .failure = result { break }
            skipWhitespace()
        }
        return .requests(results)
    }

    /// The rest of the line from `start`, as gpsd echoes it in "Unrecognized request": with a final LF
    /// (gpsd adds one when the read did not end in one).
    func unrecognized(from start: Int) -> GPSDRequestError {
        let rest = UnsafeBufferPointer(rebasing: reader.bytes[start...])
        var text = String(decoding: rest, as: UTF8.self)
        if rest.last != 0x0A { text += "\n" }
        return .unrecognized(request: text, offset: start)
    }

    /// One request, the cursor on its `?`.
    mutating func request() -> Result<GPSDCommand, GPSDRequestError> {
        let start = reader.position
        reader.position += 1
        let nameStart = reader.position
        while let byte = reader.current, Self.isNameByte(byte) { reader.position += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: reader.bytes[nameStart..<reader.position]), as: UTF8.self)
        skipWhitespace()
        let hasArgument: Bool
        switch reader.current {
        case UInt8(ascii: ";")?:
            reader.position += 1
            hasArgument = false
        case UInt8(ascii: "=")?:
            reader.position += 1
            hasArgument = true
        case nil, UInt8(ascii: "?")?:
            hasArgument = false
        default:
            return .failure(unrecognized(from: start))
        }
        switch (name, hasArgument) {
        case ("VERSION", false): return .success(.version)
        case ("DEVICES", false): return .success(.devices)
        case ("POLL", false): return .success(.poll)
        case ("WATCH", false): return .success(.watch(nil))
        case ("DEVICE", false): return .success(.device(nil))
        case ("WATCH", true), ("DEVICE", true):
            do throws(GPSDJSONError) {
                skipWhitespace()
                var offsets: [Int] = []
                let members = try reader.parseObject(depth: 1, valueOffsets: &offsets)
                let arguments = GPSDArguments(members: members, offsets: offsets)
                let command: GPSDCommand = name == "WATCH" ? .watch(try arguments.watch()) : .device(try arguments.device())
                skipWhitespace()
                if reader.current == UInt8(ascii: ";") { reader.position += 1 }
                return .success(command)
            } catch {
                return .failure(.invalidArgument(command: name, error: error))
            }
        default:
            return .failure(unrecognized(from: start))
        }
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
}

/// The members of a WATCH/DEVICE argument with where each value starts, read into typed requests.
/// Unknown members are ignored (gpsd does so for cross-version compatibility); a known member of the
/// wrong type or out of range is an error naming the member and its byte offset.
struct GPSDArguments {
    let members: [GPSDJSONMember]
    let offsets: [Int]

    func each(_ body: (String, GPSDJSONValue, Int) throws(GPSDJSONError) -> Void) throws(GPSDJSONError) {
        for (index, member) in members.enumerated() {
            try body(member.key, member.value, index < offsets.count ? offsets[index] : 0)
        }
    }

    static func bad(_ key: String, _ expected: String, _ offset: Int) -> GPSDJSONError {
        GPSDJSONError(.invalidValue(key: key, expected: expected), offset: offset)
    }

    static func bool(_ value: GPSDJSONValue, _ key: String, _ offset: Int) throws(GPSDJSONError) -> Bool {
        guard case .bool(let flag) = value else { throw bad(key, "true or false", offset) }
        return flag
    }

    static func string(_ value: GPSDJSONValue, _ key: String, _ offset: Int) throws(GPSDJSONError) -> String {
        guard case .string(let text) = value else { throw bad(key, "a string", offset) }
        return text
    }

    static func integer(_ value: GPSDJSONValue, _ key: String, _ offset: Int, in range: ClosedRange<Int>) throws(GPSDJSONError) -> Int {
        guard case .number(let number) = value, number.rounded() == number,
              number >= Double(range.lowerBound), number <= Double(range.upperBound)
        else { throw bad(key, "an integer in \(range.lowerBound)...\(range.upperBound)", offset) }
        return Int(number)
    }

    static func seconds(_ value: GPSDJSONValue, _ key: String, _ offset: Int) throws(GPSDJSONError) -> Double {
        guard case .number(let number) = value, number >= 0 else { throw bad(key, "a number of seconds >= 0", offset) }
        return number
    }

    /// gpsd checks a `class` member when one is present.
    static func checkClass(_ value: GPSDJSONValue, _ expected: String, _ offset: Int) throws(GPSDJSONError) {
        guard value == .string(expected) else { throw bad("class", "\"\(expected)\"", offset) }
    }

    func watch() throws(GPSDJSONError) -> GPSDWatchRequest {
        var request = GPSDWatchRequest()
        try each { (key, value, offset) throws(GPSDJSONError) in
            switch key {
            case "class": try Self.checkClass(value, "WATCH", offset)
            case "enable": request.enable = try Self.bool(value, key, offset)
            case "json": request.json = try Self.bool(value, key, offset)
            case "nmea": request.nmea = try Self.bool(value, key, offset)
            case "raw": request.raw = try Self.integer(value, key, offset, in: 0...2)
            case "scaled": request.scaled = try Self.bool(value, key, offset)
            case "split24": request.split24 = try Self.bool(value, key, offset)
            case "pps": request.pps = try Self.bool(value, key, offset)
            case "timing": request.timing = try Self.bool(value, key, offset)
            case "device": request.device = try Self.string(value, key, offset)
            case "remote": request.remote = try Self.string(value, key, offset)
            default: break
            }
        }
        return request
    }

    func device() throws(GPSDJSONError) -> GPSDDeviceRequest {
        var request = GPSDDeviceRequest()
        try each { (key, value, offset) throws(GPSDJSONError) in
            switch key {
            case "class": try Self.checkClass(value, "DEVICE", offset)
            case "path": request.path = try Self.string(value, key, offset)
            case "bps": request.bps = try Self.integer(value, key, offset, in: 1...4_000_000)
            case "parity":
                guard let parity = GPSDParity(rawValue: try Self.string(value, key, offset)) else {
                    throw Self.bad(key, "\"N\", \"O\" or \"E\"", offset)
                }
                request.parity = parity
            case "stopbits": request.stopbits = try Self.integer(value, key, offset, in: 1...2)
            case "native": request.native = try Self.integer(value, key, offset, in: 0...1)
            case "cycle": request.cycle = try Self.seconds(value, key, offset)
            case "mincycle": request.mincycle = try Self.seconds(value, key, offset)
            case "hexdata":
                guard let bytes = Self.hexBytes(try Self.string(value, key, offset)) else {
                    throw Self.bad(key, "an even number of hex digits", offset)
                }
                request.hexdata = bytes
            default: break
            }
        }
        return request
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for char in text.utf8 {
            let nibble: UInt8
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = char - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = char - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = char - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? bytes : nil
    }
}
