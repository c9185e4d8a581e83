import NMEA
import Testing

@Suite("NMEAStream")
struct StreamTests {
    func fixes(_ lines: [String], options: AssemblerOptions = AssemblerOptions(weekRolloverPivot: nil)) -> [Fix] {
        let stream = NMEAStream(assemblerOptions: options)
        var out: [Fix] = []
        let bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
        stream.feed(bytes.span) { out.append($0) }
        stream.finish { out.append($0) }
        return out
    }

    @Test("a GP GSV series replaces its SBAS and QZSS satellites too: the sky does not grow epoch after epoch")
    func gsvSeriesWithSBAS() {
        var lines: [String] = []
        for second in 10..<20 {
            lines.append(withChecksum("$GPRMC,1235\(second),A,4807.038,N,01131.000,E,0.0,0.0,230394,,"))
            lines.append(withChecksum("$GPGSV,2,1,05,02,64,042,44,05,31,301,38,12,48,130,41,15,22,210,33"))
            lines.append(withChecksum("$GPGSV,2,2,05,33,40,200,36"))
            lines.append(withChecksum("$GLGSV,1,1,01,70,30,100,30"))
        }
        let out = fixes(lines)
        #expect(out.count == 10)
        #expect(out.allSatisfy { $0.satellites.count == 6 }, "\(out.map(\.satellites.count))")
        #expect(out.last?.satellites.array.contains { $0.prn == 70 && $0.constellation == .glonass } == true)
    }

    @Test("one fix per epoch, with date, position, altitude, speed, course and DOPs merged")
    func merge() throws {
        let lines = [
            withChecksum("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"),
            withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            withChecksum("$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"),
            withChecksum("$GPRMC,123520,A,4807.039,N,01131.000,E,022.4,084.4,230394,003.1,W"),
            withChecksum("$GPGGA,123520,4807.039,N,01131.000,E,1,08,0.9,545.5,M,46.9,M,,"),
        ]
        let out = fixes(lines)
        #expect(out.count == 2)
        let first = try #require(out.first)
        #expect(first.time?.description == "1994-03-23T12:35:19.000Z")
        #expect(first.mode == .threeD)
        #expect(abs((first.latitude ?? 0) - 48.1173) < 1e-9)
        #expect(first.altitudeMSL == 545.4)
        #expect(abs((first.altitudeHAE ?? 0) - 592.3) < 1e-9)
        #expect(abs((first.speed ?? 0) - 22.4 * 1852 / 3600) < 1e-9)
        #expect(first.course == 84.4)
        #expect(first.pdop == 2.5 && first.vdop == 2.1)
        #expect(first.accuracySource == .dop)
        #expect(first.horizontalAccuracy == 1.3 * Fix.userEquivalentRangeError(for: .gps))
    }

    @Test("no date is invented before RMC or ZDA supplies one")
    func noInventedDate() {
        let out = fixes([
            withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            withChecksum("$GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        ])
        #expect(out.count == 2)
        #expect(out.allSatisfy { $0.time == nil && $0.timeOfDay != nil })
    }

    @Test("the week-rollover guard moves a 1024-week-old date forward, and only when enabled")
    func weekRollover() {
        let lines = [withChecksum("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,071204,003.1,W")]  // 2004-12-07
        let guarded = fixes(lines, options: AssemblerOptions())
        #expect(guarded.first?.time?.description == "2024-07-23T12:35:19.000Z")
        #expect(guarded.first?.weekRolloverCorrected == true)
        #expect(fixes(lines).first?.time?.description == "2004-12-07T12:35:19.000Z")
    }

    @Test("GST error statistics give the accuracy when present")
    func gstAccuracy() throws {
        let out = fixes([
            withChecksum("$GPGGA,172814.0,4807.038,N,01131.000,E,4,08,0.9,545.4,M,46.9,M,,"),
            withChecksum("$GPGST,172814.0,0.006,0.023,0.020,273.6,0.030,0.040,0.031"),
        ])
        let fix = try #require(out.first)
        #expect(fix.accuracySource == .gst)
        #expect(abs((fix.horizontalAccuracy ?? 0) - 0.05) < 1e-12)
        #expect(fix.verticalAccuracy == 0.031)
        #expect(fix.quality == .rtkFixed)
    }

    @Test("bad sentences are counted by reason and lose nothing else")
    func counters() {
        let stream = NMEAStream()
        let good = withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let text = good + "\r\n" + "$GPGGA,1*00\r\n" + "$GPGGA,123519\r\n" + "junk" + good + "\r\n"
        stream.feed(Array(text.utf8).span) { _ in }
        #expect(stream.counters.accepted(.gga) == 2)
        #expect(stream.counters.rejected(.checksumMismatch) == 1)
        #expect(stream.counters.rejected(.missingChecksum) == 1)
        #expect(stream.counters.rejected(.garbage) == 1)
    }

    @Test("satellites in view with used flags from GSA")
    func sky() throws {
        let out = fixes([
            withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,03,0.9,545.4,M,46.9,M,,"),
            withChecksum("$GPGSA,A,3,04,05,09,,,,,,,,,,2.5,1.3,2.1"),
            withChecksum("$GPGSV,1,1,04,04,40,083,46,05,17,308,41,09,07,344,39,12,10,100,"),
        ])
        let fix = try #require(out.first)
        #expect(fix.satellites.count == 4)
        #expect(fix.satellites.array.filter(\.used).map(\.prn) == [4, 5, 9])
        #expect(fix.satellites[3].snr == nil)
        #expect(fix.satellites[0].constellation == .gps)
    }
}
