import NMEA
import Testing

@testable import NTRIP

/// Requests byte for byte, URLs, response heads and source tables.
@Suite("NTRIP protocol")
struct NTRIPProtocolTests {
    let config = NTRIPConfiguration(host: "caster.example", mountpoint: "ZUR1", user: "user", password: "pass")

    @Test("the NTRIP 2.0 request, byte for byte")
    func requestV2() {
        let text = String(decoding: NTRIPRequest.bytes(for: config), as: UTF8.self)
        #expect(text == "GET /ZUR1 HTTP/1.1\r\nHost: caster.example:2101\r\nNtrip-Version: Ntrip/2.0\r\n"
            + "User-Agent: NTRIP FieldLocation/1.0\r\nAuthorization: Basic dXNlcjpwYXNz\r\nConnection: close\r\n\r\n")
    }

    @Test("the NTRIP 1.0 request and the source-table request, byte for byte")
    func requestV1() {
        var v1 = config
        v1.version = .v1
        v1.user = nil
        #expect(String(decoding: NTRIPRequest.bytes(for: v1), as: UTF8.self)
            == "GET /ZUR1 HTTP/1.0\r\nUser-Agent: NTRIP FieldLocation/1.0\r\n\r\n")
        #expect(String(decoding: NTRIPRequest.bytes(for: v1, sourceTable: true), as: UTF8.self)
            == "GET / HTTP/1.0\r\nUser-Agent: NTRIP FieldLocation/1.0\r\n\r\n")
    }

    @Test("base64 as RFC 4648's test vectors")
    func base64() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors { #expect(NTRIPRequest.base64(Array(plain.utf8)) == encoded) }
    }

    @Test("URLs: credentials, percent-encoding, default port, NTRIP 1.0, errors naming the part")
    func urls() throws {
        let a = try NTRIPConfiguration(url: "ntrip://us%40er:p%3Ass@caster.example/MOUNT")
        #expect(a.user == "us@er" && a.password == "p:ss" && a.port == 2101 && a.mountpoint == "MOUNT" && a.version == .v2)
        let b = try NTRIPConfiguration(url: "ntrip1://127.0.0.1:2102/M2")
        #expect(b.user == nil && b.port == 2102 && b.version == .v1 && b.host == "127.0.0.1")
        let c = try NTRIPConfiguration(url: "ntrip://u:p@[::1]:2103/M")
        #expect(c.host == "::1" && c.port == 2103 && c.displayName == "[::1]:2103/M")
        #expect(throws: NTRIPError.self) { try NTRIPConfiguration(url: "http://caster/M") }
        #expect(throws: NTRIPError.self) { try NTRIPConfiguration(url: "ntrip://caster:99999/M") }
        #expect(throws: NTRIPError.self) { try NTRIPConfiguration(url: "ntrip://caster") }
        #expect(throws: NTRIPError.self) { try NTRIPConfiguration(url: "ntrip://u:%zz@caster/M") }
        #expect(NTRIPConfiguration.redacted("ntrip://u:secret@caster/M") == "ntrip://u:***@caster/M")
        do {
            _ = try NTRIPConfiguration(url: "ntrip://u:secret@caster:0/M")
            Issue.record("port 0 accepted")
        } catch {
            #expect(!error.description.contains("secret"))
        }
    }

    @Test("response heads: ICY with the stream right after it, HTTP with headers, 401 without a blank line at the end")
    func heads() throws {
        let icy = Array("ICY 200 OK\r\n".utf8) + [0xD3, 0x00]
        let (head, length) = try #require(try NTRIPResponseParser.parse(icy))
        #expect(head.kind == .icy && head.statusCode == 200 && length == 12)
        // An ICY line alone is complete: a v1 caster may wait for GGA before the stream.
        #expect(try NTRIPResponseParser.parse(Array("ICY 200 OK\r\n".utf8))?.length == 12)
        let icyHeaders = Array("ICY 200 OK\r\nServer: X\r\n\r\n".utf8)
        #expect(try NTRIPResponseParser.parse(icyHeaders)?.head.headers["server"] == "X")
        let http = Array("HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nTransfer-Encoding: chunked\r\n\r\nrest".utf8)
        let (h2, l2) = try #require(try NTRIPResponseParser.parse(http))
        #expect(h2.isNTRIP2 && h2.isChunked && l2 == http.count - 4)
        #expect(try NTRIPResponseParser.parse(Array("HTTP/1.1 200 OK\r\nNtrip-Ver".utf8)) == nil)
        let unauthorized = Array("HTTP/1.0 401 Unauthorized\r\n".utf8)
        #expect(try NTRIPResponseParser.parse(unauthorized) == nil)
        #expect(try NTRIPResponseParser.parse(unauthorized, atEnd: true)?.head.statusCode == 401)
        #expect(throws: NTRIPError.self) { try NTRIPResponseParser.parse(Array("SSH-2.0-OpenSSH\r\n".utf8)) }
        #expect(throws: NTRIPError.self) { try NTRIPResponseParser.parse([0xD3, 0x00, 0x13]) }
        #expect(throws: NTRIPError.self) { try NTRIPResponseParser.parse([UInt8](repeating: 0x41, count: 9000)) }
        let st = Array("SOURCETABLE 200 OK\r\nContent-Type: text/plain\r\n\r\n".utf8)
        #expect(try NTRIPResponseParser.parse(st)?.head.isSourceTable == true)
    }

    static let table = """
        SOURCETABLE 200 OK\r
        Server: Test\r
        \r
        CAS;caster.example;2101;Example;Org;0;CHE;47.38;8.54;0.0.0.0;0;http://example\r
        NET;EX;Example;B;N;http://example;;;;\r
        STR;ZUR1;Zurich;RTCM 3.2;1005(10),1077(1),1087(1);2;GPS+GLO;EX;CHE;47.38;8.54;0;0;sNTRIP;none;B;N;9600;misc;more\r
        STR;VRS;Network;RTCM 3.3;1004(1);2;GPS;EX;CHE;47.00;8.00;1;1;VRS;none;B;Y;5000;\r
        STR;SHORT;too;few\r
        STR;BADNMEA;x;RTCM 3;;2;GPS;EX;CHE;1;2;yes;0;g;none;N;N;1;\r
        ENDSOURCETABLE\r

        """

    @Test("source table: STR fields, the nmea flag, CAS and NET lines, problems named by line")
    func sourceTable() throws {
        let body = Array(Self.table.utf8)
        let (_, length) = try #require(try NTRIPResponseParser.parse(body))
        let table = NTRIPSourceTable.parse(body[length...])
        #expect(table.complete)
        #expect(table.casters.count == 1 && table.networks.count == 1)
        #expect(table.streams.map(\.mountpoint) == ["ZUR1", "VRS"])
        let zur = try #require(table.stream("ZUR1"))
        #expect(zur.format == "RTCM 3.2" && zur.formatDetails == "1005(10),1077(1),1087(1)" && zur.carrier == 2)
        #expect(zur.navigationSystems == "GPS+GLO" && zur.country == "CHE" && zur.latitude == 47.38 && zur.longitude == 8.54)
        #expect(!zur.wantsNMEA && zur.solution == 0 && zur.authentication == "B" && !zur.fee && zur.bitrate == 9600)
        #expect(zur.miscellaneous == "misc;more")
        let vrs = try #require(table.stream("VRS"))
        #expect(vrs.wantsNMEA && vrs.solution == 1 && vrs.fee)
        #expect(table.problems.map(\.line) == [5, 6])  // lines of the body: CAS, NET, ZUR1, VRS, SHORT, BADNMEA
        #expect(table.problems[1].reason.contains("BADNMEA"))
    }

    @Test("GGA report: fields, 7 decimals of minutes, hemispheres, checksum")
    func gga() throws {
        let report = GGAReport(latitude: 47.3769, longitude: -8.5417, altitude: 408, geoidSeparation: 47.5,
                               secondsOfDay: 12 * 3600 + 34 * 60 + 56.78, quality: 4, satellites: 9, hdop: 0.9)
        let bytes = try #require(report.sentence)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("$GPGGA,123456.78,4722.6140000,N,00832.5020000,W,4,09,0.9,408.000,M,47.500,M,,*"))
        #expect(text.hasSuffix("\r\n"))
        _ = try NMEAParser.validate(Array(bytes.dropLast(2)).span)
        #expect(GGAReport(latitude: .nan, longitude: 0, secondsOfDay: 0).sentence == nil)
    }

    @Test("backoff doubles to its cap and starts again after a success")
    func backoff() {
        var b = NTRIPBackoff(initial: 1, maximum: 8)
        #expect([b.failed(), b.failed(), b.failed(), b.failed(), b.failed()] == [1, 2, 4, 8, 8])
        b.succeeded()
        #expect(b.failed() == 1)
    }
}
