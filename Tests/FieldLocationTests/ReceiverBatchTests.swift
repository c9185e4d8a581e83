import Devices
import HardwareInterfaces
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Testing

/// u-blox M8 data batching: the frames as the M8 interface description lays them out, a
/// LOG-BATCH decoded field by field, and the emulated M8 keeping every fix while nobody reads
/// it, then handing them over, oldest first.
@Suite("Receiver-side batching (u-blox M8)")
struct ReceiverBatchTests {
    @Test("CFG-BATCH and LOG-RETRIEVEBATCH frames, byte for byte")
    func frames() {
        let configure = UBXBatch.configuration(enabled: true, bufferSize: 300, notificationThreshold: 0)
        // class 06 id 93, 8 bytes: version 0, flags enable|extraPvt, bufSize 300 (0x012C), notifThrs 0, pioId 0, reserved.
        #expect(configure.bytes.prefix(14) == [0xB5, 0x62, 0x06, 0x93, 0x08, 0x00, 0x00, 0x05, 0x2C, 0x01, 0x00, 0x00, 0x00, 0x00])
        #expect(configure.bytes.count == 16)
        #expect(UBXBatch.configuration(enabled: false, bufferSize: 0).payload == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(UBXBatch.retrieve(sendStatusFirst: true).bytes.prefix(10) == [0xB5, 0x62, 0x21, 0x10, 0x04, 0x00, 0x00, 0x01, 0x00, 0x00])
    }

    @Test("a LOG-BATCH payload decodes field by field and becomes a fix; MON-BATCH decodes; other lengths are refused")
    func decoding() throws {
        var p = [UInt8](repeating: 0, count: 100)
        func put(_ at: Int, _ value: Int64, _ size: Int) { for k in 0..<size { p[at + k] = UInt8(truncatingIfNeeded: value >> (8 * Int64(k))) } }
        p[1] = 0x01  // extraPvt
        put(2, 513, 2)  // msgCnt
        put(8, 2026, 2); p[10] = 11; p[11] = 28; p[12] = 23; p[13] = 59; p[14] = 58; p[15] = 0x03
        put(16, 25, 4)  // tAcc 25 ns
        put(20, -250_000_000, 4)  // fracSec: 0.25 s before the second
        p[24] = 3; p[25] = 0x03; p[27] = 14  // 3D, gnssFixOK | diffSoln, 14 satellites
        put(28, 85_417_123, 4); put(32, 473_769_456, 4)  // lon 8.5417123, lat 47.3769456
        put(36, 455_250, 4); put(40, 408_125, 4)  // height 455.25 m, hMSL 408.125 m
        put(44, 2_500, 4); put(48, 3_750, 4)  // hAcc 2.5 m, vAcc 3.75 m
        put(52, 1_000, 4); put(56, -2_000, 4); put(60, 30, 4)  // velN 1, velE -2, velD 0.03 m/s
        put(64, 2_236, 4); put(68, 29_343_000, 4)  // gSpeed 2.236 m/s, headMot 293.43°
        put(72, 150, 4); put(76, 1_250_000, 4); put(80, 135, 2)  // sAcc 0.15, headAcc 12.5°, pDOP 1.35
        let entry = try #require(UBXBatch.Entry(payload: p))
        #expect(entry.index == 513 && entry.satellites == 14 && entry.fixType == 3 && entry.fixOK && entry.differential)
        let expectedTime = Int64(CalendarDate(year: 2026, month: 11, day: 28)!.daysSinceEpoch) * 86_400 + 23 * 3600 + 59 * 60 + 58
        #expect(entry.time == UTCTime(nanosecondsSinceEpoch: expectedTime * 1_000_000_000 - 250_000_000))
        #expect(abs(entry.latitude - 47.3769456) < 1e-12 && abs(entry.longitude - 8.5417123) < 1e-12)
        #expect(entry.height == 455.25 && entry.heightMSL == 408.125 && entry.horizontalAccuracy == 2.5 && entry.verticalAccuracy == 3.75)
        #expect(entry.velocity == SIMD3(1, -2, 0.03) && entry.groundSpeed == 2.236 && abs(entry.course - 293.43) < 1e-9)
        #expect(entry.speedAccuracy == 0.15 && abs(entry.courseAccuracy - 12.5) < 1e-9 && abs(entry.pdop - 1.35) < 1e-12)
        #expect(abs(entry.timeAccuracy - 25e-9) < 1e-18)
        let fix = try #require(entry.fix)
        #expect(fix.time == entry.time && fix.mode == .threeD && fix.quality == .differential && fix.satellitesUsed == 14)
        #expect(fix.altitudeMSL == 408.125 && fix.altitudeHAE == 455.25 && fix.speed == 2.236 && fix.pdop == entry.pdop)
        #expect(fix.receiverAccuracy?.horizontal == 2.5 && fix.receiverAccuracy?.speed == 0.15 && fix.accuracySource == .receiver)
        // Without date and time, or without gnssFixOK, an entry is no fix.
        var undated = p
        undated[15] = 0x01
        #expect(UBXBatch.Entry(payload: undated)?.time == nil && UBXBatch.Entry(payload: undated)?.fix == nil)
        var unusable = p
        unusable[25] = 0x00
        #expect(UBXBatch.Entry(payload: unusable)?.fix == nil)
        #expect(UBXBatch.Entry(payload: Array(p.prefix(92))) == nil)
        var newer = p
        newer[0] = 1
        #expect(UBXBatch.Entry(payload: newer) == nil)

        let status = try #require(UBXBatch.Status(payload: [0, 0, 0, 0, 0x2C, 0x01, 0x05, 0x00, 0x02, 0x00, 0x31, 0x01]))
        #expect(status.fillLevel == 300 && status.dropsAll == 5 && status.dropsSinceStatus == 2 && status.nextIndex == 305)
        #expect(UBXBatch.Status(payload: [0, 0, 0]) == nil)
    }

    @Test("the emulated M8 keeps every fix while nobody reads, drops the oldest when full, and hands them over oldest first, once")
    func emulatedDrain() throws {
        let bench = Bench(.ublox8, .ubloxM8)
        let driver = UBloxDriver(channel: CommandChannel(port: bench.port), generation: .m8)
        #expect(throws: ReceiverError.self) { try driver.drainBatch() }  // batching is off: no MON-BATCH
        try driver.enableBatching(bufferSize: 300)
        _ = try bench.listen(60)
        // The host is off for ten minutes: nobody reads the port, the receiver goes on.
        bench.clock.advance(by: .seconds(600))
        try bench.port.discard(.input)
        let drain = try driver.drainBatch()
        #expect(drain.status.fillLevel == 300 && drain.entries.count == 300)
        #expect(drain.status.dropsAll >= 350, "the first 60 s and most of the ten minutes did not fit: \(drain.status)")
        let times = drain.entries.compactMap(\.time)
        #expect(times.count == 300 && zip(times, times.dropFirst()).allSatisfy { $1.nanosecondsSinceEpoch - $0.nanosecondsSinceEpoch == 1_000_000_000 })
        let fixes = drain.entries.compactMap(\.fix)
        #expect(fixes.count == 300 && fixes.allSatisfy { $0.mode == .threeD && $0.speed != nil })
        #expect(zip(drain.entries, drain.entries.dropFirst()).allSatisfy { $1.index == $0.index + 1 })
        // Emptied by the retrieval.
        let again = try driver.drainBatch()
        #expect(again.status.fillLevel <= 1 && again.entries.count == again.status.fillLevel)
        // The M9 and M10 have no batching.
        #expect(throws: ReceiverError.self) { try UBloxDriver(channel: CommandChannel(port: bench.port), generation: .m10).enableBatching(bufferSize: 10) }
        // A buffer the RAM cannot hold is refused.
        #expect(throws: ReceiverError.self) { try driver.enableBatching(bufferSize: 5000) }
    }
}
