import FieldLocation
import FieldLocationDaemon
import Testing

/// The order in which the client socket refuses a request whose `services` are out of range: the
/// access policy, then the client, then the range, as the daemon has always answered (the range is
/// checked while the line is decoded, and reported only where the op acts on it).
@Suite("client socket refusals", .serialized)
struct ClientSocketRefusalTests {
    static let outOfRange = #""services":{"activityType":"other","desiredAccuracy":"best","headingOrientation":"forward","maximumAge":-1,"#
        + #""pausesAutomatically":true,"reducedAccuracy":false,"significantChanges":false,"updatingHeading":false,"updatingLocation":true,"visits":false}"#

    static func error(_ reply: [String: Any]) -> (code: String?, message: String?) {
        let error = reply["error"] as? [String: Any]
        return (error?["code"] as? String, error?["message"] as? String)
    }

    @Test("services out of range: refused with the range for a registered client, 'not registered' before that, 'denied' for a denied peer")
    func order() async throws {
        try await CSFixture.with { f in
            let raw = try CSUnixClient(path: f.path)
            _ = try raw.message()
            try raw.send(#"{"id":1,"op":"services","client":1,"# + Self.outOfRange + "}\n")
            let unregistered = Self.error(try raw.reply(id: 1))
            #expect(unregistered.code == "invalidArgument")
            #expect(unregistered.message?.contains("client 1 is not registered") == true, "\(unregistered)")
            try raw.send(#"{"id":2,"op":"register","client":1,"name":"ranges"}"# + "\n")
            #expect(try raw.reply(id: 2)["ok"] as? Bool == true)
            try raw.send(#"{"id":3,"op":"services","client":1,"# + Self.outOfRange + "}\n")
            let refused = Self.error(try raw.reply(id: 3))
            #expect(refused.code == "invalidArgument")
            #expect(refused.message == "services: maximumAge -1.0 must be a positive number")
            #expect(f.server.statistics.malformedLines == 0, "a value out of range is not a malformed line")
        }
        try await CSFixture.with(policy: "default = denied\n") { f in
            let raw = try CSUnixClient(path: f.path)
            _ = try raw.message()
            try raw.send(#"{"id":4,"op":"services","client":1,"# + Self.outOfRange + "}\n")
            #expect(Self.error(try raw.reply(id: 4)).code == "denied")
        }
    }
}
