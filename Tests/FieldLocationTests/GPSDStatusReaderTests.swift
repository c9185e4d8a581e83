import FieldLocation
import FieldLocationOutput
import HardwareInterfaces
import NMEA
import Testing

/// The status readout built from a gpsd stream (lines as fieldlocd and gpsd send them).
@Suite struct GPSDStatusReaderTests {
    @Test func tpvSkyAndAttBecomeTheReadout() {
        var reader = GPSDStatusReader(source: "127.0.0.1:2947")
        let lines = [
            #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyAMA0","activated":"2026-05-01T12:00:00.000Z"}]}"#,
            #"{"class":"TPV","device":"/dev/ttyAMA0","mode":3,"time":"2026-05-01T12:00:01.500Z","lat":47.376908833,"lon":8.541712333,"altHAE":455.0,"altMSL":408.0,"track":45.0,"speed":1.4,"eph":7.789,"epv":12.74}"#,
            #"{"class":"SKY","device":"/dev/ttyAMA0","hdop":0.9,"uSat":2,"satellites":[{"PRN":2,"el":64,"az":42,"ss":44,"used":true,"gnssid":0,"svid":2},{"PRN":5,"el":31,"az":301,"ss":38,"used":true},{"PRN":7,"el":5,"az":15,"ss":18,"used":false}]}"#,
            #"{"class":"ATT","device":"/dev/ttyAMA0","heading":33.3,"mheading":30.7,"mag_st":"N","pitch":1.8,"roll":-1.9,"dip":63.2,"mag_x":20.1,"mag_y":1.2,"mag_z":42.0,"acc_x":0.3,"acc_y":-0.2,"acc_z":-9.8}"#,
            "not json at all",
            #"{"class":"ERROR","message":"Unrecognized request '?FOO'"}"#,
        ]
        let now = MonotonicInstant(nanoseconds: 5_000_000_000)
        for line in lines { reader.read(line: Array(line.utf8), at: now) }
        let s = reader.snapshot(at: now.advanced(by: .milliseconds(200)), uptime: 1)
        #expect(s.remote && s.boardTitle == "/dev/ttyAMA0" && s.receiver.contains("3.22"))
        #expect(s.fix?.time?.iso8601(fractionDigits: 3) == "2026-05-01T12:00:01.500Z")
        #expect(s.fix?.latitude == 47.376908833 && s.fix?.altitudeMSL == 408 && s.fix?.course == 45)
        // eph is gpsd's 95 % radius; the readout shows the 68 % one.
        #expect(abs((s.fix?.horizontalAccuracy ?? 0) - 4.5) < 0.01)
        #expect(s.fix?.satellites.count == 3 && s.fix?.satellitesUsed == 2)
        #expect(s.heading?.trueHeading == 33.3 && s.heading?.magneticHeading == 30.7 && s.heading?.inclination == 63.2)
        #expect(s.warnings == ["server: Unrecognized request '?FOO'"])
        let text = StatusView.text(s)
        #expect(text.contains("Satellites 2 used of 3 in view") && text.contains("Server     served by release 3.22"))
        #expect(!text.contains("Energy"))
        // A stale stream is a warning.
        #expect(reader.snapshot(at: now.advanced(by: .seconds(9)), uptime: 10).warnings.contains { $0.contains("no TPV") })
    }

    /// A satellite's gnssid in u-blox numbering names its constellation; one out of range, or a
    /// number too large for any integer (1e300 once trapped the integer conversion), names none.
    @Test func gnssidOutOfRangeIsNoConstellation() {
        var reader = GPSDStatusReader(source: "127.0.0.1:2947")
        let now = MonotonicInstant(nanoseconds: 5_000_000_000)
        let sky = #"{"class":"SKY","device":"/dev/ttyAMA0","satellites":[{"PRN":2,"ss":44,"used":true,"gnssid":2},{"PRN":3,"ss":40,"used":true,"gnssid":1e300},{"PRN":4,"ss":40,"used":false,"gnssid":-1},{"PRN":5,"ss":40,"used":false,"gnssid":300}]}"#
        reader.read(line: Array(#"{"class":"TPV","device":"/dev/ttyAMA0","mode":3,"time":"2026-05-01T12:00:01.500Z","lat":47.0,"lon":8.0}"#.utf8), at: now)
        reader.read(line: Array(sky.utf8), at: now)
        let list = reader.snapshot(at: now, uptime: 1).fix?.satellites ?? SatelliteList()
        let satellites = (0..<list.count).map { list[$0] }
        #expect(satellites.map(\.prn) == [2, 3, 4, 5])
        #expect(satellites.map(\.constellation) == [Constellation.galileo, nil, nil, nil])
    }
}
