import FieldLocationOutput
import HardwareInterfaces
import LocationServices
import Testing

@Suite("Status from a daemon: several receivers")
struct GPSDStatusReaderReceiversTests {
    @Test("DEVICES with two devices and TPVs naming theirs: each listed open or absent, the one the last TPV named delivering, each with its last fix")
    func devicesAndTheirTPVs() {
        var reader = GPSDStatusReader(source: "127.0.0.1:2947")
        let t0 = MonotonicInstant(nanoseconds: 5_000_000_000)
        let lines = [
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/serial0","driver":"NMEA0183","activated":"2026-05-01T12:00:00.000Z"},{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox","activated":"2026-05-01T12:00:00.000Z"}]}"#,
            #"{"class":"TPV","device":"/dev/serial0","mode":3,"time":"2026-05-01T12:00:01.000Z","lat":47.3,"lon":8.5,"eph":7.789}"#,
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"status":2,"time":"2026-05-01T12:00:02.000Z","lat":47.3,"lon":8.5,"eph":3.0}"#,
        ]
        for (i, line) in lines.enumerated() { reader.read(line: Array(line.utf8), at: t0.advanced(by: .seconds(i))) }
        let s = reader.snapshot(at: t0.advanced(by: .seconds(3)), uptime: 3)
        #expect(s.receivers.map(\.device) == ["/dev/serial0", "/dev/ttyACM0"])
        #expect(s.receivers.map(\.open) == [true, true] && s.receivers.map(\.chosen) == [false, true])
        #expect(s.receivers.map(\.lastFixType) == [.threeD, .dgps] && s.receivers.map(\.lastFixAge) == [2, 1])
        #expect(s.receivers.map(\.family) == ["NMEA0183", "u-blox"])
        let text = StatusView.text(s)
        #expect(text.contains("Receivers  /dev/serial0 open        NMEA0183  last fix 3D ±4.5 m 2.0 s ago"), "\(text)")
        #expect(text.contains("           /dev/ttyACM0 delivering  u-blox  last fix DGPS ±1.7 m 1.0 s ago"), "\(text)")

        // The dongle unplugged: DEVICES lists it without activation; the HAT's TPVs deliver.
        reader.read(line: Array(#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/serial0","driver":"NMEA0183","activated":"2026-05-01T12:00:00.000Z"},{"class":"DEVICE","path":"/dev/ttyACM0"}]}"#.utf8), at: t0.advanced(by: .seconds(4)))
        reader.read(line: Array(#"{"class":"TPV","device":"/dev/serial0","mode":3,"time":"2026-05-01T12:00:05.000Z","lat":47.3,"lon":8.5,"eph":7.789}"#.utf8), at: t0.advanced(by: .seconds(5)))
        let after = reader.snapshot(at: t0.advanced(by: .seconds(5)), uptime: 5)
        #expect(after.receivers.map(\.open) == [true, false] && after.receivers.map(\.chosen) == [true, false])
        #expect(StatusView.text(after).contains("/dev/ttyACM0 absent"))

        // One device: no receivers list, the readout as before.
        var single = GPSDStatusReader(source: "127.0.0.1:2947")
        single.read(line: Array(#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/serial0","activated":"2026-05-01T12:00:00.000Z"}]}"#.utf8), at: t0)
        #expect(single.snapshot(at: t0, uptime: 0).receivers.isEmpty)
    }
}
