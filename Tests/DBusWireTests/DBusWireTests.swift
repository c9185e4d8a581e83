import DBusWire
import Testing

/// Bytes written out by hand from the D-Bus specification's marshalling rules.
private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
private func le32(_ value: UInt32) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)] }

/// The Hello call every client sends first: PATH, INTERFACE, MEMBER, DESTINATION, no body.
private let helloBytes: [UInt8] =
    ascii("l") + [1, 0, 1] + le32(0) + le32(1) + le32(109)
    // 16: PATH (1), variant 'o', then the path aligned to 4 (20).
    + [1, 1] + ascii("o") + [0] + le32(21) + ascii("/org/freedesktop/DBus") + [0]
    // 46 → 48: INTERFACE (2), 's'.
    + [0, 0] + [2, 1] + ascii("s") + [0] + le32(20) + ascii("org.freedesktop.DBus") + [0]
    // 77 → 80: MEMBER (3).
    + [0, 0, 0] + [3, 1] + ascii("s") + [0] + le32(5) + ascii("Hello") + [0]
    // 94 → 96: DESTINATION (6); the fields end at 125 (109 bytes after 16), the header pads to 128.
    + [0, 0] + [6, 1] + ascii("s") + [0] + le32(20) + ascii("org.freedesktop.DBus") + [0]
    + [0, 0, 0]

/// The body of a PropertiesChanged signal, `sa{sv}as`: Device1, {RSSI: n -61,
/// ManufacturerData: a{qv} {0x004C: ay [0x02, 0x15]}}, [].
private let propertiesBody: [UInt8] =
    le32(17) + ascii("org.bluez.Device1") + [0]            // 0..<22
    + [0, 0] + le32(62) + [0, 0, 0, 0]                     // 22 → 24: a{sv} length, elements start at 32
    + le32(4) + ascii("RSSI") + [0] + [1] + ascii("n") + [0] + [0xC3, 0xFF]  // 32..<46
    + [0, 0] + le32(16) + ascii("ManufacturerData") + [0]  // 46 → 48..<69
    + [5] + ascii("a{qv}") + [0]                           // 69..<76
    + le32(14)                                             // 76: a{qv} length, elements at 80
    + [0x4C, 0x00] + [2] + ascii("ay") + [0]               // 80..<86
    + [0, 0] + le32(2) + [0x02, 0x15]                      // 86 → 88..<94
    + [0, 0] + le32(0)                                     // 94 → 96: as, empty

private let propertiesChanged = DBusMessage(
    kind: .signal, serial: 7, path: "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF", interface: "org.freedesktop.DBus.Properties",
    member: "PropertiesChanged", sender: ":1.3",
    body: [
        .string("org.bluez.Device1"),
        .stringVariantDictionary([
            ("RSSI", .int16(-61)),
            ("ManufacturerData", .array(element: .dictEntry(.basic(UInt8(ascii: "q")), .variant), [.dictEntry(.uint16(0x004C), .variant(.bytes([0x02, 0x15])))])),
        ]),
        .array(element: .basic(UInt8(ascii: "s")), []),
    ])

/// A deterministic generator (SplitMix64).
private struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("DBusWire: the D-Bus wire format, byte for byte")
struct DBusWireTests {
    @Test("Hello is written byte for byte as the specification lays it out")
    func hello() throws {
        let hello = DBusMessage.methodCall(serial: 1, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                           interface: "org.freedesktop.DBus", member: "Hello")
        #expect(helloBytes.count == 128)
        #expect(hello.encoded() == helloBytes)
        #expect(try DBusMessage.decode(helloBytes) == hello)
    }

    @Test("a PropertiesChanged body with a{sv}, n and a{qv} of ay is aligned byte for byte")
    func propertiesChangedBody() throws {
        var encoder = DBusEncoder()
        for value in propertiesChanged.body { encoder.encode(value) }
        #expect(encoder.bytes == propertiesBody)
        #expect(propertiesChanged.signature == "sa{sv}as")
        let bytes = propertiesChanged.encoded()
        #expect(Array(bytes.suffix(propertiesBody.count)) == propertiesBody)
        let decoded = try DBusMessage.decode(bytes)
        #expect(decoded == propertiesChanged)
        let entries = try #require(decoded.body[1].dictionaryEntries)
        #expect(entries[0].value.integerValue == -61)
        let maker = try #require(entries[1].value.dictionaryEntries)
        #expect(maker[0].key == .uint16(0x004C))
        #expect(maker[0].value.byteArray == [0x02, 0x15])
    }

    @Test("every basic type is aligned to its size and survives a round trip")
    func alignment() throws {
        let values: [DBusValue] = [
            .byte(1), .uint64(0x0102_0304_0506_0708), .byte(2), .boolean(true), .byte(3), .int16(-2), .uint16(0xBEEF),
            .byte(4), .int32(-5), .uint32(6), .byte(5), .int64(-7), .double(1.0), .string("é"), .objectPath("/a"),
            .signature("a{sv}"), .variant(.structure([.byte(9), .double(-0.5)])),
        ]
        var encoder = DBusEncoder()
        encoder.encode(.structure(values))
        let b = encoder.bytes
        #expect(Array(b[0..<16]) == [1, 0, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1])
        #expect(Array(b[16..<24]) == [2, 0, 0, 0, 1, 0, 0, 0])  // y, pad to 4, b = 1
        #expect(Array(b[24..<30]) == [3, 0, 0xFE, 0xFF, 0xEF, 0xBE])  // y, pad to 2, n, q
        #expect(Array(b[30..<40]) == [4, 0, 0xFB, 0xFF, 0xFF, 0xFF, 6, 0, 0, 0])
        #expect(Array(b[40..<64]) == [5, 0, 0, 0, 0, 0, 0, 0] + [0xF9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
        #expect(Array(b[64..<71]) == le32(2) + [0xC3, 0xA9, 0])
        var decoder = DBusDecoder(bytes: b)
        let types = try DBusType.parse(signature: "(ytybynqyiuyxdsogv)")
        #expect(try decoder.decode(types[0]) == .structure(values))
        #expect(decoder.position == b.count)
    }

    @Test("signatures parse and bad ones are refused with their offset")
    func signatures() throws {
        #expect(try DBusType.parse(signature: "sa{sv}as").map(\.description) == ["s", "a{sv}", "as"])
        #expect(try DBusType.parse(signature: "a{oa{sa{sv}}}").count == 1)
        for (bad, offset) in [("a", 1), ("(i", 2), ("{sv}", 0), ("a{vs}", 2), ("a{s}", 3), ("()", 1), ("z", 0),
                              (String(repeating: "a", count: 33) + "y", 32)] {
            #expect(throws: DBusWireError.self) { try DBusType.parse(signature: bad) }
            do { _ = try DBusType.parse(signature: bad) } catch { #expect(error.offset == offset, "\(bad): \(error)") }
        }
    }

    @Test("the reader takes messages fed whole, byte by byte and in bursts")
    func reader() throws {
        let stream = helloBytes + propertiesChanged.encoded() + helloBytes
        let expected = [try DBusMessage.decode(helloBytes), propertiesChanged, try DBusMessage.decode(helloBytes)]
        for burst in [stream.count, 1, 3, 7, 16, 50] {
            var reader = DBusMessageReader()
            var out: [DBusMessage] = []
            var index = 0
            while index < stream.count {
                reader.append(stream[index..<min(stream.count, index + burst)])
                index += burst
                while let message = try reader.next() { out.append(message) }
            }
            #expect(out == expected, "burst \(burst)")
            #expect(reader.pendingCount == 0)
        }
    }

    @Test("malformed messages throw with the offset of the fault")
    func malformed() throws {
        func fault(_ bytes: [UInt8]) -> DBusWireError? {
            do { _ = try DBusMessage.decode(bytes) } catch { return error }
            return nil
        }
        var bad = helloBytes
        bad[0] = UInt8(ascii: "x")
        #expect(fault(bad)?.offset == 0)
        bad = helloBytes
        bad[3] = 2
        #expect(fault(bad)?.offset == 3)
        bad = helloBytes
        bad[46] = 1  // padding between fields
        #expect(fault(bad)?.offset == 46)
        bad = helloBytes
        bad[20] = 200  // PATH length past the end
        #expect(fault(bad)?.offset == 20)
        bad = helloBytes
        bad[24] = 0xFF  // not UTF-8 inside the path
        #expect(fault(bad)?.offset == 20)
        bad = helloBytes
        bad[45] = UInt8(ascii: "x")  // the path's nul
        #expect(fault(bad)?.offset == 45)
        bad = helloBytes
        bad[8] = 0  // serial zero
        #expect(fault(bad)?.offset == 8)
        bad = helloBytes
        bad[12] = 110  // fields longer than they are
        #expect(fault(bad) != nil)
        #expect(fault(Array(helloBytes.prefix(10)))?.offset == 10)
        // A boolean of 2 in the body.
        var message = DBusMessage(kind: .methodReturn, serial: 2, replySerial: 1, body: [.boolean(true)])
        var bytes = message.encoded()
        bytes[bytes.count - 4] = 2
        #expect(fault(bytes)?.offset == bytes.count - 4)
        // A variant whose signature holds two types.
        message.body = [.variant(.byte(1))]
        bytes = message.encoded()
        let at = bytes.count - 4
        #expect(Array(bytes[at...]) == [1, UInt8(ascii: "y"), 0, 1])
        bytes[at] = 2
        bytes[at + 2] = UInt8(ascii: "y")
        #expect(fault(bytes) != nil)
    }

    @Test("the reader refuses an oversized message at its header and keeps failing")
    func oversized() throws {
        var reader = DBusMessageReader(limit: 4096)
        var header = helloBytes
        header[4] = 0
        header[5] = 0
        header[6] = 1  // body of 65536 bytes
        reader.append(header.prefix(16))
        #expect(throws: DBusWireError.self) { _ = try reader.next() }
        reader.append(helloBytes)
        #expect(throws: DBusWireError.self) { _ = try reader.next() }
        var huge = DBusMessageReader()
        huge.append(ascii("l") + [1, 0, 1] + [0xFF, 0xFF, 0xFF, 0xFF] + le32(1) + le32(0))
        do { _ = try huge.next() } catch { #expect(error.offset == 4) }
    }

    @Test("random corruption of valid messages never traps: it decodes or throws")
    func corruption() {
        var random = SplitMix(state: 19)
        let samples = [helloBytes, propertiesChanged.encoded()]
        var thrown = 0
        for round in 0..<4000 {
            var bytes = samples[round % 2]
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let index = Int(random.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: random.next())
            }
            if round % 5 == 0 { bytes.removeLast(Int(random.next() % 8)) }
            var reader = DBusMessageReader(limit: 1 << 16)
            reader.append(bytes)
            do { _ = try reader.next() } catch { thrown += 1 }
        }
        #expect(thrown > 1000)
    }

    @Test("AUTH EXTERNAL sends the uid's decimal digits in hex; the server's lines are read")
    func auth() throws {
        #expect(DBusAuth.authExternal(uid: 1000) == [0] + ascii("AUTH EXTERNAL 31303030\r\n"))
        #expect(DBusAuth.authExternal(uid: 0) == [0] + ascii("AUTH EXTERNAL 30\r\n"))
        var buffer = ascii("OK 1234deadbeef\r\nREJ")
        #expect(try DBusAuth.reply(from: &buffer) == .ok(guid: "1234deadbeef"))
        #expect(try DBusAuth.reply(from: &buffer) == nil)
        buffer += ascii("ECTED EXTERNAL ANONYMOUS\r\n")
        #expect(try DBusAuth.reply(from: &buffer) == .rejected(mechanisms: ["EXTERNAL", "ANONYMOUS"]))
        var long = [UInt8](repeating: UInt8(ascii: "A"), count: 600)
        #expect(throws: DBusWireError.self) { _ = try DBusAuth.reply(from: &long) }
        var binary = ascii("OK \u{1}\r\n")
        #expect(throws: DBusWireError.self) { _ = try DBusAuth.reply(from: &binary) }
    }
}
