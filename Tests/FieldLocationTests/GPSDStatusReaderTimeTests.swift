import FieldLocation
import FieldLocationOutput
import HardwareInterfaces
import Testing

/// The time rows of the status readout read from a daemon: TOFF and PPS reports' real minus clock.
@Suite struct GPSDStatusReaderTimeTests {
    @Test("TOFF gives the serial offset and PPS the pulse offset (real minus clock); without them there are no time rows")
    func offsets() {
        var reader = GPSDStatusReader(source: "127.0.0.1:2947")
        let now = MonotonicInstant(nanoseconds: 5_000_000_000)
        reader.read(line: Array(#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyAMA0"}]}"#.utf8), at: now)
        #expect(reader.snapshot(at: now, uptime: 1).time == nil)
        reader.read(line: Array(#"{"class":"TOFF","device":"/dev/ttyAMA0","real_sec":1782820800,"real_nsec":0,"clock_sec":1782820800,"clock_nsec":512000000,"precision":-1}"#.utf8), at: now)
        reader.read(line: Array(#"{"class":"PPS","device":"/dev/ttyAMA0","real_sec":1782820801,"real_nsec":0,"clock_sec":1782820800,"clock_nsec":999998000,"precision":-20,"qErr":0}"#.utf8), at: now)
        let s = reader.snapshot(at: now.advanced(by: .milliseconds(200)), uptime: 1)
        let time = s.time
        #expect(abs((time?.serialOffset ?? 0) + 0.512) < 1e-9)
        #expect(abs((time?.pulseOffset ?? 0) - 0.000002) < 1e-9)
        #expect(time?.source.contains("/dev/ttyAMA0") == true)
        #expect(s.pps == .locked)
        #expect(StatusView.text(s).contains("offset serial -0.512000 s"))
    }
}
