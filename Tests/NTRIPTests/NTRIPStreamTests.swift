import NMEA
import Testing

@testable import NTRIP

/// Chunked bodies and RTCM 3 frames fed whole, byte by byte and in bursts; sessions end to end.
@Suite("NTRIP streams")
struct NTRIPStreamTests {
    /// A message shell of `type` for `station`, `extra` more payload bytes.
    static func frame(_ type: UInt16, station: Int = 2003, extra: Int = 10) -> [UInt8] {
        var payload: [UInt8] = [UInt8(type >> 4), UInt8((type & 0xF) << 4) | UInt8(station >> 8 & 0xF), UInt8(station & 0xFF)]
        for i in 0..<extra { payload.append(UInt8(truncatingIfNeeded: i * 37 + Int(type))) }
        return RTCM3Stream.frame(payload: payload)
    }

    static let frames = [frame(1005, extra: 16), frame(1077, extra: 80), frame(1087, extra: 60), frame(1230, extra: 3)]

    /// `data` in chunks of `sizes` (cycled), with an extension on one size line, then the last chunk and a trailer.
    static func chunked(_ data: [UInt8], sizes: [Int]) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        var k = 0
        while offset < data.count {
            let n = min(sizes[k % sizes.count], data.count - offset)
            out += Array(String(n, radix: 16).utf8) + (k == 1 ? Array(";ext=1".utf8) : []) + [0x0D, 0x0A]
            out += data[offset..<(offset + n)] + [0x0D, 0x0A]
            offset += n
            k += 1
        }
        return out + Array("0\r\nX-Trailer: y\r\n\r\n".utf8)
    }

    /// Splits `bytes` into pieces: whole, one byte each, or seeded random bursts.
    static func pieces(_ bytes: [UInt8], mode: Int) -> [[UInt8]] {
        switch mode {
        case 0: return [bytes]
        case 1: return bytes.map { [$0] }
        default:
            var rng = UInt64(0x9E37_79B9_7F4A_7C15)
            var out: [[UInt8]] = []
            var i = 0
            while i < bytes.count {
                rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let n = min(Int(rng >> 33) % 23 + 1, bytes.count - i)
                out.append(Array(bytes[i..<(i + n)]))
                i += n
            }
            return out
        }
    }

    @Test("chunked decoding: whole, byte by byte and in bursts give the same data", arguments: [0, 1, 2])
    func chunkedDecoding(mode: Int) throws {
        let data = Self.frames.flatMap { $0 }
        let body = Self.chunked(data, sizes: [7, 100, 1, 33])
        var decoder = ChunkedDecoder()
        var out: [UInt8] = []
        for piece in Self.pieces(body, mode: mode) { try decoder.decode(piece, into: &out) }
        #expect(out == data)
        #expect(decoder.isFinished)
    }

    @Test("chunked decoding errors name the body offset")
    func chunkedErrors() {
        var out: [UInt8] = []
        var a = ChunkedDecoder()
        #expect(throws: NTRIPError.badChunk(offset: 0, "0x5A in a chunk size")) { try a.decode(Array("Z\r\n".utf8), into: &out) }
        var b = ChunkedDecoder()
        #expect(throws: NTRIPError.self) { try b.decode(Array("2\r\nabc\r\n".utf8), into: &out) }
        var c = ChunkedDecoder()
        #expect(throws: NTRIPError.self) { try c.decode(Array("FFFFFFFF\r\n".utf8), into: &out) }
        var d = ChunkedDecoder()
        #expect(throws: NTRIPError.self) { try d.decode(Array("\r\n".utf8), into: &out) }
    }

    @Test("RTCM 3 frames: whole, byte by byte and in bursts; types, station, garbage between", arguments: [0, 1, 2])
    func rtcmFrames(mode: Int) {
        let stream: [UInt8] = Self.frames.flatMap { [UInt8]([0x00, 0x41]) + $0 }
        var reader = RTCM3Stream()
        var out: [[UInt8]] = []
        for piece in Self.pieces(stream, mode: mode) { out += reader.feed(piece) }
        #expect(out == Self.frames)
        #expect(reader.frames == 4 && reader.crcFailures == 0)
        #expect(reader.typesSeen == [1005, 1077, 1087, 1230])
        #expect(reader.stationID == 2003)
    }

    @Test("CRC failures are counted and the next frames still come; a frame cut by the connection's end counts as truncated")
    func crcFailures() {
        var bad = Self.frame(1077, extra: 40)
        bad[20] ^= 0x01
        let cut = Array(Self.frame(1087, extra: 40).prefix(25))
        var reader = RTCM3Stream()
        let out = reader.feed(bad + Self.frames[0] + cut + Self.frames[1])
        // The cut frame swallows the next one's first bytes, fails its CRC and is scanned again.
        #expect(out.contains(Self.frames[0]))
        #expect(reader.crcFailures >= 2)
        var r2 = RTCM3Stream()
        _ = r2.feed(Self.frames[0] + cut)
        r2.connectionEnded()
        #expect(r2.truncated == 1 && r2.frames == 1)
        #expect(r2.feed(Self.frames[1]) == [Self.frames[1]])
    }

    @Test("a v2 session: chunked frames in bursts; a v1 session: ICY then frames", arguments: [0, 1, 2])
    func sessions(mode: Int) {
        let config = NTRIPConfiguration(host: "h", mountpoint: "M", user: "u", password: "p")
        let data = Self.frames.flatMap { $0 }
        let v2 = Array("HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            + Self.chunked(data, sizes: [50, 3])
        var rtcm = RTCM3Stream()
        var session = NTRIPSession(configuration: config)
        _ = session.request()
        var out: [[UInt8]] = []
        for piece in Self.pieces(v2, mode: mode) { out += session.receive(piece, rtcm: &rtcm) }
        #expect(session.state == .streaming(.v2))
        #expect(out == Self.frames)
        var v1session = NTRIPSession(configuration: config)
        _ = v1session.request()
        var out1: [[UInt8]] = []
        for piece in Self.pieces(Array("ICY 200 OK\r\n".utf8) + data, mode: mode) { out1 += v1session.receive(piece, rtcm: &rtcm) }
        #expect(v1session.state == .streaming(.v1))
        #expect(out1 == Self.frames)
        v1session.closed("closed by the caster", rtcm: &rtcm)
        #expect(v1session.state.name == "connection-lost")
    }

    @Test("sessions name the failures: 401, 404, a source table for a mountpoint, other statuses, junk, silence")
    func failures() {
        let config = NTRIPConfiguration(host: "h", mountpoint: "M")
        func run(_ text: String, close: Bool = false) -> NTRIPLinkState {
            var rtcm = RTCM3Stream()
            var s = NTRIPSession(configuration: config)
            _ = s.request()
            _ = s.receive(Array(text.utf8), rtcm: &rtcm)
            if close { s.closed("eof", rtcm: &rtcm) }
            return s.state
        }
        #expect(run("HTTP/1.0 401 Unauthorized\r\n", close: true) == .unauthorized)
        #expect(run("HTTP/1.1 404 Not Found\r\n\r\n") == .mountpointNotFound)
        #expect(run("SOURCETABLE 200 OK\r\nContent-Length: 1\r\n\r\nSTR;X\r\n") == .mountpointNotFound)
        #expect(run("HTTP/1.1 503 Busy\r\n\r\n") == .casterError(503, "Busy"))
        #expect(run("garbage\r\n").name == "bad-response")
        #expect(run("", close: true).name == "bad-response")
        #expect(run("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nQ\r\n").name == "bad-response")
    }

    @Test("a source-table session reads the table whole, v1 and v2 (chunked)")
    func sourceTableSession() throws {
        let config = NTRIPConfiguration(host: "h", mountpoint: "ZUR1")
        var rtcm = RTCM3Stream()
        var s = NTRIPSession(configuration: config, sourceTable: true)
        #expect(String(decoding: s.request(), as: UTF8.self).hasPrefix("GET / HTTP/1.1\r\n"))
        for byte in Array(NTRIPProtocolTests.table.utf8) { _ = s.receive([byte], rtcm: &rtcm) }
        #expect(try #require(s.sourceTable).stream("ZUR1") != nil)
        let body = Array("STR;VRS;x;RTCM 3;;2;GPS;EX;CHE;1;2;1;1;g;none;B;N;1;\r\nENDSOURCETABLE\r\n".utf8)
        var s2 = NTRIPSession(configuration: config, sourceTable: true)
        _ = s2.request()
        _ = s2.receive(Array("HTTP/1.1 200 OK\r\nContent-Type: gnss/sourcetable\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            + Self.chunked(body, sizes: [9]), rtcm: &rtcm)
        #expect(s2.sourceTable?.stream("VRS")?.wantsNMEA == true)
    }
}
