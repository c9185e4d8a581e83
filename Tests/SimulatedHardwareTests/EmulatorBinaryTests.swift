import HardwareInterfaces
import NMEA
import SimulatedHardware
import Testing

/// The emulator's binary navigation output, switched on by the commands a real receiver takes and
/// read back through NMEAStream.
@Suite("Emulated binary navigation")
struct EmulatorBinaryTests {
    static func ubx(_ c: UInt8, _ i: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let body: [UInt8] = [c, i, UInt8(payload.count), 0] + payload
        var a: UInt8 = 0, b: UInt8 = 0
        for x in body { a &+= x; b &+= a }
        return [0xB5, 0x62] + body + [a, b]
    }

    static func casic(_ c: UInt8, _ i: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let frame: [UInt8] = [0xBA, 0xCE, UInt8(payload.count), 0, c, i] + payload
        var sum: UInt32 = 0
        for k in stride(from: 2, to: frame.count, by: 4) {
            sum &+= UInt32(frame[k]) | UInt32(frame[k + 1]) << 8 | UInt32(frame[k + 2]) << 16 | UInt32(frame[k + 3]) << 24
        }
        return frame + (0..<4).map { UInt8(truncatingIfNeeded: sum >> (8 * UInt32($0))) }
    }

    /// Runs `family` for 5.5 s after sending `commands`, returning the stream's fixes and the stream.
    static func run(_ family: ReceiverEmulator.Family, commands: [[UInt8]]) throws -> ([Fix], NMEAStream) {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "ttySIM0", clock: clock)
        let receiver = ReceiverEmulator(family: family, profile: .ubloxM10,
                                        trajectory: .legs([.init(duration: 60, speed: 1.4, course: 90)], latitude: 48.1173, longitude: 11.5167),
                                        start: clock.now(), tracking: true)
        port.attach(receiver)
        for command in commands { try port.writeAll(command, deadline: clock.now()) }
        let stream = NMEAStream()
        var fixes: [Fix] = []
        let end = clock.deadline(after: .milliseconds(5500))
        while clock.now() < end {
            let chunk = try port.readAvailable(deadline: end)
            stream.feed(chunk.span) { fixes.append($0) }
        }
        stream.finish { fixes.append($0) }
        return (fixes, stream)
    }

    @Test("u-blox 8: CFG-MSG switches NAV-PVT, NAV-SAT, TIM-TP and NAV-EOE on; one merged fix per epoch with hAcc")
    func ubloxEight() throws {
        let on = [(0x01, 0x07), (0x01, 0x35), (0x0D, 0x01), (0x01, 0x61)].map { Self.ubx(0x06, 0x01, [UInt8($0.0), UInt8($0.1), 1]) }
        let (fixes, stream) = try Self.run(.ublox8, commands: on)
        #expect(fixes.count == 5)
        let last = try #require(fixes.last)
        #expect(last.binaryProtocol == .ubx && last.accuracySource == .receiver)
        #expect(last.receiverAccuracy?.horizontal.map { $0 > 0 && $0 < 20 } == true)
        // NAV-SAT carries every constellation of the sky, each satellite with its gnssId and svId.
        let sky = EmulatedSky.satellites(unixSeconds: 1_777_636_805, latitude: 48.1173, longitude: 11.5167)
        #expect(last.satellites.count == sky.count)
        #expect(Set(last.satellites.array.compactMap(\.gnssID)) == [0, 1, 2, 3, 6])
        #expect(last.satellites.array.allSatisfy { $0.svID != nil && $0.gnssID.flatMap(UBXGNSS.constellation) == $0.constellation })
        #expect(last.receiverStatus?.timePulseQuantizationError.map { abs($0) <= 1e-9 } == true)
        #expect(last.time?.iso8601(fractionDigits: 0).hasPrefix("2026-05-01T12:00:0") == true)
        #expect(stream.merger.counters.merged == 5 && stream.merger.counters.malformed == 0)
    }

    @Test("M10: CFG-VALSET CFG-MSGOUT keys; without them no binary output")
    func ubloxTen() throws {
        var payload: [UInt8] = [0, 1, 0, 0]
        for key: UInt32 in [0x2091_0007, 0x2091_0160] { payload += (0..<4).map { UInt8(truncatingIfNeeded: key >> (8 * UInt32($0))) } + [1] }
        let (fixes, stream) = try Self.run(.ublox10, commands: [Self.ubx(0x06, 0x8A, payload)])
        #expect(fixes.count == 5 && fixes.allSatisfy { $0.binaryProtocol == .ubx })
        #expect(stream.framer.counters.ubxFrames >= 10)
        let (plain, plainStream) = try Self.run(.ublox10, commands: [])
        #expect(plain.allSatisfy { $0.binaryProtocol == nil } && plainStream.framer.counters.ubxFrames == 0)
    }

    @Test("CASIC: CFG-MSG switches NAV-PV, NAV-TIMEUTC, NAV-GPSINFO on; the variances become 1-sigma estimates")
    func casic() throws {
        let on = [0x03, 0x10, 0x20, 0x21, 0x22].map { Self.casic(0x06, 0x01, [0x01, UInt8($0), 1, 0]) }
        let (fixes, stream) = try Self.run(.casic, commands: on)
        #expect(fixes.count == 5)
        let last = try #require(fixes.last)
        #expect(last.binaryProtocol == .casic && last.receiverAccuracy?.model == .casicVariance)
        // GPS, BeiDou and GLONASS in their own messages; CASIC has none for SBAS or Galileo.
        let sky = EmulatedSky.satellites(unixSeconds: 1_777_636_805, latitude: 48.1173, longitude: 11.5167)
            .filter { [.gps, .beidou, .glonass].contains($0.constellation) }
        #expect(last.satellites.count == sky.count && last.satellites.array.filter(\.used).count == sky.filter(\.used).count)
        #expect(Set(last.satellites.array.compactMap(\.constellation)) == [.gps, .beidou, .glonass])
        #expect(stream.framer.counters.casicFrames == 25)
    }
}
