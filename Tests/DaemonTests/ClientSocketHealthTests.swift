import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import FieldLocationClient
import Foundation
import LocationServices
import Testing

/// The unit's health over the client socket: the `health` op, read through RemoteLocationProvider.
@Suite("client socket: health")
struct ClientSocketHealthTests {
    @Test("health over the socket: the engine's counters after fixes, the same values as in process")
    func healthOverTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let manager = LocationManager(provider: provider, name: "health")
            manager.startUpdatingLocation()
            #expect(await csWait(seconds: 20) { f.engine.statistics.fixes >= 3 })
            let remote = try #require(provider.health, "a health reply")
            let local = f.engine.health()
            #expect(remote.fixes >= 3 && remote.fixes <= local.fixes)
            #expect(remote.sentencesAccepted > 0 && remote.sentencesAccepted <= local.sentencesAccepted)
            // The engine runs on: a pause for stillness and a wake between the two reads is another
            // acquisition, so the remote values are at most the local ones read after them.
            #expect(remote.timeToFirstFix.map { $0 > 0 } == true)
            #expect(remote.acquisitions >= 1 && remote.acquisitions <= local.acquisitions)
            #expect(remote.receiverPowerState != nil)
            #expect(remote.pps == local.pps)
            #expect(remote.receiverCharge > 0)
            manager.stopUpdatingLocation()
        }
    }

    @Test("a denied user gets no health")
    func deniedHealth() async throws {
        try await CSFixture.with(policy: "default = denied\n") { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            #expect(provider.health == nil)
        }
    }
}
