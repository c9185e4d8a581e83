import GPSDProtocol
import Testing

/// Parses a line given as text.
private func parse(_ line: String) -> GPSDParsedLine { GPSDCommand.parse(line.utf8) }

/// The single error a line ends with (fails the test when there is none).
private func failure(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> GPSDRequestError {
    try #require(parse(line).error, sourceLocation: sourceLocation)
}

/// The JSON error inside an `invalidArgument` failure.
private func argumentError(_ line: String, command: String = "WATCH",
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> GPSDJSONError {
    let error = try failure(line, sourceLocation: sourceLocation)
    guard case .invalidArgument(command, let json) = error else {
        Issue.record("expected an invalid \(command) argument, got \(error)", sourceLocation: sourceLocation)
        return GPSDJSONError(.trailingData, offset: -1)
    }
    return json
}

@Suite("Request line parser")
struct CommandTests {
    @Test("every command, with and without ';' and line ending", arguments: [
        ("?VERSION", GPSDCommand.version), ("?DEVICES", .devices), ("?POLL", .poll),
        ("?WATCH", .watch(nil)), ("?DEVICE", .device(nil)),
    ])
    func everyCommand(text: String, expected: GPSDCommand) {
        for line in [text + ";", text + ";\n", text + ";\r\n", text, text + "\n", text + " ; "] {
            #expect(parse(line) == .requests([.success(expected)]), "line \(line.debugDescription)")
        }
    }

    @Test func watchWithArgument() {
        let expected = GPSDCommand.watch(GPSDWatchRequest(enable: true, json: true))
        for line in [#"?WATCH={"enable":true,"json":true};"#, #"?WATCH={"enable":true,"json":true}"#,
                     "?WATCH={\"enable\":true,\"json\":true}\r\n"] {
            #expect(parse(line).commands == [expected], "line \(line.debugDescription)")
        }
    }

    @Test func everyWatchMember() throws {
        let line = #"?WATCH={"class":"WATCH","enable":false,"json":true,"nmea":true,"raw":2,"scaled":true,"split24":true,"pps":true,"device":"/dev/gps0","remote":"gpsd://relay","timing":true};"#
        let request = GPSDWatchRequest(enable: false, json: true, nmea: true, raw: 2, scaled: true, split24: true,
                                       pps: true, timing: true, device: "/dev/gps0", remote: "gpsd://relay")
        #expect(parse(line) == .requests([.success(.watch(request))]))
    }

    @Test func everyDeviceMember() throws {
        let line = #"?DEVICE={"path":"/dev/ttyS0","bps":9600,"parity":"E","stopbits":2,"native":1,"cycle":0.25,"mincycle":0.1,"hexdata":"B5620a0B"}"#
        let request = GPSDDeviceRequest(path: "/dev/ttyS0", bps: 9600, parity: .even, stopbits: 2, native: 1, cycle: 0.25,
                                        mincycle: 0.1, hexdata: [0xB5, 0x62, 0x0A, 0x0B])
        #expect(parse(line) == .requests([.success(.device(request))]))
    }

    @Test("several commands on one line, as gpsd allows")
    func severalPerLine() {
        #expect(parse("?VERSION;?DEVICES;\n") == .requests([.success(.version), .success(.devices)]))
        #expect(parse(#"?WATCH={"enable":true};?POLL;"#).commands == [.watch(GPSDWatchRequest(enable: true)), .poll])
        // Without separators between them: the next '?' ends a command, as the line end does.
        #expect(parse("?POLL?VERSION").commands == [.poll, .version])
        #expect(parse(#"?WATCH={"json":true}?DEVICE;"#).commands == [.watch(GPSDWatchRequest(json: true)), .device(nil)])
    }

    @Test("whitespace around every token")
    func whitespace() {
        let line = "  \t?WATCH = { \"enable\" : true ,\n \"raw\" :\t1 } ;  ?POLL ; \r\n"
        #expect(parse(line) == .requests([.success(.watch(GPSDWatchRequest(enable: true, raw: 1))), .success(.poll)]))
    }

    @Test("lines that do not start with '?' are ignored", arguments: [
        "VERSION", "", "\r\n", "   ", "$PSRF100,0,9600,8,1,0*0C\r\n", "$PASHQ,RID*28", "x?VERSION;", "{\"class\":\"WATCH\"}",
    ])
    func junkIgnored(line: String) {
        #expect(parse(line) == .ignored)
    }

    @Test("a relay's NMEA probe after a command is ignored")
    func relayProbe() {
        let line = "?WATCH={\"enable\":true,\"json\":true};$PFEC,GPsrq*5B\r\n"
        #expect(parse(line) == .requests([.success(.watch(GPSDWatchRequest(enable: true, json: true)))]))
    }

    @Test("unknown commands give gpsd's ERROR text, echoing the request with its LF")
    func unknownCommand() throws {
        let foo = try failure("?FOO;\n")
        #expect(foo == .unrecognized(request: "?FOO;\n", offset: 0))
        #expect(GPSDReport.error(foo) == Transcript.errorFoo)
        // gpsd adds the LF when the read did not end in one.
        #expect(try failure("?FOO;").message == "Unrecognized request '?FOO;\n'")
        let long = "?" + String(repeating: "X", count: 100) + ";\n"
        #expect(GPSDReport.error(try failure(long)) == Transcript.errorLong)
    }

    @Test("what makes a request unrecognized", arguments: [
        "?version;", "?VERSIONS;", "?POLL,", "?POLL x", "?;", "?", "?POLL={}", "?VERSION={\"a\":1}", "?DEVICES=",
    ])
    func unrecognized(line: String) throws {
        guard case .unrecognized(let request, 0) = try failure(line) else {
            Issue.record("not unrecognized: \(line)")
            return
        }
        #expect(request == line + "\n")
    }

    @Test("an unrecognized request ends the line; earlier ones stand")
    func unrecognizedEndsLine() throws {
        guard case .requests(let results) = parse("?VERSION;?FOO;?POLL;") else {
            Issue.record("line was ignored")
            return
        }
        #expect(results.count == 2)
        #expect(results.first == .success(.version))
        #expect(results.last == .failure(.unrecognized(request: "?FOO;?POLL;\n", offset: 9)))
    }

    @Test("line length limit, with and without a trailing CR LF")
    func lineLength() throws {
        let atLimit = "?POLL;" + String(repeating: " ", count: GPSDCommand.maxLineLength - 6)
        #expect(parse(atLimit).commands == [.poll])
        #expect(parse(atLimit + "\r\n").commands == [.poll])
        #expect(GPSDCommand.parse(Array((atLimit + "\r\n").utf8).span).commands == [.poll])
        let over = atLimit + " "
        let expected = GPSDRequestError.lineTooLong(length: GPSDCommand.maxLineLength + 1, limit: GPSDCommand.maxLineLength)
        #expect(parse(over) == .requests([.failure(expected)]))
        #expect(GPSDCommand.parse(Array(over.utf8).span) == .requests([.failure(expected)]))
        #expect(expected.message == "Request too long: 1025 bytes (limit 1024)")
        // Junk stays junk however long it is.
        #expect(parse(String(repeating: "$", count: 5000)) == .ignored)
        // A huge line is measured without being parsed.
        let huge = "?" + String(repeating: "X", count: 100_000)
        #expect(parse(huge) == .requests([.failure(.lineTooLong(length: 100_001, limit: GPSDCommand.maxLineLength))]))
    }

    @Test("borrowed bytes and collections give the same result")
    func spanAndCollectionAgree() {
        for line in ["?VERSION;?POLL", #"?WATCH={"raw":2,"pps":true}"#, "?FOO;", "junk", #"?WATCH={"enable":tru"#] {
            let bytes = Array(line.utf8)
            #expect(GPSDCommand.parse(bytes.span) == GPSDCommand.parse(bytes[...]), "line \(line)")
        }
    }

    @Test("broken JSON is an Invalid WATCH error naming the byte offset")
    func brokenJSON() throws {
        // gpsd 3.22 took this as enable:true; we are strict.
        let truncated = try argumentError(#"?WATCH={"enable":tru"#)
        #expect(truncated == GPSDJSONError(.unexpectedEnd, offset: 20))
        #expect(try failure(#"?WATCH={"enable":tru"#).message == "Invalid WATCH: unexpected end of text at byte 20")
        #expect(try argumentError(#"?WATCH={"enable":true,}"#) == GPSDJSONError(.unexpectedByte(UInt8(ascii: "}"), expected: "a member name"), offset: 22))
        #expect(try argumentError(#"?WATCH={'enable':true}"#).offset == 8)
        #expect(try argumentError(#"?WATCH={"raw":01}"#).offset == 15)
        #expect(try argumentError(#"?WATCH={"raw":1.}"#) == GPSDJSONError(.invalidNumber, offset: 14))
        #expect(try argumentError(#"?WATCH=[true]"#) == GPSDJSONError(.unexpectedByte(UInt8(ascii: "["), expected: "'{'"), offset: 7))
        #expect(try argumentError("?WATCH=") == GPSDJSONError(.unexpectedEnd, offset: 7))
        #expect(try argumentError(#"?WATCH={"enable" true}"#).offset == 17)
        #expect(try argumentError(#"?DEVICE={"path":"/dev/x""#, command: "DEVICE") == GPSDJSONError(.unexpectedEnd, offset: 24))
    }

    @Test("a known member of the wrong type or range names the member and its offset")
    func badValues() throws {
        let enable = try argumentError(#"?WATCH={"enable":1}"#)
        #expect(enable == GPSDJSONError(.invalidValue(key: "enable", expected: "true or false"), offset: 17))
        #expect(try failure(#"?WATCH={"enable":1}"#).message == #"Invalid WATCH: "enable" must be true or false at byte 17"#)
        #expect(try argumentError(#"?WATCH={"raw":3}"#).reason == .invalidValue(key: "raw", expected: "an integer in 0...2"))
        #expect(try argumentError(#"?WATCH={"raw":1.5}"#).reason == .invalidValue(key: "raw", expected: "an integer in 0...2"))
        #expect(try argumentError(#"?WATCH={"device":null}"#).reason == .invalidValue(key: "device", expected: "a string"))
        #expect(try argumentError(#"?WATCH={"class":"DEVICE"}"#).reason == .invalidValue(key: "class", expected: #""WATCH""#))
        #expect(try argumentError(#"?DEVICE={"parity":"X"}"#, command: "DEVICE").reason
                == .invalidValue(key: "parity", expected: #""N", "O" or "E""#))
        #expect(try argumentError(#"?DEVICE={"hexdata":"abc"}"#, command: "DEVICE").reason
                == .invalidValue(key: "hexdata", expected: "an even number of hex digits"))
        #expect(try argumentError(#"?DEVICE={"stopbits":3}"#, command: "DEVICE").offset == 20)
        #expect(try argumentError(#"?DEVICE={"cycle":-1}"#, command: "DEVICE").reason
                == .invalidValue(key: "cycle", expected: "a number of seconds >= 0"))
        #expect(try failure(#"?DEVICE={"bps":0}"#).message.hasPrefix("Invalid DEVICE: \"bps\" must be"))
    }

    @Test("unknown members are skipped, nested values included")
    func unknownMembersSkipped() {
        let line = #"?WATCH={"loglevel":3,"x":{"a":[1,2,{"b":[[],{}]}],"s":"}]"},"y":[null,false,-1e-3],"enable":true}"#
        #expect(parse(line).commands == [.watch(GPSDWatchRequest(enable: true))])
    }

    @Test("nesting is limited to GPSDJSONValue.maxDepth")
    func depthLimit() throws {
        func nested(_ depth: Int) -> String {
            // The argument object itself is depth 1.
            #"?WATCH={"x":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        }
        #expect(parse(nested(GPSDJSONValue.maxDepth)).commands == [.watch(GPSDWatchRequest())])
        let tooDeep = try argumentError(nested(GPSDJSONValue.maxDepth + 1))
        #expect(tooDeep == GPSDJSONError(.tooDeep(limit: GPSDJSONValue.maxDepth), offset: 12 + GPSDJSONValue.maxDepth - 1))
        // Far deeper than the stack could take if the limit were missing.
        let abyss = "?WATCH={\"x\":" + String(repeating: "[", count: 1000)
        #expect(try argumentError(abyss).reason == .tooDeep(limit: GPSDJSONValue.maxDepth))
    }

    @Test("string escapes, \\u escapes and UTF-8")
    func unicode() throws {
        let line = #"?WATCH={"device":"/dev/gps\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t","remote":"Zürich"}"#
        #expect(parse(line).commands == [.watch(GPSDWatchRequest(device: "/dev/gpsé😀\"\\/\u{08}\u{0C}\n\r\t", remote: "Zürich"))])
        #expect(try argumentError(#"?WATCH={"device":"\ud83d"}"#).reason == .invalidUnicodeEscape)
        #expect(try argumentError(#"?WATCH={"device":"\ude00\ud83d"}"#).reason == .invalidUnicodeEscape)
        #expect(try argumentError(#"?WATCH={"device":"\u12G4"}"#).reason == .invalidUnicodeEscape)
        #expect(try argumentError(#"?WATCH={"device":"\x41"}"#) == GPSDJSONError(.invalidEscape, offset: 18))
        #expect(try argumentError("?WATCH={\"device\":\"a\tb\"}").reason == .controlCharacter)
        var invalidUTF8 = Array(#"?WATCH={"device":""#.utf8)
        invalidUTF8 += [0xC3, 0x28, UInt8(ascii: "\""), UInt8(ascii: "}")]
        #expect(GPSDCommand.parse(invalidUTF8).error == .invalidArgument(command: "WATCH", error: GPSDJSONError(.invalidUTF8, offset: 17)))
    }

    @Test("what real clients send")
    func realClients() {
        #expect(parse("?WATCH={\"raw\":2,\"pps\":true}\r\n").commands == [.watch(GPSDWatchRequest(raw: 2, pps: true))])
        #expect(parse(#"?WATCH={"enable":true,"json":true}"#).commands == [.watch(GPSDWatchRequest(enable: true, json: true))])
        #expect(parse("?WATCH={\"device\":\"/dev/gps0\",\"enable\":true,\"json\":true,\"pps\":true};\r\n").commands
                == [.watch(GPSDWatchRequest(enable: true, json: true, pps: true, device: "/dev/gps0"))])
        #expect(parse("?WATCH={\"enable\":true,\"nmea\":true};$PGRMCE*0E\r\n").commands == [.watch(GPSDWatchRequest(enable: true, nmea: true))])
    }
}
