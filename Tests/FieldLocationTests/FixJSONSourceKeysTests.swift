import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import NMEA
import Testing

/// The JSON keys that say where a fix's parts came from: `talker` (positions from two devices in one
/// second) and `leap_seconds` (a UTC made from GPS time with leap seconds the receiver did not state).
@Suite("Fix JSON: source keys")
struct FixJSONSourceKeysTests {
    /// The writer's bytes for `fix`, as a string.
    func written(_ fix: Fix) -> String {
        var out: [UInt8] = []
        let writer = FixJSONWriter { out.append(contentsOf: $0) }
        writer.write(fix)
        writer.flush()
        return String(decoding: out, as: UTF8.self)
    }

    func sample() -> Fix {
        var fix = Fix()
        fix.mode = .threeD
        fix.latitude = 52.498833333
        fix.longitude = 5.344333333
        return fix
    }

    @Test("talker and leap_seconds are written only when they say something; FixJSON.line is the writer's line")
    func keys() throws {
        var fix = sample()
        fix.positionTalker = .gps
        fix.leapSecondsSource = .receiver
        #expect(written(fix) == "{\"class\":\"FIX\",\"mode\":3,\"lat\":52.498833333,\"lon\":5.344333333,\"quality\":\"none\",\"source\":\"receiver\"}\n")
        #expect(written(fix) == FixJSON.line(fix) + "\n")
        fix.positionTalker = Talker(0x49, 0x49)
        fix.positionTalkersDiffer = true
        fix.leapSecondsSource = .table
        let line = FixJSON.line(fix)
        #expect(line == "{\"class\":\"FIX\",\"mode\":3,\"lat\":52.498833333,\"lon\":5.344333333,\"talker\":\"II\",\"leap_seconds\":\"table\",\"quality\":\"none\",\"source\":\"receiver\"}")
        #expect(written(fix) == line + "\n")
        fix.leapSecondsSource = .assumed
        #expect(FixJSON.line(fix).contains("\"leap_seconds\":\"assumed\"") && written(fix) == FixJSON.line(fix) + "\n")
        let object = try JSONSerialization.jsonObject(with: Data(FixJSON.line(fix).utf8)) as? [String: Any]
        #expect(object?["talker"] as? String == "II" && object?["leap_seconds"] as? String == "assumed")
    }
}
