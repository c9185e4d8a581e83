import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import FieldLocationClient
import FieldLocationWire
import Foundation
import HardwareInterfaces
import LocationServices
import Testing

/// Polygon regions, expiry and records over the client socket (issue 21).
@Suite("client socket polygons and expiry")
struct ClientSocketPolygonTests {
    static let polygon = RegionPolygon(vertices: [GeoPoint(latitude: 47.37, longitude: 8.54), GeoPoint(latitude: 47.37, longitude: 8.55),
                                                  GeoPoint(latitude: 47.38, longitude: 8.55), GeoPoint(latitude: 47.38, longitude: 8.54)],
                                       holes: [[GeoPoint(latitude: 47.374, longitude: 8.544), GeoPoint(latitude: 47.374, longitude: 8.546),
                                                GeoPoint(latitude: 47.376, longitude: 8.546)]])

    @Test("a polygon region with its expiry, an expiry event and a record encode and read back the same")
    func codec() throws {
        var region = CircularRegion(identifier: "paddock", polygon: Self.polygon, dwellTime: 60)
        region.expiresAfter = 7200
        region.expiresAt = 1_790_000_000
        var request = ClientRequest(op: "monitor", client: 1)
        request.region = region
        let line = try ClientSocketCodec.encoder().encode(request)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""polygon":{"holes":[[[47.374,8.544],"#), "\(text)")
        #expect(text.contains(#""expiresAfter":7200"#) && text.contains(#""expiresAt":1790000000"#))
        let back = try ClientSocketCodec.decoder().decode(ClientRequest.self, from: line)
        #expect(back.region == region)

        let expired = try ClientSocketCodec.encoder().encode(EngineEvent.regionExpired(region))
        guard case .regionExpired(let r) = try ClientSocketCodec.decoder().decode(EngineEvent.self, from: expired) else {
            Issue.record("not an expiry: \(String(decoding: expired, as: UTF8.self))")
            return
        }
        #expect(r == region)

        let fix = Location(latitude: 47.375, longitude: 8.541, horizontalAccuracy: 3, receivedAt: MonotonicInstant(nanoseconds: 5_000_000_000),
                           timestamp: 1_790_000_100)
        var reply = ClientMessage(type: "reply")
        reply.record = RegionRecord(identifier: "paddock", lastEvent: .determined(.inside), state: .inside, location: fix)
        let replyLine = try ClientSocketCodec.encoder().encode(reply)
        #expect(try ClientSocketCodec.decoder().decode(ClientMessage.self, from: replyLine).record == reply.record)
        // A bad vertex is refused with its place.
        let bad = text.replacingOccurrences(of: "[47.374,8.544]", with: "[47.374]")
        #expect(throws: DecodingError.self) { try ClientSocketCodec.decoder().decode(ClientRequest.self, from: Data(bad.utf8)) }
    }

    @Test("a remote manager monitors a polygon around the unit, reads its record, and hears its expiry")
    func overTheSocket() async throws {
        try await CSFixture.with { f in
            let provider = try RemoteLocationProvider(path: f.path, timeout: csReplyTimeout)
            let manager = LocationManager(provider: provider, name: "surveyor")
            let recorder = ExpiryLog()
            manager.delegate = recorder
            manager.startUpdatingLocation()
            #expect(await csWait(seconds: 10) { manager.location != nil })
            let here = try #require(manager.location)
            let d = 0.005
            let square = RegionPolygon(vertices: [GeoPoint(latitude: here.latitude - d, longitude: here.longitude - d),
                                                  GeoPoint(latitude: here.latitude - d, longitude: here.longitude + d),
                                                  GeoPoint(latitude: here.latitude + d, longitude: here.longitude + d),
                                                  GeoPoint(latitude: here.latitude + d, longitude: here.longitude - d)])
            var region = CircularRegion(identifier: "plot", polygon: square)
            // Long enough (12 s at 50x) for the record to be read before it lapses on a loaded machine.
            region.expiresAfter = 600
            manager.startMonitoring(for: region)
            #expect(manager.monitoredRegions == [region])
            #expect(await csWait(seconds: 10) { recorder.log.contains("determined plot inside") }, "\(recorder.log)")
            #expect(manager.record(for: "plot")?.lastEvent == .determined(.inside))
            // 600 s of engine time (at 50x, 12 s).
            #expect(await csWait(seconds: 90) { recorder.log.contains("expired plot") }, "\(recorder.log)")
            #expect(manager.monitoredRegions.isEmpty)
            #expect(manager.record(for: "plot") == nil)
        }
    }
}

/// Region callbacks as text, in order.
final class ExpiryLog: LocationManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var log: [String] { lock.withLock { storage } }
    private func add(_ s: String) { lock.withLock { storage.append(s) } }
    func locationManager(_ m: LocationManager, didDetermineState state: RegionState, for region: CircularRegion) {
        add("determined \(region.identifier) \(state.rawValue)")
    }
    func locationManager(_ m: LocationManager, didExpire region: CircularRegion) { add("expired \(region.identifier)") }
}
