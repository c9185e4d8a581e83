import GPSDProtocol
import Testing

@Suite("WATCH policy")
struct WatchTests {
    /// The request of a one-command WATCH line.
    func request(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> GPSDWatchRequest {
        guard case .watch(let request?)? = GPSDCommand.parse(line.utf8).commands.first else {
            Issue.record("no WATCH argument in \(line)", sourceLocation: sourceLocation)
            return GPSDWatchRequest()
        }
        return request
    }

    @Test("the recorded session's WATCH replies, one after another, byte for byte")
    func transcriptSequence() throws {
        var policy = GPSDWatchPolicy()
        #expect(policy.report == #"{"class":"WATCH","enable":false,"json":false,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#)
        for (line, reply) in Transcript.watchSequence {
            policy.apply(try request(line))
            #expect(policy.report == reply, "after \(line)")
        }
    }

    @Test("omitted members: enable defaults to true; json/nmea/raw stick; the rest reset")
    func mergeRules() throws {
        var policy = GPSDWatchPolicy()
        policy.apply(try request(#"?WATCH={"enable":true,"json":true,"nmea":true,"raw":2,"scaled":true,"split24":true,"pps":true,"timing":true,"device":"/dev/gps0","remote":"r"}"#))
        #expect(policy.watches(device: "/dev/gps0") && !policy.watches(device: "/dev/gps1"))
        // gpsmon's request has no "enable": streaming starts anyway.
        var stopped = policy
        stopped.enable = false
        stopped.apply(try request(#"?WATCH={"raw":1}"#))
        var expected = GPSDWatchPolicy()
        expected.enable = true
        expected.json = true
        expected.nmea = true
        expected.raw = 1
        #expect(stopped == expected)
        #expect(stopped.watches(device: "/dev/gps1"))
        // python3-gps on close.
        let closed = policy.applying(try request(#"?WATCH={"enable":false,"json":false}"#))
        #expect(!closed.enable && !closed.json && closed.nmea && closed.raw == 2 && !closed.pps && closed.device == nil)
        #expect(!closed.watches(device: "/dev/gps0"))
    }

    @Test("the device filter is echoed; an empty path clears it")
    func deviceEcho() throws {
        let policy = GPSDWatchPolicy().applying(try request(#"?WATCH={"enable":true,"json":true,"device":"/dev/pts/3"}"#))
        #expect(policy.report.hasSuffix(#","pps":false,"device":"/dev/pts/3"}"#))
        #expect(try parsed(policy.report)["device"] == .string("/dev/pts/3"))
        let cleared = policy.applying(try request(#"?WATCH={"device":""}"#))
        #expect(cleared.device == nil && cleared.watches(device: "/dev/pts/9"))
        // A relay's "remote" is kept but, as in gpsd, not echoed.
        let relayed = GPSDWatchPolicy().applying(GPSDWatchRequest(remote: "gpsd://host"))
        #expect(relayed.remote == "gpsd://host" && !relayed.report.contains("remote"))
    }

    @Test("a query (?WATCH;) carries no request, so nothing to merge")
    func query() {
        #expect(GPSDCommand.parse("?WATCH;".utf8).commands == [.watch(nil)])
    }
}
