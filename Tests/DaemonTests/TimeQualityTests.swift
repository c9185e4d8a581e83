import FieldLocationOutput
import Foundation
import GPSDProtocol
import LocationServices
import NMEA
import Testing

@testable import FieldLocationDaemon

/// A fix's time accuracy from real captures (../shared/corpus/gpsd): u-blox NAV-PVT tAcc and NMEA
/// GST, through `Location`, the client socket's JSON, the fix JSON lines and gpsd's TPV `ept`.
@Suite("time quality from real logs")
struct TimeQualityTests {
    /// The fixes of a corpus log through the whole NMEA stream, or `nil` (with the reason printed) when absent.
    static func fixes(_ name: String) -> [Fix]? {
        guard let path = DriverSwitchTests.log(name), let data = FileManager.default.contents(atPath: path) else {
            print("TimeQualityTests: skipping \(name): ../shared/corpus/gpsd is absent")
            return nil
        }
        let stream = NMEAStream(skipsCommentLines: true)
        var fixes: [Fix] = []
        let bytes = [UInt8](data)
        stream.feed(bytes.span) { fixes.append($0) }
        stream.finish { fixes.append($0) }
        return fixes
    }

    /// NAV-PVT's tAcc (ns) straight from the log's bytes, independently of the decoder.
    static func navPVTtAcc(_ name: String) -> [UInt32] {
        guard let path = DriverSwitchTests.log(name), let data = FileManager.default.contents(atPath: path) else { return [] }
        let b = [UInt8](data)
        var out: [UInt32] = []
        var i = 0
        while i + 6 + 92 + 2 <= b.count {
            if b[i] == 0xB5, b[i + 1] == 0x62, b[i + 2] == 0x01, b[i + 3] == 0x07, b[i + 4] == 92, b[i + 5] == 0 {
                let p = i + 6 + 12
                out.append(UInt32(b[p]) | UInt32(b[p + 1]) << 8 | UInt32(b[p + 2]) << 16 | UInt32(b[p + 3]) << 24)
                i += 6 + 92
            } else {
                i += 1
            }
        }
        return out
    }

    @Test("u-blox tAcc: Location.timeAccuracy, the socket's JSON, the fix line and TPV ept carry it",
          arguments: ["ublox8-uniqid-monhw.log", "ublox-zed-f9r.log", "ublox-neo-m8l.log"])
    func ubloxTAcc(log: String) throws {
        guard let fixes = Self.fixes(log) else { return }
        let expected = Set(Self.navPVTtAcc(log).map { Double($0) * 1e-9 })
        #expect(!expected.isEmpty, "the capture has NAV-PVT frames")
        let located = fixes.compactMap { fix in Location(fix, receivedAt: .zero).map { (fix, $0) } }
        let timed = located.filter { $0.1.timeAccuracy != nil }
        #expect(!timed.isEmpty, "\(log): no location with a time accuracy")
        // These captures are from after 2017: GPS − UTC is 18 s wherever the receiver said it.
        let counted = located.compactMap { $0.1.leapSeconds }
        #expect(!counted.isEmpty && counted.allSatisfy { $0 == 18 }, "\(log): \(Set(counted))")
        print("TimeQualityTests: \(log): \(counted.count) of \(located.count) locations carry a leap-second count")
        for (fix, location) in timed {
            let t = try #require(location.timeAccuracy)
            #expect(location.timeAccuracySource == .receiver)
            #expect(expected.contains(t), "\(t) is one of the log's tAcc values")
            #expect(t < 2e-6)
            // The client socket's JSON carries it and reads it back.
            let json = try JSONEncoder().encode(location)
            #expect(String(decoding: json, as: UTF8.self).contains("\"timeAccuracySource\":\"receiver\""))
            let back = try JSONDecoder().decode(Location.self, from: json)
            #expect(back.timeAccuracy == t && back.timeAccuracySource == .receiver)
            // The leap-second count travels with the location, as the fix had it.
            #expect(location.leapSeconds == fix.leapSeconds)
            #expect(back.leapSeconds == location.leapSeconds && back.leapSecondsSource == location.leapSecondsSource)
            // The fix line and gpsd's TPV: the measured value, not gpsd's 5 ms.
            #expect(FixJSON.line(fix).contains(",\"ept\":"), "\(FixJSON.line(fix))")
            let extras = GPSDHub.extras(fix)
            #expect(extras.timeError == t)
            let tpv = GPSDReport.tpv(fix, extras: extras)
            let ept = tpv.split(separator: "\"ept\":").dropFirst().first?.prefix { $0 != "," }
            #expect(ept.flatMap { Double($0) }.map { abs($0 - t) < 1e-9 } == true, "\(tpv)")
        }
    }

    @Test("NMEA GST: the residuals' RMS over the speed of light is the estimate; without GST or tAcc, none, and gpsd's 0.005 in TPV")
    func gstAndNone() throws {
        guard let gst = Self.fixes("ublox-neo-m9n-nmea.log"), let plain = Self.fixes("mt3339.log") else { return }
        let withGST = gst.filter { $0.rangeResidualRMS != nil && $0.hasPosition }
        #expect(!withGST.isEmpty)
        for fix in withGST {
            let location = try #require(Location(fix, receivedAt: .zero))
            let rms = try #require(fix.rangeResidualRMS)
            #expect(location.timeAccuracySource == .gst)
            #expect(location.timeAccuracy == rms / Location.speedOfLight)
            #expect(GPSDHub.extras(fix).timeError == rms / Location.speedOfLight)
        }
        // mt3339.log's GST sentences are empty: nothing measures its time.
        let positions = plain.filter { $0.hasPosition && $0.time != nil }
        #expect(!positions.isEmpty)
        for fix in positions {
            let location = try #require(Location(fix, receivedAt: .zero))
            #expect(location.timeAccuracy == nil && location.timeAccuracySource == nil)
            #expect(!FixJSON.line(fix).contains("\"ept\""))
            #expect(GPSDHub.extras(fix).timeError == GPSDHub.gpsdDefaultTimeError)
            #expect(GPSDReport.tpv(fix, extras: GPSDHub.extras(fix)).contains("\"ept\":0.005,"))
            // Paired with a PPS edge (the engine sets the pulse's figure): `ept` is the pulse's.
            var pulsed = fix
            pulsed.pulseTimeAccuracy = 3e-8
            #expect(GPSDHub.extras(pulsed).timeError == 3e-8)
            #expect(GPSDReport.tpv(pulsed, extras: GPSDHub.extras(pulsed)).contains("\"ept\":0.000000030"), "\(GPSDReport.tpv(pulsed, extras: GPSDHub.extras(pulsed)))")
        }
        // The receiver's own tAcc wins over the pulse's figure, as on `Location`.
        if var both = withGST.first {
            both.pulseTimeAccuracy = 3e-8
            #expect(GPSDHub.extras(both).timeError == 3e-8)
            both.receiverAccuracy = ReceiverAccuracy(model: .ubxAccuracyEstimate, horizontal: 1, time: 2e-8)
            #expect(GPSDHub.extras(both).timeError == 2e-8)
        }
    }
}
