import Foundation
import HardwareInterfaces
import LocationServices
import NMEA
import Testing

/// GST's error ellipse: assembled into the fix, carried by the location, on the wire, and removed
/// under reduced accuracy.
@Suite("error ellipse")
struct ErrorEllipseTests {
    static func line(_ body: String) -> String {
        var sum: UInt8 = 0
        for b in body.utf8 { sum ^= b }
        let hex = String(sum, radix: 16, uppercase: true)
        return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex) + "\r\n"
    }

    /// The location of one epoch of GGA and GST (`gst` the GST's fields after its time).
    static func location(gst: String) throws -> Location? {
        let stream = NMEAStream()
        var last: Fix?
        let bytes = Array((line("GPGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
                           + line("GPGST,123519.00," + gst)).utf8)
        stream.feed(bytes.span) { last = $0 }
        stream.finish { last = $0 }
        return Location(try #require(last), receivedAt: MonotonicInstant(nanoseconds: 1))
    }

    @Test("GST's semi-major, semi-minor and orientation reach the location; the horizontal accuracy stays GST's lat/lon sigmas")
    func throughTheStream() throws {
        let location = try #require(try Self.location(gst: "0.006,0.023,0.020,273.6,0.023,0.020,0.031"))
        let ellipse = try #require(location.errorEllipse)
        #expect(ellipse.semiMajor == 0.023 && ellipse.semiMinor == 0.020)
        #expect(abs(ellipse.orientation - 93.6) < 1e-9, "273.6 degrees is the same axis as 93.6")
        #expect(location.accuracyModel == .gst && abs(location.horizontalAccuracy - (0.023 * 0.023 + 0.020 * 0.020).squareRoot()) < 1e-12)
        #expect(location.reduced().errorEllipse == nil)
        // Empty axes, or a minor longer than the major: no ellipse (the sigmas still give the accuracy).
        #expect(try Self.location(gst: "0.006,,,,0.023,0.020,0.031")?.errorEllipse == nil)
        #expect(try Self.location(gst: "0.006,0.010,0.020,12,0.023,0.020,0.031")?.errorEllipse == nil)
    }

    @Test("on the wire as {semiMajor, semiMinor, orientation}; absent when there is none; a bad one is refused")
    func coding() throws {
        var location = Location(latitude: 48.1, longitude: 11.5, horizontalAccuracy: 3, receivedAt: MonotonicInstant(nanoseconds: 5))
        location.errorEllipse = ErrorEllipse(semiMajor: 2.5, semiMinor: 1.5, orientation: 30)
        let data = try JSONEncoder().encode(location)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"errorEllipse\""))
        #expect(try JSONDecoder().decode(Location.self, from: data).errorEllipse == location.errorEllipse)
        location.errorEllipse = nil
        #expect(!String(decoding: try JSONEncoder().encode(location), as: UTF8.self).contains("errorEllipse"))
        let bad = text.replacingOccurrences(of: "\"semiMajor\":2.5", with: "\"semiMajor\":0.5")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Location.self, from: Data(bad.utf8)) }
    }
}
