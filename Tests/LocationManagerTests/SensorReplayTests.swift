import Beacons
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import Heading
import LocationAPI
import SimulatedHardware
import Testing

/// Record and replay every sensor: the sim board recorded by the recorder `fieldloc record` uses
/// (raw accelerometer, gyroscope and magnetometer samples and Bluetooth adverts beside the
/// receiver's bytes), then a replay board with the same sensors plays the recording through the
/// engine's sensor and beacon subsystems, on manual clocks.
@Suite("Record and replay every sensor")
struct SensorReplayTests {
    /// What a client that runs headings, ranges the sim board's beacon and monitors its region saw.
    struct Seen: Equatable {
        var headings: [HeadingUpdate] = []
        var ranging: [[Beacon]] = []
        var regions: [BeaconRegionEvent] = []
    }

    static let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    /// Registers the watching client (and the recording's own client, so that the demand on the
    /// hardware is the recording's), runs `seconds` and returns what the watcher saw.
    static func watch(_ engine: LocationEngine, board: BoardDescription, seconds: Int64,
                      before run: () throws -> Void = {}) throws -> Seen {
        let headings = Collected<HeadingUpdate>(), ranging = Collected<[Beacon]>(), regions = Collected<BeaconRegionEvent>()
        let id = engine.register(name: "watcher") { event in
            switch event {
            case .heading(let h): headings.append(h)
            case .beacons(let b, _): ranging.append(b)
            case .beaconRegion(let e): regions.append(e)
            default: break
            }
        }.id
        engine.update(id) { s in
            s.updatingHeading = true
            s.headingFilter = nil
        }
        #expect(engine.startRangingBeacons(id, satisfying: BeaconIdentityConstraint(uuid: uuid)) == nil)
        #expect(engine.startMonitoring(id, BeaconRegion(identifier: "door", constraint: BeaconIdentityConstraint(uuid: uuid, major: 1))) == nil)
        _ = SessionRecorder.registerRecordingClient(on: engine, board: board)
        engine.headingPeriod = LocationEngine.gyroscopeSamplePeriod
        try run()
        engine.advance(by: .seconds(seconds))
        return Seen(headings: headings.items, ranging: ranging.items, regions: regions.items)
    }

    /// The sim board's live run of `seconds`, watched and recorded to `log` by the recorder
    /// `fieldloc record` uses; `calibration` is the one the unit applies.
    static func recordLive(to log: String, seconds: Int64, calibration: MagnetometerCalibration? = nil) throws
        -> (seen: Seen, recorder: SessionRecorder, summary: SessionRecorder.Summary, board: BoardDescription)
    {
        let sim = try BoardResolver.load("sim")
        let live = try LocationEngine.simulated(board: sim, clock: ManualClock())
        if let calibration { live.calibration = calibration }
        var recorder: SessionRecorder?
        let seen = try watch(live, board: sim, seconds: seconds) {
            recorder = try SessionRecorder(out: log, board: sim, engine: live)
        }
        let made = try #require(recorder)
        let summary = try made.finish()
        live.shutdown()
        return (seen, made, summary, sim)
    }

    /// A replay board for the recording `log` in `folder`, with the sim board's sensors and radio.
    static func replayBoard(in folder: String, log: String, sensors: Bool = true) throws -> BoardDescription {
        var text = """
        name = "replay"
        title = "A recorded session with its sensors"
        simulated = true
        bluetooth = "hci0"

        [replay]
        log = "\(log)"

        """
        if sensors {
            text += """
            [i2c]
            bus = 1

            [[sensor]]
            chip = "lsm6dsox"
            address = 0x6a
            orientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
            gyro = true

            [[sensor]]
            chip = "lsm303agr-mag"
            address = 0x1e
            orientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

            """
        }
        let path = folder + "/replay.toml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try BoardLoader.load(text: text, file: path)
    }

    @Test("a sim-board recording with raw sensor samples and adverts replays, twice, to bit-identical headings and the same beacon events as the live run")
    func liveEqualsReplay() throws {
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (liveSeen, _, summary, _) = try Self.recordLive(to: folder + "/session.nmea", seconds: 40)
        #expect(summary.sensorSamples > 1500, "50 Hz for 40 s")
        #expect(summary.adverts > 100)
        #expect(liveSeen.headings.count > 1500)
        #expect(!liveSeen.ranging.filter { !$0.isEmpty }.isEmpty)
        #expect(liveSeen.regions.contains { (e: BeaconRegionEvent) in e.kind == .enter || e.kind == .determined(.inside) }, "the walk passes the beacon: \(liveSeen.regions.map(\.kind))")

        let board = try Self.replayBoard(in: folder, log: "session.nmea")
        var replays: [Seen] = []
        for _ in 0..<2 {
            let engine = LocationEngine(board: board, platform: try ReplayEnginePlatform(board: board, clock: ManualClock()))
            replays.append(try Self.watch(engine, board: board, seconds: 40))
            engine.shutdown()
        }
        // Bit-identical: the samples are written with the digits that read back as the same
        // Double and their times to the nanosecond, and the replay runs the same code on them.
        #expect(replays[0].headings.count == liveSeen.headings.count)
        #expect(replays[0].headings == liveSeen.headings)
        #expect(replays[0].ranging == liveSeen.ranging)
        #expect(replays[0].regions == liveSeen.regions)
        #expect(replays[1] == replays[0])
        if let first = zip(replays[0].headings, liveSeen.headings).first(where: { $0 != $1 }) {
            Issue.record("first different heading: replay \(first.0) live \(first.1)")
        }
    }

    @Test("malformed SENSOR, ADVERT and RECORDING lines are refused with the file and line; version-1 files still load")
    func malformed() throws {
        let raw = Array("$GPGGA,1*00\r\n".utf8)
        let chunk = "{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":13}"
        let header = "{\"class\":\"RECORDING\",\"version\":2,\"board\":\"sim\"}"
        let good = header + "\n" + chunk
            + "\n{\"class\":\"SENSOR\",\"t\":0.52,\"acc\":[0.01,-0.02,0.99],\"gyro\":[0.1,0.2,-0.3],\"mag\":[20.5,-3.25,40]}"
            + "\n{\"class\":\"ADVERT\",\"t\":0.51,\"address\":\"C0:00:00:01:00:01\",\"random\":true,\"rssi\":-71,\"data\":\"0201061AFF4C000215\"}"
        let session = try RecordedSession.parse(raw: raw, events: good, eventsFile: "s.events.jsonl")
        #expect(session.version == 2)
        let sample = try #require(session.sensorSamples.first)
        #expect(session.sensorSamples.count == 1 && sample.t == 0.52 && sample.acceleration == SIMD3(0.01, -0.02, 0.99))
        #expect(sample.rotationRate == SIMD3(0.1, 0.2, -0.3) && sample.field == SIMD3(20.5, -3.25, 40))
        #expect(session.adverts.map(\.address.description) == ["C0:00:00:01:00:01"] && session.adverts.first?.rssi == -71)
        #expect(session.adverts.first?.data == [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15])
        // A file without the header is version 1 (recorded before raw samples were kept).
        #expect(try RecordedSession.parse(raw: raw, events: chunk, eventsFile: "old.events.jsonl").version == 1)
        let cases: [(String, String)] = [
            (chunk + "\n" + header, "s.events.jsonl:2: RECORDING: the header must be the file's first line"),
            ("{\"class\":\"RECORDING\",\"version\":5}\n" + chunk, "s.events.jsonl:1: RECORDING: format version 5 is newer than this fieldloc reads (4)"),
            ("{\"class\":\"RECORDING\",\"version\":\"two\"}\n" + chunk, "s.events.jsonl:1: RECORDING: key 'version' must be a number"),
            (chunk + "\n{\"class\":\"SENSOR\",\"t\":1,\"acc\":[1,2]}", "s.events.jsonl:2: SENSOR: key 'acc' must be a list of three numbers, found 2"),
            (chunk + "\n{\"class\":\"SENSOR\",\"t\":1,\"acc\":[1,\"x\",3]}", "s.events.jsonl:2: SENSOR: key 'acc' must be a list of three numbers"),
            (chunk + "\n{\"class\":\"SENSOR\",\"t\":1,\"mag\":[1,2,3]}", "s.events.jsonl:2: SENSOR: missing key 'acc'"),
            (chunk + "\n{\"class\":\"SENSOR\",\"t\":1,\"acc\":[1,2,3],\"gyro\":[1,2,3]}", "s.events.jsonl:2: SENSOR: key 'gyro' without 'mag'"),
            (chunk + "\n{\"class\":\"SENSOR\",\"t\":2,\"acc\":[1,2,3]}\n{\"class\":\"SENSOR\",\"t\":1,\"acc\":[1,2,3]}",
             "s.events.jsonl:3: SENSOR: t = 1.0 goes back before 2.0"),
            (chunk + "\n{\"class\":\"ADVERT\",\"t\":1,\"address\":\"C0:00:00:01:00\",\"data\":\"02\"}", "s.events.jsonl:2: ADVERT: key 'address' must be six hexadecimal bytes"),
            (chunk + "\n{\"class\":\"ADVERT\",\"t\":1,\"address\":\"C0:00:00:01:00:01\",\"data\":\"0201G6\"}",
             "s.events.jsonl:2: ADVERT: key 'data' is not hexadecimal bytes (at character 5 of 6)"),
            (chunk + "\n{\"class\":\"ADVERT\",\"t\":1,\"address\":\"C0:00:00:01:00:01\",\"data\":\"020\"}",
             "s.events.jsonl:2: ADVERT: key 'data' is not hexadecimal bytes (at character 4 of 3)"),
            (chunk + "\n{\"class\":\"ADVERT\",\"t\":1,\"address\":\"C0:00:00:01:00:01\",\"rssi\":-300,\"data\":\"02\"}",
             "s.events.jsonl:2: ADVERT: key 'rssi' must be a whole number of dBm"),
            (chunk + "\n{\"class\":\"ADVERT\",\"t\":1,\"address\":\"C0:00:00:01:00:01\",\"random\":\"yes\",\"data\":\"02\"}",
             "s.events.jsonl:2: ADVERT: key 'random' must be true or false"),
            (chunk + "\n{\"class\":\"ADVERT\",\"t\":1,\"address\":\"C0:00:00:01:00:01\"}", "s.events.jsonl:2: ADVERT: missing key 'data'"),
        ]
        expectRefused(raw: raw, cases)
        // A board that names sensors needs SENSOR lines: a version-1 recording says so, naming the file.
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(raw).write(to: URL(fileURLWithPath: folder + "/s.nmea"))
        try chunk.write(toFile: folder + "/s.nmea.events.jsonl", atomically: true, encoding: .utf8)
        let board = try Self.replayBoard(in: folder, log: "s.nmea")
        do {
            _ = try ReplayEnginePlatform(board: board)
            Issue.record("a board with sensors accepted a recording without SENSOR lines")
        } catch {
            #expect(error.description.contains("s.nmea.events.jsonl: no SENSOR lines"), "\(error.description)")
        }
        // Without [[sensor]] the same recording replays (its HEADING lines, none here).
        _ = try ReplayEnginePlatform(board: try Self.replayBoard(in: folder, log: "s.nmea", sensors: false))
    }

    @Test("SENSOR and ADVERT lines as written read back to the same values, bit for bit")
    func writtenLinesRoundTrip() throws {
        let start = MonotonicInstant(nanoseconds: 5_000_000_000)
        let sample = RawSensorSample(takenAt: start.advanced(by: .nanoseconds(1_234_567_891)),
                                     acceleration: SIMD3(0.1 + 0.2, -1.0 / 3.0, 9.999999999999e-1), rotationRate: SIMD3(1e-300, -0.0, 123.456),
                                     field: SIMD3(22.123456789012345, -4.5e-7, 41))
        let advert = RecordedAdvert(address: BluetoothAddress(rawValue: 0xC0_00_00_01_00_02, isRandom: true), rssi: -80, txPower: 4,
                                    isScanResponse: true, receivedAt: start.advanced(by: .milliseconds(1500)), data: [0x02, 0x01, 0x06, 0xFF])
        let raw = Array("$GPGGA,1*00\r\n".utf8)
        let events = RecordingEvents.header(board: "sim \"quoted\"")
            + RecordingEvents.chunk(at: .nanoseconds(1_000_000_001), offset: 0, length: 13)
            + RecordingEvents.sensor(sample, at: sample.takenAt - start)
            + RecordingEvents.advert(advert, at: advert.receivedAt - start)
        #expect(RecordingEvents.advert(advert, at: advert.receivedAt - start)
                == "{\"class\":\"ADVERT\",\"t\":1.500000000,\"address\":\"C0:00:00:01:00:02\",\"random\":true,\"rssi\":-80,\"tx_power\":4,\"scan_response\":true,\"data\":\"020106FF\"}\n")
        let session = try RecordedSession.parse(raw: raw, events: events, eventsFile: "s.events.jsonl")
        #expect(session.chunks.first?.t == 1.000000001)
        let back = try #require(session.sensorSamples.first)
        #expect(back.t == 1.234567891)
        #expect(back.acceleration == sample.acceleration && back.rotationRate == sample.rotationRate && back.field == sample.field)
        #expect(back.rotationRate?.y.sign == .minus)
        let a = try #require(session.adverts.first)
        #expect(a.address == advert.address && a.rssi == -80 && a.txPower == 4 && a.isScanResponse && a.data == advert.data && a.t == 1.5)
    }
}
