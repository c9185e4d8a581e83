import GPSDProtocol
import Testing

@Suite("JSON reader and number formatting")
struct JSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try GPSDJSONValue.parse(#" {"a":[1,-2.5e2,0.125,true,false,null],"b":{"c":"d\u0041"},"a":"last"} "#.utf8)
        #expect(value == .object([
            GPSDJSONMember(key: "a", value: .array([.number(1), .number(-250), .number(0.125), .bool(true), .bool(false), .null])),
            GPSDJSONMember(key: "b", value: .object([GPSDJSONMember(key: "c", value: .string("dA"))])),
            GPSDJSONMember(key: "a", value: .string("last")),
        ]))
        #expect(value.keys == ["a", "b", "a"])
        #expect(value["a"] == .string("last"))
        #expect(value["b"]?["c"] == .string("dA"))
        #expect(try GPSDJSONValue.parse("[]".utf8) == .array([]) && GPSDJSONValue.parse("{}".utf8) == .object([]))
    }

    @Test("rejects what strict JSON rejects, naming the byte offset", arguments: [
        ("", 0), ("{", 1), ("{\"a\":1,}", 7), ("[1,]", 3), ("[1 2]", 3), ("01", 1), ("-", 0), ("1.", 0), ("1e", 0),
        (".5", 0), ("+1", 0), ("1e999", 0), ("tru", 3), ("nul", 3), ("True", 0), ("\"abc", 4), ("{} {}", 3),
        ("'a'", 0), ("[\"\\u00\"]", 6), ("NaN", 0), ("Infinity", 0),
    ])
    func rejects(text: String, offset: Int) {
        #expect(throws: GPSDJSONError.self, "\(text)") { try GPSDJSONValue.parse(text.utf8) }
        do {
            _ = try GPSDJSONValue.parse(text.utf8)
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    @Test func depthLimitAppliesToWholeDocuments() throws {
        let deepest = String(repeating: "[", count: GPSDJSONValue.maxDepth) + String(repeating: "]", count: GPSDJSONValue.maxDepth)
        #expect(throws: Never.self) { try GPSDJSONValue.parse(deepest.utf8) }
        let tooDeep = "[" + deepest + "]"
        #expect(throws: GPSDJSONError(.tooDeep(limit: GPSDJSONValue.maxDepth), offset: GPSDJSONValue.maxDepth)) {
            try GPSDJSONValue.parse(tooDeep.utf8)
        }
    }

    @Test("jsonText round-trips")
    func jsonTextRoundTrip() throws {
        let text = #"{"s":"a\"\\\n\u0001é😀","n":[0,-0.001,1e-7,123456789012,1.5e300],"o":{"t":true,"f":false,"z":null}}"#
        let value = try GPSDJSONValue.parse(text.utf8)
        #expect(try GPSDJSONValue.parse(value.jsonText.utf8) == value)
    }

    @Test("fixed decimals as C's %.Nf prints them, never an exponent", arguments: [
        (44.068841667, 9, "44.068841667"), (-121.314191667, 9, "-121.314191667"), (1108.1, 4, "1108.1000"),
        (-19.6, 3, "-19.600"), (0.005, 3, "0.005"), (14.4, 1, "14.4"), (1.0, 2, "1.00"), (123.456, 0, "123"),
        (-0.0001, 3, "0.000"), (-0.0, 2, "0.00"), (0.0, 0, "0"), (1e-12, 9, "0.000000000"),
        // Ties: exact binary halves go to even; decimal "halves" follow the binary value, as in glibc.
        (2.5, 0, "2"), (-3.5, 0, "-4"), (0.125, 2, "0.12"), (0.375, 2, "0.38"), (0.005, 2, "0.01"), (1.005, 2, "1.00"),
        (0.0005, 3, "0.001"), (2.675, 2, "2.67"),
        (1.5e10, 9, "15000000000.000000000"), (9.5e18, 2, "9500000000000000000.00"),
        (-1.2345678901234567e19, 1, "-12345678901234567000.0"), (1.23456789012, 12, "1.234567890"),
    ])
    func fixed(value: Double, digits: Int, expected: String) {
        #expect(GPSDNumber.fixed(value, digits) == expected)
    }

    @Test func fixedOmitsNonFinite() throws {
        #expect(GPSDNumber.fixed(.nan, 3) == nil && GPSDNumber.fixed(.infinity, 3) == nil && GPSDNumber.fixed(-.infinity, 0) == nil)
        let huge = try #require(GPSDNumber.fixed(-Double.greatestFiniteMagnitude, 3))
        #expect(huge.hasPrefix("-17976931348623157") && huge.count == 1 + 309 + 4)
        #expect(try GPSDJSONValue.parse(huge.utf8) == .number(-Double.greatestFiniteMagnitude))
    }
}
