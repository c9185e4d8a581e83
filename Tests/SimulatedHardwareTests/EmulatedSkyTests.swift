import HardwareInterfaces
import NMEA
import SimulatedHardware
import Testing

/// The emulator's multi-constellation sky: its orbits, and how the receiver sends it (NMEA 4.11) and
/// how it reads back through NMEAStream with each satellite's constellation.
@Suite("Emulated multi-GNSS sky")
struct EmulatedSkyTests {
    /// 2026-05-01T12:00:00Z.
    static let noon = 1_777_636_800.0

    @Test("from Zurich, every hour of a day: GPS, GLONASS, Galileo and BeiDou each 4-16 in view, SBAS geostationary, positions in range")
    func plausibleSky() {
        var gpsCounts: [Int] = []
        for hour in 0..<24 {
            let sky = EmulatedSky.satellites(unixSeconds: Self.noon + Double(hour) * 3600, latitude: 47.3769, longitude: 8.5417)
            for system in [Constellation.gps, .glonass, .galileo, .beidou] {
                let count = sky.filter { $0.constellation == system }.count
                #expect((4...16).contains(count), "hour \(hour): \(count) \(system)")
                #expect(sky.filter { $0.constellation == system && $0.used }.count >= 3, "hour \(hour): \(system) used")
            }
            gpsCounts.append(sky.filter { $0.constellation == .gps }.count)
            #expect(sky.allSatisfy { (5...90).contains($0.elevation) && (0..<360).contains($0.azimuth) })
            // Used: tracked, 10° or more up, and not SBAS (its corrections are applied, its ranges not used).
            #expect(sky.allSatisfy { !$0.used || ($0.elevation >= 10 && $0.constellation != .sbas && $0.cn0 > 0) })
            #expect(sky.filter { $0.elevation >= 11 && $0.constellation != .sbas }.allSatisfy { $0.used })
            // Europe sees EGNOS: PRN 123 and 136 (NMEA 36 and 49), low in the south.
            let sbas = sky.filter { $0.constellation == .sbas }
            #expect(Set(sbas.map(\.svid)).isSuperset(of: [123, 136]), "hour \(hour): \(sbas.map(\.svid))")
            #expect(sbas.allSatisfy { $0.elevation < 40 && (100...260).contains($0.azimuth) && !$0.used })
            // Stronger signals higher up: the highest satellite beats the lowest tracked one.
            let tracked = sky.filter { $0.cn0 > 0 && $0.constellation != .sbas }
            if let high = tracked.max(by: { $0.elevation < $1.elevation }), let low = tracked.min(by: { $0.elevation < $1.elevation }) {
                #expect(high.cn0 > low.cn0)
            }
        }
        // The count changes as satellites rise and set.
        #expect(Set(gpsCounts).count > 1, "\(gpsCounts)")
    }

    @Test("satellites move: an hour later a GPS satellite has moved by degrees, and a sidereal day later (two GPS orbits) it is back")
    func orbitsMove() throws {
        let at = EmulatedSky.satellites(unixSeconds: Self.noon, latitude: 47.3769, longitude: 8.5417)
        let later = EmulatedSky.satellites(unixSeconds: Self.noon + 3600, latitude: 47.3769, longitude: 8.5417)
        let day = EmulatedSky.satellites(unixSeconds: Self.noon + 86_164, latitude: 47.3769, longitude: 8.5417)
        let gps = try #require(at.first { $0.constellation == .gps && $0.elevation > 30 })
        let hour = later.first { $0.constellation == .gps && $0.svid == gps.svid }
        #expect(hour.map { abs($0.elevation - gps.elevation) + abs($0.azimuth - gps.azimuth) >= 5 } ?? true)
        let back = try #require(day.first { $0.constellation == .gps && $0.svid == gps.svid })
        #expect(abs(back.elevation - gps.elevation) <= 1 && min(abs(back.azimuth - gps.azimuth), 360 - abs(back.azimuth - gps.azimuth)) <= 1)
    }

    /// Ten seconds of a tracking receiver of `family` on a manual clock: its lines and fixes.
    static func listen(_ family: ReceiverEmulator.Family) throws -> (lines: [String], fixes: [Fix]) {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "ttySIM0", clock: clock)
        let receiver = ReceiverEmulator(family: family, profile: .ubloxM10,
                                        trajectory: .legs([.init(duration: 60, speed: 0, course: 0)], latitude: -33.8688, longitude: 151.2093),
                                        start: clock.now(), tracking: true)
        port.attach(receiver)
        let stream = NMEAStream()
        var fixes: [Fix] = []
        var lines: [String] = []
        let end = clock.deadline(after: .milliseconds(10_500))
        while clock.now() < end {
            let chunk = try port.readAvailable(deadline: end)
            lines += String(decoding: chunk, as: UTF8.self).split(separator: "\r\n").map(String.init)
            stream.feed(chunk.span) { fixes.append($0) }
        }
        stream.finish { fixes.append($0) }
        #expect(stream.counters.totalRejected == 0)
        return (lines, fixes)
    }

    /// The comma-separated fields of a sentence, without `$` and checksum.
    static func fields(_ line: String) -> [String] {
        line.dropFirst().prefix { $0 != "*" }.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("NMEA 4.11 as a modern receiver sends it: GN GGA/RMC, one GSA per system with its system ID, GSV per talker with its signal ID")
    func nmeaForm() throws {
        let (lines, fixes) = try Self.listen(.ublox10)
        let epoch = Array(lines.suffix(from: try #require(lines.lastIndex { $0.hasPrefix("$GNGGA") })))
        let gsa = epoch.filter { $0.hasPrefix("$GNGSA") }.map(Self.fields)
        #expect(gsa.count >= 4 && gsa.allSatisfy { $0.count == 19 })
        #expect(Set(gsa.compactMap { Int($0[18]) }) == [1, 2, 3, 4], "system IDs: \(gsa.map { $0[18] })")
        for talker in ["GP", "GL", "GA", "GB"] {
            let gsv = epoch.filter { $0.hasPrefix("$\(talker)GSV") }.map(Self.fields)
            #expect(!gsv.isEmpty, "\(talker)")
            // Four satellites (four fields each) per sentence, then the signal ID: Galileo E1 is 7, the others' L1/B1I 1.
            for f in gsv { #expect((f.count - 5) % 4 == 0 && f.last == (talker == "GA" ? "7" : "1"), "\(f)") }
            let listed = gsv.reduce(0) { $0 + ($1.count - 5) / 4 }
            #expect(Int(gsv[0][3]) == listed)
        }
        // GLONASS in 65-96, SBAS (on GP) in 33-64, GPS 1-32.
        let glonass = epoch.filter { $0.hasPrefix("$GLGSV") }.flatMap { f in stride(from: 4, to: Self.fields(f).count - 1, by: 4).map { Int(Self.fields(f)[$0]) ?? 0 } }
        #expect(glonass.allSatisfy { (65...96).contains($0) })
        let gga = Self.fields(try #require(epoch.first))
        let last = try #require(fixes.last)
        #expect(Int(gga[7]) == last.satellitesUsed && last.satellitesUsed == last.satellites.array.filter(\.used).count)
    }

    @Test("each satellite keeps its constellation through the decoder: the fix's sky is the emulator's, system by system")
    func constellationsDecoded() throws {
        for family in [ReceiverEmulator.Family.mediatek, .ublox8, .ublox10, .casic] {
            let (_, fixes) = try Self.listen(family)
            let last = try #require(fixes.last)
            let time = try #require(last.time)
            let sky = EmulatedSky.satellites(unixSeconds: Double(time.nanosecondsSinceEpoch) / 1e9, latitude: -33.8688, longitude: 151.2093)
            func key(_ c: Constellation?, _ prn: Int) -> String { "\(c.map { "\($0)" } ?? "?") \(prn)" }
            let decoded = last.satellites.array.map { key($0.constellation, Int($0.prn)) }.sorted()
            let expected = sky.map { key($0.constellation, $0.nmeaPRN) }.sorted()
            #expect(decoded == expected, "\(family)")
            #expect(Set(last.satellites.array.compactMap(\.constellation)) == [.gps, .sbas, .glonass, .galileo, .beidou], "\(family)")
            let used = last.satellites.array.filter(\.used).map { key($0.constellation, Int($0.prn)) }.sorted()
            #expect(used == sky.filter(\.used).map { key($0.constellation, $0.nmeaPRN) }.sorted(), "\(family)")
            #expect(last.satellites.array.allSatisfy { $0.signalID == ($0.constellation == .galileo ? 7 : 1) })
        }
    }
}
