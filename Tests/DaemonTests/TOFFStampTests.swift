@testable import FieldLocationDaemon
import NMEA
import Testing

/// The `clock` of a TOFF report: when the epoch's first byte arrived, as the time service stamps
/// the serial sample it sends chrony.
@Suite struct TOFFStampTests {
    @Test("TOFF's clock is the epoch's first byte: the chunk's arrival less its transmission time at the device's rate")
    func toffClockIsTheFirstByte() {
        let received = UTCTime(nanosecondsSinceEpoch: 1_782_820_800_600_000_000)
        // 960 bytes at 9600 baud (10 bits a byte) took one second on the wire.
        #expect(GPSDHub.firstByteTime(of: 960, receivedAt: received, bps: 9600).nanosecondsSinceEpoch == 1_782_820_799_600_000_000)
        // 48 bytes at 115200 baud: 4.166 ms.
        #expect(GPSDHub.firstByteTime(of: 48, receivedAt: received, bps: 115_200).nanosecondsSinceEpoch == 1_782_820_800_595_833_334)
        // No rate (a replay, a socket) or nothing read: the arrival itself.
        #expect(GPSDHub.firstByteTime(of: 960, receivedAt: received, bps: nil) == received)
        #expect(GPSDHub.firstByteTime(of: 0, receivedAt: received, bps: 9600) == received)
    }
}
