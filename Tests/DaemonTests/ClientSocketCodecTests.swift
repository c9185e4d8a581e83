import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import FieldLocationWire
import Foundation
import HardwareInterfaces
import Heading
import LocationServices
import Testing

/// The client socket's values in their JSON forms: the bytes are those protocol version 1 has always
/// sent (the golden lines below were checked against the former `Wire*` encodings), they read back
/// to the same values, and values out of range are refused with the reason.
@Suite("client socket codec")
struct ClientSocketCodecTests {
    static let location = Location(latitude: 52.5, longitude: 13.25, horizontalAccuracy: 4.5, receivedAt: MonotonicInstant(nanoseconds: 123_456_789_000),
                                   altitude: 34.5, ellipsoidalAltitude: 80.25, verticalAccuracy: 6, speed: 1.5, course: 271.25,
                                   timestamp: 1_790_000_000.5, satellitesUsed: 9, mode: .threeD, provenance: .simulator)
    static var reduced: Location {
        var l = Location(latitude: -33.9, longitude: 151.2, horizontalAccuracy: .infinity, receivedAt: MonotonicInstant(nanoseconds: 5), mode: .twoD)
        l.isReduced = true
        return l
    }
    static let heading = HeadingUpdate(magneticHeading: 12.5, trueHeading: 15.25, headingAccuracy: 3, field: (1, 2, 3), acceleration: (0.1, 0.2, 9.8),
                                       pitch: 1, roll: nil, inclination: 66, quality: .good, flags: ["a", "b"], takenAt: MonotonicInstant(nanoseconds: 77))
    static let region = CircularRegion(identifier: "home", latitude: 52.5, longitude: 13.25, radius: 100, notifyOnEntry: true, notifyOnExit: false)
    static let visit = Visit(latitude: 1, longitude: 2, horizontalAccuracy: 3, arrival: (10, MonotonicInstant(nanoseconds: 11)),
                             departure: (nil, MonotonicInstant(nanoseconds: 99)))

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try ClientSocketCodec.encoder().encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try ClientSocketCodec.decoder().decode(type, from: Data(text.utf8))
    }

    static let locationLine = #"{"altitude":34.5,"course":271.25,"ellipsoidalAltitude":80.25,"horizontalAccuracy":4.5,"latitude":52.5,"longitude":13.25,"mode":3,"provenance":2,"receivedAt":123456789000,"satellitesUsed":9,"speed":1.5,"timestamp":1790000000.5,"verticalAccuracy":6}"#
    static let reducedLine = #"{"horizontalAccuracy":"inf","isReduced":true,"latitude":-33.9,"longitude":151.2,"mode":2,"provenance":0,"receivedAt":5}"#

    @Test("a heading from a board with a gyroscope carries its attitude over the socket, and reads back the same")
    func attitude() throws {
        var heading = Self.heading
        heading.attitude = AttitudeEstimate(quaternion: AttitudeQuaternion(w: 0.5, x: 0.5, y: -0.5, z: 0.5), roll: 1.5, pitch: -2.25, yaw: 271.125,
                                            sources: [.gyroscope, .accelerometer, .magnetometer], rotationRate: Vector3(0.5, -1, 30),
                                            gyroscopeBias: Vector3(0.01, 0, -0.02), isStill: false, recoveries: 2)
        let text = try Self.json(heading)
        #expect(text.contains(#""attitude":{"gyroscopeBias":[0.01,0,-0.02],"isStill":false,"pitch":-2.25,"quaternion":[0.5,0.5,-0.5,0.5],"recoveries":2,"roll":1.5,"rotationRate":[0.5,-1,30],"sources":7,"yaw":271.125}"#), "\(text)")
        let back = try JSONDecoder().decode(HeadingUpdate.self, from: Data(text.utf8))
        #expect(back.attitude == heading.attitude)
        // Without a gyroscope there is no attitude member, as before.
        #expect(try !Self.json(Self.heading).contains("attitude"))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(HeadingUpdate.self, from: Data(text.replacingOccurrences(of: "[0.5,0.5,-0.5,0.5]", with: "[0.5,0.5]").utf8))
        }
    }

    @Test("the values encode to version 1's bytes and read back the same")
    func goldenBytes() throws {
        #expect(try Self.json(Self.location) == Self.locationLine)
        #expect(try Self.json(Self.reduced) == Self.reducedLine)
        #expect(try Self.json(Self.heading)
                == #"{"accelerationX":0.1,"accelerationY":0.2,"accelerationZ":9.8,"flags":["a","b"],"headingAccuracy":3,"inclination":66,"magneticHeading":12.5,"pitch":1,"quality":"good","takenAt":77,"trueHeading":15.25,"x":1,"y":2,"z":3}"#)
        #expect(try Self.json(Self.visit) == #"{"arrivalTime":10,"arrivedAt":11,"departedAt":99,"horizontalAccuracy":3,"latitude":1,"longitude":2}"#)
        var services = ClientServices()
        services.updatingLocation = true
        services.distanceFilter = 10
        services.deferral = (nil, 60)
        services.headingOrientation = .left
        let servicesLine = #"{"activityType":"other","deferral":{"timeout":60},"desiredAccuracy":"best","distanceFilter":10,"headingFilter":1,"headingOrientation":"left","maximumAge":2,"pausesAutomatically":true,"reducedAccuracy":false,"significantChanges":false,"updatingHeading":false,"updatingLocation":true,"visits":false}"#
        #expect(try Self.json(services) == servicesLine)
        #expect(try Self.json(LocationError.regionMonitoringFailure(region: "home", reason: "too many"))
                == #"{"code":"regionMonitoringFailure","message":"too many","region":"home"}"#)
        #expect(try Self.json(LocationError.hardware(.portGone, "gone")) == #"{"cause":"portGone","code":"hardware","message":"gone"}"#)
        #expect(try Self.json(ClientEvent(.region(RegionEvent(.exit, region: Self.region, location: Self.reduced))))
                == #"{"kind":"region","region":{"kind":"exit","location":"# + Self.reducedLine
                + #","region":{"identifier":"home","latitude":52.5,"longitude":13.25,"notifyOnEntry":true,"notifyOnExit":false,"radius":100}}}"#)
        #expect(try Self.json(ClientEvent(.deferredFinished(.deferredFailed("d")))) == #"{"error":{"code":"deferredFailed","message":"d"},"kind":"deferredFinished"}"#)
        #expect(try Self.json(ClientEvent(.deferredFinished(nil))) == #"{"kind":"deferredFinished"}"#)

        #expect(try Self.decode(Location.self, Self.locationLine) == Self.location)
        #expect(try Self.decode(Location.self, Self.reducedLine) == Self.reduced)
        #expect(try Self.decode(HeadingUpdate.self, Self.json(Self.heading)) == Self.heading)
        #expect(try Self.decode(Visit.self, Self.json(Self.visit)) == Self.visit)
        let back = try Self.decode(ClientServices.self, servicesLine)
        #expect(try Self.json(back) == servicesLine)
        for error in [LocationError.locationUnknown("x"), .denied("d"), .headingFailure("h"), .regionMonitoringFailure(region: "r", reason: "why"),
                      .deferredFailed("f"), .invalidArgument("i"), .hardware(.sensorNotAcknowledging, "s")] {
            #expect(try Self.decode(LocationError.self, Self.json(error)) == error)
        }
        #expect(try Self.decode(LocationError.self, #"{"code":"meteor","message":"m"}"#) == .hardware(.other, "fieldlocd: meteor: m"))
    }

    @Test("a long batch of locations goes in parts of 100 that say they continue, an error's message is cut to 4096 bytes")
    func partsAndClipping() throws {
        let parts = ClientEvent.parts(of: .locations(Array(repeating: Self.location, count: 250)))
        #expect(parts.map(\.continues) == [true, true, false])
        let counts = parts.map { part -> Int in
            guard case .locations(let l) = part.event else { return -1 }
            return l.count
        }
        #expect(counts == [100, 100, 50])
        #expect(try Self.json(parts[0]).hasPrefix(#"{"continues":true,"kind":"locations","locations":["#))
        #expect(try !Self.json(parts[2]).contains("continues"))
        let long = LocationError.invalidArgument(String(repeating: "é", count: 3000))
        #expect(long.clipped.message.utf8.count <= ClientSocketProtocol.maximumMessageLength)
        #expect(long.clipped.code == "invalidArgument")
        #expect(LocationError.denied("short").clipped == .denied("short"))
    }

    @Test("values out of range are refused with the reason: services, positions, qualities, kinds")
    func refusals() throws {
        let base = try Self.json(ClientServices())
        func services(_ change: String, _ value: String) -> String {
            base.replacingOccurrences(of: "\"\(change)\":", with: "\"\(change)\":\(value),\"_\":")
        }
        #expect(throws: LocationError.invalidArgument("services: maximumAge -1.0 must be a positive number")) {
            try Self.decode(ClientServices.self, services("maximumAge", "-1"))
        }
        #expect(throws: LocationError.invalidArgument("services: headingFilter 400.0 must be 0 to 360 degrees")) {
            try Self.decode(ClientServices.self, services("headingFilter", "400"))
        }
        #expect(throws: LocationError.invalidArgument("services: headingOrientation 'up' is not forward, right, backward or left")) {
            try Self.decode(ClientServices.self, services("headingOrientation", "\"up\""))
        }
        #expect(throws: LocationError.invalidArgument("services: a deferral needs a distance, a timeout or both")) {
            try Self.decode(ClientServices.self, base.replacingOccurrences(of: "{", with: #"{"deferral":{},"#, options: [], range: base.startIndex..<base.index(after: base.startIndex)))
        }
        #expect(throws: DecodingError.self) { try Self.decode(Location.self, Self.locationLine.replacingOccurrences(of: "\"latitude\":52.5", with: "\"latitude\":91")) }
        #expect(throws: DecodingError.self) { try Self.decode(Location.self, Self.locationLine.replacingOccurrences(of: "\"mode\":3", with: "\"mode\":7")) }
        #expect(throws: DecodingError.self) { try Self.decode(HeadingUpdate.self, Self.json(Self.heading).replacingOccurrences(of: "\"good\"", with: "\"superb\"")) }
        #expect(throws: DecodingError.self) { try Self.decode(ClientEvent.self, #"{"kind":"teleport"}"#) }
        #expect(throws: DecodingError.self) { try Self.decode(ClientEvent.self, #"{"kind":"heading"}"#) }
        do {
            _ = try Self.decode(Location.self, Self.locationLine.replacingOccurrences(of: "\"latitude\":52.5", with: "\"latitude\":91"))
        } catch {
            #expect(ClientSocketCodec.describe(error) == "latitude: location 91.0, 13.25 is not a position")
        }
    }
}
