@testable import BoardConfig
import Testing

private func node(_ value: TOMLValue) -> TOMLNode { TOMLNode(value, at: SourceLocation(line: 0, column: 0)) }

private func table(_ pairs: [(String, TOMLValue)]) -> TOMLTable {
    TOMLTable(entries: pairs.map { .init(key: $0.0, keyLocation: SourceLocation(line: 0, column: 0), node: node($0.1)) })
}

/// A deterministic generator, so failures reproduce.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("TOML subset")
struct TOMLTests {
    @Test("scalars: strings with escapes, literal strings, integers in every radix, floats, booleans")
    func scalars() throws {
        let text = #"""
            # comment
            s = "tab\there \"q\" back\\slash \u00e9 \U0001F600"  # trailing comment
            lit = 'C:\no\escapes'
            "quoted key" = 1
            dec = -1_000
            plus = +7
            hex = 0xDEAD_beef
            oct = 0o755
            bin = 0b1010
            f1 = 3.25
            f2 = -1e-7
            f3 = 6.02E+23
            f4 = 1_000.5
            yes = true
            no = false
            """#
        let parsed = try TOML.parse(text: text, file: "t.toml")
        #expect(parsed["s"] == .string("tab\there \"q\" back\\slash é 😀"))
        #expect(parsed["lit"] == .string(#"C:\no\escapes"#))
        #expect(parsed["quoted key"] == .integer(1))
        #expect(parsed["dec"] == .integer(-1000))
        #expect(parsed["plus"] == .integer(7))
        #expect(parsed["hex"] == .integer(0xDEAD_BEEF))
        #expect(parsed["oct"] == .integer(0o755))
        #expect(parsed["bin"] == .integer(10))
        #expect(parsed["f1"] == .float(3.25))
        #expect(parsed["f2"] == .float(-1e-7))
        #expect(parsed["f3"] == .float(6.02e23))
        #expect(parsed["f4"] == .float(1000.5))
        #expect(parsed["yes"] == .boolean(true))
        #expect(parsed["no"] == .boolean(false))
        #expect(parsed.entry("hex")?.node.location == SourceLocation(line: 7, column: 7))
    }

    @Test("extreme integers parse exactly and one past them is an error")
    func integerLimits() throws {
        let parsed = try TOML.parse(text: "a = 9223372036854775807\nb = -9223372036854775808\n", file: "t")
        #expect(parsed["a"] == .integer(Int.max))
        #expect(parsed["b"] == .integer(Int.min))
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = 9223372036854775808", file: "t") }
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = 1e999", file: "t") }
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = 1__0", file: "t") }
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = _1", file: "t") }
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = 1.", file: "t") }
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = .5", file: "t") }
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = 0x", file: "t") }
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = nan", file: "t") }
    }

    @Test("nested, multi-line arrays with comments and a trailing comma; tables and arrays of tables")
    func structure() throws {
        let text = """
            m = [
              [1, 0, 0],   # row 1
              [0, 1, 0],

              [0, 0, 1],
            ]
            empty = []
            [t]
            k = "v"
            [[item]]
            n = 1
            [[item]]
            n = 2
            """
        let parsed = try TOML.parse(text: text, file: "t")
        let row: (Int, Int, Int) -> TOMLValue = { .array([node(.integer($0)), node(.integer($1)), node(.integer($2))]) }
        #expect(parsed["m"] == .array([node(row(1, 0, 0)), node(row(0, 1, 0)), node(row(0, 0, 1))]))
        #expect(parsed["empty"] == .array([]))
        #expect(parsed["t"] == .table(table([("k", .string("v"))])))
        #expect(parsed["item"] == .array([node(.table(table([("n", .integer(1))]))), node(.table(table([("n", .integer(2))])))]))
        #expect(parsed.entry("item")?.keyLocation == SourceLocation(line: 10, column: 1))
        guard case .array(let items)? = parsed["item"] else { Issue.record("item is not an array"); return }
        #expect(items.map(\.location.line) == [10, 12])
    }

    @Test("CRLF line ends and a byte-order mark are accepted; a lone CR is not")
    func lineEnds() throws {
        let parsed = try TOML.parse(text: "\u{FEFF}a = 1\r\n[t]\r\nb = 'x'\r\n", file: "t")
        #expect(parsed == table([("a", .integer(1)), ("t", .table(table([("b", .string("x"))])))]))
        #expect(throws: BoardError.self) { try TOML.parse(text: "a = 1\rb = 2", file: "t") }
    }

    @Test("columns count characters, not bytes")
    func unicodeColumns() {
        #expect(throws: BoardError(file: "t", location: SourceLocation(line: 1, column: 11), key: "k", message: "expected the end of the line, found 'x'")) {
            try TOML.parse(text: "k = \"ééé\" x", file: "t")
        }
    }

    @Test("parse, serialize, parse gives an equal table: fixed examples")
    func roundTripFixed() throws {
        let text = """
            s = "line\\nbreak \\u0001 \\"quoted\\" \\\\"
            i = -42
            f = 0.1
            g = 1e-300
            b = true
            a = [[1.5, -2], ["x", false], []]
            "odd key" = 'v'
            [receiver]
            baud = 9600
            [[sensor]]
            chip = "a"
            [[sensor]]
            chip = "b"
            """
        let first = try TOML.parse(text: text, file: "t")
        let written = try #require(TOML.serialize(first))
        let second = try TOML.parse(text: written, file: "t")
        #expect(first == second)
        #expect(written.contains("f = 0.1\n"))
        #expect(written.contains("\"odd key\" = \"v\"\n"))
        #expect(written.contains("[[sensor]]\nchip = \"b\"\n"))
    }

    @Test("every board file round-trips through the serializer")
    func roundTripBoards() throws {
        for (name, text) in try boardFiles() {
            let first = try TOML.parse(text: text, file: name)
            let written = try #require(TOML.serialize(first))
            #expect(try TOML.parse(text: written, file: name) == first, "\(name)")
        }
    }

    @Test("random values round-trip", arguments: 0..<8)
    func roundTripRandom(seed: UInt64) throws {
        var random = SplitMix(state: seed)
        func scalar(depth: Int) -> TOMLValue {
            switch Int.random(in: 0..<(depth < 3 ? 5 : 4), using: &random) {
            case 0:
                let scalars = (0..<Int.random(in: 0..<12, using: &random)).map { _ -> Character in
                    let pool: [UInt32] = [0x00, 0x07, 0x09, 0x0A, 0x22, 0x5C, 0x41, 0x7F, 0xE9, 0x20AC, 0x1F600, 0x23, 0x27]
                    return Character(Unicode.Scalar(pool.randomElement(using: &random) ?? 0x41) ?? "A")
                }
                return .string(String(scalars))
            case 1: return .integer(Int.random(in: Int.min...Int.max, using: &random))
            case 2:
                let bits = random.next()
                let value = Double(bitPattern: bits)
                return .float(value.isFinite ? value : Double(Int32(truncatingIfNeeded: bits)) / 7)
            case 3: return .boolean(random.next() & 1 == 0)
            default:
                return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in node(scalar(depth: depth + 1)) })
            }
        }
        var entries: [(String, TOMLValue)] = []
        for index in 0..<10 { entries.append(("k\(index)", scalar(depth: 0))) }
        entries.append(("weird \"key\"", scalar(depth: 0)))
        entries.append(("tbl", .table(table((0..<3).map { ("x\($0)", scalar(depth: 1)) }))))
        let original = table(entries)
        let written = try #require(TOML.serialize(original))
        let reread = try TOML.parse(text: written, file: "random")
        #expect(reread == original, "\(written)")
    }

    @Test("shapes the subset cannot write are refused, not mangled")
    func serializeRefuses() {
        #expect(TOML.serialize(table([("t", .table(table([("inner", .table(table([])))])))])) == nil)
        #expect(TOML.serialize(table([("f", .float(.infinity))])) == nil)
        #expect(TOML.serialize(table([("a", .array([node(.table(table([]))), node(.integer(1))]))])) == nil)
    }

    @Test("mutated board files never trap, and every error points inside the text", arguments: 0..<4)
    func mutationsAreTotal(seed: UInt64) throws {
        var random = SplitMix(state: 0xB0A4D + seed)
        let files = try boardFiles()
        let interesting: [UInt8] = Array("[]\"'\\=#,.\n\r\t 0x{}".utf8) + [0x00, 0xFF, 0xC3, 0xE2]
        var errors = 0
        for _ in 0..<300 {
            var bytes = Array((files.randomElement(using: &random)?.text ?? "").utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = interesting.randomElement(using: &random) ?? 0
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(interesting.randomElement(using: &random) ?? 0, at: at)
                default: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...40, using: &random)))
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let lineCount = text.utf8.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            do {
                _ = try BoardLoader.load(text: text, file: "mutant.txt")
            } catch {
                errors += 1
                let location = try #require(error.location)
                #expect(location.line >= 1 && location.line <= lineCount, "\(error)")
                #expect(location.column >= 1, "\(error)")
                #expect(!error.message.isEmpty)
            }
        }
        #expect(errors > 0)
    }

    @Test("deep nesting and long random inputs end in an error, not a crash")
    func pathologicalInputs() {
        let deep = "a = " + String(repeating: "[", count: 100_000)
        #expect(throws: BoardError(file: "t", location: SourceLocation(line: 1, column: 21), key: "a",
                                   message: "arrays nested more than 16 deep")) {
            try TOML.parse(text: deep, file: "t")
        }
        var random = SplitMix(state: 7)
        for _ in 0..<50 {
            let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(throws: BoardError.self) { try BoardLoader.load(text: String(decoding: bytes, as: UTF8.self), file: "r") }
        }
    }

    @Test("spelling suggestions find near misses only")
    func spelling() {
        #expect(Spelling.suggestion(for: "buad", among: BoardLoader.receiverKeys) == "baud")
        #expect(Spelling.suggestion(for: "adress", among: BoardLoader.sensorKeys) == "address")
        #expect(Spelling.suggestion(for: "dataready", among: BoardLoader.sensorKeys) == "data_ready")
        #expect(Spelling.suggestion(for: "colour", among: BoardLoader.sensorKeys) == nil)
    }
}
